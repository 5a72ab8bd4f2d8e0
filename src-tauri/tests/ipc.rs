//! The commands through Tauri's IPC on the mock runtime (no window, no display), built with the
//! app's real tauri.conf.json and capabilities, so the window's permissions apply here too.

use forcebench::Project;
use serde_json::{json, Value};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{get_ipc_response, mock_builder, INVOKE_KEY};
use tauri::webview::InvokeRequest;
use tauri::{App, Manager, WebviewWindow};

type Mock = tauri::test::MockRuntime;

fn app(project: Result<Project, forcebench::ErrorPayload>) -> (App<Mock>, WebviewWindow<Mock>) {
    let app = forcebench_studio::builder(mock_builder(), project)
        .build(tauri::generate_context!())
        .expect("the app builds on the mock runtime");
    let window = match app.get_webview_window("main") {
        Some(w) => w,
        None => tauri::WebviewWindowBuilder::new(&app, "main", Default::default()).build().unwrap(),
    };
    (app, window)
}

fn invoke(window: &WebviewWindow<Mock>, cmd: &str, args: Value) -> Result<Value, Value> {
    let request = InvokeRequest {
        cmd: cmd.into(),
        callback: CallbackFn(0),
        error: CallbackFn(1),
        url: "tauri://localhost".parse().unwrap(),
        body: InvokeBody::Json(args),
        headers: Default::default(),
        invoke_key: INVOKE_KEY.to_string(),
    };
    get_ipc_response(window, request).map(|body| body.deserialize::<Value>().unwrap())
}

fn sample_project() -> Project {
    let mut project = Project::in_memory("IPC test").unwrap();
    forcebench::sample::load_sample(&mut project).unwrap();
    project
}

#[test]
fn list_candidates_returns_the_rows_of_the_project() {
    let project = sample_project();
    let first = forcebench::candidate::list(&project).unwrap().remove(0);
    let (_app, window) = app(Ok(project));

    let rows = invoke(&window, "list_candidates", json!({})).expect("list_candidates succeeds");
    let row = &rows.as_array().expect("an array of rows")[0];
    assert_eq!(row["id"], first.id);
    assert_eq!(row["calibrated_claim"], first.calibrated_claim);
    assert_eq!(row["state"], "imported");
}

#[test]
fn get_candidate_and_project_status_answer() {
    let project = sample_project();
    let first = forcebench::candidate::list(&project).unwrap().remove(0);
    let (_app, window) = app(Ok(project));

    let detail = invoke(&window, "get_candidate", json!({ "id": first.id })).unwrap();
    assert_eq!(detail["id"], first.id);
    assert!(detail["passage"].as_str().is_some_and(|p| !p.is_empty()));
    let status = invoke(&window, "project_status", json!({})).unwrap();
    assert_eq!(status["project"]["name"], "IPC test");
    assert!(status["candidates"].as_i64().unwrap() >= 1);
}

#[test]
fn a_core_error_arrives_as_code_and_message() {
    let (_app, window) = app(Ok(sample_project()));
    let err = invoke(&window, "get_candidate", json!({ "id": "no-such-row" })).unwrap_err();
    assert_eq!(err, json!({ "code": "not_found", "message": "no candidate with id `no-such-row`" }));
}

#[test]
fn a_project_that_failed_to_open_answers_every_command_with_its_error() {
    // The window must still open on a bad file and say why, rather than the app crashing.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.forcebench");
    std::fs::write(&path, "just some text, not a database").unwrap();
    let opening = Project::open(&path).err().expect("a text file is not a project").payload();
    let (_app, window) = app(Err(opening.clone()));

    for cmd in ["project_status", "list_candidates"] {
        let err = invoke(&window, cmd, json!({})).unwrap_err();
        assert_eq!(err["code"], "not_a_project", "{cmd}");
        assert_eq!(err["message"], opening.message.as_str(), "{cmd}");
    }
    assert!(opening.message.contains("notes.forcebench"));
}

#[test]
fn the_window_is_granted_no_core_api_beyond_the_app_commands() {
    // capabilities/default.json grants nothing: the UI needs only its own commands.
    let (_app, window) = app(Ok(sample_project()));
    let err = invoke(&window, "plugin:app|version", json!({})).unwrap_err();
    // Tauri's ACL answers e.g. "app.version not allowed. Permissions associated with this command: ..."
    assert!(err.as_str().is_some_and(|m| m.contains("app.version not allowed")), "{err}");
}
