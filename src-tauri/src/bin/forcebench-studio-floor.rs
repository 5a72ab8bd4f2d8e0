//! The floor of the release app's start and memory: the same Tauri, wry and WebKitGTK, built
//! with the same profile and features as the app, opening a window of the app's size on a page
//! of one line, with no project and no IPC. `scripts/bench-release.sh` builds it and times it
//! beside the app (tests/e2e/tests/bench_release.rs): what the app takes over it is its own.
//!
//! Named so that its process name, cut to 15 characters, reads as the app's.

use tauri::http::Response;
use tauri::{WebviewUrl, WebviewWindowBuilder};

/// The page: one element the benchmark waits for, as it waits for the app's first row.
const PAGE: &str = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>floor</title></head>\
<body><p data-testid=\"floor\">An empty window.</p></body></html>";

fn main() {
    // WebKit set up as the app sets it up: the floor is what the same WebKit costs.
    forcebench_studio::draw_without_compositing();
    let mut context = tauri::generate_context!();
    // The app's own window (its UI) is not opened; the floor's window is made below.
    context.config_mut().app.windows.clear();
    tauri::Builder::default()
        .register_uri_scheme_protocol("floor", |_, _| {
            Response::builder()
                .header("content-type", "text/html; charset=utf-8")
                .body(PAGE.as_bytes().to_vec())
                .unwrap()
        })
        .setup(|app| {
            let url = WebviewUrl::CustomProtocol("floor://localhost/".parse().expect("a valid URL"));
            WebviewWindowBuilder::new(app, "main", url).title("floor").inner_size(1280.0, 800.0).center().build()?;
            Ok(())
        })
        .run(context)
        .expect("the floor window failed to start");
}
