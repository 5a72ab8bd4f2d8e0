//! Annotation: events, validation, undo (also after restart), durability, import.

use crate::common::*;
use forcebench::annotate::{self, Field};
use forcebench::vocab::{Axis, Decision};
use forcebench::{assign, candidate, Project};

/// The first row assigned to `who` and their partner.
fn row_of(project: &Project, who: &str) -> String {
    candidate::list(project)
        .unwrap()
        .into_iter()
        .find(|r| assign::annotators_of(project, &r.id).unwrap().is_some_and(|(a, b)| a == who || b == who))
        .unwrap()
        .id
}

#[test]
fn suggestions_are_prefilled_and_recorded_on_first_change() {
    let (_d, _, mut project) = annotated_project(&["ana", "ben"]);
    let id = row_of(&project, "ana");
    let c = candidate::get(&project, &id).unwrap().candidate;
    let before = annotate::get(&project, &id, "ana").unwrap();
    assert_eq!(before.events, 0);
    assert_eq!(before.raised_claim.as_deref(), Some(c.raised_claim.as_str()));
    assert_eq!(before.axis, c.axis);
    let after = annotate::set_field(&mut project, &id, "ana", Field::Decision, Some("accept_force_gap")).unwrap();
    assert_eq!(after.decision, Some(Decision::AcceptForceGap));
    assert_eq!(after.raised_claim, before.raised_claim, "prefill kept");
    let history = annotate::history(&project, &id, "ana").unwrap();
    assert!(history.iter().any(|e| e.origin == "prefill" && e.field == "raised_claim"));
    assert_eq!(history.last().unwrap().field, "decision");
    assert_eq!(history.last().unwrap().old_value, None);
    assert!(after.finished, "sample suggestion has everything an accept needs: {:?}", after.problems);
}

#[test]
fn accept_needs_every_field_and_reject_needs_a_boundary_type() {
    let (_d, _, mut project) = annotated_project(&["ana", "ben"]);
    let id = row_of(&project, "ana");
    annotate::set_field(&mut project, &id, "ana", Field::Decision, Some("accept_force_gap")).unwrap();
    let a = annotate::set_field(&mut project, &id, "ana", Field::Repair, None).unwrap();
    assert!(!a.finished);
    assert_eq!(a.problems, ["an accept needs a repair"]);
    let a = annotate::set_field(&mut project, &id, "ana", Field::Axis, None).unwrap();
    assert!(a.problems.contains(&"an accept needs a primary axis".to_string()));
    let a = annotate::set_field(&mut project, &id, "ana", Field::Decision, Some("reject_not_force_gap")).unwrap();
    assert_eq!(a.problems, ["a reject needs a boundary type"]);
    let a = annotate::set_field(&mut project, &id, "ana", Field::BoundaryType, Some("nonlocal_rewrite")).unwrap();
    assert!(a.finished);
}

#[test]
fn span_must_be_verbatim_and_offsets_must_point_at_it() {
    let (_d, _, mut project) = annotated_project(&["ana", "ben"]);
    let id = row_of(&project, "ana");
    let passage = candidate::get(&project, &id).unwrap().candidate.passage;
    let err = annotate::set_field(&mut project, &id, "ana", Field::EvidenceSpan, Some("words that are not there")).unwrap_err();
    assert!(err.to_string().contains("not a verbatim substring of the passage"), "{err}");
    let text = &passage[0..12];
    let bad = format!("{{\"text\":{},\"start\":1,\"end\":13}}", serde_json::to_string(text).unwrap());
    let err = annotate::set_field(&mut project, &id, "ana", Field::EvidenceSpan, Some(&bad)).unwrap_err();
    assert!(err.to_string().contains("offsets 1..13 do not point at its text"), "{err}");
    let good = format!("{{\"text\":{},\"start\":0,\"end\":12}}", serde_json::to_string(text).unwrap());
    let a = annotate::set_field(&mut project, &id, "ana", Field::EvidenceSpan, Some(&good)).unwrap();
    assert_eq!(a.evidence_span.unwrap().text, text);
    assert_eq!(annotate::history(&project, &id, "ana").unwrap().len(), annotate::get(&project, &id, "ana").unwrap().events as usize);
}

