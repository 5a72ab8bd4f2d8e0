//! Adjudication in bulk reads each row's two annotations as stored and shares one writer across
//! the transaction; what it writes must be what adjudicating each of those rows alone writes
//! (the single-row path folds every annotator's events).

use crate::adjudicate::{paged_fixture, YES};
use crate::common::*;
use forcebench::adjudicate::{self, Category, Checklist, QueueFilter, Resolution};
use forcebench::Project;

/// Everything stored about a row's final label that does not name a time: the label and its
/// checklist, each final field with its source, each history event, each QC result. The
/// checklist event's source says how the checklist was answered (`bulk` or `edited`) and
/// `bulk_confirmed` whether the row was confirmed in bulk: both are left to the caller.
fn label_of(project: &Project, id: &str) -> Vec<String> {
    let conn = project.conn();
    let mut out = Vec::new();
    let mut read = |sql: &str| {
        let mut stmt = conn.prepare(sql).unwrap();
        let n = stmt.column_count();
        let rows = stmt
            .query_map([id], |r| {
                Ok((0..n)
                    .map(|i| format!("{:?}", r.get::<_, rusqlite::types::Value>(i).unwrap()))
                    .collect::<Vec<_>>()
                    .join("|"))
            })
            .unwrap();
        for row in rows {
            out.push(format!("{sql}: {}", row.unwrap()));
        }
    };
    read(
        "SELECT decision, boundary_type, rationale, adjudicator_id, span_decisive, calibrated_supported,
                raised_underwarranted, one_local_axis, no_unrelated_addition, guideline_version
         FROM adjudications WHERE candidate_id = ?1",
    );
    read("SELECT field, value, source, adjudicator_id FROM adjudication_fields WHERE candidate_id = ?1 ORDER BY field");
    read(
        "SELECT field, old_value, new_value, CASE WHEN field = 'checklist' THEN '' ELSE source END, adjudicator_id,
                guideline_version
         FROM adjudication_events WHERE candidate_id = ?1 ORDER BY id",
    );
    read(
        "SELECT l.checks, r.failed, r.blocked FROM qc_runs r JOIN qc_check_lists l ON l.id = r.checks
         WHERE r.candidate_id = ?1",
    );
    read("SELECT check_name, severity, detail, ord FROM qc_failures WHERE candidate_id = ?1 ORDER BY ord");
    out
}

#[test]
fn confirming_in_bulk_writes_what_confirming_each_row_alone_writes() {
    // Two copies of the same project: one confirmed in bulk, the other row by row.
    let (dir, mut bulk, _) = paged_fixture();
    let (_dir2, mut single, _) = paged_fixture();
    // A reassigned row: its first annotators disagreed on severity; the one taken off it keeps a
    // finished annotation, and the one put on agrees with the other. Reading the stale one makes
    // the row a disagreement, so the bulk step would refuse it or write the wrong severity.
    for project in [&mut bulk, &mut single] {
        let queue = adjudicate::queue(project, &QueueFilter::default()).unwrap().items;
        let row = queue
            .iter()
            // The one put on is added to the roster after both: taking annotations in roster order
            // without asking who is assigned now would pair A with the one taken off.
            .find(|i| {
                i.category == Category::FieldDisagreement
                    && i.decision_a.as_str() == "accept_force_gap"
                    && (i.annotator_a.as_str(), i.annotator_b.as_str()) == ("ana", "ben")
            })
            .unwrap()
            .clone();
        let third =
            ["ana", "ben", "cleo"].into_iter().find(|n| *n != row.annotator_a && *n != row.annotator_b).unwrap();
        let a_severity = adjudicate::row_view(project, &row.id, false).unwrap().a.severity.unwrap();
        forcebench::assign::reassign(project, &row.id, &row.annotator_b, third, "lee", "left the project").unwrap();
        let label = format!("{{\"id\":\"{}\",\"decision\":\"accept_force_gap\",\"severity\":{a_severity}}}\n", row.id);
        let file = write(dir.path(), &format!("{third}-{}.jsonl", row.id), label);
        forcebench::annotate::import_jsonl(project, &file, third).unwrap();
        let now = adjudicate::queue(project, &QueueFilter::default()).unwrap().items;
        assert_eq!(now.iter().find(|i| i.id == row.id).unwrap().category, Category::FullAgreement);
    }
    let open: Vec<(String, bool)> = adjudicate::queue(&single, &QueueFilter::default())
        .unwrap()
        .items
        .into_iter()
        .filter(|i| i.category == Category::FullAgreement && !i.adjudicated)
        .map(|i| (i.id, i.decision_a.as_str() == "accept_force_gap"))
        .collect();
    assert!(open.len() >= 8 && open.iter().any(|o| o.1) && open.iter().any(|o| !o.1), "accepts and rejects: {open:?}");

    // The preview counts from the queue's own classification: every open agreement, and the
    // shared decision of each (only accepts are affirmed).
    let accepts = open.iter().filter(|o| o.1).count() as u64;
    let preview = adjudicate::affirm_preview(&bulk, "eve").unwrap();
    assert_eq!((preview.confirmed as usize, preview.affirmed, preview.frozen), (open.len(), accepts, 0));
    let report = adjudicate::confirm_and_affirm(&mut bulk, "eve").unwrap();
    assert_eq!(report.confirmed as usize, open.len());
    assert_eq!(report, preview);
    for (id, accept) in &open {
        let checklist = if *accept { YES } else { Checklist::default() };
        adjudicate::resolve(&mut single, id, "eve", &Resolution { checklist, ..Resolution::default() }).unwrap();
    }
    for (id, _) in &open {
        let (b, s) = (label_of(&bulk, id), label_of(&single, id));
        assert!(b.iter().any(|l| l.contains("FROM qc_runs")) || !b.iter().any(|l| l.contains("accept_force_gap")));
        assert_eq!(b, s, "row {id}");
    }
    // Without --affirm: the same labels with the checklist unanswered.
    let (_dir3, mut plain, _) = paged_fixture();
    let n = adjudicate::confirm_agreements(&mut plain, "eve").unwrap();
    let open_plain: Vec<String> = adjudicate::queue(&plain, &QueueFilter::default())
        .unwrap()
        .items
        .into_iter()
        .filter(|i| i.category == Category::FullAgreement)
        .map(|i| i.id)
        .collect();
    assert_eq!(n as usize, open_plain.len() - 3, "three were adjudicated by the fixture");
    for id in &open_plain {
        let label = adjudicate::get(&plain, id).unwrap().unwrap();
        assert_eq!(label.checklist, Checklist::default(), "row {id}");
    }
}
