//! The adjudication, QC and locality-audit commands through Tauri's IPC on the mock runtime (no
//! window), on a sample project where two annotators' labels were imported so that the queue has
//! one row of each category.

use std::collections::BTreeMap;

use forcebench::Project;
use serde_json::{json, Value};

mod common;
use common::{app, invoke};

/// The first five sample rows, labelled by both of their annotators:
/// 0 a decision disagreement (A accepts, modality 2; B rejects, scope 3),
/// 1 both say needs discussion, 2 both accept but severities differ,
/// 3 both accept as suggested (full agreement), 4 both reject as duplicates (full agreement).
struct Fixture {
    project: Project,
    ids: Vec<String>,
    /// Each row's annotators A and B (roster order).
    names: Vec<(String, String)>,
    _dir: tempfile::TempDir,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let mut project = Project::in_memory("IPC adjudication").unwrap();
    forcebench::sample::load_sample_project(&mut project).unwrap();
    let roster: Vec<String> = forcebench::roster::list(&project).unwrap().into_iter().map(|a| a.name).collect();
    let ids: Vec<String> = forcebench::candidate::list(&project).unwrap().into_iter().take(5).map(|r| r.id).collect();
    let accept = json!({ "decision": "accept_force_gap" });
    let reject = json!({ "decision": "reject_not_force_gap", "boundary_type": "duplicate" });
    let discuss = json!({ "decision": "needs_discussion", "notes": "which reading?" });
    let plan: [(Value, Value); 5] = [
        (
            json!({ "decision": "accept_force_gap", "axis": "modality", "severity": 2 }),
            json!({ "decision": "reject_not_force_gap", "boundary_type": "nonlocal_rewrite", "axis": "scope", "severity": 3 }),
        ),
        (discuss.clone(), discuss),
        (
            json!({ "decision": "accept_force_gap", "severity": 1 }),
            json!({ "decision": "accept_force_gap", "severity": 3 }),
        ),
        (accept.clone(), accept),
        (reject.clone(), reject),
    ];
    let mut lines: BTreeMap<String, String> = BTreeMap::new();
    let mut names = Vec::new();
    for (id, (a, b)) in ids.iter().zip(plan) {
        let (x, y) = forcebench::assign::annotators_of(&project, id).unwrap().expect("assigned");
        let pos = |n: &str| roster.iter().position(|r| r == n).unwrap();
        let (first, second) = if pos(&x) < pos(&y) { (x, y) } else { (y, x) };
        for (who, mut label) in [(first.clone(), a), (second.clone(), b)] {
            label["id"] = json!(id);
            let text = lines.entry(who).or_default();
            text.push_str(&label.to_string());
            text.push('\n');
        }
        names.push((first, second));
    }
    for (who, text) in lines {
        let file = dir.path().join(format!("{who}.jsonl"));
        std::fs::write(&file, text).unwrap();
        forcebench::annotate::import_jsonl(&mut project, &file, &who).unwrap();
    }
    Fixture { project, ids, names, _dir: dir }
}

/// A filter's whole queue as the window reads it: one page, bigger than any fixture's queue.
fn whole_queue(window: &tauri::WebviewWindow<common::Mock>, filter: Value) -> Value {
    let query = json!({ "filter": filter, "offset": 0, "limit": 1000, "around": null, "open_after": null });
    invoke(window, "adjudication_page", json!({ "query": query })).unwrap()
}

