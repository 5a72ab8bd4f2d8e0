//! The same record in fewer bytes (schema 18): each row's QC run time once, event uids as their
//! 16 bytes. Every reader gets what it got before, the guards still hold, and a project written by
//! schema 17 reads the same after the upgrade, which leaves the file smaller. (How QC results are
//! stored from schema 20 on: qc_failures.rs.)

use crate::common::*;
use crate::packets::{annotate_and_return, forge_with_key, issue, packet_for};
use crate::qc_failures::qc_answers;
use crate::suggestions_once::{answers, fb, upgrade_by_opening, worked_project, ExportBefore};
use forcebench::packets::{self, Blinding};
use forcebench::Project;
use rusqlite::Connection;
use std::path::Path;

/// Each event's uid as text, in event order.
pub(crate) fn uids(conn: &Connection) -> Vec<String> {
    conn.prepare(&format!("SELECT {} FROM annotation_events ORDER BY id", uid_as_text("uid")))
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn event_uids_are_stored_as_their_16_bytes_and_read_back_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let p = worked_project(dir.path());
    let conn = Connection::open(&p).unwrap();
    let (events, blobs): (i64, i64) = conn
        .query_row(
            "SELECT count(*), count(*) FILTER (WHERE typeof(uid) = 'blob' AND length(uid) = 16) FROM annotation_events",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert!(events > 100);
    assert_eq!(blobs, events, "every uid this software made is kept as its bytes");
    for uid in uids(&conn) {
        assert_eq!(uuid::Uuid::parse_str(&uid).unwrap().hyphenated().to_string(), uid);
    }
    // The append-only guard still holds over the new column.
    let err = conn.execute("UPDATE annotation_events SET uid = x'00'", []).unwrap_err();
    assert!(err.to_string().contains("append-only"), "{err}");
    let err = conn
        .execute("INSERT INTO annotation_events (candidate_id, annotator_id, field, at, origin) SELECT candidate_id, annotator_id, field, at, origin FROM annotation_events WHERE field_set IS NULL LIMIT 1", [])
        .unwrap_err();
    assert!(err.to_string().contains("needs a uid"), "{err}");
}

#[test]
fn a_uid_a_packet_spells_another_way_is_kept_as_spelled_and_merges_once() {
    // A uuid in capitals parses as a uuid, but is not the text this software writes: kept as
    // text, it travels back out and is recognised on a second merge exactly as spelled.
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let packet = packet_for(&list, "ana");
    let returned = annotate_and_return(dir.path(), &packet, 3, "caps");
    let forged = forge_with_key(&returned, &packet, &dir.path().join("caps.json"), |v| {
        for row in v["rows"].as_array_mut().unwrap() {
            for e in row.get_mut("events").and_then(|e| e.as_array_mut()).into_iter().flatten() {
                for key in ["uid", "undoes"] {
                    if let Some(s) = e.get(key).and_then(|u| u.as_str()) {
                        e[key] = s.to_uppercase().into();
                    }
                }
            }
        }
    });
    let report = packets::merge(&mut project, std::slice::from_ref(&forged)).unwrap();
    assert!(report[0].merged && report[0].new_events > 0, "{report:?}");
    let spelled: Vec<String> = project
        .conn()
        .prepare("SELECT uid FROM annotation_events WHERE typeof(uid) = 'text' ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    // The merge reports the events it took in; a start record keeps the uid of the first
    // pre-fill it stands for.
    let stood_for: u64 = project
        .conn()
        .prepare("SELECT field_set FROM annotation_events WHERE typeof(uid) = 'text'")
        .unwrap()
        .query_map([], |r| r.get::<_, Option<i64>>(0))
        .unwrap()
        .map(|bits| bits.unwrap().map_or(1, |b| u64::from(b.count_ones())))
        .sum();
    assert!(stood_for > spelled.len() as u64, "pre-fills are kept as start records");
    assert_eq!(stood_for, report[0].new_events, "the capitalised uids are kept as text");
    assert!(spelled.iter().all(|u| u.len() == 36 && *u == u.to_uppercase()), "{spelled:?}");
    let events: i64 = project.conn().query_row("SELECT count(*) FROM annotation_events", [], |r| r.get(0)).unwrap();
    let again = packets::merge(&mut project, &[forged]).unwrap();
    assert!(!again[0].merged, "the same return a second time changes nothing");
    let after: i64 = project.conn().query_row("SELECT count(*) FROM annotation_events", [], |r| r.get(0)).unwrap();
    assert_eq!(after, events);
    // A packet issued again carries Ana's merged work with each uid as it was spelled.
    let reissued = issue(&mut project, &dir.path().join("again"), Blinding::Standard);
    let carried: Vec<String> = packets::read(&packet_for(&reissued, "ana"))
        .unwrap()
        .rows
        .iter()
        .flat_map(|r| r.events.iter().map(|e| e.uid.clone()))
        .collect();
    for uid in &spelled {
        assert!(carried.contains(uid), "{uid} travels as spelled");
    }
}

/// Rewrites a schema-18 project as schema 17 stored it, and says 17, so that opening it runs
/// migration 18 on it.
fn as_schema17(path: &Path) {
    rewind(path, 17);
}

#[test]
fn a_schema_17_project_reads_the_same_after_the_upgrade_and_is_smaller() {
    let dir = tempfile::tempdir().unwrap();
    let p = worked_project(dir.path());
    let before = answers(&p);
    let qc_before = qc_answers(&p);
    let uids_before = uids(&Connection::open(&p).unwrap());
    let audit_before = fb(&p, &["locality", "list", "--json"]);
    let export = ExportBefore::take(&p, dir.path());

    as_schema17(&p);
    {
        // As 17 stored them: text uids, and results in rowid order with their run time.
        let raw = Connection::open(&p).unwrap();
        let text: Vec<String> = raw
            .prepare("SELECT uid FROM annotation_events ORDER BY id")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        // Each start record is its pre-fills again, the first with the record's uid: every
        // uid of before is there in its order, between those of the other pre-fills.
        let kept: Vec<&String> = text.iter().filter(|u| uids_before.contains(u)).collect();
        assert_eq!(kept, uids_before.iter().collect::<Vec<_>>());
        assert!(text.len() > uids_before.len(), "the start records are pre-fills again");
        let undated: i64 =
            raw.query_row("SELECT count(*) FROM qc_results WHERE run_at IS NULL", [], |r| r.get(0)).unwrap();
        assert_eq!(undated, 0);
    }
    let (size_17, size_18) = upgrade_by_opening(&p, 17);
    assert!(size_18 < size_17, "the upgrade leaves the file smaller: {size_17} -> {size_18} bytes");
    let conn = Connection::open(&p).unwrap();
    let blobs: i64 =
        conn.query_row("SELECT count(*) FROM annotation_events WHERE typeof(uid) = 'blob'", [], |r| r.get(0)).unwrap();
    // Every uid kept is as it was, as its bytes; the upgrade to records (schema 19) lets go of
    // the uids of the events a record stands for after its first, as they were written.
    let kept = uids(&conn);
    assert_eq!(blobs as usize, kept.len(), "the upgrade stored every uid as its bytes");
    let mut rest = uids_before.iter();
    assert!(kept.iter().all(|u| rest.any(|b| b == u)), "the uids kept are the ones before, in their order");
    drop(conn);

    let after = answers(&p);
    assert_eq!(before.len(), after.len());
    for (key, was) in &before {
        assert_eq!(after.get(key), Some(was), "{key} changed in the upgrade");
    }
    assert_eq!(qc_answers(&p), qc_before, "QC results changed in the upgrade");
    assert_eq!(fb(&p, &["locality", "list", "--json"]), audit_before);
    export.assert_same(&p, dir.path(), |_| false);
    // Locked rows keep their QC record: their run time cannot change either.
    let project = Project::open(&p).unwrap();
    let locked: String = project
        .conn()
        .query_row("SELECT min(candidate_id) FROM locked_rows JOIN qc_runs USING (candidate_id)", [], |r| r.get(0))
        .unwrap();
    for sql in
        ["DELETE FROM qc_runs WHERE candidate_id = ?1", "UPDATE qc_runs SET run_at = 'x' WHERE candidate_id = ?1"]
    {
        let err = project.conn().execute(sql, [&locked]).unwrap_err();
        assert!(err.to_string().contains("split_locked"), "{sql}: {err}");
    }
}
