//! IPC commands for packets: the lead merges returned packets; the annotator opens an issued
//! packet's workspace and returns it. Each is a call into `forcebench::{packets, workspace}`;
//! where a return is written by default is the core's rule (`workspace::default_return_path_of`).

use std::path::{Path, PathBuf};

use forcebench::packets::{self, MergeReport};
use forcebench::{workspace, ErrorPayload};
use serde::Serialize;
use tauri::State;
use ts_rs::TS;

use crate::project::{session_of, SessionInfo};
use crate::Studio;

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
    /// Rows changed in this workspace (the rest are as issued, or as the packet carried them).
    #[ts(type = "number")]
    pub changed_rows: u64,
}

/// Annotator side: writes the returned packet to `out`, or beside the issued packet.
#[tauri::command]
pub async fn return_packet(studio: State<'_, Studio>, out: Option<String>) -> Result<ReturnedPacket, ErrorPayload> {
    studio.with(|p| {
        let out = match out.filter(|o| !o.trim().is_empty()) {
            Some(o) => PathBuf::from(o.trim()),
            // The core's default (and its refusal of a project that is not a workspace).
            None => workspace::default_return_path_of(p)?.ok_or_else(|| {
                forcebench::Error::InvalidArgument(
                    "cannot tell where the issued packet is; type the path to write the returned packet to".into(),
                )
            })?,
        };
        let packet = workspace::return_packet(p, &out)?;
        Ok(ReturnedPacket {
            path: std::path::absolute(&out).unwrap_or(out).display().to_string(),
            packet_id: packet.packet_id,
            annotator: packet.annotator,
            rows: packet.rows.len(),
            events: packet.rows.iter().map(|r| r.events.len()).sum(),
            changed_rows: workspace::changed_rows(p)?,
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
