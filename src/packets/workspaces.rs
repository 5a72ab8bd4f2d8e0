//! What else changed a packet's rows since it was issued: other workspaces of the packet, whose
//! merged changes a return must end alike with, and the lead's own edits in the project, which a
//! return must not overwrite.

use rusqlite::params;
use std::collections::{BTreeMap, HashMap, HashSet};

use super::{some_rows, CheckedRow, Known, Packet};
use crate::annotate::{self, stored, Field};
use crate::error::{Error, Result};

/// A row's annotation as the fold of some events: each field's stored value, in [`Field::ALL`]
/// order. Two workspaces agree on a row when these are equal.
pub(super) type Fields = [Option<String>; 9];

pub(super) fn apply(fields: &mut Fields, field: Field, value: Option<String>) {
    let i = Field::ALL.iter().position(|f| *f == field).expect("every field is in Field::ALL");
    fields[i] = value;
}

/// Per workspace id: the file its latest return was merged from, and the fold of its events on
/// each row it changed.
pub(super) type Workspaces = BTreeMap<String, (String, HashMap<String, Fields>)>;

/// Every other workspace whose returns of this packet were merged.
pub(super) fn other_workspaces(tx: &rusqlite::Connection, packet_id: &str, workspace_id: &str) -> Result<Workspaces> {
    let mut out = Workspaces::new();
    let mut stmt = tx.prepare(
        concat!(
            "SELECT e.candidate_id, coalesce(r.workspace_id, 'from before workspace ids'), coalesce(r.file_name, ''), e.field, ",
            annotate::stored::new_value_sql!(),
            ", e.field_set FROM packet_rows pr
             JOIN annotation_events e ON e.candidate_id = pr.candidate_id
             JOIN packet_returns r ON r.id = e.packet_return_id AND coalesce(e.packet_id, r.packet_id) = pr.packet_id
             LEFT JOIN candidates sc ON sc.id = e.candidate_id AND e.from_suggestion = 1
             WHERE pr.packet_id = ?1 AND r.workspace_id IS NOT ?2
             ORDER BY e.id"
        ),
    )?;
    let mut rows = stmt.query(params![packet_id, workspace_id])?;
    while let Some(r) = rows.next()? {
        let (candidate, ws, file): (String, String, String) = (r.get(0)?, r.get(1)?, r.get(2)?);
        // A record is folded as the events it stands for.
        let values: Vec<(Field, Option<String>)> = match r.get::<_, Option<i64>>(5)? {
            Some(bits) => {
                let c = crate::candidate::find_in(tx, &candidate)?
                    .ok_or_else(|| Error::CandidateNotFound(candidate.clone()))?;
                let s = stored::Suggested::from(&c);
                stored::record_fields(bits).map(|f| (f, stored::suggestion_value(f, &s))).collect()
            }
            None => vec![(r.get::<_, String>(3)?.parse().map_err(Error::Corrupt)?, r.get(4)?)],
        };
        let entry = out.entry(ws).or_insert_with(|| (String::new(), HashMap::new()));
        entry.0 = file;
        let row = entry.1.entry(candidate).or_default();
        for (field, value) in values {
            apply(row, field, value);
        }
    }
    Ok(out)
}

/// Refuses a return that changes a row its annotator's label was also changed on in this project
/// while the packet was out: an `annotate set`, `import` or app edit made in the
/// lead's project, for the packet's annotator, after the packet was issued and not merged from a
/// return. When such an edit is still in effect (not undone) on a field the return's new events
/// do not set, merging would leave a label made of both people's edits, which neither had: the
/// merge names both sources and changes nothing. An edit undone since, or one the return
/// overwrites (its events come after it), is no conflict: the label is then the annotator's.
/// (The suggestions recorded when an edit starts a row, origin `prefill`, are not an edit.)
pub(super) fn project_edits(
    tx: &rusqlite::Connection,
    p: &Packet,
    annotator_id: i64,
    issued_at: &str,
    file: &str,
    workspace_id: &str,
    checked: &[CheckedRow<'_>],
) -> Result<()> {
    let mut stmt = tx.prepare_cached(
        "SELECT id, field, undoes, origin, at, field_set FROM annotation_events
         WHERE candidate_id = ?1 AND annotator_id = ?2 AND packet_return_id IS NULL AND at >= ?3
           AND origin <> 'prefill'
         ORDER BY id",
    )?;
    let mut conflicts: Vec<(String, String, String)> = Vec::new();
    for (row, _, events, _, _) in checked.iter().filter(|(.., fresh)| *fresh) {
        // The project's own edits since the issue, (id, field, the event it undoes, origin, at), a
        // record of confirmations read as the confirmations it stands for, and the (id, field) of
        // those an undo among them undid (an undo names its field, which tells a record's apart).
        let mut edits: Vec<(i64, String, Option<i64>, String, String)> = Vec::new();
        let mut rows = stmt.query(params![row.id, annotator_id, issued_at])?;
        while let Some(r) = rows.next()? {
            let (id, field, undoes, origin, at): (i64, String, Option<i64>, String, String) =
                (r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?);
            match r.get::<_, Option<i64>>(5)? {
                Some(bits) => edits.extend(
                    stored::record_fields(bits).map(|f| (id, f.as_str().to_string(), None, origin.clone(), at.clone())),
                ),
                None => edits.push((id, field, undoes, origin, at)),
            }
        }
        let local: HashSet<i64> = edits.iter().map(|(id, ..)| *id).collect();
        let undone: HashSet<(i64, &str)> =
            edits.iter().filter_map(|(_, field, undoes, ..)| undoes.map(|t| (t, field.as_str()))).collect();
        let overwritten: HashSet<&str> =
            events.iter().filter(|(.., known)| matches!(known, Known::New)).map(|(_, f, ..)| f.as_str()).collect();
        // An undo of one of these edits cancels it and itself; an undo of an earlier event is an
        // edit of its own.
        let mut standing = edits.iter().filter(|(id, field, undoes, ..)| {
            !undone.contains(&(*id, field.as_str()))
                && !undoes.is_some_and(|t| local.contains(&t))
                && !overwritten.contains(field.as_str())
        });
        if let Some((.., origin, at)) = standing.next_back() {
            conflicts.push((row.id.clone(), origin.clone(), at.clone()));
        }
    }
    let Some((first, origin, at)) = conflicts.first() else { return Ok(()) };
    let rows: Vec<String> = conflicts.iter().map(|(id, ..)| id.clone()).collect();
    let how = match origin.as_str() {
        "app" => "by `annotate set` or in the app",
        "import" => "by `annotate import`",
        "confirm" => "by a confirmation",
        _ => "by `annotate set`",
    };
    Err(Error::InvalidInput {
        file: file.to_string(),
        problems: vec![crate::import::InputProblem {
            file: file.to_string(),
            line: None,
            field: None,
            message: format!(
                "project edit check failed: {}'s label on row{} {} was changed in this project ({how}, last at {at}) \
                 after packet `{}` was issued, and this return (workspace {workspace_id}) changes {} too; merging \
                 both would make a label neither had. Undo the project's change (`forcebench annotate undo {first} \
                 --annotator {}`) and merge again, or keep the project's label and leave this return unmerged; \
                 nothing was merged",
                p.annotator,
                if rows.len() == 1 { "" } else { "s" },
                some_rows(&rows),
                p.packet_id,
                if rows.len() == 1 { "it" } else { "them" },
                p.annotator,
            ),
        }],
    })
}
