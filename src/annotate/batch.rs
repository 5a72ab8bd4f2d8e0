//! One row of an annotation file written in one pass: what [`set_in`] for each of its fields and
//! [`confirm_in`] after them write, event for event, with the annotation folded from the events
//! once and stored once instead of after every field.
//!
//! A file of many rows made every field re-read the row's events, the project's suggestion mode,
//! the guideline version in force (once per event) and the assignment, and rewrite the cached
//! annotation; those reads are the same for every field of a row (and the mode and version for
//! the whole file, which is written in one transaction), so they are made once. Every check stays:
//! the assignment and the row's lock and adjudication are checked before the row's first field,
//! as the first [`set_in`] checked them, each value is normalised against the passage, and the
//! storage triggers still refuse an event on a locked or adjudicated row.

use rusqlite::Transaction;

use super::*;

/// What stays the same while one file is written: the project's suggestion mode, whether axis and
/// severity are shown, and the guideline version in force.
pub(crate) struct Batch {
    mode: SuggestionMode,
    shows_axis_severity: bool,
    guideline: String,
}

impl Batch {
    pub(crate) fn new(tx: &rusqlite::Connection) -> Result<Batch> {
        Ok(Batch {
            mode: crate::settings::suggestion_mode(tx)?,
            shows_axis_severity: shows_axis_severity(tx)?,
            guideline: crate::guideline::current_label(tx)?,
        })
    }
}

/// A row's refusal, with the field it is about (`None`: the row as a whole).
pub(crate) type RowError = (Option<Field>, Error);

/// Sets `fields` in order on one annotator's annotation of row `c`, then confirms every
/// suggestion still unconfirmed; returns the annotation and how many fields counted as changed
/// (as the file import always counted them: a field whose result has more events than the field
/// before it).
pub(crate) fn import_row(
    tx: &Transaction,
    batch: &Batch,
    c: &Candidate,
    annotator: &str,
    fields: &[(Field, Option<String>)],
) -> std::result::Result<(Annotation, u64), RowError> {
    let first = fields.first().map(|(f, _)| *f);
    let annotator_id = assigned_annotator(tx, &c.id, annotator).map_err(|e| (first, e))?;
    if first.is_some() {
        crate::rowstate::guard_labels(tx, &c.id).map_err(|e| (first, e))?;
    }
    let mut current = fold_with(tx, c, annotator_id, annotator, batch.mode, Some(batch.shows_axis_severity), true)
        .map_err(|e| (first, e))?;
    let mut last = None;
    let mut changed = 0u64;
    let mut before = 0;
    for (field, value) in fields {
        let field = *field;
        let at = |e: Error| (Some(field), e);
        let value = normalise(field, value.as_deref(), &c.passage)
            .map_err(|e| at(Error::InvalidArgument(format!("row `{}`, field `{}`: {e}", c.id, field.as_str()))))?;
        let old = current.stored(field);
        let suggested = current.suggested.contains(&field);
        if old != value || suggested {
            if current.events == 0 {
                current = record_start_with(tx, c, annotator_id, current, &batch.guideline).map_err(at)?;
            }
            let origin = if old == value { "confirm" } else { Origin::Import.name() };
            let event = insert_event_with(
                tx,
                &c.id,
                annotator_id,
                field,
                old.as_deref(),
                value.as_deref(),
                origin,
                None,
                current.suggestion_mode,
                &batch.guideline,
            )
            .map_err(at)?;
            current.apply(field, value.as_deref()).map_err(|e| at(Error::InvalidArgument(e)))?;
            current.suggested.retain(|f| *f != field);
            current.events += 1;
            current.can_undo = true;
            current.refresh(&c.passage);
            last = Some(event);
        }
        if current.events > before {
            changed += 1;
        }
        before = current.events;
    }
    // What the file leaves out keeps the suggestion shown, which the file thereby confirms.
    if !current.suggested.is_empty() {
        if first.is_none() {
            crate::rowstate::guard_labels(tx, &c.id).map_err(|e| (None, e))?;
        }
        if current.events == 0 {
            current = record_start_with(tx, c, annotator_id, current, &batch.guideline).map_err(|e| (None, e))?;
        }
        last = confirm_suggested(tx, c, annotator_id, &mut current, &batch.guideline).map_err(|e| (None, e))?;
        current.can_undo = true;
        current.refresh(&c.passage);
    }
    if last.is_some() {
        store(tx, &current, annotator_id, last).map_err(|e| (None, e))?;
    }
    Ok((current, changed))
}
