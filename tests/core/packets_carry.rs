//! Packets carry the annotator's own work: a packet issued to someone who already labelled rows
//! in the lead's project opens with those labels (it continues their work), its return adds only
//! what changed in the workspace, and a merge never replaces a label the annotator did not change
//! in the packet, even from a packet issued before packets carried that work.

use crate::common::*;
use forcebench::annotate::{self, Field};
use forcebench::packets::{self, Blinding};
use forcebench::{workspace, Project};
use std::path::{Path, PathBuf};

/// Ana's work in the lead's project: her first `n` rows rejected with a note, then one more row
/// marked needs discussion with a note. Returns the needs-discussion row.
fn ana_works_in_place(project: &mut Project, n: usize) -> String {
    let rows: Vec<String> = annotate::queue(project, "ana").unwrap().into_iter().map(|q| q.id).collect();
    for id in rows.iter().take(n) {
        annotate::set_field(project, id, "ana", Field::Decision, Some("reject_not_force_gap")).unwrap();
        annotate::set_field(project, id, "ana", Field::BoundaryType, Some("ambiguous")).unwrap();
        annotate::set_field(project, id, "ana", Field::Notes, Some("in place")).unwrap();
    }
    let discuss = rows[n].clone();
    annotate::set_field(project, &discuss, "ana", Field::Decision, Some("needs_discussion")).unwrap();
    annotate::set_field(project, &discuss, "ana", Field::Severity, Some("3")).unwrap();
    annotate::set_field(project, &discuss, "ana", Field::Notes, Some("is a trial of adults a new population?"))
        .unwrap();
    discuss
}

fn finished(p: &Project, who: &str) -> usize {
    annotate::queue(p, who).unwrap().into_iter().filter(|q| q.finished).count()
}

fn open(dir: &Path, packet: &Path, tag: &str) -> Project {
    workspace::open_packet(packet, &dir.join(format!("ws-{tag}.forcebench"))).unwrap()
}

fn give_back(ws: &Project, dir: &Path, tag: &str) -> PathBuf {
    let out = dir.join(format!("returned-{tag}.json"));
    workspace::return_packet(ws, &out).unwrap();
    out
}

// Broke: Ana had rows finished in place; her packet opened at 0 finished (from the suggestions),
// and re-doing a row there replaced her "needs discussion" on merge.
#[test]
fn a_packet_opens_with_the_annotators_own_labels_and_merging_keeps_those_not_changed() {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let discuss = ana_works_in_place(&mut project, 4);
    let done_in_place = finished(&project, "ana");
    assert_eq!(done_in_place, 5, "four rejects and a needs-discussion with a note");
    let before = annotate::get(&project, &discuss, "ana").unwrap();

    let issued = packets::issue(&mut project, &dir.path().join("packets"), Blinding::Standard).unwrap();
    let ana = issued.iter().find(|p| p.annotator == "ana").unwrap();
    let ben = issued.iter().find(|p| p.annotator == "ben").unwrap();
    assert_eq!((ana.carried, ben.carried), (5, 0), "the packets say how many rows carry their annotator's work");

    let mut ws = open(dir.path(), Path::new(&ana.file), "ana");
    assert_eq!(finished(&ws, "ana"), done_in_place, "the workspace continues Ana's work");
    let there = annotate::get(&ws, &discuss, "ana").unwrap();
    assert_eq!(
        (there.decision, there.severity, there.notes.clone()),
        (before.decision, before.severity, before.notes.clone())
    );
    assert_eq!(workspace::carried_rows(&workspace::packet_of(&ws).unwrap().unwrap()), 5);

    // In the packet Ana changes only the severity of the row she marked for discussion.
    annotate::set_field(&mut ws, &discuss, "ana", Field::Severity, Some("2")).unwrap();
    let report = packets::merge(&mut project, &[give_back(&ws, dir.path(), "ana")]).unwrap().remove(0);
    assert_eq!((report.new_events, report.changed_rows), (1, 1), "only the new change is merged: {report:?}");
    let after = annotate::get(&project, &discuss, "ana").unwrap();
    assert_eq!(after.decision, before.decision, "needs discussion stays");
    assert_eq!(after.notes, before.notes);
    assert_eq!(after.severity, Some(2));
    assert_eq!(finished(&project, "ana"), done_in_place);
}

