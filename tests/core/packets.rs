//! Packets: blinding checked on the file's bytes, workspaces, returns, and every merge refusal.

use crate::common::*;
use forcebench::annotate::{self, Field};
use forcebench::packets::{self, Blinding};
use forcebench::{candidate, workspace, Project};
use std::path::{Path, PathBuf};

/// Issues packets and returns (annotator, file) pairs.
fn issue(project: &mut Project, dir: &Path, blinding: Blinding) -> Vec<(String, PathBuf)> {
    packets::issue(project, &dir.join("packets"), blinding)
        .unwrap()
        .into_iter()
        .map(|p| (p.annotator, PathBuf::from(p.file)))
        .collect()
}

fn packet_for(list: &[(String, PathBuf)], who: &str) -> PathBuf {
    list.iter().find(|(a, _)| a == who).unwrap().1.clone()
}

/// Opens ana's packet as a workspace, annotates its first `n` rows, returns the packet file.
fn annotate_and_return(dir: &Path, packet: &Path, n: usize, tag: &str) -> PathBuf {
    let ws_path = dir.join(format!("ws-{tag}.forcebench"));
    let mut ws = if ws_path.exists() { Project::open(&ws_path).unwrap() } else { workspace::open_packet(packet, &ws_path).unwrap() };
    let who = workspace::packet_of(&ws).unwrap().unwrap().annotator;
    for q in annotate::queue(&ws, &who).unwrap().into_iter().take(n) {
        annotate::set_field(&mut ws, &q.id, &who, Field::Decision, Some("reject_not_force_gap")).unwrap();
        annotate::set_field(&mut ws, &q.id, &who, Field::BoundaryType, Some("ambiguous")).unwrap();
        annotate::set_field(&mut ws, &q.id, &who, Field::Notes, Some(&format!("{tag} note"))).unwrap();
    }
    let out = dir.join(format!("returned-{tag}.json"));
    workspace::return_packet(&ws, &out).unwrap();
    out
}

#[test]
fn a_packet_holds_no_other_annotators_labels_at_either_blinding() {
    for blinding in [Blinding::Standard, Blinding::Strict] {
        let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
        // Ben labels every row with text that must never reach Ana.
        for q in annotate::queue(&project, "ben").unwrap() {
            annotate::set_field(&mut project, &q.id, "ben", Field::Notes, Some("BEN-PRIVATE-NOTE")).unwrap();
            annotate::set_field(&mut project, &q.id, "ben", Field::Repair, Some("BEN-PRIVATE-REPAIR")).unwrap();
            annotate::set_field(&mut project, &q.id, "ben", Field::Decision, Some("needs_discussion")).unwrap();
        }
        let list = issue(&mut project, dir.path(), blinding);
        let bytes = std::fs::read_to_string(packet_for(&list, "ana")).unwrap();
        for secret in ["BEN-PRIVATE-NOTE", "BEN-PRIVATE-REPAIR", "needs_discussion", "\"ben\""] {
            assert!(!bytes.contains(secret), "{blinding:?} packet for ana contains {secret}");
        }
        assert!(bytes.contains("\"annotator\": \"ana\""));
        let sample = candidate::get(&project, &candidate::list(&project).unwrap()[0].id).unwrap().candidate;
        if blinding == Blinding::Strict {
            for hidden in ["ExpertQA", "AttributedQA", "GaRAGe", "LFQA", "\"axis\"", "\"severity\"", "\"group_id\"", "\"source_id\"", "\"rationale\""] {
                assert!(!bytes.contains(hidden), "strict packet contains {hidden}");
            }
        } else {
            assert!(bytes.contains("\"source_dataset\"") && bytes.contains("\"axis\""));
            assert!(bytes.contains(&serde_json::to_string(&sample.passage).unwrap()[1..20]));
        }
    }
}