#[test]
fn only_assigned_annotators_annotate_a_row() {
    let (_d, _, mut project) = annotated_project(&["ana", "ben", "cleo"]);
    let id = candidate::list(&project).unwrap()[0].id.clone();
    let (a, b) = assign::annotators_of(&project, &id).unwrap().unwrap();
    let outsider = ["ana", "ben", "cleo"].into_iter().find(|n| *n != a && *n != b).unwrap();
    let err = annotate::set_field(&mut project, &id, outsider, Field::Decision, Some("accept_force_gap")).unwrap_err();
    assert!(err.to_string().contains(&format!("`{outsider}` is not assigned to row `{id}`")), "{err}");
}

#[test]
fn undo_restores_the_old_value_even_after_a_restart() {
    let (_d, path, mut project) = annotated_project(&["ana", "ben"]);
    let id = row_of(&project, "ana");
    annotate::set_field(&mut project, &id, "ana", Field::Axis, Some("numeric")).unwrap();
    annotate::set_field(&mut project, &id, "ana", Field::Axis, Some("temporal")).unwrap();
    drop(project);
    let mut project = Project::open(&path).unwrap();
    assert_eq!(annotate::get(&project, &id, "ana").unwrap().axis, Some(Axis::Temporal));
    let a = annotate::undo(&mut project, &id, "ana").unwrap();
    assert_eq!(a.axis, Some(Axis::Numeric));
    drop(project);
    let mut project = Project::open(&path).unwrap();
    assert_eq!(annotate::get(&project, &id, "ana").unwrap().axis, Some(Axis::Numeric));
    let a = annotate::undo(&mut project, &id, "ana").unwrap();
    let suggested = candidate::get(&project, &id).unwrap().candidate.axis;
    assert_eq!(a.axis, suggested, "second undo goes back to the pre-filled suggestion");
    assert!(!a.can_undo, "pre-filled values are not undone");
    let events = annotate::history(&project, &id, "ana").unwrap();
    assert_eq!(events.iter().filter(|e| e.undoes.is_some()).count(), 2, "undo is an event, nothing is deleted");
}

