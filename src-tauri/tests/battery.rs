//! A judge battery from a panel file, through Tauri's IPC on the mock runtime, against the scripted
//! server of every API style: the panel as the core reads it (or its refusal naming the file and
//! line), the run per cell with its progress, a cancel that leaves the report unwritten with the
//! core's reason, the next run resuming, and the report folder written.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use forcebench::Project;
use serde_json::{json, Value};
use tauri::Manager;

mod common;
use common::{app, invoke};
use forcebench_studio::battery::{run_with, BatteryParams};
use forcebench_studio::judging::JudgeState;
use forcebench_test_support::openai::{Reply, Server};

/// The demo project with a locked split (2 evaluation rows per axis), as a file of its own.
fn locked_file(dir: &std::path::Path) -> Project {
    let mut project = common::accepted_project("IPC battery");
    let params = forcebench::split::SplitParams::new(BTreeMap::new(), Some(2), Some(1));
    forcebench::split::draft(&mut project, &params).unwrap();
    forcebench::split::audit_sample(&mut project, "Eve").unwrap();
    forcebench::split::lock(&mut project).unwrap();
    let path = dir.join("battery.forcebench");
    project.conn().execute("VACUUM INTO ?1", [path.to_str().unwrap()]).unwrap();
    Project::open(&path).unwrap()
}

/// One server for both styles of the panel: a chat model and a Responses model, each answered in
/// its own shape after `delay`.
fn two_style_server(delay: Duration) -> Server {
    Server::start_with_path(move |path, _, _| {
        let text = "{\"label\": \"force_gap\"}";
        match path {
            "/v1/chat/completions" => Reply::content(text).after(delay),
            "/v1/responses" => Reply::responses(text).after(delay),
            other => panic!("unexpected path {other}"),
        }
    })
}

fn panel_file(dir: &std::path::Path, base: &str) -> String {
    let path = dir.join("panel.toml");
    std::fs::write(
        &path,
        format!(
            "[[model]]\nname = \"open-chat\"\nbase_url = \"{base}\"\n\n[[model]]\nname = \"gpt-r\"\napi = \"responses\"\nbase_url = \"{base}\"\napi_key_env = \"FORCEBENCH_SHELL_BATTERY_KEY\"\nextra = {{ reasoning = {{ effort = \"minimal\" }} }}\n"
        ),
    )
    .unwrap();
    path.display().to_string()
}

fn params(panel: &str, out: &std::path::Path) -> BatteryParams {
    serde_json::from_value(json!({ "panel": panel, "templates": ["force_aware"], "out": out.display().to_string() }))
        .unwrap()
}

#[test]
fn the_window_reads_a_panel_files_models_and_profiles_and_its_refusals_name_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, window) = app(Ok(Project::in_memory("t").unwrap()));
    let panel = panel_file(dir.path(), "http://127.0.0.1:9/v1");
    let read = invoke(&window, "battery_panel", json!({ "path": format!("  {panel} ") })).unwrap();
    assert_eq!(read["path"], json!(panel));
    let models: Vec<(&str, &str)> = read["models"]
        .as_array()
        .unwrap()
        .iter()
        // The default style is left out of a stored profile, as runs before styles were.
        .map(|m| (m["model"].as_str().unwrap(), m["params"]["api"].as_str().unwrap_or("chat")))
        .collect();
    assert_eq!(models, [("open-chat", "chat"), ("gpt-r", "responses")]);
    let gpt = &read["models"][1]["params"];
    assert_eq!(gpt["api_key_env"], "FORCEBENCH_SHELL_BATTERY_KEY");
    assert_eq!(gpt["extra"]["reasoning"]["effort"], "minimal");
    assert_eq!((gpt["max_tokens"].as_u64(), gpt["temperature"].as_f64()), (Some(1024), Some(0.0)));

    // A misspelt key is refused with the file and its line, never read as the default.
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "[[model]]\nname = \"m\"\nbase_url = \"http://127.0.0.1:9/v1\"\nmax_token = 10\n").unwrap();
    let e = invoke(&window, "battery_panel", json!({ "path": bad.display().to_string() })).unwrap_err();
    assert_eq!(e["code"], "invalid_argument");
    let message = e["message"].as_str().unwrap();
    assert!(message.contains("bad.toml") && message.contains("line 4") && message.contains("max_token"), "{message}");
    // A model named twice, by its place in the file.
    std::fs::write(
        &bad,
        "[[model]]\nname = \"m\"\nbase_url = \"http://x/v1\"\n[[model]]\nname = \"m\"\nbase_url = \"http://x/v1\"\n",
    )
    .unwrap();
    let e = invoke(&window, "battery_panel", json!({ "path": bad.display().to_string() })).unwrap_err();
    assert!(e["message"].as_str().unwrap().contains("model 2 (`m`, line 4): `name` on line 5: is listed twice"), "{e}");
    // A bad field inside a model: the field and its own line, not only the model's.
    std::fs::write(
        &bad,
        "[[model]]\nname = \"m\"\nbase_url = \"http://x/v1\"\n# the provider's mode\ntemperature = 0\nextra = { model = \"other\" }\n",
    )
    .unwrap();
    let e = invoke(&window, "battery_panel", json!({ "path": bad.display().to_string() })).unwrap_err();
    let message = e["message"].as_str().unwrap();
    assert!(message.contains("model 1 (`m`, line 1): `extra.model` on line 6: the extra field `model`"), "{message}");
    let e = invoke(&window, "battery_panel", json!({ "path": "  " })).unwrap_err();
    assert_eq!(e["code"], "invalid_argument");
}

