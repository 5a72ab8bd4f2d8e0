//! Records of grouped events (schema 19): what an annotator was shown pre-filled when they started
//! a row, and the suggestions they confirmed at once (`y`), are each stored as one event, and read
//! everywhere as the events they stand for: the history, the label, undo (a field at a time),
//! packets (each event with a uid of its own, the same every time), merges and workspaces. An
//! upgrade turns the events already written into such records and every reader reads the same; a
//! run a record cannot stand for is left as it was written.

use crate::common::*;
use crate::compact_record::uids;
use crate::packets::{accept, forge_with_key, issue, packet_for, return_to, rows_of, workspace_at};
use crate::suggestions_once::{answers, fb, upgrade_by_opening, worked_project, written_at, ExportBefore};
use forcebench::annotate::{self, Field};
use forcebench::packets::{self, Blinding};
use forcebench::settings::SuggestionMode;
use forcebench::Project;
use rusqlite::{params, Connection};
use std::collections::HashSet;
use std::path::Path;

/// The fields a pre-fill records, in the order they are written: spelled out here, not read
/// from the code under test.
const ORDER: [&str; 6] = ["evidence_span", "calibrated_claim", "raised_claim", "axis", "severity", "repair"];

/// The stored events of one annotator on one row: (field, field_set, origin).
fn stored(conn: &Connection, row: &str, who: &str) -> Vec<(String, Option<i64>, String)> {
    conn.prepare(
        "SELECT e.field, e.field_set, e.origin FROM annotation_events e JOIN annotators a ON a.id = e.annotator_id
         WHERE e.candidate_id = ?1 AND a.name = ?2 ORDER BY e.id",
    )
    .unwrap()
    .query_map(params![row, who], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

/// The row's suggestion for each field a pre-fill records, as the test computes it (the span
/// with the byte offsets of its first occurrence).
fn suggestions(conn: &Connection, row: &str) -> Vec<(&'static str, Option<String>)> {
    ORDER.iter().map(|f| (*f, suggestion_as_16(conn, row, f))).collect()
}

#[test]
fn a_rows_start_is_one_stored_event_read_back_as_the_prefills_it_stands_for() {
    let (_dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let row = rows_of(&project, "ana")[0].clone();
    annotate::set_field(&mut project, &row, "ana", Field::Notes, Some("looked")).unwrap();

    // Stored: one start record naming every field shown, then the change.
    let shown: Vec<(&str, String)> = suggestions(project.conn(), &row)
        .into_iter()
        .filter_map(|(f, v)| v.filter(|v| !v.trim().is_empty()).map(|v| (f, v)))
        .collect();
    assert!(shown.len() >= 5, "the sample row suggests a span, both claims, an axis and a severity: {shown:?}");
    let bits: i64 =
        ORDER.iter().enumerate().filter(|(_, f)| shown.iter().any(|(s, _)| s == *f)).map(|(i, _)| 1 << i).sum();
    assert_eq!(
        stored(project.conn(), &row, "ana"),
        [("suggestions".to_string(), Some(bits), "prefill".to_string()), ("notes".into(), None, "app".into())]
    );

    // Read: the pre-fills in order, each with the row's suggestion, one time, then the change.
    let history = annotate::history(&project, &row, "ana").unwrap();
    let prefills: Vec<(String, Option<String>, Option<String>)> = history
        .iter()
        .filter(|e| e.origin == "prefill")
        .map(|e| (e.field.clone(), e.old_value.clone(), e.new_value.clone()))
        .collect();
    let expected: Vec<(String, Option<String>, Option<String>)> =
        shown.iter().map(|(f, v)| (f.to_string(), None, Some(v.clone()))).collect();
    assert_eq!(prefills, expected);
    assert_eq!(history.len(), shown.len() + 1);
    let times: HashSet<&str> = history.iter().filter(|e| e.origin == "prefill").map(|e| e.at.as_str()).collect();
    assert_eq!(times.len(), 1, "one start, one time");
    // The label: every suggestion shown, the suggested ones still to confirm.
    let a = annotate::get(&project, &row, "ana").unwrap();
    assert_eq!(a.suggested, [Field::EvidenceSpan, Field::Axis, Field::Severity, Field::Repair][..a.suggested.len()]);
    assert!(a.suggested.len() >= 3, "{:?}", a.suggested);
    assert_eq!(a.notes.as_deref(), Some("looked"));
    // Undo takes back the change, never the start.
    annotate::undo(&mut project, &row, "ana").unwrap();
    let after = annotate::undo(&mut project, &row, "ana").unwrap();
    assert_eq!(after.notes, None);
    assert!(!after.can_undo);
    assert_eq!(after.suggested, a.suggested, "the suggestions stay shown and unconfirmed");

    // In `beside` mode only the two claims are filled in: the record names those two.
    forcebench::settings::set_suggestion_mode(&mut project, SuggestionMode::Beside).unwrap();
    let other = rows_of(&project, "ben")[0].clone();
    annotate::set_field(&mut project, &other, "ben", Field::Notes, Some("x")).unwrap();
    assert_eq!(stored(project.conn(), &other, "ben")[0], ("suggestions".into(), Some(0b110), "prefill".into()));
}

/// Rewrites a schema-19 project as schema 18 stored it (each start record as its pre-fills),
/// and says 18, so that opening it runs migration 19 on it.
fn as_schema18(path: &Path) {
    rewind(path, 18);
}

#[test]
fn a_schema_18_project_reads_the_same_after_the_upgrade_and_is_smaller() {
    let dir = tempfile::tempdir().unwrap();
    let p = worked_project(dir.path());
    let before = answers(&p);
    let uids_before = uids(&Connection::open(&p).unwrap());
    let audit_before = fb(&p, &["locality", "list", "--json"]);
    let export = ExportBefore::take(&p, dir.path());

    as_schema18(&p);
    let named = "SELECT count(*) FROM annotation_events WHERE packet_id IS NOT NULL";
    let (prefills_18, events_18, named_18): (i64, i64, i64) = Connection::open(&p)
        .unwrap()
        .query_row(
            &format!("SELECT count(*) FILTER (WHERE origin = 'prefill'), count(*), ({named}) FROM annotation_events"),
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert!(named_18 > 100, "schema 18 named the packet on every merged event: {named_18}");
    let (size_18, size_19) = upgrade_by_opening(&p, 18);
    assert!(
        size_19 * 10 < size_18 * 9,
        "the upgrade leaves the file smaller by a tenth at least: {size_18} -> {size_19}"
    );

    let conn = Connection::open(&p).unwrap();
    let (records, loose): (i64, i64) = conn
        .query_row(
            "SELECT count(*) FILTER (WHERE field_set IS NOT NULL AND origin = 'prefill'),
                    count(*) FILTER (WHERE origin = 'prefill' AND field_set IS NULL) FROM annotation_events",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(loose, 0, "every run of pre-fills this project wrote is one record now");
    assert!(records > 0 && prefills_18 > 3 * records, "{prefills_18} pre-fills in {records} records");
    // Every event of 18 is in 19, alone or in a record.
    let stood_for: i64 = conn
        .prepare("SELECT field_set FROM annotation_events")
        .unwrap()
        .query_map([], |r| r.get::<_, Option<i64>>(0))
        .unwrap()
        .map(|b| b.unwrap().map_or(1, |b| i64::from(b.count_ones())))
        .sum();
    assert_eq!(stood_for, events_18);
    // Confirmations made at once are records too, and an undo of one of them names its record.
    let (confirms, undone): (i64, i64) = conn
        .query_row(
            "SELECT count(*) FILTER (WHERE origin = 'confirm' AND field_set IS NOT NULL),
                    (SELECT count(*) FROM annotation_events u JOIN annotation_events r ON r.id = u.undoes
                     WHERE r.field_set IS NOT NULL AND r.origin = 'confirm')
             FROM annotation_events",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert!(confirms > 10, "{confirms} records of confirmations");
    assert!(undone > 0, "the worked project undoes a confirmation made with others");
    // A merged event's packet is its return's, read from there.
    assert_eq!(conn.query_row(named, [], |r| r.get::<_, i64>(0)).unwrap(), 0);
    // Each record keeps the uid of its first event, and every uid kept is one of before.
    let kept = uids(&conn);
    let mut rest = uids_before.iter();
    assert!(kept.iter().all(|u| rest.any(|b| b == u)));
    drop(conn);

    assert_eq!(answers(&p), before, "histories, labels, agreement and uptake read the same");
    assert_eq!(fb(&p, &["locality", "list", "--json"]), audit_before);
    export.assert_same(&p, dir.path(), written_at);
}

#[test]
fn a_run_of_prefills_a_record_cannot_stand_for_is_kept_as_it_was_written() {
    // A pre-fill whose value is not the row's suggestion (an edited file, or a suggestion written
    // before marks) ends the run: the pre-fills before it are one record, it and the rest of the
    // row stay as they were, and the history reads exactly as written.
    let dir = tempfile::tempdir().unwrap();
    let p = worked_project(dir.path());
    let conn = Connection::open(&p).unwrap();
    undo_schema22(&conn);
    undo_schema21(&conn);
    undo_schema20(&conn);
    undo_schema19(&conn);
    let (row, who, axis_id): (String, i64, i64) = conn
        .query_row(
            "SELECT candidate_id, annotator_id, id FROM annotation_events
             WHERE origin = 'prefill' AND field = 'axis' AND from_suggestion = 1 AND candidate_id NOT IN (SELECT candidate_id FROM locked_rows)
             ORDER BY id LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    let name: String = conn.query_row("SELECT name FROM annotators WHERE id = ?1", [who], |r| r.get(0)).unwrap();
    conn.execute_batch("DROP TRIGGER annotation_events_no_update").unwrap();
    let suggested = suggestion_as_16(&conn, &row, "axis");
    let other = if suggested.as_deref() == Some("numeric") { "scope" } else { "numeric" };
    conn.execute(
        "UPDATE annotation_events SET from_suggestion = NULL, new_value = ?1 WHERE id = ?2",
        params![other, axis_id],
    )
    .unwrap();
    conn.execute_batch(
        "CREATE TRIGGER annotation_events_no_update BEFORE UPDATE ON annotation_events
         BEGIN SELECT RAISE(ABORT, 'annotation events are append-only'); END;",
    )
    .unwrap();
    conn.pragma_update(None, "user_version", 18).unwrap();
    let written: Vec<(String, Option<String>)> = conn
        .prepare(
            "SELECT field, CASE WHEN from_suggestion = 1 THEN '(the suggestion)' ELSE new_value END FROM annotation_events
             WHERE candidate_id = ?1 AND annotator_id = ?2 AND origin = 'prefill' ORDER BY id",
        )
        .unwrap()
        .query_map(params![row, who], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    drop(conn);

    let project = Project::open(&p).unwrap();
    let kept = stored(project.conn(), &row, &name);
    let prefills: Vec<&(String, Option<i64>, String)> = kept.iter().filter(|e| e.2 == "prefill").collect();
    // Span and both claims in one record (bits 0-2), the axis as written, severity and repair in a
    // second record (bits 4-5).
    assert_eq!(
        prefills.iter().map(|e| (e.0.as_str(), e.1)).collect::<Vec<_>>(),
        [("suggestions", Some(0b111)), ("axis", None), ("suggestions", Some(0b110000))]
    );
    assert_eq!(written.len(), 6);
    let history = annotate::history(&project, &row, &name).unwrap();
    let read: Vec<(String, Option<String>)> = history
        .iter()
        .filter(|e| e.origin == "prefill")
        .map(|e| {
            let own = suggestion_as_16(project.conn(), &row, &e.field);
            (e.field.clone(), if e.new_value == own { Some("(the suggestion)".into()) } else { e.new_value.clone() })
        })
        .collect();
    assert_eq!(read, written);
    assert_eq!(read[3], ("axis".to_string(), Some(other.to_string())));
}

#[test]
fn a_packet_names_each_prefill_alike_every_time_and_merging_again_adds_nothing() {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    // Ana starts a row in the lead's project: the packet carries that work.
    let started = rows_of(&project, "ana")[0].clone();
    annotate::set_field(&mut project, &started, "ana", Field::Notes, Some("begun at the lead")).unwrap();
    let first = issue(&mut project, &dir.path().join("one"), Blinding::Standard);
    let again = issue(&mut project, &dir.path().join("two"), Blinding::Standard);
    let carried = |file: &Path| -> Vec<(String, String, String)> {
        let p = packets::read(file).unwrap();
        let row = p.rows.iter().find(|r| r.id == started).unwrap();
        row.events.iter().map(|e| (e.uid.clone(), e.field.clone(), e.origin.clone())).collect()
    };
    let (one, two) = (carried(&packet_for(&first, "ana")), carried(&packet_for(&again, "ana")));
    assert_eq!(one, two, "the same uids every time the work is carried");
    let prefill_uids: HashSet<&str> = one.iter().filter(|e| e.2 == "prefill").map(|e| e.0.as_str()).collect();
    assert!(prefill_uids.len() >= 5, "each pre-fill with a uid of its own: {one:?}");
    for (uid, ..) in &one {
        assert!(uuid::Uuid::parse_str(uid).is_ok(), "{uid}");
    }

    // The workspace stores the carried events one by one, by the uids the packet names, and its
    // own new work as records.
    let packet = packet_for(&first, "ana");
    let mut ws = workspace_at(dir.path(), &packet, "starts");
    assert_eq!(stored(ws.conn(), &started, "ana").iter().filter(|e| e.2 == "prefill").count(), prefill_uids.len());
    let rows = rows_of(&ws, "ana");
    for row in rows.iter().take(4) {
        accept(&mut ws, row, "ana");
    }
    let returned = return_to(&ws, dir.path(), "ana.returned.json");
    let fresh = dir.path().join("fresh.forcebench");
    project.conn().execute("VACUUM INTO ?1", [fresh.to_str().unwrap()]).unwrap();

    let report = packets::merge(&mut project, std::slice::from_ref(&returned)).unwrap();
    assert!(report[0].merged, "{report:?}");
    let count = |p: &Project| -> (i64, i64) {
        p.conn()
            .query_row(
                "SELECT count(*), count(*) FILTER (WHERE origin = 'prefill' AND field_set IS NULL) FROM annotation_events",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap()
    };
    let (events, loose) = count(&project);
    assert_eq!(loose, 0, "every start merged is one record");
    for row in rows.iter().take(4) {
        assert_eq!(stored(project.conn(), row, "ana").iter().filter(|e| e.2 == "prefill").count(), 1, "{row}");
    }
    // Each history with a change made in the app and one merged from a packet told apart no
    // further: the workspace's changes are the lead's now, merged as from the packet.
    let histories = |p: &Project| -> Vec<String> {
        rows.iter()
            .take(4)
            .map(|r| {
                let mut h = annotate::history(p, r, "ana").unwrap();
                for e in h.iter_mut().filter(|e| e.origin == "app" || e.origin == "packet") {
                    e.origin = "a change".into();
                }
                trail(&h)
            })
            .collect()
    };
    let merged_histories = histories(&project);
    // The workspace's own history of each row, pre-fills included, is the lead's now.
    assert_eq!(merged_histories, histories(&ws));

    // The same return again: nothing new.
    let second = packets::merge(&mut project, std::slice::from_ref(&returned)).unwrap();
    assert!(!second[0].merged && second[0].new_events == 0, "{second:?}");
    assert_eq!(count(&project).0, events);

    // A return as an earlier workspace wrote it: each pre-fill with a random uid of its own.
    let legacy = forge_with_key(&returned, &packet, &dir.path().join("legacy.json"), |v| {
        for row in v["rows"].as_array_mut().unwrap() {
            let mut first_of_row = true;
            for e in row.get_mut("events").and_then(|e| e.as_array_mut()).into_iter().flatten() {
                if e["origin"] == "prefill" {
                    if !first_of_row {
                        e["uid"] = uuid::Uuid::new_v4().to_string().into();
                    }
                    first_of_row = false;
                }
            }
        }
    });
    // Into the project that merged the return already: its pre-fills are known, nothing changes.
    let third = packets::merge(&mut project, std::slice::from_ref(&legacy)).unwrap();
    assert!(!third[0].merged && third[0].new_events == 0, "{third:?}");
    assert_eq!(count(&project).0, events);
    // Into a project that had not: one record per start, and the same histories.
    let mut other = Project::open(&fresh).unwrap();
    let report = packets::merge(&mut other, &[legacy]).unwrap();
    assert!(report[0].merged);
    assert_eq!(count(&other), (events, 0));
    assert_eq!(histories(&other), merged_histories);
}

#[test]
fn the_storage_refuses_a_start_record_that_does_not_say_what_it_stands_for() {
    let (_dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let row = rows_of(&project, "ana")[0].clone();
    annotate::set_field(&mut project, &row, "ana", Field::Notes, Some("x")).unwrap();
    let conn = project.conn();
    let insert = |field: &str, origin: &str, bits: Option<i64>, marked: Option<i64>| {
        conn.execute(
            "INSERT INTO annotation_events (candidate_id, annotator_id, field, at, origin, uid, from_suggestion, field_set)
             SELECT candidate_id, annotator_id, ?1, at, ?2, randomblob(16), ?4, ?3 FROM annotation_events LIMIT 1",
            params![field, origin, bits, marked],
        )
        .map(|_| ())
        .unwrap_err()
        .to_string()
    };
    assert!(insert("suggestions", "prefill", None, Some(1)).contains("names the fields"));
    for (field, origin, bits, marked) in [
        ("suggestions", "prefill", Some(0), Some(1)),
        ("suggestions", "prefill", Some(64), Some(1)),
        ("axis", "prefill", Some(1), Some(1)),
        ("suggestions", "app", Some(1), Some(1)),
        ("suggestions", "prefill", Some(1), None),
    ] {
        assert!(
            insert(field, origin, bits, marked).contains("CHECK constraint"),
            "{field} {origin} {bits:?} {marked:?}"
        );
    }
    // A record of confirmations is one too, and no other origin makes one.
    assert!(insert("suggestions", "confirm", None, Some(1)).contains("names the fields"));
    for origin in ["import", "packet"] {
        assert!(insert("suggestions", origin, Some(3), Some(1)).contains("CHECK constraint"), "{origin}");
    }
    let err = conn.execute("UPDATE annotation_events SET field_set = 3 WHERE field_set IS NOT NULL", []).unwrap_err();
    assert!(err.to_string().contains("append-only"), "{err}");
}

#[test]
fn confirming_at_once_is_one_stored_record_and_undo_takes_it_back_a_field_at_a_time() {
    let (_dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let row = rows_of(&project, "ana")[0].clone();
    let shown = annotate::get(&project, &row, "ana").unwrap().suggested;
    assert!(shown.len() >= 3, "{shown:?}");
    let confirmed = annotate::confirm(&mut project, &row, "ana").unwrap();
    assert!(confirmed.suggested.is_empty() && confirmed.can_undo);

    // Stored: the start and one record of the confirmations.
    let names: Vec<&str> = shown.iter().map(|f| f.as_str()).collect();
    let bits: i64 = ORDER.iter().enumerate().filter(|(_, f)| names.contains(f)).map(|(i, _)| 1 << i).sum();
    let kept = stored(project.conn(), &row, "ana");
    assert_eq!(kept.len(), 2);
    assert_eq!(kept[1], ("suggestions".to_string(), Some(bits), "confirm".to_string()));

    // Read: one confirmation per field, in order, each the row's suggestion, one time.
    let own = suggestions(project.conn(), &row);
    let value = |f: &str| own.iter().find(|(g, _)| *g == f).unwrap().1.clone();
    let history = annotate::history(&project, &row, "ana").unwrap();
    let confirms: Vec<(String, Option<String>, Option<String>)> = history
        .iter()
        .filter(|e| e.origin == "confirm")
        .map(|e| (e.field.clone(), e.old_value.clone(), e.new_value.clone()))
        .collect();
    let expected: Vec<(String, Option<String>, Option<String>)> =
        names.iter().map(|f| (f.to_string(), value(f), value(f))).collect();
    assert_eq!(confirms, expected);

    // Undo takes back the last field confirmed, then the one before, as when each was an event.
    for n in 1..=shown.len() {
        let a = annotate::undo(&mut project, &row, "ana").unwrap();
        assert_eq!(a.suggested, shown[shown.len() - n..], "after {n} undos");
        assert_eq!(a.can_undo, n < shown.len());
    }
    let still = annotate::undo(&mut project, &row, "ana").unwrap();
    assert_eq!(still.suggested, shown, "nothing left to undo");
    let undos: Vec<String> = annotate::history(&project, &row, "ana")
        .unwrap()
        .into_iter()
        .filter(|e| e.undoes.is_some())
        .map(|e| e.field)
        .collect();
    assert_eq!(undos, names.iter().rev().map(|f| f.to_string()).collect::<Vec<_>>());
    // Confirmed again: a new record; the label is as before the undos.
    let again = annotate::confirm(&mut project, &row, "ana").unwrap();
    assert!(again.suggested.is_empty());
    assert_eq!(stored(project.conn(), &row, "ana").iter().filter(|e| e.1.is_some()).count(), 3);

    // An accept imported from a file confirms what it leaves out: one record as well.
    let theirs = rows_of(&project, "ben")[0].clone();
    let file =
        write(_dir.path(), "ben.jsonl", format!("{{\"id\": \"{theirs}\", \"decision\": \"accept_force_gap\"}}\n"));
    annotate::import_jsonl(&mut project, &file, "ben").unwrap();
    let kinds: Vec<(String, bool, String)> =
        stored(project.conn(), &theirs, "ben").into_iter().map(|(f, b, o)| (f, b.is_some(), o)).collect();
    assert_eq!(
        kinds,
        [
            ("suggestions".to_string(), true, "prefill".to_string()),
            ("decision".into(), false, "import".into()),
            ("suggestions".into(), true, "confirm".into())
        ]
    );
    assert!(annotate::get(&project, &theirs, "ben").unwrap().finished);
}

#[test]
fn a_returned_confirmation_record_merges_once_and_an_undo_of_one_of_its_events_travels() {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let packet = packet_for(&list, "ana");
    let mut ws = workspace_at(dir.path(), &packet, "confirms");
    let rows = rows_of(&ws, "ana");
    for row in rows.iter().take(3) {
        accept(&mut ws, row, "ana");
    }
    // On the second row, the last confirmation taken back.
    annotate::undo(&mut ws, &rows[1], "ana").unwrap();
    annotate::undo(&mut ws, &rows[1], "ana").unwrap();
    let returned = return_to(&ws, dir.path(), "ana.returned.json");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&returned).unwrap()).unwrap();
    let events = v["rows"].as_array().unwrap().iter().find(|r| r["id"] == rows[1].as_str()).unwrap()["events"].clone();
    let undo = events.as_array().unwrap().iter().rev().find(|e| e.get("undoes").is_some()).unwrap().clone();
    let target = events.as_array().unwrap().iter().find(|e| e["uid"] == undo["undoes"]).unwrap();
    assert_eq!((target["origin"].as_str(), target["field"].as_str()), (Some("confirm"), undo["field"].as_str()));

    let fresh = dir.path().join("fresh.forcebench");
    project.conn().execute("VACUUM INTO ?1", [fresh.to_str().unwrap()]).unwrap();
    let report = packets::merge(&mut project, std::slice::from_ref(&returned)).unwrap();
    assert!(report[0].merged);
    let label = |p: &Project, r: &str| format!("{:?}", annotate::get(p, r, "ana").unwrap());
    for row in rows.iter().take(3) {
        assert_eq!(label(&project, row), label(&ws, row), "{row}");
        let confirm_records =
            stored(project.conn(), row, "ana").iter().filter(|e| e.2 == "confirm" && e.1.is_some()).count();
        assert_eq!(confirm_records, 1, "{row}: the confirmations are one record here too");
    }
    let count = |p: &Project| -> i64 {
        p.conn().query_row("SELECT count(*) FROM annotation_events", [], |r| r.get(0)).unwrap()
    };
    let events_after = count(&project);
    let again = packets::merge(&mut project, std::slice::from_ref(&returned)).unwrap();
    assert!(!again[0].merged && again[0].new_events == 0, "{again:?}");
    assert_eq!(count(&project), events_after);

    // A return naming every confirmation by a uid of its own, as an earlier workspace wrote them:
    // known by row, field and time where the project holds them, one record where it does not.
    let legacy = forge_with_key(&returned, &packet, &dir.path().join("legacy.json"), |v| {
        let mut renamed: std::collections::HashMap<String, String> = Default::default();
        for row in v["rows"].as_array_mut().unwrap() {
            for e in row.get_mut("events").and_then(|e| e.as_array_mut()).into_iter().flatten() {
                if e["origin"] == "confirm" {
                    let new = uuid::Uuid::new_v4().to_string();
                    renamed.insert(e["uid"].as_str().unwrap().to_string(), new.clone());
                    e["uid"] = new.into();
                }
                if let Some(u) = e.get("undoes").and_then(|u| u.as_str()).and_then(|u| renamed.get(u)) {
                    e["undoes"] = u.clone().into();
                }
            }
        }
    });
    let third = packets::merge(&mut project, std::slice::from_ref(&legacy)).unwrap();
    assert!(!third[0].merged && third[0].new_events == 0, "{third:?}");
    let mut other = Project::open(&fresh).unwrap();
    assert!(packets::merge(&mut other, &[legacy]).unwrap()[0].merged);
    for row in rows.iter().take(3) {
        assert_eq!(label(&other, row), label(&project, row), "{row}");
        assert_eq!(
            trail(&annotate::history(&other, row, "ana").unwrap()),
            trail(&annotate::history(&project, row, "ana").unwrap()),
            "{row}"
        );
    }
}
