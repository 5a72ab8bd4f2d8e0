//! Agreement frozen at adjudication: an annotator's change on an adjudicated row is refused by
//! every path (the app and `annotate set`, undo, `annotate import`, a packet merge), kappa does
//! not move, and only the adjudicator's recorded reopening lets the labels change again.

use crate::adjudicate::{fixture, YES};
use crate::common::{dump, write};
use forcebench::adjudicate::{self, Choice, Resolution};
use forcebench::agreement;
use forcebench::annotate::{self, Field};
use forcebench::vocab::WorkflowState;
use forcebench::Project;

fn kappa(p: &Project) -> f64 {
    agreement::project_report(p, None).unwrap().decision.kappa.cohen_kappa.unwrap()
}

/// Cohen's kappa of two label lists, written out here from its definition (observed agreement
/// against the agreement the two marginals give by chance).
fn kappa_by_hand(a: &[&str], b: &[&str]) -> f64 {
    let n = a.len() as f64;
    let po = a.iter().zip(b).filter(|(x, y)| x == y).count() as f64 / n;
    let mut labels: Vec<&str> = a.iter().chain(b).copied().collect();
    labels.sort();
    labels.dedup();
    let pe: f64 = labels
        .iter()
        .map(|l| (a.iter().filter(|x| *x == l).count() as f64 / n) * (b.iter().filter(|x| *x == l).count() as f64 / n))
        .sum();
    (po - pe) / (1.0 - pe)
}

const ACC: &str = "accept_force_gap";
const REJ: &str = "reject_not_force_gap";
const DIS: &str = "needs_discussion";