#[test]
fn a_battery_from_the_window_stops_on_cancel_says_why_no_report_and_the_next_run_resumes_and_writes_it() {
    let dir = tempfile::tempdir().unwrap();
    std::env::set_var("FORCEBENCH_SHELL_BATTERY_KEY", "sk-battery-secret");
    let server = Arc::new(two_style_server(Duration::from_millis(40)));
    let (app, window) = app(Ok(locked_file(dir.path())));
    let (studio, state) = (app.state::<forcebench_studio::Studio>(), app.state::<JudgeState>());
    let panel = panel_file(dir.path(), &server.base_url);
    let out = dir.path().join("report");
    let p = params(&panel, &out);

    let canceller = {
        let (window, server) = (window.clone(), Arc::clone(&server));
        std::thread::spawn(move || {
            while server.answered() < 3 {
                std::thread::sleep(Duration::from_millis(5));
            }
            invoke(&window, "judge_cancel", json!({})).unwrap();
        })
    };
    let mut steps = Vec::new();
    let first = run_with(&studio, &state, &p, |s| steps.push(s)).unwrap();
    canceller.join().unwrap();
    assert!(first.cancelled);
    assert!(steps.iter().all(|s| s.cells == 2 && s.index >= 1 && s.index <= 2), "two cells: one model each");
    assert_eq!(steps[0].cell, "open-chat@force_aware (none)");
    // Cancelled part-way: the report is refused by the core, naming the cell and how to resume it.
    let why = first.report_error.as_ref().expect("no report from an unfinished battery");
    assert!(["unfinished", "no_evaluator"].contains(&why.code.as_str()), "{why:?}");
    assert!(why.message.contains("open-chat@force_aware") || why.message.contains("gpt-r@force_aware"), "{why:?}");
    assert!(first.written.is_empty() && !out.join("table2.csv").exists());
    let grid = invoke(&window, "evaluation_grid", json!({})).unwrap();
    let cell = grid["cells"].as_array().unwrap().iter().find(|c| c["evaluator"] == "open-chat@force_aware").cloned();
    if let Some(c) = cell.filter(|c| !c["completeness"].is_null()) {
        assert!(c["completeness"]["unanswered"].as_u64().unwrap() > 0);
        assert!(c["left_out"].as_str().unwrap().contains("is incomplete"), "{c}");
    }

    // Run again: every cell resumes, the report folder is written.
    let second = run_with(&studio, &state, &p, |_| {}).unwrap();
    assert!(!second.cancelled && second.failed.is_empty(), "{:?}", second.failed);
    assert!(second.runs.iter().all(|r| r.unanswered == 0));
    assert!(second.runs.iter().any(|r| r.answered_before > 0), "the cancelled cell resumed");
    assert_eq!(second.report_error.as_ref().map(|e| e.code.clone()), None);
    assert!(second.written.iter().any(|f| f.ends_with("table2.csv")), "{:?}", second.written);
    assert!(out.join("table2.csv").is_file() && out.join("figure3_grid.svg").is_file());
    let seen = server.seen.lock().unwrap();
    let responses: Vec<&Value> = seen.iter().filter(|s| s.path == "/v1/responses").map(|s| &s.body).collect();
    assert!(!responses.is_empty() && seen.iter().any(|s| s.path == "/v1/chat/completions"));
    assert!(responses.iter().all(|b| b["instructions"].is_string() && b["max_output_tokens"] == json!(1024)));
    assert!(responses.iter().all(|b| b["reasoning"]["effort"] == "minimal"));
    assert!(seen
        .iter()
        .filter(|s| s.path == "/v1/responses")
        .all(|s| s.auth.as_deref() == Some("Bearer sk-battery-secret")));
    drop(seen);
    // Running into the written folder again without Replace is refused before anything is sent.
    let before = server.seen.lock().unwrap().len();
    let e = run_with(&studio, &state, &p, |_| {}).unwrap_err();
    assert_eq!(e.code, "output_exists", "{e:?}");
    assert_eq!(server.seen.lock().unwrap().len(), before);
}

#[test]
fn a_battery_is_checked_before_anything_is_sent() {
    let dir = tempfile::tempdir().unwrap();
    let server = two_style_server(Duration::ZERO);
    let (app, _window) = app(Ok(locked_file(dir.path())));
    let (studio, state) = (app.state::<forcebench_studio::Studio>(), app.state::<JudgeState>());
    let panel = panel_file(dir.path(), &server.base_url);
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let e = run_with(&studio, &state, &params(&panel, &file), |_| {}).unwrap_err();
    assert_eq!(e.code, "bad_output_path", "{e:?}");
    let mut p = params(&panel, &dir.path().join("out"));
    p.templates = vec!["force_aware".into(), " force_aware ".into()];
    let e = run_with(&studio, &state, &p, |_| {}).unwrap_err();
    assert!(e.message.contains("named twice"), "{e:?}");
    p.templates = vec!["no_such_template".into()];
    assert!(run_with(&studio, &state, &p, |_| {}).is_err());
    let e = run_with(
        &studio,
        &state,
        &params(&dir.path().join("missing.toml").display().to_string(), &dir.path().join("o")),
        |_| {},
    )
    .unwrap_err();
    assert!(e.message.contains("missing.toml"), "{e:?}");
    assert!(server.seen.lock().unwrap().is_empty(), "nothing was sent");
}
