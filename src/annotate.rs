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
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::candidate::{self, Candidate};
use crate::error::{Error, Result};
use crate::import::InputProblem;
use crate::project::{now, Project};
use crate::roster;
use crate::settings::SuggestionMode;
use crate::vocab::{Axis, BoundaryType, Decision, SEVERITIES};
use std::path::Path;

/// The fields an annotator writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Field {
    Decision,
    EvidenceSpan,
    CalibratedClaim,
    RaisedClaim,
    Axis,
    Severity,
    BoundaryType,
    Repair,
    Notes,
}

impl Field {
    pub const ALL: &'static [Field] = &[
        Field::Decision,
        Field::EvidenceSpan,
        Field::CalibratedClaim,
        Field::RaisedClaim,
        Field::Axis,
        Field::Severity,
        Field::BoundaryType,
        Field::Repair,
        Field::Notes,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Field::Decision => "decision",
            Field::EvidenceSpan => "evidence_span",
            Field::CalibratedClaim => "calibrated_claim",
            Field::RaisedClaim => "raised_claim",
            Field::Axis => "axis",
            Field::Severity => "severity",
            Field::BoundaryType => "boundary_type",
            Field::Repair => "repair",
            Field::Notes => "notes",
        }
    }
}

/// The fields the drafter suggests and an annotator must confirm or change in `prefilled` mode.
/// The two claims are the row under test, not suggestions; candidates carry no boundary type.
pub const SUGGESTED_FIELDS: &[Field] = &[Field::EvidenceSpan, Field::Axis, Field::Severity, Field::Repair];

impl Field {
    /// The field's short name for people ("span", "axis"...).
    pub fn label(self) -> &'static str {
        match self {
            Field::EvidenceSpan => "span",
            Field::CalibratedClaim => "calibrated claim",
            Field::RaisedClaim => "raised claim",
            Field::BoundaryType => "boundary type",
            other => other.as_str(),
        }
    }
}

/// "a", "a and b", "a, b and c".
pub fn join_and(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

impl std::str::FromStr for Field {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        Field::ALL.iter().copied().find(|f| f.as_str() == s).ok_or_else(|| {
            let names: Vec<_> = Field::ALL.iter().map(|f| f.as_str()).collect();
            format!("`{s}` is not an annotation field ({})", names.join(", "))
        })
    }
}

/// A span of the passage: the verbatim text and its byte offsets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Span {
    pub text: String,
    pub start: u32,
    pub end: u32,
}

impl Span {
    /// The text of a stored span value: spans are stored as `{text, start, end}` JSON; a value
    /// that is not (plain text) is its own text.
    pub fn text_of(stored: &str) -> std::borrow::Cow<'_, str> {
        match serde_json::from_str::<Span>(stored) {
            Ok(span) => span.text.into(),
            Err(_) => stored.into(),
        }
    }

    /// The span for `text` at its first occurrence in `passage`.
    pub fn find(passage: &str, text: &str) -> Option<Span> {
        passage.find(text).map(|start| Span {
            text: text.to_string(),
            start: start as u32,
            end: (start + text.len()) as u32,
        })
    }

    /// Checks that the span is non-empty and that `passage[start..end]` is exactly its text.
    pub fn check(&self, passage: &str) -> std::result::Result<(), String> {
        if self.text.trim().is_empty() {
            return Err("the evidence span is empty".into());
        }
        match passage.get(self.start as usize..self.end as usize) {
            Some(found) if found == self.text => Ok(()),
            _ if passage.contains(&self.text) => Err(format!(
                "the evidence span's offsets {}..{} do not point at its text in the passage",
                self.start, self.end
            )),
            _ => Err("the evidence span is not a verbatim substring of the passage".into()),
        }
    }
}

