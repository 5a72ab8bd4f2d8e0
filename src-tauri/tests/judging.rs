//! Running an LLM judge from the window, through Tauri's IPC on the mock runtime, against a
//! scripted endpoint on 127.0.0.1: the templates come from the core, a run reports progress and
//! is recorded, a cancel keeps what was answered and the next run resumes, and the trust report
//! answers.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use forcebench::Project;
use serde_json::{json, Value};
use tauri::Manager;

mod common;
use common::{app, invoke};
use forcebench_test_support::openai::{Reply, Server};

/// An endpoint that calls every claim a force gap after `delay` (the scripted server the core's
/// tests use).
fn endpoint(delay: Duration) -> Server {
    Server::start(move |_, _| Reply::content("{\"label\": \"force_gap\"}").after(delay))
}

/// The demo project with a locked split (2 evaluation rows per axis), as a file of its own.
fn locked_file(dir: &std::path::Path) -> Project {
    let mut project = common::accepted_project("IPC judge");
    let params = forcebench::split::SplitParams::new(BTreeMap::new(), Some(2), Some(1));
    forcebench::split::draft(&mut project, &params).unwrap();
    forcebench::split::audit_sample(&mut project, "Eve").unwrap();
    forcebench::split::lock(&mut project).unwrap();
    let path = dir.join("judge.forcebench");
    project.conn().execute("VACUUM INTO ?1", [path.to_str().unwrap()]).unwrap();
    Project::open(&path).unwrap()
}

fn params(url: &str, name: &str) -> Value {
    json!({ "base_url": url, "model": "scripted", "template": "force_aware", "name": name, "concurrency": 1 })
}

#[test]
fn the_window_lists_the_cores_templates_label_maps_and_run_defaults() {
    let (_app, window) = app(Ok(Project::in_memory("t").unwrap()));
    let catalog = invoke(&window, "judge_templates", json!({})).unwrap();
    let names: Vec<(&str, &str, bool)> = catalog["templates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["name"].as_str().unwrap(), t["map"].as_str().unwrap(), t["pairwise"].as_bool().unwrap()))
        .collect();
    assert_eq!(
        names,
        [
            ("generic", "generic", false),
            ("force_aware", "force", false),
            ("axis_free", "force", false),
            ("dummy_axis", "force", false),
            ("pairwise", "pairwise", true)
        ]
    );
    assert_eq!(catalog["label_maps"], json!(["generic", "force", "audit"]));
    for map in catalog["label_maps"].as_array().unwrap() {
        assert!(
            forcebench::evaluate::LabelMap::named(map.as_str().unwrap()).is_ok(),
            "{map} is not a map the core reads"
        );
    }
    assert_eq!(
        catalog["defaults"],
        json!({ "concurrency": 4, "temperature": 0.0, "timeout": 120, "attempts": 5, "max_tokens": 1024, "answer_attempts": 3 })
    );
}

#[test]
fn a_runs_options_from_the_window_reach_the_core_and_left_out_ones_take_the_clis_defaults() {
    let p: forcebench_studio::judging::JudgeParams = serde_json::from_value(json!({
        "base_url": "http://127.0.0.1:1/v1", "model": "m", "template": "generic", "name": "j",
        "temperature": 0.7, "max_tokens": 300, "seed": 9, "limit": 3, "timeout": 30, "attempts": 2, "map": " audit "
    }))
    .unwrap();
    let o = p.options();
    assert_eq!((o.sampling.temperature, o.sampling.max_tokens, o.sampling.seed), (0.7, Some(300), Some(9)));
    assert_eq!((o.limit, o.timeout, o.max_attempts), (Some(3), Duration::from_secs(30), 2));
    assert_eq!(o.map.as_deref(), Some("audit"));
    let bare: forcebench_studio::judging::JudgeParams =
        serde_json::from_value(params("http://127.0.0.1:1/v1", "j")).unwrap();
    let (o, d) = (bare.options(), forcebench::evaluate::runner::RunOptions::new("j", "u", "m", "t"));
    assert_eq!(
        (o.timeout, o.max_attempts, o.sampling.temperature),
        (d.timeout, d.max_attempts, d.sampling.temperature)
    );
}

#[test]
fn a_run_from_the_window_is_recorded_a_cancel_keeps_its_answers_and_the_next_run_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let server = Arc::new(endpoint(Duration::from_millis(60)));
    let url = server.base_url.clone();
    let (app, window) = app(Ok(locked_file(dir.path())));
    let studio = app.state::<forcebench_studio::Studio>();
    let state = app.state::<forcebench_studio::judging::JudgeState>();
    let p: forcebench_studio::judging::JudgeParams = serde_json::from_value(params(&url, "windowed")).unwrap();

    // Cancel from another thread (as the Cancel button does) once a few answers are in.
    let canceller = {
        let window = window.clone();
        let server = Arc::clone(&server);
        std::thread::spawn(move || {
            while server.answered() < 3 {
                std::thread::sleep(Duration::from_millis(5));
            }
            invoke(&window, "judge_cancel", json!({})).unwrap();
        })
    };
    let mut steps = Vec::new();
    let first = forcebench_studio::judging::run_with(&studio, &state, &p, |s| steps.push(s)).unwrap();
    canceller.join().unwrap();
    let first: Value = serde_json::to_value(first).unwrap();
    assert_eq!(first["cancelled"], json!(true));
    let total = first["requests"].as_u64().unwrap();
    let kept = total - first["unanswered"].as_u64().unwrap();
    assert!(kept >= 3 && kept < total, "{kept} of {total} answered before the cancel");
    assert!(steps.windows(2).all(|w| w[0].done <= w[1].done), "progress only moves forward");

    let runs = invoke(&window, "judge_runs", json!({})).unwrap();
    assert_eq!(runs[0]["answered"].as_u64(), Some(kept), "the window reads what the run's own connection wrote");

    let second = forcebench_studio::judging::run_with(&studio, &state, &p, |_| {}).unwrap();
    let second: Value = serde_json::to_value(second).unwrap();
    assert_eq!((second["answered_before"].as_u64(), second["unanswered"].as_u64()), (Some(kept), Some(0)));
    assert!(
        server.seen.lock().unwrap().len() as u64 <= total + 1,
        "at most the request in flight at the cancel was sent twice"
    );
    let compared = invoke(&window, "evaluation_compare", json!({})).unwrap();
    assert!(compared.as_array().unwrap().iter().any(|r| r["name"] == "windowed"));
    let trust = invoke(&window, "judge_trust", json!({ "name": "windowed" })).unwrap();
    // Every claim called a force gap: the calibrated ones disagree with the humans.
    assert_eq!(trust["human_agreement"]["overall"]["percent_agreement"].as_f64(), Some(0.5));
}

