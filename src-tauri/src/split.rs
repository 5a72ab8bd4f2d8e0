//! IPC commands for the split view: show, draft, lock, export with progress, verify.
//! Each is a call into `forcebench::split`.
//!
//! Export reports its progress on a [`Channel`] the window passes as `onProgress`: a channel is
//! an argument of the command, so it needs no event permission (the window is granted none).
//! The messages are small, so Tauri delivers them by evaluating a callback in the page.

use std::collections::BTreeMap;
use std::path::Path;

use forcebench::split::{self, ExportReport, SplitParams, SplitShow, VerifyReport, EXPORT_FILES};
use forcebench::vocab::Axis;
use forcebench::ErrorPayload;
use serde::{Deserialize, Serialize};
use tauri::ipc::Channel;
use tauri::State;
use ts_rs::TS;

use crate::Studio;

/// The latest split with the locality filter applied; `null` before the first draft.
#[tauri::command]
pub async fn split_show(studio: State<'_, Studio>) -> Result<Option<SplitShow>, ErrorPayload> {
    studio.with(split::show)
}

/// The parameters a first draft starts from (the paper's 40 evaluation rows per axis, seed 1,
/// no caps): the core's defaults, so the form never restates them.
#[tauri::command]
pub async fn split_defaults() -> Result<SplitParams, ErrorPayload> {
    Ok(SplitParams::new(BTreeMap::new(), None, None))
}

/// What the window chooses for a draft: [`SplitParams`] without the strata, which the core fixes.
#[derive(Debug, Clone, Deserialize, TS)]
pub struct DraftParams {
    /// Axis -> the most rows it keeps; axes left out are not capped.
    #[serde(default)]
    pub caps: BTreeMap<Axis, u32>,
    pub per_axis: u32,
    #[ts(type = "number")]
    pub seed: u64,
}

/// Drafts a split from the accepted rows (replacing an unlocked draft; after a locked split, a
/// new version).
#[tauri::command]
pub async fn split_draft(studio: State<'_, Studio>, params: DraftParams) -> Result<SplitShow, ErrorPayload> {
    let params = SplitParams::new(params.caps, Some(params.per_axis), Some(params.seed));
    studio.with_mut(|p| split::draft(p, &params))
}

/// Locks the latest draft: the final labels and locality marks of its rows can no longer change.
/// Refused while a selected row's final audit is unfinished, unless `allow_unreviewed` (the
/// manifest then records what was skipped).
#[tauri::command(rename_all = "snake_case")]
pub async fn split_lock(studio: State<'_, Studio>, allow_unreviewed: Option<bool>) -> Result<SplitShow, ErrorPayload> {
    studio.with_mut(|p| split::lock_with(p, allow_unreviewed.unwrap_or(false)))
}

/// Each annotator's latest packet with rows the lock freezes (or locking the latest draft would
/// freeze), for the lock dialog.
#[tauri::command]
pub async fn split_packets_at_lock(
    studio: State<'_, Studio>,
) -> Result<Vec<forcebench::packets::PacketAtLock>, ErrorPayload> {
    studio.with(|p| forcebench::packets::packets_at_lock(p.conn()))
}

/// One step of an export: `done` of `total` files written, the last being `file`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ExportProgress {
    #[ts(type = "number")]
    pub done: usize,
    #[ts(type = "number")]
    pub total: usize,
    pub file: String,
}

/// Exports the latest locked split into the folder `dir` (created if needed), sending an
/// [`ExportProgress`] after each file; answers with every file's sha256.
#[tauri::command(rename_all = "camelCase")]
pub async fn split_export(
    studio: State<'_, Studio>,
    dir: String,
    on_progress: Channel<ExportProgress>,
) -> Result<ExportReport, ErrorPayload> {
    export_to(&studio, &dir, |step| {
        // A window closed mid-export must not stop the export itself.
        let _ = on_progress.send(step);
    })
}

/// [`split_export`] without the channel (the tests call it with a plain closure).
pub fn export_to(
    studio: &Studio,
    dir: &str,
    mut progress: impl FnMut(ExportProgress),
) -> Result<ExportReport, ErrorPayload> {
    let dir = dir.trim();
    if dir.is_empty() {
        return Err(forcebench::Error::InvalidArgument("type the folder to export the split to".into()).payload());
    }
    studio.with(|p| {
        // The evaluation release is written beside the split's files, in its own folder with its
        // own manifest, and published with them in one step.
        let exported = forcebench::evaluate::release::export(p, Path::new(dir), None, &mut |done, total| {
            let file = EXPORT_FILES.get(done.wrapping_sub(1)).copied().unwrap_or_default().to_string();
            progress(ExportProgress { done, total, file });
        })?;
        Ok(exported.split)
    })
}

/// Re-checks an exported folder; an error names the file that does not match.
#[tauri::command]
pub async fn split_verify(dir: String) -> Result<VerifyReport, ErrorPayload> {
    let dir = dir.trim();
    if dir.is_empty() {
        return Err(forcebench::Error::InvalidArgument("type the folder to verify".into()).payload());
    }
    let report = split::verify(Path::new(dir)).map_err(|e| e.payload())?;
    forcebench::evaluate::release::verify(Path::new(dir)).map_err(|e| e.payload())?;
    Ok(report)
}