/// One annotator's current annotation of one row.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Annotation {
    pub candidate_id: String,
    pub annotator: String,
    pub decision: Option<Decision>,
    pub evidence_span: Option<Span>,
    pub calibrated_claim: Option<String>,
    pub raised_claim: Option<String>,
    pub axis: Option<Axis>,
    pub severity: Option<u8>,
    pub boundary_type: Option<BoundaryType>,
    pub repair: Option<String>,
    pub notes: Option<String>,
    /// The decision is set and every field it needs is valid.
    pub finished: bool,
    /// What stops the annotation from being finished, for people.
    pub problems: Vec<String>,
    pub seconds_spent: f64,
    /// Number of events behind this annotation.
    #[ts(type = "number")]
    pub events: i64,
    /// Whether there is a change that `undo` would revert.
    pub can_undo: bool,
    /// Fields still holding the drafter's suggestion unconfirmed (`prefilled` mode), in
    /// [`SUGGESTED_FIELDS`] order: an accept cannot finish while any is listed. Confirming
    /// ([`confirm`]) or changing a field takes it off.
    pub suggested: Vec<Field>,
    /// The suggestion mode of the project (or the workspace's packet).
    pub suggestion_mode: SuggestionMode,
}

impl Annotation {
    /// The drafter's suggestions as one annotation (for the adjudicator's side-by-side view).
    pub(crate) fn prefilled(c: &Candidate, annotator: &str, show_axis_severity: bool) -> Annotation {
        let mut a = Annotation::starting(c, annotator, SuggestionMode::Prefilled, show_axis_severity);
        a.suggested.clear();
        a.refresh(&c.passage);
        a
    }

    /// What an annotator starts from in `mode`: the two claims (the row under test) always; in
    /// `prefilled` mode also the suggested span, axis and severity (unless blinding hides them)
    /// and repair, each listed in `suggested` until confirmed or changed.
    pub(crate) fn starting(
        c: &Candidate,
        annotator: &str,
        mode: SuggestionMode,
        show_axis_severity: bool,
    ) -> Annotation {
        let mut a = Annotation::empty(c, annotator);
        a.suggestion_mode = mode;
        a.calibrated_claim = Some(c.calibrated_claim.clone());
        a.raised_claim = Some(c.raised_claim.clone());
        if mode == SuggestionMode::Prefilled {
            a.evidence_span = c.evidence_span.as_deref().and_then(|t| Span::find(&c.passage, t));
            a.axis = if show_axis_severity { c.axis } else { None };
            a.severity = if show_axis_severity { c.severity } else { None };
            a.repair = c.repair.clone().filter(|r| !r.trim().is_empty());
            a.suggested = SUGGESTED_FIELDS.iter().copied().filter(|f| a.stored(*f).is_some()).collect();
        }
        a.refresh(&c.passage);
        a
    }

    pub(crate) fn empty(c: &Candidate, annotator: &str) -> Annotation {
        Annotation {
            candidate_id: c.id.clone(),
            annotator: annotator.to_string(),
            decision: None,
            evidence_span: None,
            calibrated_claim: None,
            raised_claim: None,
            axis: None,
            severity: None,
            boundary_type: None,
            repair: None,
            notes: None,
            finished: false,
            problems: Vec::new(),
            seconds_spent: 0.0,
            events: 0,
            can_undo: false,
            suggested: Vec::new(),
            suggestion_mode: SuggestionMode::Prefilled,
        }
    }

    /// Applies one stored value (already validated) to a field.
    pub(crate) fn apply(&mut self, field: Field, value: Option<&str>) -> std::result::Result<(), String> {
        let text = value.map(str::to_string);
        match field {
            Field::Decision => self.decision = value.map(str::parse).transpose()?,
            Field::EvidenceSpan => {
                self.evidence_span = value.map(serde_json::from_str).transpose().map_err(|e| e.to_string())?
            }
            Field::CalibratedClaim => self.calibrated_claim = text,
            Field::RaisedClaim => self.raised_claim = text,
            Field::Axis => self.axis = value.map(str::parse).transpose()?,
            Field::Severity => self.severity = value.map(parse_severity).transpose()?,
            Field::BoundaryType => self.boundary_type = value.map(str::parse).transpose()?,
            Field::Repair => self.repair = text,
            Field::Notes => self.notes = text,
        }
        Ok(())
    }

