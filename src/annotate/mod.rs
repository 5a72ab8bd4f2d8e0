//! Annotation: one annotator's independent judgment of one row, kept as append-only events.
//!
//! Every change is an event (annotator, time, field, old value, new value) in
//! `annotation_events`; the current annotation is the fold of the row's suggestions (what the
//! annotator saw pre-filled) and those events, cached in `annotations` in the same transaction
//! as each event. Undo is a new event restoring the old value, so it survives restarts. A change
//! is acknowledged only after its transaction commits with `synchronous=FULL`.
//!
//! What the annotator starts from depends on the project's [`SuggestionMode`]: pre-filled
//! suggestions stay *suggested* (listed in [`Annotation::suggested`]) until the annotator
//! confirms them ([`confirm`], origin `confirm`) or changes them, and an accept cannot finish
//! while any is. Every event records the mode in force when it was made.
//!
//! To add an annotation field: a variant in [`Field`], a column in `annotations`, and its rule in
//! [`Annotation::problems`].

use rusqlite::{params, OptionalExtension, Transaction};
use serde::Serialize;
use ts_rs::TS;

mod batch;
mod fields;
mod import;
mod queue;
pub(crate) mod stored;
mod view;

pub use fields::*;
pub use import::{import_jsonl, AnnotationImportReport};
pub use queue::{next_open, queue, queue_page, QueuePage, QueueQuery, QueueRow, QUEUE_PAGE_MAX};
pub use view::{row_view, AnnotateRow};

use crate::candidate::{self, Candidate};
use crate::error::{Error, Result};
use crate::project::{now, Project};
use crate::roster;
use crate::settings::SuggestionMode;
use crate::vocab::{Axis, BoundaryType, Decision};
/// Whether suggested axis and severity are shown (and so pre-filled) to annotators in this
/// project: false in a workspace opened from a strictly blinded packet.
pub(crate) fn shows_axis_severity(tx: &rusqlite::Connection) -> Result<bool> {
    Ok(tx
        .query_row("SELECT blinding FROM workspace WHERE singleton = 1", [], |r| r.get::<_, String>(0))
        .optional()?
        .is_none_or(|b| b != "strict"))
}

/// Loads the current annotation from the events (the authoritative fold).
///
/// A field is still suggested while its latest event is the pre-fill of a `prefilled`-mode
/// suggestion; any other event on it confirms it, and an undo gives the field back the state it
/// had before the event it undoes. Pre-fills recorded before suggestion modes existed (mode
/// NULL) were accepted unconfirmed then and stay so.
pub(crate) fn fold(tx: &rusqlite::Connection, c: &Candidate, annotator_id: i64, annotator: &str) -> Result<Annotation> {
    fold_with(tx, c, annotator_id, annotator, crate::settings::suggestion_mode(tx)?, None, true)
}