#[test]
fn packet_rows_follow_the_annotators_own_order() {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let packet = packets::read(&packet_for(&list, "ana")).unwrap();
    let ids: Vec<String> = packet.rows.iter().map(|r| r.id.clone()).collect();
    let queue: Vec<String> = annotate::queue(&project, "ana").unwrap().into_iter().map(|q| q.id).collect();
    assert_eq!(ids, queue);
}

#[test]
fn strict_workspace_prefills_no_hidden_suggestion() {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Strict);
    let mut ws = workspace::open_packet(&packet_for(&list, "ana"), &dir.path().join("ws.forcebench")).unwrap();
    let first = annotate::queue(&ws, "ana").unwrap()[0].id.clone();
    let a = annotate::set_field(&mut ws, &first, "ana", Field::Decision, Some("accept_force_gap")).unwrap();
    assert_eq!((a.axis, a.severity), (None, None));
    assert!(a.problems.contains(&"an accept needs a primary axis".to_string()));
}

#[test]
fn returned_packet_merges_and_a_second_merge_is_a_no_op() {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Strict);
    let returned = annotate_and_return(dir.path(), &packet_for(&list, "ana"), 3, "a");
    let reports = packets::merge(&mut project, std::slice::from_ref(&returned)).unwrap();
    assert!(reports[0].merged);
    assert_eq!(reports[0].finished_rows, 3);
    let ids: Vec<String> = annotate::queue(&project, "ana").unwrap().into_iter().filter(|q| q.finished).map(|q| q.id).collect();
    assert_eq!(ids.len(), 3);
    let a = annotate::get(&project, &ids[0], "ana").unwrap();
    assert_eq!(a.notes.as_deref(), Some("a note"));
    assert_eq!((a.axis, a.severity), (None, None), "strict blinding travels with the events");
    let before = dump(&project);
    let again = packets::merge(&mut project, &[returned]).unwrap();
    assert!(!again[0].merged);
    assert_eq!(dump(&project), before);
}

#[test]
fn a_later_return_supersedes_and_keeps_every_event() {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let first = annotate_and_return(dir.path(), &packet_for(&list, "ana"), 2, "x");
    packets::merge(&mut project, &[first]).unwrap();
    let events_after_first: i64 = project.conn().query_row("SELECT count(*) FROM annotation_events", [], |r| r.get(0)).unwrap();
    // Same workspace, more work, returned again.
    let second = annotate_and_return(dir.path(), &packet_for(&list, "ana"), 4, "x");
    let report = packets::merge(&mut project, &[second]).unwrap();
    assert!(report[0].merged);
    assert_eq!(report[0].finished_rows, 4);
    let events: i64 = project.conn().query_row("SELECT count(*) FROM annotation_events", [], |r| r.get(0)).unwrap();
    assert!(events > events_after_first, "new events added");
    let dupes: i64 = project
        .conn()
        .query_row("SELECT count(*) FROM (SELECT source_event_id FROM annotation_events WHERE packet_id IS NOT NULL GROUP BY packet_id, source_event_id HAVING count(*) > 1)", [], |r| r.get(0))
        .unwrap();
    assert_eq!(dupes, 0, "events merged from the first return are not repeated");
}

