//! Entry point of the desktop app: opens the workspace of the packet named by `--packet FILE`
//! (or `FORCEBENCH_PACKET`), else the project named by `FORCEBENCH_PROJECT` (or the default one,
//! created with the sample project on first run), and shows the window.

// No console window on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    // First: it sets the environment, which only a process with one thread may do safely.
    forcebench_studio::draw_without_compositing();
    // A save past a file size limit fails with the core's `io` error instead of ending the app.
    forcebench::output::ignore_file_size_signal();
    // Without a display GTK fails with a backtrace; one line says what is wrong instead.
    #[cfg(target_os = "linux")]
    if std::env::var_os("DISPLAY").is_none_or(|d| d.is_empty())
        && std::env::var_os("WAYLAND_DISPLAY").is_none_or(|d| d.is_empty())
    {
        eprintln!("forcebench-studio: no display (neither DISPLAY nor WAYLAND_DISPLAY is set); start it in a desktop session, or under a virtual one with xvfb-run");
        std::process::exit(1);
    }
    let project = forcebench_studio::open_startup_project(std::env::args().skip(1));
    match &project {
        Ok(p) => match &p.info().upgraded {
            Some(upgrade) => eprintln!("forcebench-studio: project {}: {upgrade}", p.info().path),
            None => eprintln!("forcebench-studio: project {}", p.info().path),
        },
        Err(e) => eprintln!("forcebench-studio: cannot open the project ({}): {}", e.code, e.message),
    }
    // The native file dialogs (open and save only; see capabilities/default.json).
    forcebench_studio::builder(tauri::Builder::default().plugin(tauri_plugin_dialog::init()), project)
        .run(tauri::generate_context!())
        .expect("the Tauri application failed to start");
}