    /// The stored (event) form of a field's current value.
    pub(crate) fn stored(&self, field: Field) -> Option<String> {
        match field {
            Field::Decision => self.decision.map(|d| d.as_str().to_string()),
            Field::EvidenceSpan => {
                self.evidence_span.as_ref().map(|s| serde_json::to_string(s).expect("span serialises"))
            }
            Field::CalibratedClaim => self.calibrated_claim.clone(),
            Field::RaisedClaim => self.raised_claim.clone(),
            Field::Axis => self.axis.map(|a| a.as_str().to_string()),
            Field::Severity => self.severity.map(|s| s.to_string()),
            Field::BoundaryType => self.boundary_type.map(|b| b.as_str().to_string()),
            Field::Repair => self.repair.clone(),
            Field::Notes => self.notes.clone(),
        }
    }

    /// Recomputes `problems` and `finished` against the passage.
    fn refresh(&mut self, passage: &str) {
        self.problems = self.problems(passage);
        self.finished = self.decision.is_some() && self.problems.is_empty();
    }

    /// The validation rules: an accept needs span, both claims, axis, severity and repair, none
    /// of them an unconfirmed suggestion; a reject needs a boundary type; a span must be verbatim
    /// in the passage.
    pub fn problems(&self, passage: &str) -> Vec<String> {
        let mut out = Vec::new();
        let blank = |v: &Option<String>| v.as_deref().is_none_or(|s| s.trim().is_empty());
        if let Some(span) = &self.evidence_span {
            if let Err(e) = span.check(passage) {
                out.push(e);
            }
        }
        match self.decision {
            None => out.push("no decision yet".into()),
            Some(Decision::AcceptForceGap) => {
                if self.evidence_span.is_none() {
                    out.push("an accept needs an evidence span".into());
                }
                if blank(&self.calibrated_claim) {
                    out.push("an accept needs the calibrated claim".into());
                }
                if blank(&self.raised_claim) {
                    out.push("an accept needs the raised claim".into());
                }
                if self.axis.is_none() {
                    out.push("an accept needs a primary axis".into());
                }
                if self.severity.is_none() {
                    out.push("an accept needs a severity".into());
                }
                if blank(&self.repair) {
                    out.push("an accept needs a repair".into());
                }
                if !blank(&self.calibrated_claim) && self.calibrated_claim == self.raised_claim {
                    out.push("the calibrated and raised claims are identical".into());
                }
                if !self.suggested.is_empty() {
                    let names: Vec<&str> = self.suggested.iter().map(|f| f.label()).collect();
                    out.push(format!("confirm or change the suggested {}", join_and(&names)));
                }
            }
            Some(Decision::RejectNotForceGap) => {
                if self.boundary_type.is_none() {
                    out.push("a reject needs a boundary type".into());
                }
            }
            Some(Decision::NeedsDiscussion) => {}
        }
        out
    }
}

fn parse_severity(s: &str) -> std::result::Result<u8, String> {
    match s.trim().parse::<i64>() {
        Ok(n) if SEVERITIES.contains(&n) => Ok(n as u8),
        _ => Err(format!("severity `{s}` is not 1, 2 or 3")),
    }
}

/// Validates a new value for a field against the row and returns its stored form.
pub fn normalise(field: Field, value: Option<&str>, passage: &str) -> std::result::Result<Option<String>, String> {
    let Some(value) = value else { return Ok(None) };
    Ok(Some(match field {
        Field::Decision => value.parse::<Decision>()?.as_str().to_string(),
        Field::Axis => value.parse::<Axis>()?.as_str().to_string(),
        Field::BoundaryType => value.parse::<BoundaryType>()?.as_str().to_string(),
        Field::Severity => parse_severity(value)?.to_string(),
        Field::EvidenceSpan => {
            // Either a JSON span {text,start,end} or plain text (first occurrence).
            let span = match serde_json::from_str::<Span>(value) {
                Ok(span) => span,
                Err(_) => Span::find(passage, value)
                    .ok_or_else(|| "the evidence span is not a verbatim substring of the passage".to_string())?,
            };
            span.check(passage)?;
            serde_json::to_string(&span).expect("span serialises")
        }
        Field::CalibratedClaim | Field::RaisedClaim | Field::Repair | Field::Notes => {
            if value.trim().is_empty() {
                return Ok(None);
            }
            value.to_string()
        }
    }))
}

/// Where a change came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    App,
    Import,
    Packet(i64),
}