/// Rewrites a returned packet through `edit` and re-signs it (or not).
fn tamper(path: &Path, out: &Path, resign: bool, edit: impl FnOnce(&mut serde_json::Value)) -> PathBuf {
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    edit(&mut v);
    if resign {
        let sum = packets::checksum_of(&v);
        v["checksum"] = sum.into();
    }
    std::fs::write(out, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    out.to_path_buf()
}

fn refused(project: &mut Project, file: &Path, needle: &str) {
    let before = dump(project);
    let err = packets::merge(project, &[file.to_path_buf()]).unwrap_err();
    let message = err.to_string();
    assert!(message.contains(needle), "expected `{needle}` in: {message}");
    assert!(message.contains(&file.display().to_string()), "names the file: {message}");
    assert_eq!(dump(project), before, "a refused merge changed the project");
}

#[test]
fn tampered_checksum_is_refused_with_nothing_merged() {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let ret = annotate_and_return(dir.path(), &packet_for(&list, "ana"), 2, "t");
    let bad = tamper(&ret, &dir.path().join("edited.json"), false, |v| {
        v["rows"][0]["events"].as_array_mut().unwrap().last_mut().unwrap()["new_value"] = "edited by hand".into();
    });
    refused(&mut project, &bad, "checksum check failed");
}

#[test]
fn packet_of_another_project_is_refused() {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let ret = annotate_and_return(dir.path(), &packet_for(&list, "ana"), 1, "p");
    let (_d2, _, mut other) = annotated_project(&["ana", "ben"]);
    refused(&mut other, &ret, "project check failed: the packet belongs to project `test`");
}

#[test]
fn changed_row_is_refused_naming_the_row() {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let ret = annotate_and_return(dir.path(), &packet_for(&list, "ana"), 1, "c");
    let bad = tamper(&ret, &dir.path().join("changed.json"), true, |v| {
        v["rows"][1]["content_sha256"] = "0".repeat(64).into();
    });
    let row = packets::read(&bad).unwrap().rows[1].id.clone();
    refused(&mut project, &bad, &format!("field `row {row}`: content hash check failed: the row changed since the packet was issued"));
}

#[test]
fn row_changed_in_the_project_since_issue_is_refused() {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let ret = annotate_and_return(dir.path(), &packet_for(&list, "ana"), 1, "d");
    let row = packets::read(&ret).unwrap().rows[0].id.clone();
    project.conn().execute("UPDATE candidates SET content_sha256 = 'changed' WHERE id = ?1", [&row]).unwrap();
    refused(&mut project, &ret, "content hash check failed");
}

#[test]
fn unknown_annotator_is_refused() {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let ret = annotate_and_return(dir.path(), &packet_for(&list, "ana"), 1, "u");
    let bad = tamper(&ret, &dir.path().join("who.json"), true, |v| v["annotator"] = "mallory".into());
    refused(&mut project, &bad, "annotator check failed: the packet names annotator `mallory` but was issued to `ana`");
}

#[test]
fn unknown_packet_and_unreturned_packet_are_refused() {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let ret = annotate_and_return(dir.path(), &packet_for(&list, "ana"), 1, "k");
    let bad = tamper(&ret, &dir.path().join("id.json"), true, |v| v["packet_id"] = "00000000-0000-4000-8000-000000000000".into());
    refused(&mut project, &bad, "packet check failed");
    refused(&mut project, &packet_for(&list, "ben"), "issued but never returned");
}

#[test]
fn one_bad_file_among_several_merges_nothing() {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let good = annotate_and_return(dir.path(), &packet_for(&list, "ana"), 2, "g");
    let bad = tamper(&good, &dir.path().join("bad.json"), false, |v| v["annotator"] = "x".into());
    let before = dump(&project);
    assert!(packets::merge(&mut project, &[good, bad]).is_err());
    assert_eq!(dump(&project), before);
}

#[test]
fn a_workspace_is_resumed_beside_its_packet() {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Strict);
    let packet = packet_for(&list, "ana");
    let mut ws = workspace::open_or_resume(&packet).unwrap();
    let first = annotate::queue(&ws, "ana").unwrap()[0].id.clone();
    annotate::set_field(&mut ws, &first, "ana", Field::Notes, Some("kept")).unwrap();
    drop(ws);
    let ws = workspace::open_or_resume(&packet).unwrap();
    assert_eq!(annotate::get(&ws, &first, "ana").unwrap().notes.as_deref(), Some("kept"));
    let view = annotate::row_view(&ws, &first, "ana").unwrap();
    assert_eq!(view.position, 1);
    assert_eq!(view.total as usize, annotate::queue(&ws, "ana").unwrap().len());
    assert_eq!((view.suggested_axis, view.source_dataset), (None, None), "strict blinding hides them");
    let lead_view = annotate::row_view(&project, &first, "ana").unwrap();
    assert!(lead_view.source_dataset.is_some() && lead_view.suggested_axis.is_some());
}
