//! IPC commands: thin calls into the core. Errors cross to the UI as `{code, message}`.
//!
//! Commands that touch the annotate view are `async` so they run off the main thread: a durable
//! save (an fsync) must never stall the window's event loop. Argument names are single words so
//! they read the same in Rust and in JavaScript (Tauri maps `snake_case` to `camelCase`).

use std::path::{Path, PathBuf};

use forcebench::agreement::export::ExportFormat;
use forcebench::agreement::{self, CellRow, ConfusionTable, ProjectAgreement};
use forcebench::annotate::{self, AnnotateRow, Annotation, Field, QueuePage, QueueQuery, QueueRow};
use forcebench::candidate::{self, CandidateDetail, CandidatePage, CandidateQuery};
use forcebench::packets::{self, MergeReport};
use forcebench::roster::{self, Annotator};
use forcebench::status::{self, StatusReport};
use forcebench::{workspace, ErrorPayload, Project};
use serde::Serialize;
use tauri::State;
use ts_rs::TS;

use crate::{default_return_path, packet_path_of_workspace, Studio};

#[tauri::command]
pub fn project_status(studio: State<'_, Studio>) -> Result<StatusReport, ErrorPayload> {
    studio.with(status::status)
}

/// Changes whenever the project may have changed, from this window or elsewhere (polled by the
/// views to stay current). Async, like the long commands: a synchronous command runs on the
/// window's main thread, and this poll would freeze the window while it waits for the project
/// an export or a merge is holding.
#[tauri::command]
pub async fn project_revision(studio: State<'_, Studio>) -> Result<String, ErrorPayload> {
    studio.revision()
}

/// One page of the candidate list, filtered in the core: the window never holds the whole pool.
/// Off the main thread: a filter scans every row, which takes a moment on a large project.
#[tauri::command]
pub async fn candidate_page(studio: State<'_, Studio>, query: CandidateQuery) -> Result<CandidatePage, ErrorPayload> {
    studio.with(|p| candidate::page(p, &query))
}

#[tauri::command]
pub fn get_candidate(studio: State<'_, Studio>, id: String) -> Result<CandidateDetail, ErrorPayload> {
    studio.with(|p| candidate::get(p, &id))
}

/// What the window needs to know about the open project: a lead's project, or an annotator's
/// workspace (then the annotator is fixed and "Return packet" applies).
#[derive(Debug, Clone, Serialize, TS)]
pub struct SessionInfo {
    pub project_name: String,
    pub project_path: String,
    pub workspace: Option<WorkspaceInfo>,
}

#[derive(Debug, Clone, Serialize, TS)]
pub struct WorkspaceInfo {
    pub annotator: String,
    pub blinding: String,
    pub packet_id: String,
    /// The issued packet beside which the workspace lives (when it can be told from the path).
    pub packet_path: Option<String>,
    /// Where "Return packet" writes unless told otherwise.
    pub return_path: Option<String>,
}

fn session_of(p: &Project) -> forcebench::Result<SessionInfo> {
    let info = p.info();
    let workspace = workspace::packet_of(p)?.map(|packet| {
        let packet_path = packet_path_of_workspace(Path::new(&info.path));
        WorkspaceInfo {
            annotator: packet.annotator,
            blinding: packet.blinding.as_str().to_string(),
            packet_id: packet.packet_id,
            return_path: packet_path.as_deref().map(|pp| default_return_path(pp).display().to_string()),
            packet_path: packet_path.map(|pp| pp.display().to_string()),
        }
    });
    Ok(SessionInfo { project_name: info.name.clone(), project_path: info.path.clone(), workspace })
}

#[tauri::command]
pub fn session_info(studio: State<'_, Studio>) -> Result<SessionInfo, ErrorPayload> {
    studio.with(session_of)
}

#[tauri::command]
pub fn list_annotators(studio: State<'_, Studio>) -> Result<Vec<Annotator>, ErrorPayload> {
    studio.with(roster::list)
}