impl Origin {
    fn name(self) -> &'static str {
        match self {
            Origin::App => "app",
            Origin::Import => "import",
            Origin::Packet(_) => "packet",
        }
    }
    fn packet_return(self) -> Option<i64> {
        match self {
            Origin::Packet(id) => Some(id),
            _ => None,
        }
    }
}

/// Whether suggested axis and severity are shown (and so pre-filled) to annotators in this
/// project: false in a workspace opened from a strictly blinded packet.
fn shows_axis_severity(tx: &rusqlite::Connection) -> Result<bool> {
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
    let mode = crate::settings::suggestion_mode(tx)?;
    let mut a = Annotation::empty(c, annotator);
    a.suggestion_mode = mode;
    let mut stmt = tx.prepare_cached(
        "SELECT id, field, new_value, origin, suggestion_mode, undoes FROM annotation_events
         WHERE candidate_id = ?1 AND annotator_id = ?2 ORDER BY id",
    )?;
    let mut rows = stmt.query(params![c.id, annotator_id])?;
    let mut suggested: std::collections::HashSet<Field> = std::collections::HashSet::new();
    let mut suggested_before: std::collections::HashMap<i64, bool> = std::collections::HashMap::new();
    while let Some(r) = rows.next()? {
        let (id, field, value): (i64, String, Option<String>) = (r.get(0)?, r.get(1)?, r.get(2)?);
        let (origin, event_mode, undoes): (String, Option<String>, Option<i64>) = (r.get(3)?, r.get(4)?, r.get(5)?);
        let field: Field = field.parse().map_err(Error::Corrupt)?;
        a.apply(field, value.as_deref()).map_err(Error::Corrupt)?;
        a.events += 1;
        suggested_before.insert(id, suggested.contains(&field));
        let still = match undoes {
            Some(target) => suggested_before.get(&target).copied().unwrap_or(false),
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
    a.suggested = SUGGESTED_FIELDS.iter().copied().filter(|f| suggested.contains(f)).collect();
    a.seconds_spent = tx
        .prepare_cached("SELECT seconds_spent FROM annotations WHERE candidate_id = ?1 AND annotator_id = ?2")?
        .query_row(params![c.id, annotator_id], |r| r.get(0))
        .optional()?
        .unwrap_or(0.0);
    if a.events == 0 {
        // Not started: show the suggestions pre-filled (they are recorded on the first change).
        let mut shown = Annotation::starting(c, annotator, mode, shows_axis_severity(tx)?);
        shown.seconds_spent = a.seconds_spent;
        return Ok(shown);
    }
    a.can_undo = undo_target(tx, &c.id, annotator_id)?.is_some();
    a.refresh(&c.passage);
    Ok(a)
}

/// The latest change not yet undone (undo events themselves are not undone; there is no redo).
fn undo_target(
    tx: &rusqlite::Connection,
    candidate_id: &str,
    annotator_id: i64,
) -> Result<Option<(i64, String, Option<String>)>> {
    Ok(tx
        .prepare_cached(
            "SELECT e.id, e.field, e.old_value FROM annotation_events e
             WHERE e.candidate_id = ?1 AND e.annotator_id = ?2 AND e.undoes IS NULL AND e.origin <> 'prefill'
               AND NOT EXISTS (SELECT 1 FROM annotation_events u WHERE u.undoes = e.id)
             ORDER BY e.id DESC LIMIT 1",
        )?
        .query_row(params![candidate_id, annotator_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?)
}

/// A new event's uid: a uuid v4, unique across workspaces and projects (packet merge keeps an
/// event once per uid).
pub(crate) fn new_event_uid() -> String {
    uuid::Uuid::new_v4().to_string()
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
    tx.prepare_cached(
        "INSERT INTO annotation_events (candidate_id, annotator_id, field, old_value, new_value, at, origin, packet_return_id, uid,
             suggestion_mode)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?
    .execute(params![candidate_id, annotator_id, field.as_str(), old, new, now(), origin, packet_return, new_event_uid(), mode.as_str()])?;
    Ok(tx.last_insert_rowid())
}

/// Rewrites the cache row from an annotation.
pub(crate) fn store(
    tx: &rusqlite::Connection,
    a: &Annotation,
    annotator_id: i64,
    last_event: Option<i64>,
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
    crate::rowstate::guard(tx, &c.id)?;
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
    let mut current = Annotation::empty(c, &shown.annotator);
    current.suggestion_mode = shown.suggestion_mode;
    current.seconds_spent = shown.seconds_spent;
    for f in Field::ALL {
        if let Some(v) = shown.stored(*f) {
            insert_event(tx, &c.id, annotator_id, *f, None, Some(&v), "prefill", None, shown.suggestion_mode)?;
            current.apply(*f, Some(&v)).map_err(Error::Corrupt)?;
            current.events += 1;
        }
    }
    current.suggested = shown.suggested;
    Ok(current)
}

/// Confirms every field still showing an unconfirmed suggestion inside an open transaction: one
/// `confirm` event per field, its value unchanged. Writes nothing when none is.
pub(crate) fn confirm_in(tx: &Transaction, c: &Candidate, annotator: &str) -> Result<Annotation> {
    let annotator_id = assigned_annotator(tx, &c.id, annotator)?;
    let mut current = fold(tx, c, annotator_id, annotator)?;
    if current.suggested.is_empty() {
        return Ok(current);
    }
    crate::rowstate::guard(tx, &c.id)?;
    if current.events == 0 {
        current = record_start(tx, c, annotator_id, current)?;
    }
    let mut last = None;
    for field in std::mem::take(&mut current.suggested) {
        let value = current.stored(field);
        last = Some(insert_event(
            tx,
            &c.id,
            annotator_id,
            field,
            value.as_deref(),
            value.as_deref(),
            "confirm",
            None,
            current.suggestion_mode,
        )?);
        current.events += 1;
    }
    current.can_undo = true;
    current.refresh(&c.passage);
    store(tx, &current, annotator_id, last)?;
    Ok(current)
}

/// Confirms all the suggested fields shown on a row (the annotate view's `y`), durably. The
/// fields confirmed are the `suggested` of the annotation before; the result lists none.
pub fn confirm(project: &mut Project, candidate_id: &str, annotator: &str) -> Result<Annotation> {
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
    let c = candidate::find_in(project.conn(), candidate_id)?
        .ok_or_else(|| Error::CandidateNotFound(candidate_id.into()))?;
    let tx = project.conn_mut().transaction()?;
    let annotator_id = assigned_annotator(&tx, candidate_id, annotator)?;
    crate::rowstate::guard(&tx, candidate_id)?;
    let Some((target, field, old)) = undo_target(&tx, candidate_id, annotator_id)? else {
        return fold(&tx, &c, annotator_id, annotator);
    };
    let before = fold(&tx, &c, annotator_id, annotator)?;
    let field: Field = field.parse().map_err(Error::Corrupt)?;
    tx.execute(
        "INSERT INTO annotation_events (candidate_id, annotator_id, field, old_value, new_value, at, origin, undoes, uid, suggestion_mode)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'app', ?7, ?8, ?9)",
        params![candidate_id, annotator_id, field.as_str(), before.stored(field), old, now(), target, new_event_uid(), before.suggestion_mode.as_str()],
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
    let who = roster::require(project, annotator)?;
    let mut stmt = project.conn().prepare(
        "SELECT id, candidate_id, field, old_value, new_value, at, origin, undoes FROM annotation_events
         WHERE candidate_id = ?1 AND annotator_id = ?2 ORDER BY id",
    )?;
    let rows = stmt.query_map(params![candidate_id, who.id], |r| {
        Ok(AnnotationEvent {
            id: r.get(0)?,
            candidate_id: r.get(1)?,
            annotator: who.name.clone(),
            field: r.get(2)?,
            old_value: r.get(3)?,
            new_value: r.get(4)?,
            at: r.get(5)?,
            origin: r.get(6)?,
            undoes: r.get(7)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A row in an annotator's queue, in the order they see rows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct QueueRow {
    pub id: String,
    /// 1-based position in the annotator's order.
    #[ts(type = "number")]
    pub position: u32,
    pub decision: Option<Decision>,
    pub finished: bool,
    pub started: bool,
}

/// The annotator's rows in their own seeded shuffle (independent of provenance and import order).
pub fn queue(project: &Project, annotator: &str) -> Result<Vec<QueueRow>> {
    let who = roster::require(project, annotator)?;
    let mut rows: Vec<(String, Option<String>, bool, bool)> = {
        let mut stmt = project.conn().prepare(
            "SELECT s.candidate_id, n.decision, coalesce(n.finished, 0), n.candidate_id IS NOT NULL
             FROM assignments s
             LEFT JOIN annotations n ON n.candidate_id = s.candidate_id AND n.annotator_id = s.annotator_id
             WHERE s.annotator_id = ?1",
        )?;
        let rows = stmt.query_map([who.id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let key = match crate::workspace::packet_of(project)? {
        // A workspace keeps the packet's order (already the annotator's shuffle).
        Some(_) => None,
        None => Some(project.info().id.clone()),
    };
    match key {
        Some(project_id) => {
            let mut ids: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
            crate::packets::annotator_order(&project_id, &who.name, &mut ids);
            let pos: std::collections::HashMap<&str, usize> =
                ids.iter().enumerate().map(|(i, id)| (id.as_str(), i)).collect();
            rows.sort_by_key(|r| pos[r.0.as_str()]);
        }
        None => {
            let seq: std::collections::HashMap<String, i64> = {
                let mut stmt = project.conn().prepare("SELECT id, seq FROM candidates")?;
                let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
                rows.collect::<rusqlite::Result<_>>()?
            };
            rows.sort_by_key(|r| seq[&r.0]);
        }
    }
    Ok(rows
        .into_iter()
        .enumerate()
        .map(|(i, (id, decision, finished, started))| QueueRow {
            id,
            position: i as u32 + 1,
            decision: decision.and_then(|d| d.parse().ok()),
            finished,
            started,
        })
        .collect())
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct AnnotationImportReport {
    pub file: String,
    pub annotator: String,
    #[ts(type = "number")]
    pub rows: u64,
    #[ts(type = "number")]
    pub changed_fields: u64,
}

/// Sets annotations from a JSONL file (`schema/annotation.schema.json`), one object per row, for
/// one annotator. Keys left out keep their current (or pre-filled) value, confirming a pre-filled
/// suggestion; `null` clears. Every row must end up finished (valid for its decision). All or
/// nothing.
pub fn import_jsonl(project: &mut Project, path: &Path, annotator: &str) -> Result<AnnotationImportReport> {
    let (file, objects, mut problems) = crate::import::jsonl_objects(path)?;
    let mut problem = |line: u64, field: Option<&str>, message: String| {
        problems.push(InputProblem { file: file.clone(), line: Some(line), field: field.map(String::from), message })
    };
    let who = roster::require(project, annotator)?;
    type Row = (u64, String, Vec<(Field, Option<String>)>); // line, id, changes
    let mut parsed: Vec<Row> = Vec::new();
    let mut seen = std::collections::HashMap::new();
    for (line, map) in objects {
        let Some(id) = map.get("id").and_then(|v| v.as_str()).map(str::to_string) else {
            problem(line, Some("id"), "required field is missing or not a string".into());
            continue;
        };
        if let Err(message) = crate::input::check_identifier("id", &id) {
            problem(line, Some("id"), message);
            continue;
        }
        if let Some(first) = seen.insert(id.clone(), line) {
            problem(line, Some("id"), format!("duplicate id `{id}` (first used on line {first})"));
            continue;
        }
        let mut fields = Vec::new();
        for (key, value) in map {
            if key == "id" {
                continue;
            }
            let field: Field = match key.parse() {
                Ok(f) => f,
                Err(e) => {
                    problem(line, Some(&key), e);
                    continue;
                }
            };
            let value = match crate::input::field_text(crate::input::ValueKind::of_field(field), value) {
                Ok(v) => v,
                Err(message) => {
                    problem(line, Some(&key), message);
                    continue;
                }
            };
            fields.push((field, value));
        }
        parsed.push((line, id, fields));
    }
    if !problems.is_empty() {
        problems.sort_by_key(|p| p.line);
        return Err(Error::InvalidInput { file, problems });
    }
    let tx = project.conn_mut().transaction()?;
    let mut changed = 0u64;
    let mut rows_problems = Vec::new();
    for (line, id, fields) in &parsed {
        let Some(c) = candidate::find_in(&tx, id)? else {
            rows_problems.push(InputProblem {
                file: file.clone(),
                line: Some(*line),
                field: Some("id".into()),
                message: format!("no candidate with id `{id}`"),
            });
            continue;
        };
        let mut result = None;
        for (field, value) in fields {
            let before = result.as_ref().map_or(0, |a: &Annotation| a.events);
            match set_in(&tx, &c, &who.name, *field, value.as_deref(), Origin::Import) {
                Ok(a) => {
                    if a.events > before {
                        changed += 1;
                    }
                    result = Some(a);
                }
                Err(e) => {
                    rows_problems.push(InputProblem {
                        file: file.clone(),
                        line: Some(*line),
                        field: Some(field.as_str().into()),
                        message: e.to_string(),
                    });
                    break;
                }
            }
        }
        if rows_problems.iter().any(|p| p.line == Some(*line)) {
            continue;
        }
        // A file's row states the annotator's own annotation: a key it leaves out keeps the
        // suggestion shown, which the file thereby confirms (recorded as `confirm` events).
        let current = match confirm_in(&tx, &c, &who.name) {
            Ok(a) => a,
            Err(e) => {
                rows_problems.push(InputProblem {
                    file: file.clone(),
                    line: Some(*line),
                    field: None,
                    message: e.to_string(),
                });
                continue;
            }
        };
        if !current.finished && rows_problems.iter().all(|p| p.line != Some(*line)) {
            rows_problems.push(InputProblem {
                file: file.clone(),
                line: Some(*line),
                field: None,
                message: format!("row `{id}` is not complete: {}", current.problems.join("; ")),
            });
        }
    }
    if !rows_problems.is_empty() {
        return Err(Error::InvalidInput { file, problems: rows_problems });
    }
    tx.commit()?;
    Ok(AnnotationImportReport { file, annotator: who.name, rows: parsed.len() as u64, changed_fields: changed })
}

/// Everything the annotate view shows for one row: only what this annotator may see (in a
/// strict workspace, hidden suggestions and provenance are absent), their annotation, and where
/// the row stands in their queue.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct AnnotateRow {
    pub id: String,
    #[ts(type = "number")]
    pub position: u32,
    #[ts(type = "number")]
    pub total: u32,
    pub context: String,
    pub passage: String,
    pub suggested_span: Option<String>,
    pub suggested_calibrated_claim: String,
    pub suggested_raised_claim: String,
    pub suggested_repair: Option<String>,
    pub suggested_rationale: Option<String>,
    pub suggested_axis: Option<Axis>,
    pub suggested_severity: Option<u8>,
    /// How the suggestions are shown: pre-filled (marked until confirmed), beside each field, or
    /// hidden (then every `suggested_*` but the two claims is `None`).
    pub suggestion_mode: SuggestionMode,
    /// `None` when blinding hides provenance.
    pub source_dataset: Option<String>,
    pub annotation: Annotation,
}

/// The annotate view's data for one row of one annotator's queue.
pub fn row_view(project: &Project, candidate_id: &str, annotator: &str) -> Result<AnnotateRow> {
    let c = candidate::find_in(project.conn(), candidate_id)?
        .ok_or_else(|| Error::CandidateNotFound(candidate_id.into()))?;
    let annotation = get(project, candidate_id, annotator)?;
    let queue = queue(project, annotator)?;
    let position = queue.iter().position(|q| q.id == candidate_id).map_or(0, |p| p as u32 + 1);
    let strict = crate::workspace::is_strict(project)?;
    let mode = annotation.suggestion_mode;
    let hidden = mode == SuggestionMode::Hidden;
    Ok(AnnotateRow {
        id: c.id,
        position,
        total: queue.len() as u32,
        context: c.context,
        passage: c.passage,
        suggested_span: if hidden { None } else { c.evidence_span },
        suggested_calibrated_claim: c.calibrated_claim,
        suggested_raised_claim: c.raised_claim,
        suggested_repair: if hidden { None } else { c.repair },
        suggested_rationale: if strict || hidden { None } else { c.rationale },
        suggested_axis: if strict || hidden { None } else { c.axis },
        suggested_severity: if strict || hidden { None } else { c.severity },
        suggestion_mode: mode,
        source_dataset: (!strict && !c.source_dataset.is_empty()).then_some(c.source_dataset),
        annotation,
    })
}