// Broke: a packet issued without Ana's work (as every packet was before) started the row again
// from the suggestions; the suggestions recorded at that start replaced her labels on merge.
#[test]
fn a_return_of_a_packet_without_the_annotators_work_changes_only_what_they_changed_in_it() {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let discuss = ana_works_in_place(&mut project, 2);
    let before = annotate::get(&project, &discuss, "ana").unwrap();
    let issued = packets::issue(&mut project, &dir.path().join("packets"), Blinding::Standard).unwrap();
    let file = PathBuf::from(&issued.iter().find(|p| p.annotator == "ana").unwrap().file);
    // The packet as earlier builds issued it: no events, no time.
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    for row in v["rows"].as_array_mut().unwrap() {
        let row = row.as_object_mut().unwrap();
        row.remove("events");
        row.remove("seconds_spent");
    }
    v.as_object_mut().unwrap().remove("checksum");
    v["checksum"] = packets::checksum_of(&v).into();
    std::fs::write(&file, serde_json::to_vec_pretty(&v).unwrap()).unwrap();

    let mut ws = open(dir.path(), &file, "old");
    assert_eq!(finished(&ws, "ana"), 0);
    // Re-doing the row quickly: an accept, which records the suggestions the row starts from.
    annotate::set_field(&mut ws, &discuss, "ana", Field::Decision, Some("accept_force_gap")).unwrap();
    let report = packets::merge(&mut project, &[give_back(&ws, dir.path(), "old")]).unwrap().remove(0);
    assert_eq!(report.changed_rows, 1);
    let after = annotate::get(&project, &discuss, "ana").unwrap();
    assert_eq!(after.decision.map(|d| d.as_str()), Some("accept_force_gap"), "the change made in the packet is merged");
    assert_eq!(
        (after.severity, after.notes, after.evidence_span, after.axis, after.repair),
        (before.severity, before.notes, before.evidence_span, before.axis, before.repair),
        "nothing Ana did not change in the packet was replaced"
    );
}

// Strict blinding hides the suggested axis and severity; the suggestions recorded when Ana
// started rows in place (and an axis change's earlier value) would have carried them anyway.
#[test]
fn a_strict_packet_carries_the_annotators_own_choices_but_no_suggested_axis_or_severity() {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let discuss = ana_works_in_place(&mut project, 3);
    annotate::set_field(&mut project, &discuss, "ana", Field::Axis, Some("scope")).unwrap();
    let issued = packets::issue(&mut project, &dir.path().join("packets"), Blinding::Strict).unwrap();
    let ana = issued.iter().find(|p| p.annotator == "ana").unwrap();
    assert_eq!(ana.carried, 4);
    let packet: serde_json::Value = serde_json::from_slice(&std::fs::read(&ana.file).unwrap()).unwrap();
    let mut own = Vec::new();
    for row in packet["rows"].as_array().unwrap() {
        for e in row["events"].as_array().into_iter().flatten() {
            if matches!(e["field"].as_str(), Some("axis" | "severity")) {
                assert_ne!(e["origin"], "prefill", "a suggestion recorded at the row's start: {e}");
                assert!(e["old_value"].is_null(), "an earlier value (the suggestion): {e}");
                own.push((row["id"].as_str().unwrap().to_string(), e["field"].as_str().unwrap().to_string()));
            }
        }
    }
    assert!(own.contains(&(discuss.clone(), "axis".to_string())), "Ana's own axis travels: {own:?}");
    assert!(own.contains(&(discuss.clone(), "severity".to_string())), "and her own severity: {own:?}");
    let ws = open(dir.path(), Path::new(&ana.file), "strict");
    let there = annotate::get(&ws, &discuss, "ana").unwrap();
    assert_eq!((there.axis.map(|a| a.as_str()), there.severity), (Some("scope"), Some(3)));
    assert_eq!(finished(&ws, "ana"), finished(&project, "ana"));
}