#[test]
fn the_queue_puts_decision_disagreements_first_and_counts_every_category() {
    let f = fixture();
    let (a0, b0) = f.names[0].clone();
    let (_app, window) = app(Ok(f.project));

    let queue = whole_queue(&window, json!({}));
    let order: Vec<(&str, &str)> = queue["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["id"].as_str().unwrap(), i["category"].as_str().unwrap()))
        .collect();
    let ids = &f.ids;
    assert_eq!(
        order,
        [
            (ids[0].as_str(), "decision_disagreement"),
            (ids[1].as_str(), "needs_discussion"),
            (ids[2].as_str(), "field_disagreement"),
            (ids[3].as_str(), "full_agreement"),
            (ids[4].as_str(), "full_agreement"),
        ]
    );
    assert_eq!(queue["counts"]["full_agreement"], json!({ "total": 2, "open": 2 }));
    assert_eq!(queue["counts"]["decision_disagreement"], json!({ "total": 1, "open": 1 }));
    assert_eq!(queue["items"][2]["differing"], json!(["severity"]));

    // A pair filter (either order) narrows the items, not the counts.
    let pair = format!("{b0}+{a0}");
    let filter = json!({ "axis": null, "source": null, "pair": pair, "open_only": false });
    let narrowed = whole_queue(&window, filter);
    let items = narrowed["items"].as_array().unwrap();
    assert!(!items.is_empty() && items.len() <= 5);
    assert!(items.iter().all(|i| {
        let mut p = [i["annotator_a"].as_str().unwrap(), i["annotator_b"].as_str().unwrap()];
        p.sort();
        let mut want = [a0.as_str(), b0.as_str()];
        want.sort();
        p == want
    }));
    assert_eq!(narrowed["counts"], queue["counts"]);
    // Omitted filter keys are none (the UI may send only the ones set).
    let by_axis = whole_queue(&window, json!({ "axis": "no-such-axis" }));
    assert_eq!(by_axis["items"], json!([]));
}

// Issue 19: what the view asks for, a page at a time. The pages of a filter, read one after the
// other, are its whole queue; the counts and the filter menus' values come with every page; the
// view's "next open row" and "the page holding this row" are answered by the core.
#[test]
fn the_queue_is_read_a_page_at_a_time_with_its_counts_and_the_filter_menus() {
    let f = fixture();
    let (a0, b0) = f.names[0].clone();
    let ids = f.ids.clone();
    let (_app, window) = app(Ok(f.project));
    let whole = whole_queue(&window, json!({}));
    let none = json!({ "axis": null, "source": null, "pair": null, "open_only": false });
    let page = |filter: &Value, offset: u64, around: Value, open_after: Value| {
        let query =
            json!({ "filter": filter, "offset": offset, "limit": 2, "around": around, "open_after": open_after });
        invoke(&window, "adjudication_page", json!({ "query": query })).unwrap()
    };
    let mut items = Vec::new();
    for offset in [0, 2, 4] {
        let p = page(&none, offset, Value::Null, Value::Null);
        assert_eq!(p["counts"], whole["counts"]);
        assert_eq!(
            (p["total"].as_u64(), p["matching"].as_u64(), p["offset"].as_u64()),
            (Some(5), Some(5), Some(offset))
        );
        items.extend(p["items"].as_array().unwrap().iter().cloned());
    }
    assert_eq!(Value::Array(items), whole["items"]);
    let first = page(&none, 0, Value::Null, Value::Null);
    let mut pair = [a0.as_str(), b0.as_str()];
    pair.sort();
    assert!(first["facets"]["pairs"].as_array().unwrap().iter().any(|p| p == &json!(pair.join("+"))));
    assert!(!first["facets"]["sources"].as_array().unwrap().is_empty());
    assert!(!first["facets"]["axes"].as_array().unwrap().is_empty());
    // The page holding the fourth row (the first full agreement), and the next open row after it.
    let held = page(&none, 0, json!(ids[3]), Value::Null);
    assert_eq!((held["position"].as_u64(), held["offset"].as_u64()), (Some(3), Some(2)));
    let next = page(&none, 0, Value::Null, json!(ids[3]));
    assert_eq!(next["next_open"], json!(ids[4]));
    assert_eq!((next["position"].as_u64(), next["offset"].as_u64()), (Some(4), Some(4)));
    assert_eq!(next["items"][0]["id"], json!(ids[4]));
    // After the last row: from the top.
    assert_eq!(page(&none, 0, Value::Null, json!(ids[4]))["next_open"], json!(ids[0]));
    // A filter narrows the matches, not the counts nor the menus.
    let only = json!({ "axis": null, "source": null, "pair": format!("{b0}+{a0}"), "open_only": true });
    let narrowed = page(&only, 0, Value::Null, Value::Null);
    assert_eq!(narrowed["counts"], whole["counts"]);
    assert_eq!(narrowed["facets"], first["facets"]);
    assert!(narrowed["matching"].as_u64().unwrap() >= 1);
    // Omitted keys take their defaults (the offset, a row to hold, the next open row).
    let bare = invoke(&window, "adjudication_page", json!({ "query": { "filter": none, "limit": 1 } })).unwrap();
    assert_eq!(bare["items"][0]["id"], json!(ids[0]));
    assert_eq!(bare["next_open"], Value::Null);
}

#[test]
fn a_row_side_by_side_marks_what_differs_and_can_hide_the_names() {
    let f = fixture();
    let (a0, b0) = f.names[0].clone();
    let id = f.ids[0].clone();
    let (_app, window) = app(Ok(f.project));

    let row = invoke(&window, "adjudication_row", json!({ "id": id, "hide_names": false })).unwrap();
    assert_eq!(row["annotator_a"], a0.as_str());
    assert_eq!(row["annotator_b"], b0.as_str());
    assert_eq!(row["category"], "decision_disagreement");
    let differs: BTreeMap<&str, bool> = row["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["field"].as_str().unwrap(), f["differs"].as_bool().unwrap()))
        .collect();
    assert!(differs["decision"] && differs["axis"] && differs["severity"] && differs["boundary_type"], "{differs:?}");
    assert!(!differs["calibrated_claim"] && !differs["raised_claim"], "{differs:?}");
    assert!(row["adjudication"].is_null());

    let hidden = invoke(&window, "adjudication_row", json!({ "id": id, "hide_names": true })).unwrap();
    assert!(hidden["annotator_a"].is_null() && hidden["annotator_b"].is_null());
    assert_eq!(hidden["a"]["annotator"], "A");
    assert_eq!(hidden["b"]["annotator"], "B");
    assert!(!hidden.to_string().contains(&format!("\"{a0}\"")), "A's name is nowhere in the hidden view");

    let err = invoke(&window, "adjudication_row", json!({ "id": "no-such-row", "hide_names": false })).unwrap_err();
    assert_eq!(err["code"], "not_found");
}

#[test]
fn an_override_without_a_rationale_is_refused_naming_the_field_and_a_good_resolve_records_sources() {
    let f = fixture();
    let id = f.ids[0].clone();
    let (_app, window) = app(Ok(f.project));
    let choices = json!([
        ["decision", { "take": "a" }],
        ["axis", { "take": "a" }],
        ["severity", { "take": "b" }],
        ["raised_claim", { "take": "value", "value": "An entirely new raised claim written by the adjudicator." }],
    ]);
    let checklist = json!({
        "span_decisive": true, "calibrated_supported": true, "raised_underwarranted": true,
        "one_local_axis": true, "no_unrelated_addition": true,
    });
    let resolution = json!({ "choices": choices, "rationale": null, "checklist": checklist });
    let err = invoke(&window, "resolve_row", json!({ "id": id, "adjudicator": "Eve", "resolution": resolution }))
        .unwrap_err();
    assert_eq!(err["code"], "incomplete_adjudication");
    let message = err["message"].as_str().unwrap();
    assert!(message.contains("field `raised_claim`") && message.contains("rationale is required"), "{message}");
    let row = invoke(&window, "adjudication_row", json!({ "id": id, "hide_names": false })).unwrap();
    assert!(row["adjudication"].is_null(), "nothing was written");

    // Only an adjudicator or the lead may adjudicate.
    let mut with_reason = resolution.clone();
    with_reason["rationale"] = json!("Both raised claims changed more than one axis; this one shifts modality only.");
    let err = invoke(&window, "resolve_row", json!({ "id": id, "adjudicator": "Ana", "resolution": with_reason }))
        .unwrap_err();
    assert!(err["message"].as_str().unwrap().contains("only an adjudicator or the lead"), "{err}");

    let view = invoke(
        &window,
        "resolve_row",
        json!({ "id": id, "adjudicator": "Eve", "resolution": with_reason, "hide_names": true }),
    )
    .unwrap();
    let sources: BTreeMap<&str, &str> = view["fields"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| !f["final"].is_null())
        .map(|f| (f["field"].as_str().unwrap(), f["final"]["source"].as_str().unwrap()))
        .collect();
    assert_eq!(sources["decision"], "a");
    assert_eq!(sources["axis"], "a");
    assert_eq!(sources["severity"], "b");
    assert_eq!(sources["raised_claim"], "edited");
    assert_eq!(sources["calibrated_claim"], "both");
    assert!(!sources.contains_key("boundary_type"), "an accept has no boundary type: {sources:?}");
    assert_eq!(view["adjudication"]["adjudicator"], "Eve");
    assert_eq!(view["adjudication"]["decision"], "accept_force_gap");
    assert!(view["annotator_a"].is_null(), "the answer keeps the names hidden");
    assert!(view["history"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["field"] == "raised_claim" && e["source"] == "edited"));
    assert!(
        view["qc"].as_array().unwrap().iter().all(|r| r["severity"] == "warning" || r["passed"] == true),
        "{}",
        view["qc"]
    );

    let status = invoke(&window, "project_status", json!({})).unwrap();
    assert_eq!(status["funnel"]["adjudicated"], 1);
    assert_eq!(status["funnel"]["accepted"], 1);
    assert_eq!(status["states"]["accepted"], 1);

    // Reopening keeps the history: the severity goes back to A's, one more event.
    let before = view["history"].as_array().unwrap().len();
    let again = json!({ "choices": [["severity", { "take": "a" }]], "rationale": null, "checklist": checklist });
    let view = invoke(&window, "resolve_row", json!({ "id": id, "adjudicator": "Lee", "resolution": again })).unwrap();
    let history = view["history"].as_array().unwrap();
    assert_eq!(history.len(), before + 1, "{history:?}");
    assert_eq!(history.last().unwrap()["adjudicator"], "Lee");
    assert_eq!(view["adjudication"]["rationale"], with_reason["rationale"], "the earlier rationale stays");
}

#[test]
fn full_agreements_are_confirmed_in_bulk_and_qc_runs_over_every_row() {
    let f = fixture();
    let ids = f.ids.clone();
    let (_app, window) = app(Ok(f.project));
    let err = invoke(&window, "confirm_agreements", json!({ "adjudicator": "Ben" })).unwrap_err();
    assert!(err["message"].as_str().unwrap().contains("only an adjudicator or the lead"), "{err}");
    assert_eq!(invoke(&window, "confirm_agreements", json!({ "adjudicator": "Eve" })).unwrap(), 2);
    assert_eq!(
        invoke(&window, "confirm_agreements", json!({ "adjudicator": "Eve" })).unwrap(),
        0,
        "nothing left to confirm"
    );
    let queue = whole_queue(&window, json!({}));
    assert_eq!(queue["counts"]["full_agreement"], json!({ "total": 2, "open": 0 }));
    let row = invoke(&window, "adjudication_row", json!({ "id": ids[3], "hide_names": false })).unwrap();
    assert_eq!(row["adjudication"]["bulk_confirmed"], true);
    assert_eq!(row["adjudication"]["adjudicator"], "Eve");

    let report = invoke(&window, "run_qc", json!({})).unwrap();
    assert_eq!(report["rows_checked"], 1, "the accept; the reject gets no checks: {report}");
    assert_eq!(report["blocked"], 0);
    assert_eq!(report["passed"], 1);
    let status = invoke(&window, "project_status", json!({})).unwrap();
    assert_eq!(status["funnel"]["rejected_by_boundary"]["duplicate"], 1);
    assert_eq!(status["funnel"]["rejected"], 1);
}

#[test]
fn a_nonlocal_mark_needs_a_reason_and_can_be_taken_back() {
    let f = fixture();
    let ids = f.ids.clone();
    let (_app, window) = app(Ok(f.project));
    invoke(&window, "confirm_agreements", json!({ "adjudicator": "Eve" })).unwrap();
    let rows = invoke(&window, "locality_rows", json!({})).unwrap();
    let listed: Vec<&str> = rows.as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(listed, [ids[3].as_str()], "only the accepted row is audited");

    let err = invoke(&window, "mark_nonlocal", json!({ "id": ids[3], "reason": "   ", "by": "Eve" })).unwrap_err();
    assert_eq!(err["code"], "reason_required");
    assert!(err["message"].as_str().unwrap().contains("needs a reason"), "{err}");
    let err = invoke(&window, "mark_nonlocal", json!({ "id": ids[4], "reason": "x", "by": "Eve" })).unwrap_err();
    assert!(err["message"].as_str().unwrap().contains("accepted rows only"), "a rejected row: {err}");

    let mark =
        invoke(&window, "mark_nonlocal", json!({ "id": ids[3], "reason": " names another trial ", "by": "Eve" }))
            .unwrap();
    assert_eq!(mark["reason"], "names another trial");
    assert_eq!(mark["marked_by"], "Eve");
    let rows = invoke(&window, "locality_rows", json!({})).unwrap();
    assert_eq!(rows[0]["mark"]["reason"], "names another trial", "a removed row stays listed with its reason");
    let status = invoke(&window, "project_status", json!({})).unwrap();
    assert_eq!(status["funnel"]["locality_removed"], 1);
    assert_eq!(status["funnel"]["accepted"], 0);

    let removed = invoke(&window, "unmark_nonlocal", json!({ "id": ids[3] })).unwrap();
    assert_eq!(removed["reason"], "names another trial");
    let err = invoke(&window, "unmark_nonlocal", json!({ "id": ids[3] })).unwrap_err();
    assert!(err["message"].as_str().unwrap().contains("not marked nonlocal"), "{err}");
    assert_eq!(invoke(&window, "project_status", json!({})).unwrap()["funnel"]["accepted"], 1);
}

#[test]
fn a_project_that_failed_to_open_answers_every_adjudication_command_with_its_error() {
    let opening =
        forcebench::ErrorPayload { code: "not_a_project".into(), message: "x: not a ForceBench project".into() };
    let (_app, window) = app(Err(opening.clone()));
    for (cmd, args) in [
        (
            "adjudication_page",
            json!({ "query": { "filter": {}, "offset": 0, "limit": 10, "around": null, "open_after": null } }),
        ),
        ("adjudication_row", json!({ "id": "x", "hide_names": false })),
        (
            "resolve_row",
            json!({ "id": "x", "adjudicator": "Eve", "resolution": { "choices": [], "rationale": null, "checklist": {} } }),
        ),
        ("confirm_agreements", json!({ "adjudicator": "Eve" })),
        ("run_qc", json!({})),
        ("locality_rows", json!({})),
        ("mark_nonlocal", json!({ "id": "x", "reason": "r", "by": "Eve" })),
        ("unmark_nonlocal", json!({ "id": "x" })),
    ] {
        let err = invoke(&window, cmd, args).unwrap_err();
        assert_eq!(err, serde_json::to_value(&opening).unwrap(), "{cmd}");
    }
}
