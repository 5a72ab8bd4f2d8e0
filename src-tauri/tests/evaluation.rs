//! The evaluation commands through Tauri's IPC on the mock runtime (no window): the empty state
//! without a locked split, baselines, the comparison, importing scores, the plots and their
//! export, judge requests — on the demonstration project with a small locked split.

use std::collections::BTreeMap;

use forcebench::Project;
use serde_json::{json, Value};

mod common;
use common::{app, invoke};

/// The demo project, every sample row annotated, full agreements confirmed; with a split
/// drafted (3 evaluation rows per axis) and, when `lock`, locked.
fn project(lock: bool) -> Project {
    let mut project = common::accepted_project("IPC evaluation");
    let params = forcebench::split::SplitParams::new(BTreeMap::new(), Some(3), Some(1));
    forcebench::split::draft(&mut project, &params).unwrap();
    if lock {
        forcebench::split::audit_sample(&mut project, "Eve").unwrap();
        forcebench::split::lock(&mut project).unwrap();
    }
    project
}

fn message(err: &Value) -> String {
    err["message"].as_str().unwrap_or_default().to_string()
}

#[test]
fn without_a_locked_split_every_command_says_so_in_words() {
    let (_app, window) = app(Ok(project(false)));
    for cmd in ["evaluation_compare", "run_baselines", "evaluation_plots_svg"] {
        let err = invoke(&window, cmd, json!({})).unwrap_err();
        assert!(message(&err).contains("locked split"), "{cmd}: {err}");
    }
    let (_app, window) = app(Ok(Project::in_memory("empty").unwrap()));
    let err = invoke(&window, "evaluation_compare", json!({})).unwrap_err();
    assert!(message(&err).contains("draft and lock one first"), "{err}");
}

#[test]
fn baselines_compare_plots_and_export() {
    let (_app, window) = app(Ok(project(true)));
    assert_eq!(invoke(&window, "evaluation_compare", json!({})).unwrap(), json!([]));

    let run = invoke(&window, "run_baselines", json!({})).unwrap();
    let names: Vec<&str> = run.as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 5);
    assert!(names.contains(&"baseline:citation_presence"), "{names:?}");
    let floor = run.as_array().unwrap().iter().find(|r| r["name"] == "baseline:citation_presence").unwrap();
    // Every pair ties for citation presence: MVR 1, FS 0, and the flattened metrics are there.
    assert_eq!((floor["mvr"].as_f64(), floor["fs"].as_f64()), (Some(1.0), Some(0.0)));
    assert!(floor["n_pairs"].as_u64().unwrap() >= 15);
    assert_eq!(floor["mvr_ci95"], json!([1.0, 1.0]));
    assert_eq!(floor["split_version"], 1);
    assert!(floor["per_axis"]["numeric"]["mvr"].is_number());

    // The comparison is the stored evaluators scored again: the same five, sorted by name.
    let compared = invoke(&window, "evaluation_compare", json!({})).unwrap();
    let mut sorted = names.clone();
    sorted.sort();
    let compared_names: Vec<&str> = compared.as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(compared_names, sorted);

    let svg = invoke(&window, "evaluation_plots_svg", json!({})).unwrap();
    for key in ["scatter", "heatmap"] {
        let text = svg[key].as_str().unwrap();
        assert!(text.starts_with("<svg") && text.contains("token_overlap"), "{key}");
        assert!(!text.contains("<script") && !text.contains("style="), "{key}: nothing a strict CSP would block");
    }

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("plots");
    let written = invoke(&window, "export_plots", json!({ "dir": out.display().to_string() })).unwrap();
    let written: Vec<String> = written.as_array().unwrap().iter().map(|p| p.as_str().unwrap().to_string()).collect();
    let names: Vec<String> =
        written.iter().map(|p| std::path::Path::new(p).file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["mvr_fs.svg", "mvr_fs.png", "mvr_by_axis.svg", "mvr_by_axis.png"]);
    for path in &written {
        let bytes = std::fs::read(path).unwrap();
        if path.ends_with(".png") {
            assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{path}");
        } else {
            assert_eq!(
                String::from_utf8(bytes).unwrap(),
                svg[if path.contains("mvr_fs") { "scatter" } else { "heatmap" }].as_str().unwrap()
            );
        }
    }
    let err = invoke(&window, "export_plots", json!({ "dir": "  " })).unwrap_err();
    assert!(message(&err).contains("type the folder"), "{err}");
}

