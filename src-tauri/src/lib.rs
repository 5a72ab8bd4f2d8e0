//! The desktop shell: adapts the `forcebench` core to the window. It owns the one piece of app
//! state (the open project, or why it could not be opened) and the IPC commands, each a line or
//! two that call the core. Domain logic never lives here.
//!
//! One module per domain, named as the core module it calls (`annotate`, `packets`, `agreement`,
//! ...), and one `ui/src/lib/ipc/<domain>.ts` per module on the window's side. To add a command:
//! write it in its domain's module, call the core through [`Studio::with`] (or
//! [`Studio::with_mut`] for changes), and list it in [`builder`]'s `generate_handler!` under its
//! module (docs/development.md, "How a change travels").

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use forcebench::{ErrorPayload, Project};
use tauri::{Builder, Runtime};

pub mod adjudication;
pub mod agreement;
pub mod annotate;
pub mod battery;
pub mod bindings;
pub mod candidates;
pub mod contexts;
pub mod drafting;
pub mod evaluation;
pub mod feedback;
pub mod judging;
pub mod packets;
pub mod project;
pub mod provider_settings;
pub mod setup;
pub mod split;

/// The managed state: the project the window works on, or the error that stopped it opening
/// (kept so every command can report it and the window can show it instead of crashing).
pub struct Studio {
    project: Mutex<Result<Project, ErrorPayload>>,
    /// Calls that may have changed the project from this window (see [`Studio::revision`]).
    changes: AtomicU64,
    /// The lead's project the window left for a packet's workspace (the way back).
    pub previous: Mutex<Option<PathBuf>>,
}

/// Unmaps the pages of the project file the command just read (`forcebench::db::unmap_pages`).
/// The app keeps its project open for hours: without this, every page a view's whole-table read
/// touched (agreement, the adjudication queue, QC, an export) stayed mapped and counted in the
/// app's resident memory until the window closed. Done after every command, not a chosen few, so
/// a view added later cannot forget it; after a small read there is little to unmap, and the next
/// read maps what it touches again from the system's file cache. A failure here changes nothing
/// the command did (the pages just stay mapped), and the connection's next use reports a broken
/// connection itself, so it is not the command's error.
fn give_back_map(project: &Project) {
    let _ = forcebench::db::unmap_pages(project.conn());
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
            Ok(project) => {
                let done = f(project);
                give_back_map(project);
                // Damage SQLite finds after opening is named as damage of this file.
                done.map_err(|e| e.in_project(Path::new(&project.info().path)).payload())
            }
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
                let done = f(project);
                give_back_map(project);
                Ok(done.map_err(|e| e.in_project(Path::new(&project.info().path))))
            }
            Err(opening) => Err(opening.clone()),
        }
    }

    /// Runs a long step (a judge, drafting or panel run) on a connection of its own when the
    /// project is a file, so the other views keep reading through the shared one while it
    /// writes; a project in memory (the tests) has only the shared one. The views hear of the
    /// change after, either way.
    pub fn with_own_connection<T>(
        &self,
        f: impl FnOnce(&mut Project) -> forcebench::Result<T>,
    ) -> Result<T, ErrorPayload> {
        let path = self.with(|p| Ok(p.info().path.clone()));
        let result = match path.map(|p| Project::open(Path::new(&p))) {
            Ok(Ok(mut own)) => f(&mut own).map_err(|e| e.payload()),
            _ => self.with_mut(f),
        };
        self.touch();
        result
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

/// The variable WebKitGTK reads, when it starts, to draw pages without accelerated compositing.
const COMPOSITING_VARIABLE: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";

/// What [`COMPOSITING_VARIABLE`] is to be set to before WebKitGTK starts, given its value now:
/// "1" when it is not set, nothing when it is (the user's own choice stands; WebKit takes any
/// value but "0" as "draw without compositing", and "0" keeps compositing).
fn compositing_setting(now: Option<&std::ffi::OsStr>) -> Option<&'static str> {
    now.is_none().then_some("1")
}