/// [`fold`] with the project's suggestion mode (and whether axis and severity are shown, when
/// known) already read, as a step over many rows reads them once for all. `undo`: also work out
/// whether the annotator can undo (`can_undo`); a step that only stores the annotation (a merge)
/// leaves it out, since only a view shows it and it is a second walk of the row's events.
pub(crate) fn fold_with(
    tx: &rusqlite::Connection,
    c: &Candidate,
    annotator_id: i64,
    annotator: &str,
    mode: SuggestionMode,
    shows: Option<bool>,
    undo: bool,
) -> Result<Annotation> {
    let mut a = Annotation::empty(c, annotator);
    a.suggestion_mode = mode;
    let mut stmt = tx.prepare_cached(concat!(
        "SELECT e.id, e.field, ",
        stored::new_value_sql!(),
        ", e.origin, e.suggestion_mode, e.undoes, e.field_set FROM annotation_events e
         LEFT JOIN candidates sc ON sc.id = e.candidate_id AND e.from_suggestion = 1
         WHERE e.candidate_id = ?1 AND e.annotator_id = ?2 ORDER BY e.id"
    ))?;
    let mut rows = stmt.query(params![c.id, annotator_id])?;
    let mut suggested: std::collections::HashSet<Field> = std::collections::HashSet::new();
    // Whether each field was suggested before each event on it, by (event id, field): the events a
    // record stands for share its id, and an undo names the field it takes back.
    let mut suggested_before: std::collections::HashMap<(i64, Field), bool> = std::collections::HashMap::new();
    let suggestion = stored::Suggested::from(c);
    while let Some(r) = rows.next()? {
        let (id, field, value): (i64, String, Option<String>) = (r.get(0)?, r.get(1)?, r.get(2)?);
        let (origin, event_mode, undoes): (String, Option<String>, Option<i64>) = (r.get(3)?, r.get(4)?, r.get(5)?);
        // A record is read as the events it stands for.
        let expanded: Vec<(Field, Option<String>)> = match r.get::<_, Option<i64>>(6)? {
            Some(bits) => stored::members(&origin, bits, &suggestion).into_iter().map(|(f, _, v)| (f, v)).collect(),
            None => vec![(field.parse().map_err(Error::Corrupt)?, value)],
        };
        for (field, value) in expanded {
            a.apply(field, value.as_deref()).map_err(Error::Corrupt)?;
            a.events += 1;
            suggested_before.insert((id, field), suggested.contains(&field));
            let still = match undoes {
                Some(target) => suggested_before.get(&(target, field)).copied().unwrap_or(false),
                None => {
                    origin == "prefill"
                        && event_mode.as_deref() == Some(SuggestionMode::Prefilled.as_str())
                        && value.is_some()
                        && SUGGESTED_FIELDS.contains(&field)
                }
            };
            if still {
                suggested.insert(field);
            } else {
                suggested.remove(&field);
            }
        }
    }
    a.suggested = SUGGESTED_FIELDS.iter().copied().filter(|f| suggested.contains(f)).collect();
    a.seconds_spent = tx
        .prepare_cached("SELECT seconds_spent FROM annotations WHERE candidate_id = ?1 AND annotator_id = ?2")?
        .query_row(params![c.id, annotator_id], |r| r.get(0))
        .optional()?
        .unwrap_or(0.0);
    if a.events == 0 {
        // Not started: show the suggestions pre-filled (they are recorded on the first change).
        let shows = match shows {
            Some(shows) => shows,
            None => shows_axis_severity(tx)?,
        };
        let mut shown = Annotation::starting(c, annotator, mode, shows);
        shown.seconds_spent = a.seconds_spent;
        return Ok(shown);
    }
    a.can_undo = undo && undo_target(tx, c, annotator_id)?.is_some();
    a.refresh(&c.passage);
    Ok(a)
}

/// The latest change not yet undone (undo events themselves are not undone; there is no redo):
/// its event id, field and old value. Of a record of confirmations, the last field not yet taken
/// back (an undo names the field), so `y` is undone a field at a time, as its events were.
fn undo_target(
    tx: &rusqlite::Connection,
    c: &Candidate,
    annotator_id: i64,
) -> Result<Option<(i64, String, Option<String>)>> {
    let mut stmt = tx.prepare_cached(concat!(
        "SELECT e.id, e.field, ",
        stored::old_value_sql!(),
        ", e.field_set, e.origin, (SELECT group_concat(u.field) FROM annotation_events u WHERE u.undoes = e.id)
         FROM annotation_events e
         LEFT JOIN candidates sc ON sc.id = e.candidate_id AND e.from_suggestion = 1
         WHERE e.candidate_id = ?1 AND e.annotator_id = ?2 AND e.undoes IS NULL AND e.origin <> 'prefill'
         ORDER BY e.id DESC"
    ))?;
    let mut rows = stmt.query(params![c.id, annotator_id])?;
    while let Some(r) = rows.next()? {
        let undone: Option<String> = r.get(5)?;
        let Some(bits) = r.get::<_, Option<i64>>(3)? else {
            if undone.is_none() {
                return Ok(Some((r.get(0)?, r.get(1)?, r.get(2)?)));
            }
            continue;
        };
        let undone: Vec<&str> = undone.as_deref().map(|u| u.split(',').collect()).unwrap_or_default();
        let origin: String = r.get(4)?;
        let left =
            stored::members(&origin, bits, &c.into()).into_iter().rev().find(|(f, ..)| !undone.contains(&f.as_str()));
        if let Some((field, old, _)) = left {
            return Ok(Some((r.get(0)?, field.as_str().to_string(), old)));
        }
    }
    Ok(None)
}