#[test]
fn the_cache_always_equals_the_fold_of_events() {
    let (_d, _, mut project) = annotated_project(&["ana", "ben"]);
    let id = row_of(&project, "ana");
    annotate::set_field(&mut project, &id, "ana", Field::Decision, Some("reject_not_force_gap")).unwrap();
    annotate::set_field(&mut project, &id, "ana", Field::BoundaryType, Some("duplicate")).unwrap();
    annotate::set_field(&mut project, &id, "ana", Field::Notes, Some("same as another row")).unwrap();
    annotate::undo(&mut project, &id, "ana").unwrap();
    let (decision, boundary, notes, finished): (String, String, Option<String>, bool) = project
        .conn()
        .query_row(
            "SELECT n.decision, n.boundary_type, n.notes, n.finished FROM annotations n JOIN annotators a ON a.id = n.annotator_id
             WHERE n.candidate_id = ?1 AND a.name = 'ana'",
            [&id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    assert_eq!((decision.as_str(), boundary.as_str(), notes, finished), ("reject_not_force_gap", "duplicate", None, true));
}

#[test]
fn a_label_acknowledged_as_saved_survives_kill_9() {
    let (dir, path, project) = annotated_project(&["ana", "ben"]);
    let id = row_of(&project, "ana");
    drop(project);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_forcebench"))
        .arg("--project")
        .arg(&path)
        .args(["annotate", "session", "--annotator", "ana"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::{BufRead, Write};
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    writeln!(stdin, "{{\"op\":\"set\",\"id\":\"{id}\",\"field\":\"notes\",\"value\":\"saved before the crash\"}}").unwrap();
    stdin.flush().unwrap();
    let mut ack = String::new();
    stdout.read_line(&mut ack).unwrap();
    assert!(ack.contains("\"ok\":true"), "{ack}");
    child.kill().unwrap(); // SIGKILL, right after the acknowledgement
    child.wait().unwrap();
    let project = Project::open(&path).unwrap();
    assert_eq!(annotate::get(&project, &id, "ana").unwrap().notes.as_deref(), Some("saved before the crash"));
    drop(dir);
}

#[test]
fn import_sets_annotations_all_or_nothing() {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let rows: Vec<String> = annotate::queue(&project, "ana").unwrap().into_iter().take(3).map(|q| q.id).collect();
    let good = format!(
        "{{\"id\":\"{}\",\"decision\":\"reject_not_force_gap\",\"boundary_type\":\"ambiguous\",\"notes\":\"unclear\"}}\n\
         {{\"id\":\"{}\",\"decision\":\"accept_force_gap\",\"axis\":\"scope\",\"severity\":3}}\n",
        rows[0], rows[1]
    );
    let bad = format!("{good}{{\"id\":\"{}\",\"decision\":\"accept_force_gap\",\"repair\":null}}\n", rows[2]);
    let path = write(dir.path(), "bad.jsonl", &bad);
    let before = dump(&project);
    let err = annotate::import_jsonl(&mut project, &path, "ana").unwrap_err();
    assert!(err.to_string().contains(":3: row") && err.to_string().contains("an accept needs a repair"), "{err}");
    assert_eq!(dump(&project), before, "nothing written");

    let path = write(dir.path(), "unknown.jsonl", "{\"id\":\"nope\",\"decision\":\"accept_force_gap\"}\n{\"id\":\"x\",\"axis\":\"sideways\"}\n");
    let err = annotate::import_jsonl(&mut project, &path, "ana").unwrap_err();
    assert!(err.to_string().contains("unknown.jsonl:1: field `id`: no candidate with id `nope`"), "{err}");
    assert_eq!(dump(&project), before);

    let path = write(dir.path(), "good.jsonl", &good);
    let report = annotate::import_jsonl(&mut project, &path, "ana").unwrap();
    assert_eq!(report.rows, 2);
    let a = annotate::get(&project, &rows[1], "ana").unwrap();
    assert_eq!((a.axis, a.severity, a.finished), (Some(Axis::Scope), Some(3), true));
    let err = annotate::import_jsonl(&mut project, &path, "zed").unwrap_err();
    assert!(err.to_string().contains("no one named `zed`"), "{err}");
}

#[test]
fn queue_order_is_a_shuffle_per_annotator() {
    let (_d, _, project) = annotated_project(&["ana", "ben"]);
    let ana: Vec<String> = annotate::queue(&project, "ana").unwrap().into_iter().map(|q| q.id).collect();
    let ben: Vec<String> = annotate::queue(&project, "ben").unwrap().into_iter().map(|q| q.id).collect();
    let import_order: Vec<String> = candidate::list(&project).unwrap().into_iter().map(|r| r.id).collect();
    assert_eq!(ana.len(), import_order.len(), "two annotators: both see every row");
    assert_ne!(ana, import_order, "not the import order");
    assert_ne!(ana, ben, "each annotator has their own order");
    let mut sorted = ana.clone();
    sorted.sort();
    let mut all = import_order.clone();
    all.sort();
    assert_eq!(sorted, all);
}

#[test]
fn time_spent_accumulates() {
    let (_d, _, mut project) = annotated_project(&["ana", "ben"]);
    let id = row_of(&project, "ana");
    annotate::add_time(&mut project, &id, "ana", 12.5).unwrap();
    annotate::add_time(&mut project, &id, "ana", 3.0).unwrap();
    assert_eq!(annotate::get(&project, &id, "ana").unwrap().seconds_spent, 15.5);
    assert!(annotate::add_time(&mut project, &id, "ana", -1.0).is_err());
}
