//! Packets: blinding checked on the file's bytes, workspaces, returns, authentication, two
//! workspaces of one packet, crashes during merge, and every merge refusal.

use crate::common::*;
use forcebench::annotate::{self, Field};
use forcebench::packets::{self, Blinding};
use forcebench::{candidate, workspace, Project};
use std::path::{Path, PathBuf};

/// Issues packets and returns (annotator, file) pairs.
pub(crate) fn issue(project: &mut Project, dir: &Path, blinding: Blinding) -> Vec<(String, PathBuf)> {
    packets::issue(project, &dir.join("packets"), blinding)
        .unwrap()
        .into_iter()
        .map(|p| (p.annotator, PathBuf::from(p.file)))
        .collect()
}

pub(crate) fn packet_for(list: &[(String, PathBuf)], who: &str) -> PathBuf {
    list.iter().find(|(a, _)| a == who).unwrap().1.clone()
}

/// Opens ana's packet as a workspace, annotates its first `n` rows, returns the packet file.
pub(crate) fn annotate_and_return(dir: &Path, packet: &Path, n: usize, tag: &str) -> PathBuf {
    let ws_path = dir.join(format!("ws-{tag}.forcebench"));
    let mut ws = if ws_path.exists() {
        Project::open(&ws_path).unwrap()
    } else {
        workspace::open_packet(packet, &ws_path).unwrap()
    };
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
            for hidden in [
                "ExpertQA",
                "AttributedQA",
                "GaRAGe",
                "LFQA",
                "\"axis\"",
                "\"severity\"",
                "\"group_id\"",
                "\"source_id\"",
                "\"rationale\"",
            ] {
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
    let ids: Vec<String> =
        annotate::queue(&project, "ana").unwrap().into_iter().filter(|q| q.finished).map(|q| q.id).collect();
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
fn a_return_that_changes_only_a_rows_time_spent_updates_that_time_alone() {
    // The merge looks a row's stored time up only for a row without new events: such a row is
    // written when its time changed, and not written at all when it did not.
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let first = annotate_and_return(dir.path(), &packet_for(&list, "ana"), 2, "t");
    packets::merge(&mut project, &[first]).unwrap();
    // A stored label's time spent and when it was last written.
    let stored = |p: &Project, id: &str| -> (f64, String) {
        p.conn()
            .query_row(
                "SELECT seconds_spent, updated_at FROM annotations a JOIN annotators n ON n.id = a.annotator_id
                 WHERE a.candidate_id = ?1 AND n.name = 'ana'",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap()
    };
    let seconds = |p: &Project, id: &str| stored(p, id).0;
    let labelled: Vec<String> =
        annotate::queue(&project, "ana").unwrap().into_iter().filter(|q| q.finished).map(|q| q.id).collect();
    assert_eq!(labelled.len(), 2);
    let (looked_at, other) = (&labelled[0], &labelled[1]);
    let (before, other_before) = (stored(&project, looked_at), stored(&project, other));
    let events = |p: &Project| -> i64 {
        p.conn().query_row("SELECT count(*) FROM annotation_events", [], |r| r.get(0)).unwrap()
    };
    let events_before = events(&project);

    // In the workspace, Ana looks at one labelled row for 42 s more and changes nothing.
    let ws_path = dir.path().join("ws-t.forcebench");
    let mut ws = Project::open(&ws_path).unwrap();
    annotate::add_time(&mut ws, looked_at, "ana", 42.0).unwrap();
    let in_ws = seconds(&ws, looked_at);
    assert_eq!(in_ws, before.0 + 42.0);
    let second = dir.path().join("returned-time.json");
    workspace::return_packet(&ws, &second).unwrap();
    drop(ws);

    let report = packets::merge(&mut project, std::slice::from_ref(&second)).unwrap();
    assert!(report[0].merged);
    assert_eq!(report[0].new_events, 0);
    let after_merge = stored(&project, looked_at);
    assert_eq!(after_merge.0, in_ws, "the time the return holds is stored");
    assert_ne!(after_merge.1, before.1, "the row whose time changed is written");
    assert_eq!(stored(&project, other), other_before, "a row whose time did not change is not written");
    assert_eq!(events(&project), events_before, "time spent is no event");
    // The same return again changes nothing.
    let after = dump(&project);
    assert!(!packets::merge(&mut project, &[second]).unwrap()[0].merged);
    assert_eq!(dump(&project), after);
}

#[test]
fn a_later_return_supersedes_and_keeps_every_event() {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let first = annotate_and_return(dir.path(), &packet_for(&list, "ana"), 2, "x");
    packets::merge(&mut project, &[first]).unwrap();
    let events_after_first: i64 =
        project.conn().query_row("SELECT count(*) FROM annotation_events", [], |r| r.get(0)).unwrap();
    // Same workspace, more work, returned again.
    let second = annotate_and_return(dir.path(), &packet_for(&list, "ana"), 4, "x");
    let report = packets::merge(&mut project, &[second]).unwrap();
    assert!(report[0].merged);
    assert_eq!(report[0].finished_rows, 4);
    let events: i64 = project.conn().query_row("SELECT count(*) FROM annotation_events", [], |r| r.get(0)).unwrap();
    assert!(events > events_after_first, "new events added");
    // Exactly the workspace's events, each once (dedup on the event uid).
    let ws = Project::open(&dir.path().join("ws-x.forcebench")).unwrap();
    let in_ws: i64 = ws.conn().query_row("SELECT count(*) FROM annotation_events", [], |r| r.get(0)).unwrap();
    assert_eq!(events, in_ws, "every workspace event merged once");
}

/// Rewrites a returned packet through `edit`; with `resign`, recomputes the sha256 of its
/// canonical form and puts it where a checksum would go (a forger without the packet key).
fn tamper(path: &Path, out: &Path, resign: bool, edit: impl FnOnce(&mut serde_json::Value)) -> PathBuf {
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    edit(&mut v);
    if resign {
        let sum = packets::checksum_of(&v);
        v["mac"] = sum.into();
    }
    std::fs::write(out, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    out.to_path_buf()
}

/// Rewrites a returned packet through `edit` and signs it with the key of the issued packet
/// `issued` (whoever holds the issued packet can), to reach the checks behind authentication.
pub(crate) fn forge_with_key(
    path: &Path,
    issued: &Path,
    out: &Path,
    edit: impl FnOnce(&mut serde_json::Value),
) -> PathBuf {
    let key = hex::decode(packets::read(issued).unwrap().secret.unwrap()).unwrap();
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    edit(&mut v);
    v["mac"] = packets::mac_of(&v, &key).into();
    std::fs::write(out, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    out.to_path_buf()
}

pub(crate) fn refused(project: &mut Project, file: &Path, needle: &str) {
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
    refused(
        &mut project,
        &bad,
        "authentication check failed: the returned packet was changed after the annotator's app wrote it",
    );
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
    let bad = forge_with_key(&ret, &packet_for(&list, "ana"), &dir.path().join("changed.json"), |v| {
        v["rows"][1]["content_sha256"] = "0".repeat(64).into();
    });
    let row = packets::read(&bad).unwrap().rows[1].id.clone();
    refused(
        &mut project,
        &bad,
        &format!("field `row {row}`: content hash check failed: the row changed since the packet was issued"),
    );
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
    let bad = tamper(&ret, &dir.path().join("id.json"), true, |v| {
        v["packet_id"] = "00000000-0000-4000-8000-000000000000".into()
    });
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

/// Opens (or resumes) a workspace of `packet` at `ws-<tag>.forcebench`.
pub(crate) fn workspace_at(dir: &Path, packet: &Path, tag: &str) -> Project {
    let ws_path = dir.join(format!("ws-{tag}.forcebench"));
    if ws_path.exists() {
        Project::open(&ws_path).unwrap()
    } else {
        workspace::open_packet(packet, &ws_path).unwrap()
    }
}

pub(crate) fn return_to(ws: &Project, dir: &Path, name: &str) -> PathBuf {
    let out = dir.join(name);
    workspace::return_packet(ws, &out).unwrap();
    out
}

pub(crate) fn accept(ws: &mut Project, row: &str, who: &str) {
    // Pre-filled suggestions are confirmed (the app's `y`) before an accept can finish.
    annotate::confirm(ws, row, who).unwrap();
    let a = annotate::set_field(ws, row, who, Field::Decision, Some("accept_force_gap")).unwrap();
    assert!(a.finished, "{:?}", a.problems);
}

pub(crate) fn reject(ws: &mut Project, row: &str, who: &str, note: &str) {
    annotate::set_field(ws, row, who, Field::Decision, Some("reject_not_force_gap")).unwrap();
    annotate::set_field(ws, row, who, Field::BoundaryType, Some("ambiguous")).unwrap();
    annotate::set_field(ws, row, who, Field::Notes, Some(note)).unwrap();
}

pub(crate) fn rows_of(ws: &Project, who: &str) -> Vec<String> {
    annotate::queue(ws, who).unwrap().into_iter().map(|q| q.id).collect()
}

/// Ana's packet issued from a lead's project and opened twice, as two workspaces, with the
/// packet's rows in Ana's order.
struct TwoWorkspaces {
    dir: tempfile::TempDir,
    project: Project,
    packet: PathBuf,
    ws1: Project,
    ws2: Project,
    rows: Vec<String>,
}

fn two_workspaces_of_anas_packet() -> TwoWorkspaces {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let packet = packet_for(&list, "ana");
    let ws1 = workspace_at(dir.path(), &packet, "one");
    let ws2 = workspace_at(dir.path(), &packet, "two");
    let rows = rows_of(&ws1, "ana");
    TwoWorkspaces { dir, project, packet, ws1, ws2, rows }
}

/// The annotation's fields as the lead and the annotator see them (no counts or times).
pub(crate) fn label(p: &Project, row: &str, who: &str) -> String {
    let a = annotate::get(p, row, who).unwrap();
    format!(
        "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {}",
        a.decision,
        a.evidence_span,
        a.calibrated_claim,
        a.raised_claim,
        a.axis,
        a.severity,
        a.boundary_type,
        a.repair,
        a.notes,
        a.finished
    )
}

#[test]
fn an_edited_label_with_a_recomputed_sha256_is_refused() {
    // Old code: the sha256 checksum was the only check, so recomputing it merged the edit.
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let ret = annotate_and_return(dir.path(), &packet_for(&list, "ana"), 2, "e");
    let bad = tamper(&ret, &dir.path().join("edited.json"), true, |v| {
        for e in v["rows"][0]["events"].as_array_mut().unwrap() {
            if e["field"] == "decision" {
                e["new_value"] = "accept_force_gap".into();
            }
        }
    });
    refused(
        &mut project,
        &bad,
        "authentication check failed: the returned packet was changed after the annotator's app wrote it, \
         or was not written from this packet's workspace; nothing was merged",
    );
}

#[test]
fn a_return_with_changed_blinding_is_refused() {
    // Old code: a strict packet relabelled standard with a recomputed checksum merged.
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Strict);
    let ret = annotate_and_return(dir.path(), &packet_for(&list, "ana"), 1, "b");
    let bad = tamper(&ret, &dir.path().join("blinding.json"), true, |v| v["blinding"] = "standard".into());
    refused(
        &mut project,
        &bad,
        "blinding check failed: the packet says `standard` blinding but was issued with `strict` blinding",
    );
    // Even signed with the packet's own key, the blinding must be the one recorded at issue.
    let signed = forge_with_key(&ret, &packet_for(&list, "ana"), &dir.path().join("blinding-signed.json"), |v| {
        v["blinding"] = "standard".into()
    });
    refused(&mut project, &signed, "blinding check failed");
}

#[test]
fn a_return_relabelled_as_another_annotators_packet_is_refused() {
    // Old code: Ana's work renamed to Ben and Ben's packet id, checksum recomputed, merged as Ben's.
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let ret = annotate_and_return(dir.path(), &packet_for(&list, "ana"), 2, "r");
    let ben = packets::read(&packet_for(&list, "ben")).unwrap();
    let bad = tamper(&ret, &dir.path().join("as-ben.json"), true, |v| {
        v["annotator"] = "ben".into();
        v["packet_id"] = ben.packet_id.clone().into();
        v["issued_at"] = ben.issued_at.clone().into();
    });
    refused(&mut project, &bad, "authentication check failed");
}

#[test]
fn a_return_from_another_packets_workspace_is_refused() {
    // Old code: a return of Ana's first packet relabelled as her second merged into the second.
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let first = packets::issue(&mut project, &dir.path().join("first"), Blinding::Standard).unwrap();
    let second = packets::issue(&mut project, &dir.path().join("second"), Blinding::Standard).unwrap();
    let first_ana = PathBuf::from(&first.iter().find(|p| p.annotator == "ana").unwrap().file);
    let second_ana = packets::read(Path::new(&second.iter().find(|p| p.annotator == "ana").unwrap().file)).unwrap();
    let ret = annotate_and_return(dir.path(), &first_ana, 2, "o");
    let bad = tamper(&ret, &dir.path().join("other.json"), true, |v| {
        v["packet_id"] = second_ana.packet_id.clone().into();
        v["issued_at"] = second_ana.issued_at.clone().into();
    });
    refused(&mut project, &bad, "authentication check failed");
}

#[test]
fn two_workspaces_of_one_packet_that_disagree_refuse_naming_both_and_change_nothing() {
    // Old code: exit 0, and the project held ws1's accept with ws2's note (a label no one gave).
    let TwoWorkspaces { dir, mut project, packet, mut ws1, mut ws2, rows } = two_workspaces_of_anas_packet();
    accept(&mut ws1, &rows[0], "ana");
    reject(&mut ws2, &rows[0], "ana", "not a force gap");
    let r1 = return_to(&ws1, dir.path(), "ana-one.json");
    let r2 = return_to(&ws2, dir.path(), "ana-two.json");
    let id1 = workspace::workspace_id(&ws1).unwrap().unwrap();
    let id2 = workspace::workspace_id(&ws2).unwrap().unwrap();
    assert_ne!(id1, id2);

    // Both in one call: nothing from either.
    let before = dump(&project);
    let message = packets::merge(&mut project, &[r1.clone(), r2.clone()]).unwrap_err().to_string();
    assert_eq!(dump(&project), before, "a refused merge changed the project");
    let expected = format!(
        "{f2}: workspaces check failed: this return (workspace {id2}) and `{f1}` (workspace {id1}) come from \
         two workspaces of ana's packet `{pid}`, and both changed row `{row}` with different results; merge only the return \
         that holds ana's work; nothing was merged",
        f1 = r1.display(),
        f2 = r2.display(),
        row = rows[0],
        pid = packets::read(&packet).unwrap().packet_id,
    );
    assert!(message.contains(&expected), "{message}");

    // One after the other: the first merges, the second is refused and changes nothing.
    packets::merge(&mut project, std::slice::from_ref(&r1)).unwrap();
    let before = dump(&project);
    let message = packets::merge(&mut project, std::slice::from_ref(&r2)).unwrap_err().to_string();
    assert!(message.contains(&format!("`{}` (workspace {id1})", r1.display())) && message.contains(&id2), "{message}");
    assert_eq!(dump(&project), before);
    assert_eq!(label(&project, &rows[0], "ana"), label(&ws1, &rows[0], "ana"), "the project keeps ws1's own label");
}

#[test]
fn a_refusal_of_two_workspaces_names_a_handful_of_rows_then_counts_the_rest() {
    // Old code: merged seven rows of mixed labels.
    let TwoWorkspaces { dir, mut project, packet: _, mut ws1, mut ws2, rows } = two_workspaces_of_anas_packet();
    for row in &rows[..7] {
        accept(&mut ws1, row, "ana");
        reject(&mut ws2, row, "ana", "no");
    }
    let r1 = return_to(&ws1, dir.path(), "one.json");
    let r2 = return_to(&ws2, dir.path(), "two.json");
    packets::merge(&mut project, &[r1]).unwrap();
    let message = packets::merge(&mut project, &[r2]).unwrap_err().to_string();
    let mut shown: Vec<&String> = rows[..7].iter().collect();
    shown.sort();
    let named = shown[..5].iter().map(|r| format!("`{r}`")).collect::<Vec<_>>().join(", ");
    assert!(message.contains(&format!("both changed rows {named} and 2 more with different results")), "{message}");
}

#[test]
fn two_workspaces_of_one_packet_that_touch_different_rows_or_agree_merge_both() {
    // Old code: the second merge failed with a raw "UNIQUE constraint failed" (both number events from 1).
    let TwoWorkspaces { dir, mut project, packet: _, mut ws1, mut ws2, rows } = two_workspaces_of_anas_packet();
    accept(&mut ws1, &rows[0], "ana");
    reject(&mut ws2, &rows[1], "ana", "second workspace");
    annotate::set_field(&mut ws2, &rows[2], "ana", Field::Notes, Some("undone")).unwrap();
    annotate::undo(&mut ws2, &rows[2], "ana").unwrap();
    reject(&mut ws2, &rows[2], "ana", "kept");
    // Both reach the same label on row 3 by different paths.
    reject(&mut ws1, &rows[3], "ana", "same");
    annotate::set_field(&mut ws2, &rows[3], "ana", Field::Notes, Some("first thought")).unwrap();
    reject(&mut ws2, &rows[3], "ana", "same");
    let r1 = return_to(&ws1, dir.path(), "one.json");
    let r2 = return_to(&ws2, dir.path(), "two.json");
    let reports = packets::merge(&mut project, &[r1, r2]).unwrap();
    assert!(reports.iter().all(|r| r.merged));
    assert_eq!(label(&project, &rows[0], "ana"), label(&ws1, &rows[0], "ana"));
    for row in &rows[1..4] {
        assert_eq!(label(&project, row, "ana"), label(&ws2, row, "ana"), "row {row}");
    }
    assert_eq!(label(&project, &rows[3], "ana"), label(&ws1, &rows[3], "ana"));
    // The undo travelled as a link to the event it undoes, by uid.
    let history = annotate::history(&project, &rows[2], "ana").unwrap();
    let undo = history.iter().find(|e| e.undoes.is_some()).expect("the undo was merged");
    let target = history.iter().find(|e| Some(e.id) == undo.undoes).expect("it points at a merged event");
    assert_eq!((target.field.as_str(), target.new_value.as_deref()), ("notes", Some("undone")));
}

#[test]
fn a_return_written_again_without_new_work_changes_nothing() {
    // Old code: the new file's checksum differed, so merge recorded another return (merged: true).
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let first = annotate_and_return(dir.path(), &packet_for(&list, "ana"), 2, "w");
    packets::merge(&mut project, &[first]).unwrap();
    let before = dump(&project);
    std::thread::sleep(std::time::Duration::from_millis(1100)); // a later returned_at
    let again = annotate_and_return(dir.path(), &packet_for(&list, "ana"), 0, "w");
    let report = packets::merge(&mut project, &[again]).unwrap();
    assert!(!report[0].merged);
    assert_eq!(report[0].new_events, 0);
    assert_eq!(dump(&project), before);
}

#[test]
fn no_merge_refusal_shows_a_raw_sqlite_error() {
    // Old code: "UNIQUE constraint failed: annotation_events.packet_id, annotation_events.source_event_id".
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let (ana, ben) = (packet_for(&list, "ana"), packet_for(&list, "ben"));
    let ben_ret = annotate_and_return(dir.path(), &ben, 1, "ben");
    packets::merge(&mut project, std::slice::from_ref(&ben_ret)).unwrap();
    let ana_ret = annotate_and_return(dir.path(), &ana, 1, "ana");
    let ben_uid = packets::read(&ben_ret).unwrap().rows.iter().flat_map(|r| r.events.clone()).next().unwrap().uid;
    let row0 = |v: &mut serde_json::Value| v["rows"][0]["events"].as_array_mut().unwrap().clone();
    let cases: Vec<(&str, PathBuf, &str)> = vec![
        (
            "an event uid of another packet",
            forge_with_key(&ana_ret, &ana, &dir.path().join("stolen-uid.json"), |v| {
                v["rows"][0]["events"][0]["uid"] = ben_uid.clone().into()
            }),
            "is already in this project, merged from ben's packet",
        ),
        (
            "one event twice",
            forge_with_key(&ana_ret, &ana, &dir.path().join("twice.json"), |v| {
                let mut events = row0(v);
                events.push(events[0].clone());
                v["rows"][0]["events"] = events.into();
            }),
            "the event appears twice in the packet",
        ),
        (
            "an undo of a later event",
            forge_with_key(&ana_ret, &ana, &dir.path().join("undo.json"), |v| {
                let last = row0(v).last().unwrap()["uid"].clone();
                v["rows"][0]["events"][0]["undoes"] = last;
            }),
            "which is not an earlier event of this row",
        ),
    ];
    for (what, file, needle) in cases {
        let before = dump(&project);
        let message = packets::merge(&mut project, &[file]).unwrap_err().to_string();
        assert!(message.contains(needle), "{what}: {message}");
        assert!(!message.to_lowercase().contains("constraint"), "{what}: {message}");
        assert_eq!(dump(&project), before, "{what}");
    }
    // Two workspaces that touched different rows merge (they used to collide on a constraint).
    let mut ws2 = workspace_at(dir.path(), &ana, "ana-2");
    let row = rows_of(&ws2, "ana")[5].clone();
    reject(&mut ws2, &row, "ana", "second");
    let r2 = return_to(&ws2, dir.path(), "ana-2.json");
    packets::merge(&mut project, &[ana_ret, r2]).unwrap();
}

#[test]
fn a_crash_between_inserting_events_and_commit_leaves_the_project_as_before() {
    // Old code: there was no such instant to stop at; the merge committed.
    let (dir, path, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let ret = annotate_and_return(dir.path(), &packet_for(&list, "ana"), 4, "k");
    let before = dump(&project);
    let merge = || {
        let mut cmd = assert_cmd::Command::cargo_bin("forcebench").unwrap();
        cmd.env_remove("FORCEBENCH_PROJECT").arg("--project").arg(&path).args(["packets", "merge"]).arg(&ret);
        cmd
    };
    merge().env(forcebench::crashpoint::ENV, "packets-merge-before-commit").assert().failure();
    assert_eq!(dump(&project), before, "a merge killed before its commit changed the project");
    merge().assert().success();
    assert_eq!(annotate::queue(&project, "ana").unwrap().iter().filter(|q| q.finished).count(), 4);
}

#[test]
fn a_version_1_packet_is_refused_with_advice_to_issue_it_again() {
    // Old code: version 1 was the current format and opened without any key.
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(packet_for(&list, "ana")).unwrap()).unwrap();
    v["format_version"] = 1.into();
    v.as_object_mut().unwrap().shift_remove("secret");
    v["checksum"] = packets::checksum_of(&v).into();
    let old = write(dir.path(), "v1.packet.json", serde_json::to_vec_pretty(&v).unwrap());
    let message = workspace::open_packet(&old, &dir.path().join("v1.forcebench")).err().unwrap().to_string();
    assert!(
        message.contains(
            "packet format version 1 cannot be authenticated (it has no packet key); \
             the lead must issue this annotator a new packet with `forcebench packets issue`"
        ),
        "{message}"
    );
    let before = dump(&project);
    assert!(packets::merge(&mut project, &[old]).unwrap_err().to_string().contains("cannot be authenticated"));
    assert_eq!(dump(&project), before);
}

#[test]
fn a_csv_or_other_json_offered_as_a_packet_is_named_as_not_a_packet_in_one_line() {
    // Old code said "1 problem found; nothing was imported", as if the CSV had been read as one.
    let (dir, _, mut project) = temp_project();
    let csv = write(dir.path(), "candidates.csv", csv_file(&[csv_row("fb-1")]));
    let err = packets::read(&csv).unwrap_err();
    assert_eq!(err.code(), "not_a_packet");
    assert_eq!(
        err.to_string(),
        format!(
            "{} is not a ForceBench packet: it is not a JSON file (a packet is the .json file that Issue packets \
             or Return packet wrote); nothing was imported",
            csv.display()
        )
    );
    let other = write(dir.path(), "status.json", "{\"candidates\": 3}");
    let err = packets::read(&other).unwrap_err();
    assert_eq!(err.code(), "not_a_packet");
    assert!(
        err.to_string()
            .ends_with("is not a ForceBench packet: it has no \"format\": \"forcebench-packet\"; nothing was imported"),
        "{err}"
    );
    let broken = write(dir.path(), "cut.json", "{\"format\": \"forcebench-pa");
    assert!(packets::read(&broken)
        .unwrap_err()
        .to_string()
        .contains("is not a ForceBench packet: its JSON does not parse"));
    let before = dump(&project);
    let err = packets::merge(&mut project, std::slice::from_ref(&csv)).unwrap_err();
    assert_eq!((err.code(), err.to_string().lines().count()), ("not_a_packet", 1));
    assert_eq!(dump(&project), before);
}

#[test]
fn a_returned_packet_never_carries_the_packet_key() {
    // Old code had no key; a return that carried one would let anyone who sees it forge the next.
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let issued = packets::read(&packet_for(&list, "ana")).unwrap();
    let secret = issued.secret.clone().unwrap();
    let ret = annotate_and_return(dir.path(), &packet_for(&list, "ana"), 1, "s");
    let text = std::fs::read_to_string(&ret).unwrap();
    assert!(!text.contains(&secret) && !text.contains("\"secret\""));
    let stored: String = project
        .conn()
        .query_row("SELECT secret FROM packets WHERE id = ?1", [&issued.packet_id], |r| r.get(0))
        .unwrap();
    assert_eq!(stored, secret, "the lead's project holds the key");
}

#[test]
fn migrating_an_older_project_gives_every_event_its_own_uid() {
    // Old code: events had no uid, so two workspaces' events could not be told apart.
    let mut conn = rusqlite::Connection::open_in_memory().unwrap();
    forcebench::db::configure(&mut conn).unwrap();
    forcebench::db::migrations().to_version(&mut conn, 5).unwrap();
    conn.execute_batch(
        "INSERT INTO imports (file_name, file_sha256, imported_at, rows_read, rows_inserted, rows_unchanged) VALUES ('f','h','t',1,1,0);
         INSERT INTO candidates (id, seq, group_id, source_dataset, source_id, context, passage, calibrated_claim, raised_claim, content_sha256, import_id)
             VALUES ('c', 1, 'g', 's', '', 'ctx', 'p', 'a', 'b', 'h', 1);
         INSERT INTO annotators (name, role, created_at) VALUES ('ann', 'annotator', 't');
         INSERT INTO annotation_events (candidate_id, annotator_id, field, new_value, at, origin) VALUES ('c', 1, 'notes', 'one', 't', 'app');
         INSERT INTO annotation_events (candidate_id, annotator_id, field, new_value, at, origin) VALUES ('c', 1, 'notes', 'two', 't', 'app');",
    )
    .unwrap();
    forcebench::db::migrations().to_latest(&mut conn).unwrap();
    let uids: Vec<String> = conn
        .prepare(&format!("SELECT {} FROM annotation_events", uid_as_text("uid")))
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(uids.len(), 2);
    assert_ne!(uids[0], uids[1]);
    for uid in &uids {
        assert_eq!(uuid::Uuid::parse_str(uid).unwrap().get_version_num(), 4, "{uid}");
    }
    let err = conn
        .execute("INSERT INTO annotation_events (candidate_id, annotator_id, field, new_value, at, origin) VALUES ('c', 1, 'notes', 'x', 't', 'app')", [])
        .unwrap_err();
    assert!(err.to_string().contains("every annotation event needs a uid"), "{err}");
    let err = conn.execute("UPDATE annotation_events SET new_value = 'x'", []).unwrap_err();
    assert!(err.to_string().contains("append-only"), "the update guard is back: {err}");
}

#[test]
fn the_checksum_and_mac_cover_the_documented_canonical_form() {
    // Guards the streamed canonical form against the schema's definition (compact JSON of the
    // object without `checksum` and `mac`, keys in file order).
    use sha2::{Digest, Sha256};
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let ret = annotate_and_return(dir.path(), &packet_for(&list, "ana"), 2, "c");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&ret).unwrap()).unwrap();
    let mut without = v.clone();
    without.as_object_mut().unwrap().shift_remove("mac");
    assert_eq!(packets::checksum_of(&v), hex::encode(Sha256::digest(without.to_string().as_bytes())));
    let issued: serde_json::Value = serde_json::from_slice(&std::fs::read(packet_for(&list, "ana")).unwrap()).unwrap();
    let mut without = issued.clone();
    without.as_object_mut().unwrap().shift_remove("checksum");
    assert_eq!(issued["checksum"], hex::encode(Sha256::digest(without.to_string().as_bytes())));
}

#[test]
fn a_packet_carries_the_suggestion_mode_to_its_workspace_and_its_events_bring_it_back() {
    // Old code: packets had no mode; a workspace always pre-filled the suggestions.
    use forcebench::settings::{self, SuggestionMode};
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    settings::set_suggestion_mode(&mut project, SuggestionMode::Hidden).unwrap();
    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let file = packet_for(&list, "ana");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(v["suggestion_mode"], "hidden");
    let mut ws = workspace_at(dir.path(), &file, "hidden");
    assert_eq!(settings::suggestion_mode(ws.conn()).unwrap(), SuggestionMode::Hidden);
    let row = annotate::queue(&ws, "ana").unwrap()[0].id.clone();
    let a = annotate::get(&ws, &row, "ana").unwrap();
    assert_eq!((a.axis, a.evidence_span.is_none(), a.suggested.len()), (None, true, 0));
    let err = settings::set_suggestion_mode(&mut ws, SuggestionMode::Prefilled).unwrap_err();
    assert_eq!(
        err.to_string(),
        "this is an annotator's workspace: its suggestion mode comes from its packet; the lead sets it in the project"
    );
    reject(&mut ws, &row, "ana", "hidden mode");
    let returned = return_to(&ws, dir.path(), "ret.json");
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&returned).unwrap()).unwrap();
    let events = r["rows"].as_array().unwrap().iter().find(|x| x["id"] == row.as_str()).unwrap()["events"]
        .as_array()
        .unwrap()
        .clone();
    // Each event was made in the packet's mode, which an event leaves out (absent reads as the
    // packet's); the merged events below must still hold it.
    assert_eq!(r["suggestion_mode"], "hidden");
    assert!(!events.is_empty() && events.iter().all(|e| e.get("suggestion_mode").is_none()), "{events:?}");
    packets::merge(&mut project, &[returned]).unwrap();
    let modes: Vec<Option<String>> = {
        let mut stmt =
            project.conn().prepare("SELECT suggestion_mode FROM annotation_events WHERE candidate_id = ?1").unwrap();
        stmt.query_map([&row], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
    };
    assert!(!modes.is_empty() && modes.iter().all(|m| m.as_deref() == Some("hidden")), "{modes:?}");
}

#[test]
fn a_packet_and_a_return_written_before_suggestion_modes_still_open_and_merge_as_prefilled() {
    // Guards compatibility: the new key is optional, and the checksum and HMAC cover the file as written.
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(packet_for(&list, "ana")).unwrap()).unwrap();
    v.as_object_mut().unwrap().shift_remove("suggestion_mode").unwrap();
    v["checksum"] = packets::checksum_of(&v).into();
    let old = write(dir.path(), "old.packet.json", serde_json::to_vec_pretty(&v).unwrap());
    let mut ws = workspace_at(dir.path(), &old, "old");
    let row = annotate::queue(&ws, "ana").unwrap()[0].id.clone();
    assert_eq!(annotate::get(&ws, &row, "ana").unwrap().suggested.len(), 4, "read as prefilled");
    accept(&mut ws, &row, "ana");
    let returned = return_to(&ws, dir.path(), "ret.json");
    // The return as an older workspace wrote it: no mode anywhere, HMAC over that file.
    let mut r: serde_json::Value = serde_json::from_slice(&std::fs::read(&returned).unwrap()).unwrap();
    r.as_object_mut().unwrap().shift_remove("suggestion_mode");
    for row in r["rows"].as_array_mut().unwrap() {
        for e in row.get_mut("events").and_then(|e| e.as_array_mut()).into_iter().flatten() {
            e.as_object_mut().unwrap().shift_remove("suggestion_mode");
        }
    }
    let secret: String = project
        .conn()
        .query_row("SELECT secret FROM packets WHERE id = ?1", [v["packet_id"].as_str().unwrap()], |x| x.get(0))
        .unwrap();
    r["mac"] = packets::mac_of(&r, &hex::decode(secret).unwrap()).into();
    let older = write(dir.path(), "old-ret.json", serde_json::to_vec_pretty(&r).unwrap());
    packets::merge(&mut project, &[older]).unwrap();
    let a = annotate::get(&project, &row, "ana").unwrap();
    assert!(a.finished, "{:?}", a.problems);
    let modes: Vec<Option<String>> = {
        let mut stmt = project
            .conn()
            .prepare("SELECT DISTINCT suggestion_mode FROM annotation_events WHERE candidate_id = ?1")
            .unwrap();
        stmt.query_map([&row], |x| x.get(0)).unwrap().map(Result::unwrap).collect()
    };
    assert_eq!(modes, [Some("prefilled".to_string())]);
}

/// The digests reading computes (streamed from the file's bytes) and the tree's (`checksum_of`,
/// `mac_of` of the parsed `serde_json::Value`), for one JSON object.
fn assert_same_digests(bytes: &[u8], what: &str) {
    let key = [7u8; 32];
    let v: serde_json::Value = serde_json::from_slice(bytes).unwrap();
    assert_eq!(packets::checksum_of_bytes(bytes).unwrap(), packets::checksum_of(&v), "checksum of {what}");
    assert_eq!(packets::mac_of_bytes(bytes, &key).unwrap(), packets::mac_of(&v, &key), "mac of {what}");
}

#[test]
fn the_streamed_canonical_digest_equals_the_trees_on_real_unusual_and_hostile_json() {
    // Reading streams the canonical form from the file instead of parsing a tree (which held
    // about 40 KB per row); it must hash the same bytes for every file, written now or before.
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    for blinding in [Blinding::Standard, Blinding::Strict] {
        let list = issue(&mut project, &dir.path().join(blinding.as_str()), blinding);
        for (who, file) in &list {
            assert_same_digests(&std::fs::read(file).unwrap(), &format!("{blinding:?} packet of {who}"));
        }
        let ret = annotate_and_return(dir.path(), &packet_for(&list, "ana"), 3, blinding.as_str());
        let bytes = std::fs::read(&ret).unwrap();
        assert_same_digests(&bytes, &format!("{blinding:?} return"));
        // Compact, as another tool might rewrite it, and with the mac moved to the front.
        let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_same_digests(&serde_json::to_vec(&v).unwrap(), "compact return");
        let text = String::from_utf8(bytes).unwrap();
        let mac = &text[text.find("\"mac\"").unwrap()..text.rfind('"').unwrap() + 1];
        let moved = text.replacen(&format!(",\n  {mac}"), "", 1).replacen('{', &format!("{{{mac},"), 1);
        assert_same_digests(moved.as_bytes(), "return with the mac first");
    }
    // Unusual JSON: escapes, unicode raw and escaped (a surrogate pair), numbers serde_json
    // prints its own way, nested nulls and empties, the skipped keys spelled with escapes and
    // nested (kept there), and keys twice (a tree keeps the first place and the last value).
    let unusual = [
        r#"{"format":"forcebench-packet","s":"tab\there \"q\" \\ \/ \u00e9 \ud83e\udd80 é漢字🦀 \u0000\u001f","checksum":"x","n":[1.5,1e-7,1E+2,-0,0.10,12345678901234567890123,-9223372036854775808,18446744073709551615,2.0e0,-1.25e-300],"z":{"a":[null,{"b":null,"c":[]},{}],"mac":"kept when nested"},"m\u0061c":"skipped"}"#,
        "  {\n\t\"rows\" : [ { \"id\" : \"r\\u0031\" , \"events\" : [ ] } ] , \"mac\" : null ,\r\n \"checksum\" : 5 }  \n",
        r#"{}"#,
        r#"{"mac":"only"}"#,
        r#"{"a":1,"b":{"x":1,"x":[2]},"a":{"y":null},"checksum":"1","checksum":"2"}"#,
    ];
    for (i, json) in unusual.iter().enumerate() {
        assert_same_digests(json.as_bytes(), &format!("unusual JSON #{i}"));
    }
    // Every JSON object among the hostile inputs (duplicate keys, bidi controls, wrong types).
    let hostile = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile");
    let mut seen = 0;
    for entry in std::fs::read_dir(&hostile).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        for line in bytes.split(|b| *b == b'\n') {
            if matches!(serde_json::from_slice::<serde_json::Value>(line), Ok(serde_json::Value::Object(_))) {
                assert_same_digests(line, &String::from_utf8_lossy(line));
                seen += 1;
            }
        }
    }
    assert!(seen > 5, "hostile JSON objects: {seen}");
    // The hand-edited packets the refusal tests write (re-signed by a forger, with the key, by an old build).
    let list = issue(&mut project, &dir.path().join("again"), Blinding::Standard);
    let ret = annotate_and_return(dir.path(), &packet_for(&list, "ana"), 2, "again");
    let tampered = tamper(&ret, &dir.path().join("t.json"), true, |v| v["annotator"] = "mallory".into());
    assert_same_digests(&std::fs::read(tampered).unwrap(), "tampered return");
    let forged = forge_with_key(&ret, &packet_for(&list, "ana"), &dir.path().join("f.json"), |v| {
        v["rows"][0]["events"] = serde_json::json!([]);
        v["rows"][0]["seconds_spent"] = serde_json::json!(1e-7);
    });
    assert_same_digests(&std::fs::read(forged).unwrap(), "forged return");
}

