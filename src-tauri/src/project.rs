//! IPC commands about the open project itself: its status (the funnel), its revision (polled by
//! the views to stay current), the session (a lead's project or an annotator's workspace), and
//! the way back from a packet's workspace to the lead's project the window left.
//! Each is a call into `forcebench::{status, workspace}`.

use std::path::Path;

use forcebench::status::{self, StatusReport};
use forcebench::{workspace, ErrorPayload, Project};
use serde::Serialize;
use tauri::State;
use ts_rs::TS;

use crate::Studio;

/// Async, like the list's page: the first call reads every row (a few tenths of a second at
/// 100,000 rows, seconds at a million), and a synchronous command runs on the window's main
/// thread, which can neither draw nor pass on another answer meanwhile.
#[tauri::command]
pub async fn project_status(studio: State<'_, Studio>) -> Result<StatusReport, ErrorPayload> {
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
    /// Rows that came with the annotator's own labels from the lead's project (the packet
    /// continues that work).
    #[ts(type = "number")]
    pub carried: u64,
}

pub(crate) fn session_of(p: &Project) -> forcebench::Result<SessionInfo> {
    let info = p.info();
    let workspace = workspace::packet_of(p)?.map(|packet| {
        let packet_path = workspace::packet_path_of_workspace(Path::new(&info.path));
        WorkspaceInfo {
            carried: workspace::carried_rows(&packet),
            annotator: packet.annotator,
            blinding: packet.blinding.as_str().to_string(),
            packet_id: packet.packet_id,
            return_path: packet_path.as_deref().map(|pp| workspace::default_return_path(pp).display().to_string()),
            packet_path: packet_path.map(|pp| pp.display().to_string()),
        }
    });
    Ok(SessionInfo { project_name: info.name.clone(), project_path: info.path.clone(), workspace })
}

#[tauri::command]
pub fn session_info(studio: State<'_, Studio>) -> Result<SessionInfo, ErrorPayload> {
    studio.with(session_of)
}

/// The lead's project this window left for a packet's workspace, if it did.
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