/// A window of an annotator's queue with its counts: the window never holds a whole queue (half a
/// million rows on a 1M-row project).
#[tauri::command]
pub async fn annotate_queue_page(studio: State<'_, Studio>, query: QueueQuery) -> Result<QueuePage, ErrorPayload> {
    studio.with(|p| annotate::queue_page(p, &query))
}

/// The next row the annotator has not finished after `after` (going round), or from the start.
#[tauri::command]
pub async fn annotate_next_open(
    studio: State<'_, Studio>,
    annotator: String,
    after: Option<String>,
) -> Result<Option<QueueRow>, ErrorPayload> {
    studio.with(|p| annotate::next_open(p, &annotator, after.as_deref()))
}

#[tauri::command]
pub async fn annotate_row(
    studio: State<'_, Studio>,
    id: String,
    annotator: String,
) -> Result<AnnotateRow, ErrorPayload> {
    studio.with(|p| annotate::row_view(p, &id, &annotator))
}

/// Sets one field durably: the answer comes after the commit. `value: null` clears the field.
#[tauri::command]
pub async fn set_field(
    studio: State<'_, Studio>,
    id: String,
    annotator: String,
    field: Field,
    value: Option<String>,
) -> Result<Annotation, ErrorPayload> {
    studio.with_mut(|p| annotate::set_field(p, &id, &annotator, field, value.as_deref()))
}

/// Confirms every suggested field still unconfirmed on the row (the annotate view's `c`).
#[tauri::command]
pub async fn confirm_suggestions(
    studio: State<'_, Studio>,
    id: String,
    annotator: String,
) -> Result<Annotation, ErrorPayload> {
    studio.with_mut(|p| annotate::confirm(p, &id, &annotator))
}

#[tauri::command]
pub async fn undo_change(studio: State<'_, Studio>, id: String, annotator: String) -> Result<Annotation, ErrorPayload> {
    studio.with_mut(|p| annotate::undo(p, &id, &annotator))
}

#[tauri::command]
pub async fn add_time(
    studio: State<'_, Studio>,
    id: String,
    annotator: String,
    seconds: f64,
) -> Result<(), ErrorPayload> {
    studio.with_mut(|p| annotate::add_time(p, &id, &annotator, seconds))
}

/// The guideline version in force (a workspace's: its packet's), with what changed from the
/// version before.
#[tauri::command]
pub async fn guideline(studio: State<'_, Studio>) -> Result<forcebench::guideline::InForce, ErrorPayload> {
    studio.with(forcebench::guideline::in_force)
}

/// Annotator side: reads a feedback file the lead wrote (`forcebench feedback issue`).
#[tauri::command]
pub async fn open_feedback(path: String) -> Result<forcebench::feedback::Feedback, ErrorPayload> {
    let path = path.trim();
    if path.is_empty() {
        return Err(forcebench::Error::InvalidArgument("type the path of the feedback file".into()).payload());
    }
    forcebench::feedback::read(std::path::Path::new(path)).map_err(|e| e.payload())
}

/// Lead side: merges returned packets (all or nothing).
#[tauri::command]
pub async fn merge_packets(studio: State<'_, Studio>, paths: Vec<String>) -> Result<Vec<MergeReport>, ErrorPayload> {
    let files: Vec<PathBuf> = paths.iter().map(PathBuf::from).collect();
    studio.with_mut(|p| packets::merge(p, &files))
}

#[derive(Debug, Clone, Serialize, TS)]
pub struct ReturnedPacket {
    pub path: String,
    pub packet_id: String,
    pub annotator: String,
    #[ts(type = "number")]
    pub rows: usize,
    #[ts(type = "number")]
    pub events: usize,
}

