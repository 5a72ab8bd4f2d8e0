//! A row's two annotations as a bulk step reads them: from the annotations table, where every
//! change to an annotation stores the fold of its events, instead of folding each annotator's
//! events again (several queries and a walk over every event of the row, per annotator). The
//! adjudication queue classifies rows from the same table, so a bulk confirmation settles each
//! row from exactly the values the queue compared. A single adjudication still folds the events
//! ([`super::pair_in`]): it also shows the adjudicator what the fold alone knows (time spent,
//! undo, suggestions).

use std::sync::LazyLock;

use rusqlite::{Connection, Row};

use super::Pair;
use crate::annotate::{Annotation, Span};
use crate::candidate::{candidate_from_row, Candidate, CANDIDATE_COLUMNS, CANDIDATE_COLUMN_COUNT};
use crate::error::{Error, Result};

/// Both finished annotations of a row as stored, A first (the annotator added first), with the
/// suggestion; the same refusals as [`super::pair_in`].
pub(super) fn stored_pair_in(conn: &Connection, id: &str) -> Result<Pair> {
    // The candidate and its annotations in one statement (a bulk step runs it once per row): the
    // candidate's columns on each of its assignments' rows, an unfinished annotation as NULLs. A
    // first (the lower annotator id) in the assignment index's own order: ordered by the
    // annotator's row instead, SQLite sorted the rows in a temporary tree for every row.
    static SQL: LazyLock<String> = LazyLock::new(|| {
        format!(
            "SELECT {CANDIDATE_COLUMNS}, a.name, n.decision, n.evidence_span, n.span_start, n.span_end,
                    n.calibrated_claim, n.raised_claim, n.axis, n.severity, n.boundary_type, n.repair, n.notes,
                    n.seconds_spent
             FROM candidates c
             LEFT JOIN assignments s ON s.candidate_id = c.id
             LEFT JOIN annotations n ON n.candidate_id = s.candidate_id AND n.annotator_id = s.annotator_id
                                    AND n.finished = 1
             LEFT JOIN annotators a ON a.id = n.annotator_id
             WHERE c.id = ?1 ORDER BY s.annotator_id"
        )
    });
    let mut stmt = conn.prepare_cached(&SQL)?;
    let mut rows = stmt.query([id])?;
    let mut c: Option<Candidate> = None;
    let mut found: Vec<(String, Annotation)> = Vec::with_capacity(2);
    while let Some(r) = rows.next()? {
        let c = match &mut c {
            Some(c) => c,
            None => c.insert(candidate_from_row(r)?),
        };
        if let Some(name) = r.get::<_, Option<String>>(NAME)? {
            let annotation = annotation_of(r, c, &name)?;
            found.push((name, annotation));
        }
    }
    let c = c.ok_or_else(|| Error::CandidateNotFound(id.into()))?;
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

/// Where [`stored_pair_in`]'s annotator name is, its annotation's columns after it.
const NAME: usize = CANDIDATE_COLUMN_COUNT;

/// One stored annotation (the columns after [`NAME`], as [`stored_pair_in`] selects them).
fn annotation_of(r: &Row, c: &Candidate, name: &str) -> Result<Annotation> {
    let corrupt = |field: &str, e: String| {
        Error::Corrupt(format!("the stored annotation of `{name}` on row `{}` has an unreadable {field}: {e}", c.id))
    };
    let text = |i: usize| -> rusqlite::Result<Option<String>> { r.get(NAME + i) };
    let mut a = Annotation::empty(c, name);
    a.decision = text(1)?.map(|d| d.parse()).transpose().map_err(|e| corrupt("decision", e))?;
    a.evidence_span = match (text(2)?, r.get::<_, Option<u32>>(NAME + 3)?, r.get::<_, Option<u32>>(NAME + 4)?) {
        (None, None, None) => None,
        (Some(text), Some(start), Some(end)) => Some(Span { text, start, end }),
        _ => return Err(corrupt("evidence span", "its text and offsets are not all given".into())),
    };
    a.calibrated_claim = text(5)?;
    a.raised_claim = text(6)?;
    a.axis = text(7)?.map(|x| x.parse()).transpose().map_err(|e| corrupt("axis", e))?;
    a.severity = r
        .get::<_, Option<i64>>(NAME + 8)?
        .map(|s| u8::try_from(s).map_err(|e| corrupt("severity", e.to_string())))
        .transpose()?;
    a.boundary_type = text(9)?.map(|x| x.parse()).transpose().map_err(|e| corrupt("boundary type", e))?;
    a.repair = text(10)?;
    a.notes = text(11)?;
    a.seconds_spent = r.get(NAME + 12)?;
    a.finished = true;
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adjudicate::pair_in;
    use crate::annotate::Field;
    use crate::error::Error;
    use crate::project::Project;

    /// What a pair holds that a bulk step uses: the names, each stored field of A, B and the
    /// suggestion, and the candidate.
    fn seen(p: &Pair) -> (Vec<String>, Vec<[Option<String>; 3]>, Candidate) {
        let fields = Field::ALL.iter().map(|&f| [p.a.stored(f), p.b.stored(f), p.suggestion.stored(f)]).collect();
        (p.names.to_vec(), fields, p.candidate.clone())
    }

    /// The stored read against the fold of each annotator's events (`pair_in`, written
    /// independently), on every row of a project where some rows have one annotation or none,
    /// an annotation is left unfinished, and a row was reassigned after both finished.
    #[test]
    fn the_stored_pair_is_the_folded_pair_on_every_row() {
        let dir = tempfile::tempdir().unwrap();
        let mut project = Project::create(&dir.path().join("p.forcebench"), "stored").unwrap();
        crate::sample::load_sample(&mut project).unwrap();
        for who in ["zoe", "ana", "ben"] {
            crate::roster::add(&project, who, crate::roster::Role::Annotator).unwrap();
        }
        crate::assign::assign(&mut project, 1).unwrap();
        let ids: Vec<String> = crate::candidate::list(&project).unwrap().into_iter().map(|c| c.id).collect();
        let mut lines: std::collections::BTreeMap<String, String> = Default::default();
        for (i, id) in ids.iter().enumerate() {
            let (x, y) = crate::assign::annotators_of(&project, id).unwrap().expect("assigned");
            let line = |severity: u8| match i % 4 {
                3 => format!(
                    "{{\"id\":\"{id}\",\"decision\":\"reject_not_force_gap\",\"boundary_type\":\"ambiguous\"}}\n"
                ),
                _ => format!("{{\"id\":\"{id}\",\"decision\":\"accept_force_gap\",\"severity\":{severity}}}\n"),
            };
            if i % 7 != 6 {
                lines.entry(x).or_default().push_str(&line(2));
            }
            if i % 5 != 4 {
                lines.entry(y).or_default().push_str(&line(3));
            }
        }
        for (who, text) in &lines {
            let file = dir.path().join(format!("{who}.jsonl"));
            std::fs::write(&file, text).unwrap();
            crate::annotate::import_jsonl(&mut project, &file, who).unwrap();
        }
        // Accepts whose severity one annotator then took away: saved, no longer finished.
        let mut unfinished = 0;
        for id in ids.iter().skip(2).step_by(4) {
            if let Some((_, y)) = crate::assign::annotators_of(&project, id).unwrap() {
                if pair_in(project.conn(), id).is_ok() {
                    let a = crate::annotate::set_field(&mut project, id, &y, Field::Severity, None).unwrap();
                    assert!(!a.finished);
                    unfinished += 1;
                }
            }
        }
        assert!(unfinished > 3, "{unfinished} unfinished");
        // A row both finished, then given to the third annotator: the one taken off keeps a
        // finished annotation that no longer counts.
        let conn = project.conn();
        let both = ids.iter().find(|id| pair_in(conn, id).is_ok()).unwrap().clone();
        let (from, other) = crate::assign::annotators_of(&project, &both).unwrap().unwrap();
        let third = ["zoe", "ana", "ben"].into_iter().find(|n| *n != from && *n != other).unwrap();
        crate::assign::reassign(&mut project, &both, &from, third, "lee", "left the project").unwrap();

        let conn = project.conn();
        let (mut pairs, mut refused) = (0, 0);
        for id in ids.iter().map(String::as_str).chain(["no-such-row"]) {
            match (stored_pair_in(conn, id), pair_in(conn, id)) {
                (Ok(stored), Ok(folded)) => {
                    assert_eq!(seen(&stored), seen(&folded), "row {id}");
                    pairs += 1;
                }
                (Err(Error::NotDoubleAnnotated(s)), Err(Error::NotDoubleAnnotated(f))) => {
                    assert_eq!(s, f, "row {id}");
                    refused += 1;
                }
                (Err(Error::CandidateNotFound(s)), Err(Error::CandidateNotFound(f))) => assert_eq!(s, f),
                (s, f) => panic!("row {id}: stored {:?}, folded {:?}", s.map(|p| seen(&p)), f.map(|p| seen(&p))),
            }
        }
        assert!(pairs > 5 && refused > 5, "{pairs} pairs and {refused} refusals");
        assert!(matches!(stored_pair_in(conn, &both), Err(Error::NotDoubleAnnotated(_))), "the reassigned row");
    }
}