/// An endpoint that takes every request and never answers (a hung server).
fn silent_endpoint() -> Server {
    Server::start(|_, _| Reply::hang())
}

// Broke before (issue 31): Cancel stayed at "Stopping…" while requests hung; a run that never
// answered was stored as an evaluator with MVR 1.000.
#[test]
fn cancel_stops_a_hung_run_within_a_second_and_a_run_with_no_answer_is_not_scored() {
    let dir = tempfile::tempdir().unwrap();
    let server = silent_endpoint();
    let url = server.base_url.clone();
    let (app, window) = app(Ok(locked_file(dir.path())));
    let studio = app.state::<forcebench_studio::Studio>();
    let state = app.state::<forcebench_studio::judging::JudgeState>();
    let p: forcebench_studio::judging::JudgeParams = serde_json::from_value(json!({
        "base_url": url, "model": "scripted", "template": "force_aware", "name": "hung", "concurrency": 2, "timeout": 120
    }))
    .unwrap();
    let canceller = {
        let window = window.clone();
        std::thread::spawn(move || {
            while server.connections() < 2 {
                std::thread::sleep(Duration::from_millis(5));
            }
            let asked = std::time::Instant::now();
            invoke(&window, "judge_cancel", json!({})).unwrap();
            asked
        })
    };
    let summary = forcebench_studio::judging::run_with(&studio, &state, &p, |_| {}).unwrap();
    let stopped = std::time::Instant::now();
    let asked = canceller.join().unwrap();
    assert!(
        stopped.duration_since(asked) < Duration::from_secs(2),
        "stopped {:?} after Cancel",
        stopped.duration_since(asked)
    );
    let summary: Value = serde_json::to_value(summary).unwrap();
    assert_eq!((summary["cancelled"].as_bool(), summary["answered_now"].as_u64()), (Some(true), Some(0)));
    assert_eq!(summary["report"], Value::Null, "nothing to score");
    let compared = invoke(&window, "evaluation_compare", json!({})).unwrap();
    assert!(compared.as_array().unwrap().iter().all(|r| r["name"] != "hung"), "no evaluator for a run with no answer");
}
