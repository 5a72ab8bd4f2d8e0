//! The desktop shell: adapts the `forcebench` core to the window. It owns the one piece of app
//! state (the open project, or why it could not be opened) and the IPC commands, each a line or
//! two that call the core. Domain logic never lives here.
//!
//! To add a command: write it in `commands`, call the core through [`Studio::with`], and list it
//! in [`builder`]'s `generate_handler!`.

use std::sync::Mutex;

use forcebench::{ErrorPayload, Project};
use tauri::{Builder, Runtime};

pub mod commands;

/// The managed state: the project the window works on, or the error that stopped it opening
/// (kept so every command can report it and the window can show it instead of crashing).
pub struct Studio {
    project: Mutex<Result<Project, ErrorPayload>>,
}

impl Studio {
    pub fn new(project: Result<Project, ErrorPayload>) -> Self {
        Studio { project: Mutex::new(project) }
    }

    /// Runs `f` on the open project; core errors (and the opening error) become payloads.
    pub fn with<T>(&self, f: impl FnOnce(&Project) -> forcebench::Result<T>) -> Result<T, ErrorPayload> {
        // A panic in an earlier command must not lock the user out of their project.
        let guard = self.project.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        match &*guard {
            Ok(project) => f(project).map_err(|e| e.payload()),
            Err(opening) => Err(opening.clone()),
        }
    }
}

/// Opens the default project (`FORCEBENCH_PROJECT`, else the user's data directory), creating it
/// and filling it with the bundled sample candidates the first time.
pub fn open_default_project() -> Result<Project, ErrorPayload> {
    let path = forcebench::project::default_project_path().map_err(|e| e.payload())?;
    let (mut project, created) = Project::open_or_create(&path).map_err(|e| e.payload())?;
    if created {
        forcebench::sample::load_sample(&mut project).map_err(|e| e.payload())?;
    }
    Ok(project)
}

/// Registers the state and every command; the app and the mock-runtime tests share it.
pub fn builder<R: Runtime>(b: Builder<R>, project: Result<Project, ErrorPayload>) -> Builder<R> {
    b.manage(Studio::new(project)).invoke_handler(tauri::generate_handler![
        commands::project_status,
        commands::list_candidates,
        commands::get_candidate,
    ])
}
