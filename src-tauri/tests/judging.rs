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
    let o = p.options().unwrap();
    assert_eq!((o.sampling.temperature, o.sampling.max_tokens, o.sampling.seed), (0.7, Some(300), Some(9)));
    assert_eq!((o.limit, o.timeout, o.max_attempts), (Some(3), Duration::from_secs(30), 2));
    assert_eq!(o.map.as_deref(), Some("audit"));
    let bare: forcebench_studio::judging::JudgeParams =
        serde_json::from_value(params("http://127.0.0.1:1/v1", "j")).unwrap();
    let (o, d) = (bare.options().unwrap(), forcebench::evaluate::runner::RunOptions::new("j", "u", "m", "t"));
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

/// A judge run from the window with a provider profile (`judge run --api anthropic --cap-field
/// ... --no-temperature --extra ...`), its key read from the named environment variable.
fn profile_params(url: &str, name: &str, over: Value) -> Value {
    let mut p =
        json!({ "base_url": url, "model": "claude-x", "template": "force_aware", "name": name, "concurrency": 1 });
    for (k, v) in over.as_object().unwrap() {
        p[k] = v.clone();
    }
    p
}

#[test]
fn a_provider_profile_from_the_window_is_sent_as_its_api_documents_and_recorded_without_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with_path(|path, _, _| match path {
        "/v1/messages" => Reply::anthropic("{\"label\": \"force_gap\"}"),
        other => panic!("the anthropic style asked {other}"),
    });
    let (app, window) = app(Ok(locked_file(dir.path())));
    let studio = app.state::<forcebench_studio::Studio>();
    let state = app.state::<forcebench_studio::judging::JudgeState>();
    std::env::set_var("FORCEBENCH_SHELL_TEST_ANTHROPIC_KEY", "sk-ant-secret-1234");
    let p: forcebench_studio::judging::JudgeParams = serde_json::from_value(profile_params(
        &server.base_url,
        "claude",
        json!({ "api": "anthropic", "api_key_env": "FORCEBENCH_SHELL_TEST_ANTHROPIC_KEY", "cap_field": "max_tokens_to_sample",
                "no_temperature": true, "extra": ["", "thinking={\"type\":\"disabled\"}", "  "], "max_tokens": 200 }),
    ))
    .unwrap();
    let summary = forcebench_studio::judging::run_with(&studio, &state, &p, |_| {}).unwrap();
    assert_eq!(summary.unanswered, 0);
    {
        let seen = server.seen.lock().unwrap();
        assert_eq!(seen.len() as u64, summary.requests);
        let first = &seen[0];
        assert_eq!(first.path, "/v1/messages");
        assert_eq!(first.headers.get("x-api-key").map(String::as_str), Some("sk-ant-secret-1234"));
        assert!(first.headers.contains_key("anthropic-version"));
        assert!(first.body["system"].is_string(), "the system prompt is top-level: {}", first.body);
        assert_eq!(first.body["messages"].as_array().unwrap().len(), 1);
        assert_eq!(first.body["max_tokens_to_sample"], json!(200));
        assert!(first.body.get("max_tokens").is_none() && first.body.get("temperature").is_none(), "{}", first.body);
        assert_eq!(first.body["thinking"], json!({ "type": "disabled" }));
    }
    let runs = invoke(&window, "judge_runs", json!({})).unwrap();
    let params = &runs[0]["params"];
    assert_eq!(
        (params["api"].as_str(), params["cap_field"].as_str()),
        (Some("anthropic"), Some("max_tokens_to_sample"))
    );
    assert_eq!(params["no_temperature"], json!(true));
    assert!(!runs.to_string().contains("sk-ant-secret"), "the key is never stored or sent to the window");
}

// Refused as `judge run` refuses its flags, with the core's code and words, and nothing is sent.
#[test]
fn a_profile_the_cli_would_refuse_is_refused_in_its_words_before_anything_is_sent() {
    let dir = tempfile::tempdir().unwrap();
    let server = endpoint(Duration::ZERO);
    let (app, _window) = app(Ok(locked_file(dir.path())));
    let studio = app.state::<forcebench_studio::Studio>();
    let state = app.state::<forcebench_studio::judging::JudgeState>();
    let cases = [
        (json!({ "api": "grpc" }), "`grpc` is not an API style; expected chat, responses or anthropic"),
        (json!({ "extra": ["reasoning"] }), "--extra `reasoning`: give KEY=JSON"),
        (json!({ "extra": ["=1"] }), "--extra `=1`: the field has no name before `=`"),
        (json!({ "extra": ["effort=minimal"] }), "--extra `effort=minimal`: the value is not JSON"),
        (json!({ "extra": ["a=1", " a = 2"] }), "--extra `a = 2`: the field is given twice"),
        (json!({ "extra": ["messages=[]"] }), "the extra field `messages` would replace the prompt"),
        (json!({ "api": "anthropic", "max_tokens": 0 }), "--api anthropic needs an output cap"),
        // Raised to 1 in silence before, so the run went with a setting nobody gave.
        (json!({ "attempts": 0 }), "--attempts 0 would send nothing"),
        (json!({ "answer_attempts": 0 }), "--answer-attempts 0 would keep no answer"),
        (json!({ "timeout": 0 }), "--timeout 0 leaves no time for an answer"),
        (
            json!({ "api_key_env": "FORCEBENCH_SHELL_TEST_UNSET_VAR" }),
            "FORCEBENCH_SHELL_TEST_UNSET_VAR (named by --api-key-env) is not set",
        ),
    ];
    for (over, words) in cases {
        let p: forcebench_studio::judging::JudgeParams =
            serde_json::from_value(profile_params(&server.base_url, "refused", over.clone())).unwrap();
        let e = forcebench_studio::judging::run_with(&studio, &state, &p, |_| {}).unwrap_err();
        assert_eq!(e.code, "invalid_argument", "{over}");
        assert!(e.message.contains(words), "{over}: {}", e.message);
    }
    assert!(server.seen.lock().unwrap().is_empty(), "nothing was sent");
    // The slot is free again: a good run goes through after the refusals.
    let ok: forcebench_studio::judging::JudgeParams =
        serde_json::from_value(profile_params(&server.base_url, "fine", json!({}))).unwrap();
    assert!(forcebench_studio::judging::run_with(&studio, &state, &ok, |_| {}).is_ok());
}

#[test]
fn the_catalog_lists_each_api_style_with_its_path_and_cap_field() {
    let (_app, window) = app(Ok(Project::in_memory("t").unwrap()));
    let catalog = invoke(&window, "judge_templates", json!({})).unwrap();
    assert_eq!(
        catalog["apis"],
        json!([
            { "name": "chat", "path": "/chat/completions", "cap_field": "max_tokens", "needs_cap": false },
            { "name": "responses", "path": "/responses", "cap_field": "max_output_tokens", "needs_cap": false },
            { "name": "anthropic", "path": "/messages", "cap_field": "max_tokens", "needs_cap": true },
        ])
    );
}