/// A new event's uid, unique across workspaces and projects (packet merge keeps an event once per
/// uid): a uuid v7, whose leading timestamp makes each new uid sort after the last, so the unique
/// index on uids grows at its end. With random (v4) uids every insert touched a random page of an
/// The id of the last annotation event, 0 when there is none. Every change to an annotation is
/// an event and event ids only grow, so what a reader built from the annotations is up to date
/// while this is unchanged, and [`rows_with_events`] names what changed since.
pub(crate) fn last_event_id(conn: &rusqlite::Connection) -> Result<i64> {
    Ok(conn.prepare_cached("SELECT coalesce(max(id), 0) FROM annotation_events")?.query_row([], |r| r.get(0))?)
}

/// The rows with an annotation event after event `since` up to event `until` (of one annotator,
/// or of anyone), each once and sorted: every annotation changed between the two. Read by the
/// event table's key range and deduplicated here; a `DISTINCT` could be planned as a walk of the
/// whole row index (1-3 s at 1M rows).
pub(crate) fn rows_with_events(
    conn: &rusqlite::Connection,
    since: i64,
    until: i64,
    annotator: Option<i64>,
) -> Result<Vec<String>> {
    let mut ids: Vec<String> = conn
        .prepare_cached(
            "SELECT candidate_id FROM annotation_events
             WHERE id > ?1 AND id <= ?2 AND (?3 IS NULL OR annotator_id = ?3)",
        )?
        .query_map(params![since, until, annotator], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    ids.sort_unstable();
    ids.dedup();
    Ok(ids)
}

/// index that outgrows the page cache. Events written before keep their v4 uids.
pub(crate) fn new_event_uid() -> String {
    uuid::Uuid::now_v7().to_string()
}

#[allow(clippy::too_many_arguments)]
fn insert_event(
    tx: &rusqlite::Connection,
    candidate_id: &str,
    annotator_id: i64,
    field: Field,
    old: Option<&str>,
    new: Option<&str>,
    origin: &str,
    packet_return: Option<i64>,
    mode: SuggestionMode,
) -> Result<i64> {
    let guideline = crate::guideline::current_label(tx)?;
    insert_event_with(tx, candidate_id, annotator_id, field, old, new, origin, packet_return, mode, &guideline)
}

/// [`insert_event`] with the guideline version in force already read.
#[allow(clippy::too_many_arguments)]
fn insert_event_with(
    tx: &rusqlite::Connection,
    candidate_id: &str,
    annotator_id: i64,
    field: Field,
    old: Option<&str>,
    new: Option<&str>,
    origin: &str,
    packet_return: Option<i64>,
    mode: SuggestionMode,
    guideline: &str,
) -> Result<i64> {
    // A pre-fill or confirmation holding only the row's suggestion is written as a mark (stored.rs).
    tx.prepare_cached(concat!(
        "INSERT INTO annotation_events (candidate_id, annotator_id, field, old_value, new_value, at, origin, packet_return_id, uid,
             suggestion_mode, guideline_version, from_suggestion)
         SELECT ?1, ?2, ?3, iif(k, NULL, ?4), iif(k, NULL, ?5), ?6, ?7, ?8, ?9, ?10, ?11, iif(k, 1, NULL)
         FROM (SELECT ",
        stored::from_suggestion_sql!("?1", "?3", "?4", "?5", "?7"),
        " AS k)"
    ))?
    .execute(params![
        candidate_id,
        annotator_id,
        field.as_str(),
        old,
        new,
        now(),
        origin,
        packet_return,
        stored::StoredUid(&new_event_uid()),
        mode.as_str(),
        guideline
    ])?;
    Ok(tx.last_insert_rowid())
}

/// Rewrites the cache row from an annotation; a row stored before keeps its time spent, which
/// only its own statement adds to.
pub(crate) fn store(
    tx: &rusqlite::Connection,
    a: &Annotation,
    annotator_id: i64,
    last_event: Option<i64>,
) -> Result<()> {
    store_row(tx, a, annotator_id, last_event, false)
}

/// [`store`]; `with_time`: also set the time spent to the annotation's (a merged return states
/// the whole time spent on the row).
pub(crate) fn store_row(
    tx: &rusqlite::Connection,
    a: &Annotation,
    annotator_id: i64,
    last_event: Option<i64>,
    with_time: bool,
) -> Result<()> {
    tx.prepare_cached(
        "INSERT INTO annotations (candidate_id, annotator_id, decision, evidence_span, span_start, span_end,
             calibrated_claim, raised_claim, axis, severity, boundary_type, repair, notes, finished,
             seconds_spent, last_event_id, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
         ON CONFLICT (candidate_id, annotator_id) DO UPDATE SET
             decision = excluded.decision, evidence_span = excluded.evidence_span,
             span_start = excluded.span_start, span_end = excluded.span_end,
             calibrated_claim = excluded.calibrated_claim, raised_claim = excluded.raised_claim,
             axis = excluded.axis, severity = excluded.severity, boundary_type = excluded.boundary_type,
             repair = excluded.repair, notes = excluded.notes, finished = excluded.finished,
             seconds_spent = iif(?18, excluded.seconds_spent, annotations.seconds_spent),
             last_event_id = coalesce(excluded.last_event_id, annotations.last_event_id),
             updated_at = excluded.updated_at",
    )?
    .execute(params![
        a.candidate_id,
        annotator_id,
        a.decision.map(Decision::as_str),
        a.evidence_span.as_ref().map(|s| s.text.clone()),
        a.evidence_span.as_ref().map(|s| s.start),
        a.evidence_span.as_ref().map(|s| s.end),
        a.calibrated_claim,
        a.raised_claim,
        a.axis.map(Axis::as_str),
        a.severity,
        a.boundary_type.map(BoundaryType::as_str),
        a.repair,
        a.notes,
        a.finished,
        a.seconds_spent,
        last_event,
        now(),
        with_time,
    ])?;
    Ok(())
}

/// Looks up an assigned annotator of a row: their id, or an error naming who is assigned.
fn assigned_annotator(tx: &rusqlite::Connection, candidate_id: &str, annotator: &str) -> Result<i64> {
    let id: Option<i64> = tx
        .prepare_cached(
            "SELECT a.id FROM annotators a JOIN assignments s ON s.annotator_id = a.id
             WHERE s.candidate_id = ?1 AND a.name = ?2",
        )?
        .query_row(params![candidate_id, annotator.trim()], |r| r.get(0))
        .optional()?;
    id.ok_or_else(|| Error::NotAssigned(format!("`{}` is not assigned to row `{candidate_id}`", annotator.trim())))
}

/// Sets one field inside an open transaction; returns the new annotation (unchanged values write
/// no event).
pub(crate) fn set_in(
    tx: &Transaction,
    c: &Candidate,
    annotator: &str,
    field: Field,
    value: Option<&str>,
    origin: Origin,
) -> Result<Annotation> {
    let annotator_id = assigned_annotator(tx, &c.id, annotator)?;
    crate::rowstate::guard_labels(tx, &c.id)?;
    let value = normalise(field, value, &c.passage)
        .map_err(|e| Error::InvalidArgument(format!("row `{}`, field `{}`: {e}", c.id, field.as_str())))?;
    let mut current = fold(tx, c, annotator_id, annotator)?;
    let old = current.stored(field);
    let suggested = current.suggested.contains(&field);
    if old == value && !suggested {
        return Ok(current);
    }
    if current.events == 0 {
        current = record_start(tx, c, annotator_id, current)?;
    }
    // Choosing the suggested value itself confirms the field: a `confirm` event, as `y` in the view writes.
    let origin_name = if old == value { "confirm" } else { origin.name() };
    let event = insert_event(
        tx,
        &c.id,
        annotator_id,
        field,
        old.as_deref(),
        value.as_deref(),
        origin_name,
        origin.packet_return(),
        current.suggestion_mode,
    )?;
    current.apply(field, value.as_deref()).map_err(Error::InvalidArgument)?;
    current.suggested.retain(|f| *f != field);
    current.events += 1;
    current.can_undo = true;
    current.refresh(&c.passage);
    store(tx, &current, annotator_id, Some(event))?;
    Ok(current)
}

/// Records what the annotator was shown before their first change (`prefill` events), so the
/// annotation is the fold of its events alone (and a packet's blinding and mode travel with
/// them). Returns the annotation as recorded, its suggestions still unconfirmed.
fn record_start(tx: &rusqlite::Connection, c: &Candidate, annotator_id: i64, shown: Annotation) -> Result<Annotation> {
    record_start_with(tx, c, annotator_id, shown, &crate::guideline::current_label(tx)?)
}

/// [`record_start`] with the guideline version in force already read.
fn record_start_with(
    tx: &rusqlite::Connection,
    c: &Candidate,
    annotator_id: i64,
    shown: Annotation,
    guideline: &str,
) -> Result<Annotation> {
    let mut current = Annotation::empty(c, &shown.annotator);
    current.suggestion_mode = shown.suggestion_mode;
    current.seconds_spent = shown.seconds_spent;
    // One record, where every field shown is the row's own suggestion (always, unless a
    // span the drafter gave is found in the passage other than by its first occurrence).
    let shown_fields: Vec<(Field, String)> =
        Field::ALL.iter().filter_map(|f| shown.stored(*f).map(|v| (*f, v))).collect();
    let bits = stored::record_bits(shown_fields.iter().map(|(f, v)| (*f, Some(v.as_str()))), &c.into());
    if let Some(bits) = bits.filter(|b| *b != 0) {
        stored::insert_record(
            tx,
            "prefill",
            &c.id,
            annotator_id,
            bits,
            &now(),
            &new_event_uid(),
            shown.suggestion_mode,
            guideline,
            None,
        )?;
        for (f, v) in &shown_fields {
            current.apply(*f, Some(v)).map_err(Error::Corrupt)?;
            current.events += 1;
        }
        current.suggested = shown.suggested;
        return Ok(current);
    }
    for f in Field::ALL {
        if let Some(v) = shown.stored(*f) {
            insert_event_with(
                tx,
                &c.id,
                annotator_id,
                *f,
                None,
                Some(&v),
                "prefill",
                None,
                shown.suggestion_mode,
                guideline,
            )?;
            current.apply(*f, Some(&v)).map_err(Error::Corrupt)?;
            current.events += 1;
        }
    }
    current.suggested = shown.suggested;
    Ok(current)
}

/// Writes the confirmation of every field `current` still shows suggested, and takes them off its
/// list: one record when two or more are (each the row's suggestion, as a suggested field always
/// is), else one `confirm` event per field. Returns the last event written.
pub(crate) fn confirm_suggested(
    tx: &rusqlite::Connection,
    c: &Candidate,
    annotator_id: i64,
    current: &mut Annotation,
    guideline: &str,
) -> Result<Option<i64>> {
    let fields = std::mem::take(&mut current.suggested);
    let values: Vec<Option<String>> = fields.iter().map(|f| current.stored(*f)).collect();
    let bits = stored::record_bits(fields.iter().zip(&values).map(|(f, v)| (*f, v.as_deref())), &c.into());
    let mut last = None;
    if let Some(bits) = bits.filter(|_| fields.len() > 1) {
        let uid = new_event_uid();
        stored::insert_record(
            tx,
            "confirm",
            &c.id,
            annotator_id,
            bits,
            &now(),
            &uid,
            current.suggestion_mode,
            guideline,
            None,
        )?;
        last = Some(tx.last_insert_rowid());
        current.events += fields.len() as i64;
    } else {
        for field in fields {
            let value = current.stored(field);
            last = Some(insert_event_with(
                tx,
                &c.id,
                annotator_id,
                field,
                value.as_deref(),
                value.as_deref(),
                "confirm",
                None,
                current.suggestion_mode,
                guideline,
            )?);
            current.events += 1;
        }
    }
    Ok(last)
}

/// Confirms every field still showing an unconfirmed suggestion inside an open transaction: one
/// `confirm` event per field, its value unchanged. Writes nothing when none is.
pub(crate) fn confirm_in(tx: &Transaction, c: &Candidate, annotator: &str) -> Result<Annotation> {
    let annotator_id = assigned_annotator(tx, &c.id, annotator)?;
    let mut current = fold(tx, c, annotator_id, annotator)?;
    if current.suggested.is_empty() {
        return Ok(current);
    }
    crate::rowstate::guard_labels(tx, &c.id)?;
    if current.events == 0 {
        current = record_start(tx, c, annotator_id, current)?;
    }
    let last = confirm_suggested(tx, c, annotator_id, &mut current, &crate::guideline::current_label(tx)?)?;
    current.can_undo = true;
    current.refresh(&c.passage);
    store(tx, &current, annotator_id, last)?;
    Ok(current)
}

/// Confirms all the suggested fields shown on a row (the annotate view's `y`), durably. The
/// fields confirmed are the `suggested` of the annotation before; the result lists none.
pub fn confirm(project: &mut Project, candidate_id: &str, annotator: &str) -> Result<Annotation> {
    let candidate_id: &str = &crate::input::id_key(candidate_id)?;
    let annotator: &str = &crate::input::name_key(annotator)?;
    let c = candidate::find_in(project.conn(), candidate_id)?
        .ok_or_else(|| Error::CandidateNotFound(candidate_id.into()))?;
    let tx = project.conn_mut().transaction()?;
    let a = confirm_in(&tx, &c, annotator)?;
    tx.commit()?;
    Ok(a)
}

/// Sets one field of one annotator's annotation, durably (returns after the commit).
pub fn set_field(
    project: &mut Project,
    candidate_id: &str,
    annotator: &str,
    field: Field,
    value: Option<&str>,
) -> Result<Annotation> {
    let candidate_id: &str = &crate::input::id_key(candidate_id)?;
    let annotator: &str = &crate::input::name_key(annotator)?;
    let c = candidate::find_in(project.conn(), candidate_id)?
        .ok_or_else(|| Error::CandidateNotFound(candidate_id.into()))?;
    let tx = project.conn_mut().transaction()?;
    let a = set_in(&tx, &c, annotator, field, value, Origin::App)?;
    tx.commit()?;
    Ok(a)
}

/// Reverts the annotator's latest change on this row that is not yet undone, as a new event.
/// Returns the annotation after the undo (unchanged when there is nothing to undo).
pub fn undo(project: &mut Project, candidate_id: &str, annotator: &str) -> Result<Annotation> {
    let candidate_id: &str = &crate::input::id_key(candidate_id)?;
    let annotator: &str = &crate::input::name_key(annotator)?;
    let c = candidate::find_in(project.conn(), candidate_id)?
        .ok_or_else(|| Error::CandidateNotFound(candidate_id.into()))?;
    let tx = project.conn_mut().transaction()?;
    let annotator_id = assigned_annotator(&tx, candidate_id, annotator)?;
    crate::rowstate::guard_labels(&tx, candidate_id)?;
    let Some((target, field, old)) = undo_target(&tx, &c, annotator_id)? else {
        return fold(&tx, &c, annotator_id, annotator);
    };
    let before = fold(&tx, &c, annotator_id, annotator)?;
    let field: Field = field.parse().map_err(Error::Corrupt)?;
    tx.execute(
        "INSERT INTO annotation_events (candidate_id, annotator_id, field, old_value, new_value, at, origin, undoes, uid, suggestion_mode,
             guideline_version)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'app', ?7, ?8, ?9, ?10)",
        params![
            candidate_id,
            annotator_id,
            field.as_str(),
            before.stored(field),
            old,
            now(),
            target,
            stored::StoredUid(&new_event_uid()),
            before.suggestion_mode.as_str(),
            crate::guideline::current_label(&tx)?
        ],
    )?;
    let event = tx.last_insert_rowid();
    // Folded again: undoing a confirmation gives the field back its suggested mark.
    let current = fold(&tx, &c, annotator_id, annotator)?;
    store(&tx, &current, annotator_id, Some(event))?;
    tx.commit()?;
    Ok(current)
}

