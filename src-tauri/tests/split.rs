//! The split commands through Tauri's IPC on the mock runtime (no window): show, draft, lock,
//! export with progress and verify, on the demonstration project with every row annotated and
//! the full agreements confirmed (45 accepted rows across the five axes).

use forcebench::Project;
use serde_json::{json, Value};
use tauri::Manager;

mod common;
use common::{app, invoke};

/// The demo project, every sample row annotated by both annotators, full agreements confirmed.
fn accepted_project() -> Project {
    common::accepted_project("IPC split")
}

fn ids(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect()
}

/// Keeps, as the adjudicator reviewing them, the selected rows whose locality warning nobody
/// reviewed (the lock waits for them); answers their ids.
fn review(window: &tauri::WebviewWindow<tauri::test::MockRuntime>) -> Vec<String> {
    let shown = invoke(window, "split_show", json!({})).unwrap();
    let open: Vec<String> = shown["audit"]["unreviewed_locality"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    for id in &open {
        invoke(window, "locality_keep", json!({ "id": id, "by": "Eve", "note": null })).unwrap();
    }
    open
}

fn draft_args(caps: Value, per_axis: u32, seed: u64) -> Value {
    json!({ "params": { "caps": caps, "per_axis": per_axis, "seed": seed } })
}

#[test]
fn show_is_null_before_a_draft_and_the_draft_is_what_show_then_answers() {
    let project = accepted_project();
    let accepted =
        forcebench::status::status(&project).unwrap().states[&forcebench::vocab::WorkflowState::Accepted] as u64;
    let (_app, window) = app(Ok(project));
    assert_eq!(invoke(&window, "split_show", json!({})).unwrap(), Value::Null);

    let draft = invoke(&window, "split_draft", draft_args(json!({ "numeric": 5 }), 3, 2)).unwrap();
    assert_eq!((draft["version"].as_i64(), draft["status"].as_str()), (Some(1), Some("draft")));
    assert_eq!(
        draft["params"],
        json!({ "caps": { "numeric": 5 }, "per_axis": 3, "seed": 2, "strata": ["source_dataset"] })
    );
    assert_eq!(draft["retained"]["numeric"], 5);
    assert_eq!(draft["counts"]["accepted"].as_u64(), Some(accepted));
    let numeric = draft["per_axis"].as_array().unwrap().iter().find(|t| t["axis"] == "numeric").unwrap();
    let capped = draft["capped"].as_array().unwrap();
    assert_eq!(capped.len() as u64, numeric["accepted"].as_u64().unwrap() - 5);
    assert!(capped
        .iter()
        .all(|c| c["axis"] == "numeric" && c["reason"].as_str().unwrap().starts_with("numeric capped at 5 rows")));
    // Every axis takes at least its 3 evaluation rows (more when a picked row brings its group).
    for axis in ["relation", "modality", "scope", "temporal", "numeric"] {
        assert!(draft["eval"][axis].as_u64().unwrap() >= 3, "{axis}: {}", draft["eval"]);
    }
    assert_eq!(invoke(&window, "split_show", json!({})).unwrap(), draft);

    // The same parameters give the same split; a draft again replaces the draft (still v1).
    let again = invoke(&window, "split_draft", draft_args(json!({ "numeric": 5 }), 3, 2)).unwrap();
    assert_eq!((ids(&again["eval_ids"]), again["version"].as_i64()), (ids(&draft["eval_ids"]), Some(1)));
    let other = invoke(&window, "split_draft", draft_args(json!({}), 40, 1)).unwrap();
    assert_eq!(other["capped"], json!([]));
    assert_eq!(other["counts"]["eval"].as_u64(), Some(accepted), "40 per axis takes every accepted row");
}

#[test]
fn bad_parameters_are_refused_with_a_reason() {
    let (_app, window) = app(Ok(accepted_project()));
    let err = invoke(&window, "split_draft", draft_args(json!({}), 0, 1)).unwrap_err();
    assert_eq!(err["code"], "invalid_argument");
    assert!(err["message"].as_str().unwrap().contains("at least 1"), "{err}");
    // An unknown axis or a negative cap does not reach the core.
    let err = invoke(&window, "split_draft", draft_args(json!({ "certainty": 3 }), 4, 1)).unwrap_err();
    assert!(err.as_str().unwrap().contains("certainty"), "{err}");
    let err = invoke(&window, "split_draft", draft_args(json!({ "scope": -1 }), 4, 1)).unwrap_err();
    assert!(err.as_str().unwrap().contains("params"), "{err}");
    assert_eq!(invoke(&window, "split_show", json!({})).unwrap(), Value::Null, "nothing was drafted");
}

#[test]
fn a_project_without_accepted_rows_cannot_draft() {
    let mut project = Project::in_memory("nothing accepted").unwrap();
    forcebench::sample::load_sample(&mut project).unwrap();
    let (_app, window) = app(Ok(project));
    let err = invoke(&window, "split_draft", draft_args(json!({}), 40, 1)).unwrap_err();
    assert_eq!(err["code"], "nothing_to_split");
    assert!(err["message"].as_str().unwrap().contains("no accepted rows"), "{err}");
}

#[test]
fn lock_freezes_the_rows_and_locking_twice_is_refused() {
    let (_app, window) = app(Ok(accepted_project()));
    let err = invoke(&window, "split_lock", json!({})).unwrap_err();
    assert!(err["message"].as_str().unwrap().contains("no split to lock"), "{err}");

    let draft = invoke(&window, "split_draft", draft_args(json!({}), 4, 1)).unwrap();
    // The lock waits for the final audit, naming the rows nobody reviewed; kept, it goes ahead.
    let unreviewed = draft["audit"]["unreviewed_locality"].as_array().unwrap().clone();
    assert!(!unreviewed.is_empty(), "the sample's draft has warned rows: {draft}");
    let err = invoke(&window, "split_lock", json!({})).unwrap_err();
    assert_eq!(err["code"], "audit_unfinished");
    assert!(err["message"].as_str().unwrap().contains(unreviewed[0]["id"].as_str().unwrap()), "{err}");
    assert_eq!(review(&window).len(), unreviewed.len());
    let locked = invoke(&window, "split_lock", json!({})).unwrap();
    assert_eq!(locked["audit"]["allowed_unreviewed"], false);
    assert_eq!(locked["status"], "locked");
    assert!(locked["locked_at"].is_string());
    assert_eq!(ids(&locked["eval_ids"]), ids(&draft["eval_ids"]));

    let err = invoke(&window, "split_lock", json!({})).unwrap_err();
    assert!(err["message"].as_str().unwrap().contains("already locked"), "{err}");
    // A row of the locked split can no longer be marked nonlocal.
    let row = ids(&locked["retained_ids"]).remove(0);
    let err =
        invoke(&window, "mark_nonlocal", json!({ "id": row, "reason": "changes the topic", "by": "Eve" })).unwrap_err();
    assert!(err["message"].as_str().unwrap().contains("locked split v1"), "{err}");
}

#[test]
fn a_locality_mark_after_the_draft_removes_the_row_without_back_fill() {
    let (_app, window) = app(Ok(accepted_project()));
    let draft = invoke(&window, "split_draft", draft_args(json!({}), 4, 1)).unwrap();
    let row = ids(&draft["eval_ids"]).remove(0);
    invoke(&window, "mark_nonlocal", json!({ "id": row, "reason": "changes the topic", "by": "Eve" })).unwrap();
    let shown = invoke(&window, "split_show", json!({})).unwrap();
    assert_eq!(
        shown["locality_removed"],
        json!([{
            "id": row,
            "axis": shown["locality_removed"][0]["axis"],
            "source_dataset": shown["locality_removed"][0]["source_dataset"],
            "reason": "changes the topic",
            "was_eval": true,
        }])
    );
    assert_eq!(shown["counts"]["eval"].as_u64().unwrap(), draft["counts"]["eval"].as_u64().unwrap() - 1);
    assert_eq!(shown["stale"], json!([]), "a locality removal is not a stale row");
}

#[test]
fn export_needs_a_locked_split_and_a_folder() {
    let (_app, window) = app(Ok(accepted_project()));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("export");
    let args = json!({ "dir": out.display().to_string(), "onProgress": "__CHANNEL__:7" });
    let err = invoke(&window, "split_export", args.clone()).unwrap_err();
    assert!(err["message"].as_str().unwrap().contains("no split to export"), "{err}");
    invoke(&window, "split_draft", draft_args(json!({}), 4, 1)).unwrap();
    let err = invoke(&window, "split_export", args).unwrap_err();
    assert!(err["message"].as_str().unwrap().contains("lock it before exporting"), "{err}");
    review(&window);
    invoke(&window, "split_lock", json!({})).unwrap();
    let err = invoke(&window, "split_export", json!({ "dir": "  ", "onProgress": "__CHANNEL__:7" })).unwrap_err();
    assert_eq!(err["message"], "type the folder to export the split to");
    assert!(!out.exists());
}

#[test]
fn export_writes_every_file_and_verify_then_names_a_changed_file() {
    let (_app, window) = app(Ok(accepted_project()));
    invoke(&window, "split_draft", draft_args(json!({ "relation": 6 }), 4, 1)).unwrap();
    review(&window);
    let locked = invoke(&window, "split_lock", json!({})).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("split-v1");

    let report =
        invoke(&window, "split_export", json!({ "dir": out.display().to_string(), "onProgress": "__CHANNEL__:7" }))
            .unwrap();
    assert_eq!(report["version"], 1);
    let files = report["files"].as_object().unwrap();
    let mut names: Vec<&str> = files.keys().map(String::as_str).collect();
    let mut expected = forcebench::split::EXPORT_FILES.to_vec();
    names.sort();
    expected.sort();
    assert_eq!(names, expected);
    for (name, hash) in files {
        assert!(out.join(name).is_file(), "{name}");
        assert_eq!(hash.as_str().unwrap().len(), 64);
    }

    let verified = invoke(&window, "split_verify", json!({ "dir": out.display().to_string() })).unwrap();
    assert_eq!(verified["content_sha256"], report["content_sha256"]);
    assert_eq!(verified["files_checked"].as_u64(), Some(files.len() as u64));
    assert_eq!(verified["eval_rows"], locked["counts"]["eval"]);
    assert_eq!(verified["retained_rows"], locked["counts"]["retained"]);

    let csv = out.join("eval.csv");
    let mut text = std::fs::read_to_string(&csv).unwrap();
    text.push_str("tampered\n");
    std::fs::write(&csv, text).unwrap();
    let err = invoke(&window, "split_verify", json!({ "dir": out.display().to_string() })).unwrap_err();
    assert_eq!(err["code"], "verify_failed");
    let message = err["message"].as_str().unwrap();
    assert!(message.contains(&csv.display().to_string()) && message.contains("sha256 differs"), "{message}");

    let err = invoke(&window, "split_verify", json!({ "dir": dir.path().join("nowhere").display().to_string() }))
        .unwrap_err();
    assert_eq!(err["code"], "io");
    assert!(err["message"].as_str().unwrap().contains("manifest.json"), "{err}");
}

#[test]
fn export_reports_progress_after_each_file_in_writing_order() {
    let (app, window) = app(Ok(accepted_project()));
    invoke(&window, "split_draft", draft_args(json!({}), 4, 1)).unwrap();
    review(&window);
    invoke(&window, "split_lock", json!({})).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut steps = Vec::new();
    let studio = app.state::<forcebench_studio::Studio>();
    forcebench_studio::split::export_to(&studio, &dir.path().display().to_string(), |s| steps.push(s)).unwrap();
    let total = forcebench::split::EXPORT_FILES.len();
    let seen: Vec<(usize, usize, String)> = steps.into_iter().map(|s| (s.done, s.total, s.file)).collect();
    let want: Vec<(usize, usize, String)> =
        forcebench::split::EXPORT_FILES.iter().enumerate().map(|(i, f)| (i + 1, total, f.to_string())).collect();
    assert_eq!(seen, want);
}

// The split form takes its starting values from here: the paper's 40 evaluation rows per axis,
// seed 1, no caps, stratified by source dataset.
#[test]
fn the_split_defaults_the_form_starts_from_are_the_papers() {
    let (_app, window) = app(Ok(accepted_project()));
    let defaults = invoke(&window, "split_defaults", json!({})).unwrap();
    assert_eq!(defaults, json!({ "caps": {}, "per_axis": 40, "seed": 1, "strata": ["source_dataset"] }));
}
