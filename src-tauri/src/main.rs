//! Entry point of the desktop app: opens the workspace of the packet named by `--packet FILE`
//! (or `FORCEBENCH_PACKET`), else the project named by `FORCEBENCH_PROJECT` (or the default one,
//! created with the sample project on first run), and shows the window.

// No console window on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    let project = forcebench_studio::open_startup_project(std::env::args().skip(1));
    match &project {
        Ok(p) => eprintln!("forcebench-studio: project {}", p.info().path),
        Err(e) => eprintln!("forcebench-studio: cannot open the project ({}): {}", e.code, e.message),
    }
    forcebench_studio::builder(tauri::Builder::default(), project)
        .run(tauri::generate_context!())
        .expect("the Tauri application failed to start");
}