/// Adds time spent on a row (seconds, from the view's focus timer). Time spent looking at a row
/// that a locked split freezes is not annotation time: it is not recorded (the row's exported
/// `seconds_spent` stays as locked), and the call succeeds so that the view's timer can keep
/// reporting without an error each time the annotator leaves such a row.
pub fn add_time(project: &mut Project, candidate_id: &str, annotator: &str, seconds: f64) -> Result<()> {
    let candidate_id: &str = &crate::input::id_key(candidate_id)?;
    let annotator: &str = &crate::input::name_key(annotator)?;
    if !(0.0..=86_400.0).contains(&seconds) {
        return Err(Error::InvalidArgument(format!("time spent {seconds} s is out of range")));
    }
    let c = candidate::find_in(project.conn(), candidate_id)?
        .ok_or_else(|| Error::CandidateNotFound(candidate_id.into()))?;
    let tx = project.conn_mut().transaction()?;
    let annotator_id = assigned_annotator(&tx, candidate_id, annotator)?;
    if matches!(crate::rowstate::guard(&tx, candidate_id), Err(Error::SplitLocked { .. })) {
        return Ok(());
    }
    let current = fold(&tx, &c, annotator_id, annotator)?;
    store(&tx, &current, annotator_id, None)?;
    tx.execute(
        "UPDATE annotations SET seconds_spent = seconds_spent + ?1 WHERE candidate_id = ?2 AND annotator_id = ?3",
        params![seconds, candidate_id, annotator_id],
    )?;
    tx.commit()?;
    Ok(())
}