/// Annotator side: writes the returned packet to `out`, or beside the issued packet.
#[tauri::command]
pub async fn return_packet(studio: State<'_, Studio>, out: Option<String>) -> Result<ReturnedPacket, ErrorPayload> {
    studio.with(|p| {
        let out = match out.filter(|o| !o.trim().is_empty()) {
            Some(o) => PathBuf::from(o.trim()),
            None => match packet_path_of_workspace(Path::new(&p.info().path)) {
                Some(packet) => default_return_path(&packet),
                // Not a workspace at all: the core refuses before writing anything.
                None if workspace::packet_of(p)?.is_none() => PathBuf::new(),
                None => {
                    return Err(forcebench::Error::InvalidArgument(
                        "cannot tell where the issued packet is; type the path to write the returned packet to".into(),
                    ))
                }
            },
        };
        let packet = workspace::return_packet(p, &out)?;
        Ok(ReturnedPacket {
            path: std::path::absolute(&out).unwrap_or(out).display().to_string(),
            packet_id: packet.packet_id,
            annotator: packet.annotator,
            rows: packet.rows.len(),
            events: packet.rows.iter().map(|r| r.events.len()).sum(),
        })
    })
}

/// Switches the window to the workspace of the issued packet at `path` (created beside it the
/// first time, resumed afterwards). On failure the open project stays as it was.
#[tauri::command]
pub async fn open_packet(studio: State<'_, Studio>, path: String) -> Result<SessionInfo, ErrorPayload> {
    let project = workspace::open_or_resume(Path::new(path.trim())).map_err(|e| e.payload())?;
    let info = session_of(&project).map_err(|e| e.payload())?;
    // The lead's project left behind, for the way back (a workspace left for another keeps the
    // lead's project it came from).
    let lead = studio
        .with(|p| Ok(workspace::packet_of(p)?.is_none().then(|| std::path::PathBuf::from(&p.info().path))))
        .ok()
        .flatten();
    if let Some(lead) = lead {
        *studio.previous.lock().unwrap_or_else(|e| e.into_inner()) = Some(lead);
    }
    studio.replace(project);
    Ok(info)
}

/// The lead's project this window left for a packet's workspace, if it did (issue 31).
#[tauri::command]
pub fn previous_project(studio: State<'_, Studio>) -> Option<String> {
    studio.previous.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map(|p| p.display().to_string())
}

/// Goes back from a packet's workspace to the lead's project the window left for it.
#[tauri::command]
pub async fn reopen_previous_project(studio: State<'_, Studio>) -> Result<SessionInfo, ErrorPayload> {
    let Some(path) = studio.previous.lock().unwrap_or_else(|e| e.into_inner()).clone() else {
        return Err(
            forcebench::Error::InvalidArgument("this window did not come from a lead's project".into()).payload()
        );
    };
    let project = forcebench::Project::open(&path).map_err(|e| e.payload())?;
    let info = session_of(&project).map_err(|e| e.payload())?;
    studio.replace(project);
    *studio.previous.lock().unwrap_or_else(|e| e.into_inner()) = None;
    Ok(info)
}

/// The agreement view: the project report with the bootstrap interval at the default
/// replicates and seed (the same numbers as `forcebench agreement`). Off the main thread: the
/// bootstrap takes a moment on a large project.
#[tauri::command]
pub async fn agreement_report(studio: State<'_, Studio>) -> Result<ProjectAgreement, ErrorPayload> {
    studio.with(|p| agreement::project_report(p, Some((agreement::BOOTSTRAP_REPS, agreement::BOOTSTRAP_SEED))))
}

/// The rows behind cell (`row`, `col`) of one of the report's confusion matrices.
#[tauri::command]
pub async fn agreement_cell_rows(
    studio: State<'_, Studio>,
    table: ConfusionTable,
    row: usize,
    col: usize,
) -> Result<Vec<CellRow>, ErrorPayload> {
    studio.with(|p| agreement::cell_rows(p, table, row, col))
}

/// Writes the agreement report (as [`agreement_report`] gives it) to `path` as `csv` or `json`,
/// atomically; answers with the absolute path written.
#[tauri::command]
pub async fn export_agreement(studio: State<'_, Studio>, path: String, format: String) -> Result<String, ErrorPayload> {
    studio.with(|p| {
        let format: ExportFormat = format.parse()?;
        let report = agreement::project_report(p, Some((agreement::BOOTSTRAP_REPS, agreement::BOOTSTRAP_SEED)))?;
        let written = agreement::export::write_report(&report, Path::new(path.trim()), format)?;
        Ok(written.display().to_string())
    })
}
