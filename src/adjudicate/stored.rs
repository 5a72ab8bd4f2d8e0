//! A row's two annotations as a bulk step reads them: from the annotations table, where every
//! change to an annotation stores the fold of its events, instead of folding each annotator's
//! events again (several queries and a walk over every event of the row, per annotator). The
//! adjudication queue classifies rows from the same table, so a bulk confirmation settles each
//! row from exactly the values the queue compared. A single adjudication still folds the events
//! ([`super::pair_in`]): it also shows the adjudicator what the fold alone knows (time spent,
//! undo, suggestions).

use rusqlite::{Connection, Row};

use super::Pair;
use crate::annotate::{Annotation, Span};
use crate::candidate;
use crate::error::{Error, Result};

/// Both finished annotations of a row as stored, A first (the annotator added first), with the
/// suggestion; the same refusals as [`super::pair_in`].
pub(super) fn stored_pair_in(conn: &Connection, id: &str) -> Result<Pair> {
    let c = candidate::find_in(conn, id)?.ok_or_else(|| Error::CandidateNotFound(id.into()))?;
    // A first (the lower annotator id) in the assignment index's own order: ordered by the
    // annotator's row instead, SQLite sorted the two rows in a temporary tree for every row.
    let mut stmt = conn.prepare_cached(
        "SELECT a.name, n.decision, n.evidence_span, n.span_start, n.span_end, n.calibrated_claim, n.raised_claim,
                n.axis, n.severity, n.boundary_type, n.repair, n.notes, n.seconds_spent
         FROM assignments s JOIN annotators a ON a.id = s.annotator_id
         JOIN annotations n ON n.candidate_id = s.candidate_id AND n.annotator_id = s.annotator_id
         WHERE s.candidate_id = ?1 AND n.finished = 1 ORDER BY s.annotator_id",
    )?;
    let mut rows = stmt.query([id])?;
    let mut found: Vec<(String, Annotation)> = Vec::with_capacity(2);
    while let Some(r) = rows.next()? {
        let name: String = r.get(0)?;
        let annotation = annotation_of(r, &c, &name)?;
        found.push((name, annotation));
    }
    if found.len() < 2 {
        return Err(Error::NotDoubleAnnotated(format!(
            "row `{id}` is not double-annotated ({} of 2 annotations finished); only double-annotated rows can be adjudicated",
            found.len()
        )));
    }
    let (b_name, b) = found.swap_remove(1);
    let (a_name, a) = found.swap_remove(0);
    let suggestion = Annotation::prefilled(&c, "suggestion", true);
    Ok(Pair { names: [a_name, b_name], a, b, suggestion, candidate: c })
}

/// One stored annotation (columns from the decision on, as [`stored_pair_in`] selects them).
fn annotation_of(r: &Row, c: &candidate::Candidate, name: &str) -> Result<Annotation> {
    let corrupt = |field: &str, e: String| {
        Error::Corrupt(format!("the stored annotation of `{name}` on row `{}` has an unreadable {field}: {e}", c.id))
    };
    let text = |i: usize| -> rusqlite::Result<Option<String>> { r.get(i) };
    let mut a = Annotation::empty(c, name);
    a.decision = text(1)?.map(|d| d.parse()).transpose().map_err(|e| corrupt("decision", e))?;
    a.evidence_span = match (text(2)?, r.get::<_, Option<u32>>(3)?, r.get::<_, Option<u32>>(4)?) {
        (None, None, None) => None,
        (Some(text), Some(start), Some(end)) => Some(Span { text, start, end }),
        _ => return Err(corrupt("evidence span", "its text and offsets are not all given".into())),
    };
    a.calibrated_claim = text(5)?;
    a.raised_claim = text(6)?;
    a.axis = text(7)?.map(|x| x.parse()).transpose().map_err(|e| corrupt("axis", e))?;
    a.severity = r
        .get::<_, Option<i64>>(8)?
        .map(|s| u8::try_from(s).map_err(|e| corrupt("severity", e.to_string())))
        .transpose()?;
    a.boundary_type = text(9)?.map(|x| x.parse()).transpose().map_err(|e| corrupt("boundary type", e))?;
    a.repair = text(10)?;
    a.notes = text(11)?;
    a.seconds_spent = r.get(12)?;
    a.finished = true;
    Ok(a)
}