#[test]
fn import_scores_reads_labels_through_the_map_and_lists_missing_pairs() {
    let project = project(true);
    let (_, pairs) = forcebench::evaluate::eval_pairs(&project).unwrap();
    let (_app, window) = app(Ok(project));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("judge.jsonl");
    // Every pair right except the first, whose raised claim has a label the map does not know (an
    // answer with no usable verdict: a violation); the second's raised claim was never answered
    // (not a judgment: that pair is left out and counted).
    let mut lines = String::new();
    for (i, p) in pairs.iter().enumerate() {
        lines += &format!("{}\n", json!({ "id": p.id, "claim": "safe", "label": "force_calibrated" }));
        let raised = if i == 0 { "maybe" } else { "force_gap" };
        if i != 1 {
            lines += &format!("{}\n", json!({ "id": p.id, "claim": "raised", "label": raised }));
        }
    }
    std::fs::write(&file, lines).unwrap();
    let args = json!({ "path": file.display().to_string(), "name": " my-judge ", "map": "force" });
    let report = invoke(&window, "import_scores", args).unwrap();
    assert_eq!((report["name"].as_str(), report["label_map"].as_str()), (Some("my-judge"), Some("force")));
    assert_eq!(report["n_pairs"].as_u64(), Some(pairs.len() as u64 - 1));
    assert_eq!(
        (report["violations"].as_u64(), report["missing"].as_u64(), report["unanswered"].as_u64()),
        (Some(1), Some(1), Some(1))
    );
    assert_eq!(report["missing_pairs"].as_array().unwrap().len(), 1, "{}", report["missing_pairs"]);
    assert_eq!(report["missing_pairs"][0]["id"], json!(pairs[0].id));
    assert_eq!(report["completeness"]["unanswered"], 1);
    let compared = invoke(&window, "evaluation_compare", json!({})).unwrap();
    assert_eq!(compared.as_array().unwrap().len(), 1);

    let err = invoke(&window, "import_scores", json!({ "path": "", "name": "x", "map": "force" })).unwrap_err();
    assert!(message(&err).contains("scores file"), "{err}");
    let err =
        invoke(&window, "import_scores", json!({ "path": file.display().to_string(), "name": "x", "map": "nope" }))
            .unwrap_err();
    assert!(!message(&err).is_empty(), "{err}");

    let requests = dir.path().join("requests.jsonl");
    let n =
        invoke(&window, "judge_export", json!({ "template": "force_aware", "out": requests.display().to_string() }))
            .unwrap();
    assert_eq!(n.as_u64(), Some(2 * pairs.len() as u64));
    assert_eq!(std::fs::read_to_string(&requests).unwrap().lines().count(), 2 * pairs.len());
}

/// The judge through the window's commands: requests out with each template the view offers,
/// responses back in, read as JSON, by a label in the text, or not at all.
#[test]
fn judge_requests_go_out_and_responses_come_back_scored() {
    let project = project(true);
    let (_, pairs) = forcebench::evaluate::eval_pairs(&project).unwrap();
    let (_app, window) = app(Ok(project));
    let dir = tempfile::tempdir().unwrap();

    // The view offers the templates `judge_templates` lists (the core's), and each per-claim one
    // writes requests (the pairwise one is for `judge run --control order` only).
    let catalog = invoke(&window, "judge_templates", json!({})).unwrap();
    let shipped: Vec<(String, String)> = catalog["templates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| !t["pairwise"].as_bool().unwrap())
        .map(|t| (t["name"].as_str().unwrap().to_string(), t["map"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(shipped.len(), 4);
    for (name, _) in &shipped {
        let out = dir.path().join(format!("{name}.jsonl"));
        let n =
            invoke(&window, "judge_export", json!({ "template": name, "out": out.display().to_string(), "seed": 3 }))
                .unwrap();
        assert_eq!(n.as_u64(), Some(2 * pairs.len() as u64), "{name}");
    }

    // Answers to the force-aware requests: one wrapped in prose, one with no verdict at all.
    let requests: Vec<Value> = std::fs::read_to_string(dir.path().join("force_aware.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut lines = String::new();
    for (i, r) in requests.iter().enumerate() {
        let label = if r["claim"] == "safe" { "force_calibrated" } else { "force_gap" };
        let response = match i {
            0 => "I cannot tell.".to_string(),
            1 => format!("My verdict: {label}."),
            _ => format!("{{\"label\": \"{label}\"}}"),
        };
        lines += &format!("{}\n", json!({ "request_id": r["request_id"], "response": response }));
    }
    let file = dir.path().join("responses.jsonl");
    std::fs::write(&file, lines).unwrap();
    let read = invoke(
        &window,
        "judge_import",
        json!({ "path": file.display().to_string(), "name": " judge ", "map": "force" }),
    )
    .unwrap();
    let total = requests.len() as u64;
    assert_eq!(read["parsing"]["responses"].as_u64(), Some(total));
    assert_eq!(
        (read["parsing"]["json"].as_u64(), read["parsing"]["label_in_text"].as_u64()),
        (Some(total - 2), Some(1))
    );
    assert_eq!(read["parsing"]["unparsable"], json!([requests[0]["request_id"]]));
    assert_eq!((read["report"]["name"].as_str(), read["report"]["missing"].as_u64()), (Some("judge"), Some(1)));
    assert_eq!(invoke(&window, "evaluation_compare", json!({})).unwrap()[0]["name"], "judge");

    for (args, words) in [
        (json!({ "path": " ", "name": "j", "map": "force" }), "judge's responses"),
        (json!({ "path": file.display().to_string(), "name": "", "map": "force" }), "needs a name"),
        (json!({ "path": file.display().to_string(), "name": "j", "map": "nope" }), "nope"),
    ] {
        let err = invoke(&window, "judge_import", args).unwrap_err();
        assert!(message(&err).contains(words), "{err}");
    }
}