/// The annotator's current annotation of a row (the suggestions if they have not started).
pub fn get(project: &Project, candidate_id: &str, annotator: &str) -> Result<Annotation> {
    let candidate_id: &str = &crate::input::id_key(candidate_id)?;
    let annotator: &str = &crate::input::name_key(annotator)?;
    let c = candidate::find_in(project.conn(), candidate_id)?
        .ok_or_else(|| Error::CandidateNotFound(candidate_id.into()))?;
    let annotator_id = assigned_annotator(project.conn(), candidate_id, annotator)?;
    fold(project.conn(), &c, annotator_id, annotator)
}

/// One change as stored, for history views and exports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct AnnotationEvent {
    #[ts(type = "number")]
    pub id: i64,
    pub candidate_id: String,
    pub annotator: String,
    pub field: String,
    pub old_value: Option<String>,
    pub new_value: Option<String>,
    pub at: String,
    pub origin: String,
    #[ts(type = "number | null")]
    pub undoes: Option<i64>,
}

/// Every change one annotator made to one row, oldest first.
pub fn history(project: &Project, candidate_id: &str, annotator: &str) -> Result<Vec<AnnotationEvent>> {
    let candidate_id: &str = &crate::input::id_key(candidate_id)?;
    let annotator: &str = &crate::input::name_key(annotator)?;
    let who = roster::require(project, annotator)?;
    let mut stmt = project.conn().prepare(concat!(
        "SELECT e.id, e.candidate_id, e.field, ",
        stored::old_value_sql!(),
        ", ",
        stored::new_value_sql!(),
        ", e.at, e.origin, e.undoes, e.field_set FROM annotation_events e
         LEFT JOIN candidates sc ON sc.id = e.candidate_id AND e.from_suggestion = 1
         WHERE e.candidate_id = ?1 AND e.annotator_id = ?2 ORDER BY e.id"
    ))?;
    let rows = stmt.query_map(params![candidate_id, who.id], |r| {
        Ok((
            AnnotationEvent {
                id: r.get(0)?,
                candidate_id: r.get(1)?,
                annotator: who.name.clone(),
                field: r.get(2)?,
                old_value: r.get(3)?,
                new_value: r.get(4)?,
                at: r.get(5)?,
                origin: r.get(6)?,
                undoes: r.get(7)?,
            },
            r.get::<_, Option<i64>>(8)?,
        ))
    })?;
    let mut events = Vec::new();
    let mut candidate = None;
    for row in rows {
        let (event, start) = row?;
        let Some(bits) = start else {
            events.push(event);
            continue;
        };
        // A record is listed as the events it stands for, each under the record's id.
        let c = match &candidate {
            Some(c) => c,
            None => candidate.insert(
                candidate::find_in(project.conn(), candidate_id)?
                    .ok_or_else(|| Error::CandidateNotFound(candidate_id.into()))?,
            ),
        };
        for (f, old_value, new_value) in stored::members(&event.origin, bits, &c.into()) {
            events.push(AnnotationEvent { field: f.as_str().to_string(), old_value, new_value, ..event.clone() });
        }
    }
    Ok(events)
}