// Broke: an annotator's labels stayed editable after adjudication; editing adjudicated rows moved
// the "pre-adjudication" kappa (and the datasheet's and manifest's) while the rows stayed decided.
#[test]
fn an_annotators_change_after_adjudication_is_refused_and_kappa_holds_until_a_recorded_reopen() {
    let mut f = fixture();
    let id = f.ids[0].clone();
    // Ana / Ben: accept/accept, accept/accept, discuss/discuss, accept/reject, reject/reject.
    let before = kappa_by_hand(&[ACC, ACC, DIS, ACC, REJ], &[ACC, ACC, DIS, REJ, REJ]);
    assert!((kappa(&f.project) - before).abs() < 1e-12);
    assert!((before - 0.6875).abs() < 1e-12);
    adjudicate::resolve(&mut f.project, &id, "eve", &Resolution { checklist: YES, ..Default::default() }).unwrap();
    forcebench::roster::add(&f.project, "cy", forcebench::roster::Role::Annotator).unwrap();

    // Every path an annotator's label can change by is refused, naming the row and the way on.
    let snapshot = dump(&f.project);
    let err = annotate::set_field(&mut f.project, &id, "ana", Field::Decision, Some(REJ)).unwrap_err();
    assert_eq!(err.code(), "row_adjudicated");
    let msg = err.to_string();
    assert!(msg.contains(&format!("row `{id}` is adjudicated")), "{msg}");
    assert!(msg.contains(&format!("forcebench adjudicate reopen {id} --reason")), "{msg}");
    assert_eq!(
        annotate::set_field(&mut f.project, &id, "ben", Field::Notes, Some("hm")).unwrap_err().code(),
        "row_adjudicated"
    );
    assert_eq!(annotate::undo(&mut f.project, &id, "ana").unwrap_err().code(), "row_adjudicated");
    // Nor can the row change whose labels it counts.
    let err = forcebench::assign::reassign(&mut f.project, &id, "ben", "cy", "eve", "Ben left").unwrap_err();
    assert_eq!(err.code(), "row_adjudicated");
    let file = write(
        f.dir.path(),
        "late.jsonl",
        format!("{{\"id\":\"{id}\",\"decision\":\"{REJ}\",\"boundary_type\":\"ambiguous\"}}\n"),
    );
    let err = annotate::import_jsonl(&mut f.project, &file, "ana").unwrap_err();
    assert!(err.to_string().contains(&format!("row `{id}` is adjudicated")), "{err}");
    // The storage refuses a write that did not ask first.
    let err = f
        .project
        .conn()
        .execute(
            "INSERT INTO annotation_events (candidate_id, annotator_id, field, old_value, new_value, at, origin, uid, suggestion_mode, guideline_version)
             SELECT ?1, id, 'decision', NULL, 'reject_not_force_gap', 'now', 'app', 'x-1', 'prefilled', 'v1' FROM annotators WHERE name = 'ana'",
            [&id],
        )
        .unwrap_err();
    assert_eq!(forcebench::Error::from(err).code(), "row_adjudicated");
    assert_eq!(dump(&f.project), snapshot, "nothing changed");
    assert!((kappa(&f.project) - before).abs() < 1e-12, "kappa did not move");

    // Reopening is the adjudicator's step, with a reason, and it is recorded.
    assert_eq!(adjudicate::reopen(&mut f.project, &id, "eve", "  ").unwrap_err().code(), "reason_required");
    assert_eq!(adjudicate::reopen(&mut f.project, &id, "ana", "why not").unwrap_err().code(), "wrong_role");
    assert_eq!(adjudicate::reopen(&mut f.project, &f.ids[1], "eve", "x").unwrap_err().code(), "wrong_row_state");
    assert_eq!(dump(&f.project), snapshot, "refused reopenings change nothing");
    let r = adjudicate::reopen(&mut f.project, &id, "eve", "Ana wants to look at the span again").unwrap();
    assert_eq!((r.decision.as_str(), r.adjudicator.as_str()), (ACC, "eve"));
    assert_eq!(adjudicate::reopenings(&f.project, &id).unwrap(), vec![r]);
    assert_eq!(forcebench::rowstate::state(f.project.conn(), &id).unwrap(), Some(WorkflowState::DoubleAnnotated));
    assert!(adjudicate::get(&f.project, &id).unwrap().is_none(), "the final label left the row");
    let history: i64 = f
        .project
        .conn()
        .query_row(
            "SELECT count(*) FROM adjudication_events WHERE candidate_id = ?1 AND source = 'reopened'",
            [&id],
            |r| r.get(0),
        )
        .unwrap();
    assert!(history > 0, "the undone final fields stay in the history");

    // The annotators may change their labels now; agreement follows the labels as they stand.
    annotate::set_field(&mut f.project, &id, "ana", Field::Decision, Some(REJ)).unwrap();
    annotate::set_field(&mut f.project, &id, "ana", Field::BoundaryType, Some("ambiguous")).unwrap();
    let after = kappa_by_hand(&[REJ, ACC, DIS, ACC, REJ], &[ACC, ACC, DIS, REJ, REJ]);
    assert!((after - 0.375).abs() < 1e-12);
    assert!((kappa(&f.project) - after).abs() < 1e-12);

    // Adjudicated again, the labels are frozen as they stand at this adjudication.
    let res = Resolution {
        choices: vec![(Field::Decision, Choice::A), (Field::BoundaryType, Choice::A)],
        rationale: Some("Ana's reading holds".into()),
        ..Default::default()
    };
    adjudicate::resolve(&mut f.project, &id, "eve", &res).unwrap();
    assert_eq!(
        annotate::set_field(&mut f.project, &id, "ben", Field::Decision, Some(REJ)).unwrap_err().code(),
        "row_adjudicated"
    );
    assert!((kappa(&f.project) - after).abs() < 1e-12);
    // The adjudicator may still change the final label itself: that is not an annotator's label.
    adjudicate::resolve(
        &mut f.project,
        &id,
        "eve",
        &Resolution { rationale: Some("reconsidered".into()), ..Default::default() },
    )
    .unwrap();
    assert!((kappa(&f.project) - after).abs() < 1e-12);
}

#[test]
fn a_row_marked_nonlocal_is_unmarked_before_it_is_reopened_and_a_keep_does_not_survive_a_reopen() {
    let mut f = fixture();
    let id = f.ids[0].clone();
    adjudicate::resolve(&mut f.project, &id, "eve", &Resolution { checklist: YES, ..Default::default() }).unwrap();
    forcebench::locality::mark(&mut f.project, &id, "adds a place", "eve").unwrap();
    let err = adjudicate::reopen(&mut f.project, &id, "eve", "look again").unwrap_err();
    assert_eq!(err.code(), "wrong_row_state");
    assert!(err.to_string().contains(&format!("forcebench locality unmark {id}")), "{err}");
    forcebench::locality::unmark(&mut f.project, &id).unwrap();
    forcebench::locality::keep(&mut f.project, &id, "eve", None).unwrap();
    adjudicate::reopen(&mut f.project, &id, "eve", "look again").unwrap();
    adjudicate::resolve(&mut f.project, &id, "eve", &Resolution { checklist: YES, ..Default::default() }).unwrap();
    let rows = forcebench::locality::audit_rows(&f.project).unwrap();
    let row = rows.iter().find(|r| r.id == id).unwrap();
    assert!(row.keep.is_none(), "a review of the old label does not carry over to the new one");
}

fn fb(project: &std::path::Path, args: &[&str]) -> assert_cmd::assert::Assert {
    assert_cmd::Command::cargo_bin("forcebench").unwrap().arg("--project").arg(project).args(args).assert()
}

