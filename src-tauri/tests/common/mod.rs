//! What the mock-runtime test files share (each file under tests/ is its own crate and brings
//! this in with `mod common;`): the app built with its real tauri.conf.json and capabilities,
//! a command sent through IPC as the window sends it, and the project a split is drafted from.

use forcebench::Project;
use serde_json::Value;
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{get_ipc_response, mock_builder, INVOKE_KEY};
use tauri::webview::InvokeRequest;
use tauri::{App, Manager, WebviewWindow};

pub type Mock = tauri::test::MockRuntime;

/// The app on the mock runtime, opened on `project` (or on the error opening it gave), and its
/// main window, made here when the config does not make one.
pub fn app(project: Result<Project, forcebench::ErrorPayload>) -> (App<Mock>, WebviewWindow<Mock>) {
    let app = forcebench_studio::builder(mock_builder(), project)
        .build(tauri::generate_context!())
        .expect("the app builds on the mock runtime");
    let window = match app.get_webview_window("main") {
        Some(w) => w,
        None => tauri::WebviewWindowBuilder::new(&app, "main", Default::default()).build().unwrap(),
    };
    (app, window)
}

/// Sends one command with its arguments through IPC as the window does, so the window's
/// permissions apply; the command's answer, or the error it answered with.
/// `v` as a reader of its JSON text gets it back: what `invoke` and a file read return. (serde_json
/// parses a float's text to the nearest value only with its `float_roundtrip` feature; without it
/// the last bit can differ from the value serialised, so a report is compared as parsed.)
#[allow(dead_code)] // only some test files compare whole reports
pub fn as_parsed(v: &impl serde::Serialize) -> Value {
    serde_json::from_str(&serde_json::to_string(v).unwrap()).unwrap()
}

pub fn invoke(window: &WebviewWindow<Mock>, cmd: &str, args: Value) -> Result<Value, Value> {
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

/// The demo project named `name`, every sample row annotated by both annotators and the full
/// agreements confirmed and affirmed: the accepted rows a split is drafted from.
#[allow(dead_code)] // only the files that draft a split use it
pub fn accepted_project(name: &str) -> Project {
    let mut project = Project::in_memory(name).unwrap();
    forcebench::sample::load_sample_project(&mut project).unwrap();
    forcebench::sample::annotate_sample(&mut project, 106, 1).unwrap();
    forcebench::adjudicate::confirm_and_affirm(&mut project, "Eve").unwrap();
    project
}