#[test]
fn a_packet_that_is_not_json_is_refused_with_the_parsers_own_words() {
    // Reading checks the JSON without a tree; its refusals quote the same parser errors as
    // parsing the file into a `serde_json::Value` did.
    let dir = tempfile::tempdir().unwrap();
    let broken: [&[u8]; 8] = [
        b"{\"format\": \"forcebench-packet\", \"rows\": [",
        b"{\"format\": \"forcebench-packet\"} trailing",
        b"{\"n\": 1e400}",
        b"{\"s\": \"\xff\"}",
        b"{\"s\": \"\\ud800\"}",
        b"{\"s\": \"a\x01\"}",
        b"{\"a\": 1,}",
        b"{1: 2}",
    ];
    for (i, bytes) in broken.iter().enumerate() {
        let file = write(dir.path(), &format!("b{i}.json"), bytes);
        let parser = serde_json::from_slice::<serde_json::Value>(bytes).unwrap_err().to_string();
        let err = packets::read(&file).unwrap_err();
        assert_eq!(err.code(), "not_a_packet");
        assert!(err.to_string().contains(&format!("its JSON does not parse ({parser})")), "{i}: {err}");
    }
    let deep = format!("{{\"a\": {}{}}}", "[".repeat(200), "]".repeat(200));
    let file = write(dir.path(), "deep.json", &deep);
    assert!(packets::read(&file).unwrap_err().to_string().contains("recursion limit exceeded"));
}