fn stdout(project: &std::path::Path, args: &[&str]) -> String {
    String::from_utf8(fb(project, args).success().get_output().stdout.clone()).unwrap()
}

fn query(p: &std::path::Path, sql: &str) -> Vec<String> {
    let conn = rusqlite::Connection::open(p).unwrap();
    let mut stmt = conn.prepare(sql).unwrap();
    stmt.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
}

// Broke: a packet returned after its rows were adjudicated merged the annotator's late changes
// into the labels agreement counts.
#[test]
fn a_packet_merge_leaves_out_an_adjudicated_rows_late_changes_and_merges_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("demo.forcebench");
    fb(&p, &["init"]).success();
    fb(&p, &["sample", "load"]).success();
    for name in ["Ana", "Ben", "Chidi", "Dana"] {
        fb(&p, &["annotators", "add", name]).success();
    }
    fb(&p, &["annotators", "add", "Eve", "--role", "adjudicator"]).success();
    fb(&p, &["assign"]).success();
    fb(&p, &["sample", "annotate"]).success();
    let packets = dir.path().join("packets");
    let issued: serde_json::Value =
        serde_json::from_str(&stdout(&p, &["packets", "issue", "--out", packets.to_str().unwrap(), "--json"])).unwrap();
    let ben = issued.as_array().unwrap().iter().find(|i| i["annotator"] == "Ben").unwrap();
    let ws = dir.path().join("ben.forcebench");
    fb(&ws, &["packets", "open", ben["file"].as_str().unwrap(), "--workspace", ws.to_str().unwrap()]).success();
    // While Ben works offline, the lead's adjudicator confirms the full agreements.
    fb(&p, &["adjudicate", "confirm-agreements", "--adjudicator", "Eve"]).success();
    let ben_rows = query(
        &p,
        "SELECT r.candidate_id FROM packet_rows r JOIN packets k ON k.id = r.packet_id JOIN annotators a ON a.id = k.annotator_id
         WHERE a.name = 'Ben' ORDER BY r.candidate_id",
    );
    let adjudicated = query(&p, "SELECT candidate_id FROM adjudications");
    let decided = ben_rows.iter().find(|id| adjudicated.contains(id)).unwrap().clone();
    let label_sql = format!(
        "SELECT decision || '|' || coalesce(notes, '') || '|' || finished FROM annotations a JOIN annotators n ON n.id = a.annotator_id
         WHERE candidate_id = '{decided}' AND n.name = 'Ben'"
    );
    let label_before = query(&p, &label_sql);
    let open = ben_rows.iter().find(|id| !adjudicated.contains(id)).unwrap().clone();
    let decision = query(&p, &format!("SELECT decision FROM annotations a JOIN annotators n ON n.id = a.annotator_id WHERE candidate_id = '{decided}' AND n.name = 'Ben'"));
    let flipped = if decision[0] == ACC { "needs_discussion" } else { ACC };
    fb(&ws, &["annotate", "set", &decided, "decision", flipped, "--annotator", "Ben"]).success();
    fb(&ws, &["annotate", "set", &decided, "notes", "changed my mind", "--annotator", "Ben"]).success();
    fb(&ws, &["annotate", "set", &open, "notes", "labelled in the packet", "--annotator", "Ben"]).success();
    let returned = dir.path().join("ben-returned.json");
    fb(&ws, &["packets", "return", "--out", returned.to_str().unwrap()]).success();

    let copy = dir.path().join("copy.forcebench");
    std::fs::copy(&p, &copy).unwrap();
    let report: serde_json::Value =
        serde_json::from_str(&stdout(&p, &["packets", "merge", returned.to_str().unwrap(), "--json"])).unwrap();
    assert_eq!(report[0]["merged"], true, "the open row is merged: {report}");
    let left = report[0]["frozen_rows"].as_array().unwrap();
    assert_eq!(left.len(), 1, "{report}");
    assert_eq!(left[0]["id"], decided.as_str());
    assert!(left[0]["reason"].as_str().unwrap().contains("adjudicated"), "{report}");
    let note = |id: &str| {
        query(&p, &format!("SELECT coalesce(notes, '') FROM annotations a JOIN annotators n ON n.id = a.annotator_id WHERE candidate_id = '{id}' AND n.name = 'Ben'"))
    };
    assert_eq!(note(&open), ["labelled in the packet"]);
    assert_ne!(note(&decided), ["changed my mind"]);
    assert_eq!(query(&p, &label_sql), label_before, "the label agreement counts did not move");
    let out = stdout(&copy, &["packets", "merge", returned.to_str().unwrap()]);
    assert!(out.contains("frozen by a locked split or an adjudication"), "{out}");
}
