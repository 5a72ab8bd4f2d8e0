//! The desktop shell: adapts the `forcebench` core to the window. It owns the one piece of app
//! state (the open project, or why it could not be opened) and the IPC commands, each a line or
//! two that call the core. Domain logic never lives here.
//!
//! To add a command: write it in `commands` (or a module of its own, as `adjudication`), call
//! the core through [`Studio::with`] (or [`Studio::with_mut`] for changes), and list it in
//! [`builder`]'s `generate_handler!`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use forcebench::{ErrorPayload, Project};
use tauri::{Builder, Runtime};

pub mod adjudication;
pub mod bindings;
pub mod commands;
pub mod evaluation;
pub mod feedback;
pub mod judging;
pub mod setup;
pub mod split;

/// The managed state: the project the window works on, or the error that stopped it opening
/// (kept so every command can report it and the window can show it instead of crashing).
pub struct Studio {
    project: Mutex<Result<Project, ErrorPayload>>,
    /// Calls that may have changed the project from this window (see [`Studio::revision`]).
    changes: AtomicU64,
    /// The lead's project the window left for a packet's workspace (issue 31: the way back).
    pub previous: Mutex<Option<PathBuf>>,
}

impl Studio {
    pub fn new(project: Result<Project, ErrorPayload>) -> Self {
        Studio { project: Mutex::new(project), changes: AtomicU64::new(0), previous: Mutex::new(None) }
    }