/// Has WebKitGTK draw the window without accelerated compositing unless the environment already
/// says otherwise ([`compositing_setting`]). Compositing draws each layer of the page with OpenGL;
/// where there is no GPU (a virtual machine, a remote desktop, Xvfb) that is Mesa's software
/// renderer, which keeps every layer's tiles in the web process's memory and compiles its shaders
/// with LLVM there: about 100 MiB of the window's memory on a 100,000-row project, for a page of
/// tables and text with no animation, video or 3D that compositing would draw faster
/// (docs/benchmarks.md). It also avoids the blank window WebKitGTK's compositing is known to
/// give with some GPU drivers. Called first in `main`, before any thread exists: it sets the
/// process's environment, which WebKit's own processes inherit.
pub fn draw_without_compositing() {
    if let Some(value) = compositing_setting(std::env::var_os(COMPOSITING_VARIABLE).as_deref()) {
        std::env::set_var(COMPOSITING_VARIABLE, value);
    }
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
    // The drafting run's cancel flag, as the judge's below.
    let b = b.manage(drafting::DraftState::default());
    b.manage(Studio::new(project)).manage(judging::JudgeState::default()).invoke_handler(tauri::generate_handler![
        // project.rs
        project::project_status,
        project::project_revision,
        project::session_info,
        project::previous_project,
        project::reopen_previous_project,
        // candidates.rs
        candidates::candidate_page,
        candidates::get_candidate,
        // contexts.rs
        contexts::contexts_list,
        contexts::contexts_counts,
        contexts::contexts_screen,
        contexts::draft_list,
        contexts::draft_set,
        contexts::draft_promote,
        contexts::draft_exclude,
        // drafting.rs
        drafting::draft_run,
        drafting::draft_cancel,
        drafting::draft_prompt,
        drafting::draft_records,
        drafting::draft_catalog,
        // annotate.rs
        annotate::list_annotators,
        annotate::annotate_queue_page,
        annotate::annotate_next_open,
        annotate::annotate_row,
        annotate::set_field,
        annotate::undo_change,
        annotate::confirm_suggestions,
        annotate::add_time,
        annotate::guideline,
        // feedback.rs
        feedback::open_feedback,
        feedback::issue_feedback,
        // packets.rs
        packets::merge_packets,
        packets::return_packet,
        packets::open_packet,
        // agreement.rs
        agreement::agreement_report,
        agreement::agreement_cell_rows,
        agreement::export_agreement,
        // adjudication.rs
        adjudication::adjudication_page,
        adjudication::adjudication_row,
        adjudication::resolve_row,
        adjudication::adjudication_reopen,
        adjudication::confirm_agreements,
        adjudication::affirm_preview,
        adjudication::confirm_and_affirm,
        adjudication::run_qc,
        adjudication::locality_rows,
        adjudication::mark_nonlocal,
        adjudication::unmark_nonlocal,
        adjudication::locality_keep,
        // split.rs
        split::split_show,
        split::split_defaults,
        split::split_draft,
        split::split_lock,
        split::split_packets_at_lock,
        split::split_export,
        split::split_verify,
        // evaluation.rs
        evaluation::evaluation_compare,
        evaluation::evaluation_families,
        evaluation::evaluation_grid,
        evaluation::evaluation_paired,
        evaluation::evaluation_agreement_paired,
        evaluation::evaluator_remove,
        evaluation::import_scores,
        evaluation::run_baselines,
        evaluation::evaluation_plots_svg,
        evaluation::export_plots,
        evaluation::judge_export,
        evaluation::judge_import,
        // judging.rs
        judging::judge_templates,
        judging::judge_run,
        judging::judge_cancel,
        judging::judge_runs,
        judging::judge_trust,
        // battery.rs
        battery::battery_panel,
        battery::battery_run,
        // setup.rs
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
    use super::compositing_setting;
    use std::ffi::OsStr;

    #[test]
    fn compositing_is_turned_off_only_where_the_environment_says_nothing() {
        assert_eq!(compositing_setting(None), Some("1"));
        // "0" is how a user keeps WebKit's compositing: it must survive the start.
        for theirs in ["0", "1", "", "yes"] {
            assert_eq!(compositing_setting(Some(OsStr::new(theirs))), None, "{theirs:?} was overridden");
        }
    }
}