    /// Names the project's current state: it changes whenever this window changed the project
    /// or another connection (another window, the command line, a merge) committed to it, so a
    /// view that polls it can reload exactly when what it shows may be stale.
    pub fn revision(&self) -> Result<String, ErrorPayload> {
        let data = self.with(|p| p.data_version())?;
        Ok(format!("{data}:{}", self.changes.load(Ordering::SeqCst)))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Result<Project, ErrorPayload>> {
        // A panic in an earlier command must not lock the user out of their project.
        self.project.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs `f` on the open project; core errors (and the opening error) become payloads.
    pub fn with<T>(&self, f: impl FnOnce(&Project) -> forcebench::Result<T>) -> Result<T, ErrorPayload> {
        match &*self.lock() {
            // Damage SQLite finds after opening is named as damage of this file (issue 29).
            Ok(project) => f(project).map_err(|e| e.in_project(Path::new(&project.info().path)).payload()),
            Err(opening) => Err(opening.clone()),
        }
    }

    /// Like [`Studio::with`], for core calls that change the project.
    pub fn with_mut<T>(&self, f: impl FnOnce(&mut Project) -> forcebench::Result<T>) -> Result<T, ErrorPayload> {
        self.try_mut(f)?.map_err(|e| e.payload())
    }

    /// [`Studio::with_mut`] that hands back the core's own error, for a command whose refusal
    /// carries more than `{code, message}` (an import's problems); only the opening error is a
    /// payload already.
    pub fn try_mut<T>(
        &self,
        f: impl FnOnce(&mut Project) -> forcebench::Result<T>,
    ) -> Result<forcebench::Result<T>, ErrorPayload> {
        let mut project = self.lock();
        self.changes.fetch_add(1, Ordering::SeqCst);
        match &mut *project {
            Ok(project) => {
                let path = PathBuf::from(&project.info().path);
                Ok(f(project).map_err(|e| e.in_project(&path)))
            }
            Err(opening) => Err(opening.clone()),
        }
    }

    /// Notes a change made to the project through another connection (a judge run), so the
    /// views reload.
    pub fn touch(&self) {
        self.changes.fetch_add(1, Ordering::SeqCst);
    }

    /// Replaces the open project (e.g. with a packet's workspace). The old one is closed.
    pub fn replace(&self, project: Project) {
        *self.lock() = Ok(project);
        self.changes.fetch_add(1, Ordering::SeqCst);
    }
}

/// The issued packet a workspace file belongs to: the workspace is kept beside its packet as
/// `<packet file>.workspace.forcebench` (see `forcebench::workspace::workspace_path_for`).
pub fn packet_path_of_workspace(workspace: &Path) -> Option<PathBuf> {
    let name = workspace.file_name()?.to_str()?;
    let packet = name.strip_suffix(".workspace.forcebench")?;
    (!packet.is_empty()).then(|| workspace.with_file_name(packet))
}

/// Where "Return packet" writes by default: `<packet stem>.returned.json` beside the packet.
pub fn default_return_path(packet: &Path) -> PathBuf {
    let stem = packet.file_stem().and_then(|s| s.to_str()).unwrap_or("packet");
    packet.with_file_name(format!("{stem}.returned.json"))
}

/// Opens the default project (`FORCEBENCH_PROJECT`, else the user's data directory), creating it
/// and filling it with the demonstration project the first time (sample candidates, roster,
/// assignments, and simulated annotations on 80 rows), so every view has something to show.
pub fn open_default_project() -> Result<Project, ErrorPayload> {
    let path = forcebench::project::default_project_path().map_err(|e| e.payload())?;
    let (mut project, created) = Project::open_or_create(&path).map_err(|e| e.payload())?;
    if created {
        forcebench::sample::load_demo_project(&mut project).map_err(|e| e.payload())?;
    }
    Ok(project)
}

/// Opens what the command line asks for: the workspace of the packet named by `--packet FILE`
/// (or `FORCEBENCH_PACKET`), else the default project.
pub fn open_startup_project(args: impl IntoIterator<Item = String>) -> Result<Project, ErrorPayload> {
    let mut args = args.into_iter();
    let mut packet = None;
    while let Some(arg) = args.next() {
        if arg == "--packet" {
            packet = args.next();
        } else if let Some(p) = arg.strip_prefix("--packet=") {
            packet = Some(p.to_string());
        }
    }
    let packet = packet.or_else(|| std::env::var("FORCEBENCH_PACKET").ok().filter(|p| !p.is_empty()));
    match packet {
        Some(p) => forcebench::workspace::open_or_resume(Path::new(&p)).map_err(|e| e.payload()),
        None => open_default_project(),
    }
}

/// Registers the state and every command; the app and the mock-runtime tests share it.
pub fn builder<R: Runtime>(b: Builder<R>, project: Result<Project, ErrorPayload>) -> Builder<R> {
    b.manage(Studio::new(project)).manage(judging::JudgeState::default()).invoke_handler(tauri::generate_handler![
        commands::project_status,
        commands::project_revision,
        commands::candidate_page,
        commands::get_candidate,
        commands::session_info,
        commands::list_annotators,
        commands::annotate_queue_page,
        commands::annotate_next_open,
        commands::annotate_row,
        commands::set_field,
        commands::undo_change,
        commands::confirm_suggestions,
        commands::add_time,
        commands::guideline,
        commands::open_feedback,
        feedback::issue_feedback,
        commands::merge_packets,
        commands::return_packet,
        commands::open_packet,
        commands::agreement_report,
        commands::agreement_cell_rows,
        commands::export_agreement,
        adjudication::adjudication_page,
        adjudication::adjudication_row,
        adjudication::resolve_row,
        adjudication::confirm_agreements,
        adjudication::affirm_preview,
        adjudication::confirm_and_affirm,
        adjudication::run_qc,
        adjudication::locality_rows,
        adjudication::mark_nonlocal,
        adjudication::unmark_nonlocal,
        split::split_show,
        split::split_defaults,
        split::split_draft,
        split::split_lock,
        split::split_packets_at_lock,
        commands::previous_project,
        commands::reopen_previous_project,
        split::split_export,
        split::split_verify,
        evaluation::evaluation_compare,
        evaluation::evaluation_grid,
        evaluation::evaluation_paired,
        evaluation::evaluator_remove,
        evaluation::import_scores,
        evaluation::run_baselines,
        evaluation::evaluation_plots_svg,
        evaluation::export_plots,
        evaluation::judge_export,
        evaluation::judge_import,
        judging::judge_templates,
        judging::judge_run,
        judging::judge_cancel,
        judging::judge_runs,
        judging::judge_trust,
        setup::import_candidates,
        setup::roster_add,
        setup::assign_rows,
        setup::issue_packets,
        setup::suggestion_mode,
        setup::set_suggestion_mode,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_paths() {
        let ws = Path::new("/x/ana.json.workspace.forcebench");
        assert_eq!(packet_path_of_workspace(ws), Some(PathBuf::from("/x/ana.json")));
        assert_eq!(packet_path_of_workspace(Path::new("/x/p.forcebench")), None);
        assert_eq!(default_return_path(Path::new("/x/ana.json")), PathBuf::from("/x/ana.returned.json"));
    }
}
