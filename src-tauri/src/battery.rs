//! IPC commands for a judge battery from a panel file, as `forcebench judge battery --panel FILE
//! --out DIR` runs it: the panel as the core reads and checks it (each model's provider profile,
//! or the refusal naming the file, line and field), then every model × prompt cell run in turn
//! with its progress on a channel, and the report folder written from what is stored. Each step
//! is a call into `forcebench::evaluate::panel_file` and `forcebench::evaluate::battery`.
//!
//! The battery shares the judge runner's one run slot and Cancel ([`JudgeState`]): a window runs
//! one thing that sends requests at a time. Every answer is committed as it arrives, so running
//! the same battery again resumes each cell where it stopped.

use std::path::Path;

use forcebench::evaluate::battery::{self, BatteryReport};
use forcebench::evaluate::panel_file;
use forcebench::evaluate::runner::{RunOptions, RunProgress, RunSummary, SamplingParams};
use forcebench::{ErrorPayload, Project};
use serde::{Deserialize, Serialize};
use tauri::ipc::Channel;
use ts_rs::TS;

use crate::judging::JudgeState;
use crate::Studio;

/// One model of a panel file with the profile its cells are sent with (never a key: only the
/// variable's name).
#[derive(Debug, Clone, Serialize, TS)]
pub struct PanelModel {
    pub model: String,
    pub base_url: String,
    pub params: SamplingParams,
}

/// A panel file as the core read it.
#[derive(Debug, Clone, Serialize, TS)]
pub struct PanelRead {
    pub path: String,
    pub models: Vec<PanelModel>,
}

/// The options a run takes when the panel file does not set them: `judge battery`'s defaults.
fn base() -> RunOptions {
    RunOptions::new("battery", "", "", "")
}

fn read_panel(path: &str) -> Result<Vec<RunOptions>, ErrorPayload> {
    let path = path.trim();
    if path.is_empty() {
        return Err(forcebench::Error::InvalidArgument("choose or type the panel file (TOML)".into()).payload());
    }
    panel_file::read(Path::new(path), &base()).map_err(|e| e.payload())
}

/// Reads and checks a panel file as `judge battery --panel` does before sending anything.
#[tauri::command]
pub async fn battery_panel(path: String) -> Result<PanelRead, ErrorPayload> {
    let models = read_panel(&path)?
        .into_iter()
        .map(|o| PanelModel { model: o.model, base_url: o.base_url, params: o.sampling })
        .collect();
    Ok(PanelRead { path: path.trim().to_string(), models })
}

/// What the window asks of a battery (the CLI's `judge battery --panel` options).
#[derive(Debug, Clone, Deserialize, TS)]
pub struct BatteryParams {
    pub panel: String,
    /// The prompts (shipped names or template files); left empty: the paper's four.
    #[serde(default)]
    pub templates: Vec<String>,
    /// The report folder.
    pub out: String,
    /// Replace report files already in the folder.
    #[serde(default)]
    pub force: bool,
    /// Pool incomplete cells too, their never-answered pairs left out and counted.
    #[serde(default)]
    pub include_incomplete: bool,
    /// Send at most this many unanswered requests per cell, then go on (a later run sends the rest).
    #[serde(default)]
    pub limit: Option<u32>,
    /// Send nothing: only write the report from what is stored (`--no-run`).
    #[serde(default)]
    pub no_run: bool,
}

/// The paper's four prompts, what `judge battery --templates` defaults to.
pub const DEFAULT_TEMPLATES: [&str; 4] = ["generic", "force_aware", "axis_free", "dummy_axis"];

/// One step of a battery: the cell being judged and where its run stands.
#[derive(Debug, Clone, Serialize, TS)]
pub struct BatteryStep {
    /// `<model>@<template> (control)`, as the CLI's progress names it.
    pub cell: String,
    /// Its place among the battery's cells (1-based) and how many there are.
    pub index: u32,
    pub cells: u32,
    pub progress: RunProgress,
}

/// A cell whose run failed (the others went on), with the core's refusal.
#[derive(Debug, Clone, Serialize, TS)]
pub struct CellFailure {
    pub cell: String,
    pub error: ErrorPayload,
}

/// What a battery did: the runs, the failed cells, and the report written from what is stored (or
/// the core's refusal to write it: an incomplete or leaky cell, named with how to resume it).
#[derive(Debug, Clone, Serialize, TS)]
pub struct BatteryOutcome {
    pub runs: Vec<RunSummary>,
    pub failed: Vec<CellFailure>,
    pub cancelled: bool,
    pub report: Option<BatteryReport>,
    /// The files written, in the folder.
    pub written: Vec<String>,
    pub report_error: Option<ErrorPayload>,
}

/// Runs (or resumes) the battery of a panel file; `on_progress` hears after each answer. It runs
/// on a thread of its own, as a judge run does, so Cancel and the other views keep answering.
#[tauri::command]
pub async fn battery_run<R: tauri::Runtime>(
    app: tauri::AppHandle<R>,
    params: BatteryParams,
    on_progress: Channel<BatteryStep>,
) -> Result<BatteryOutcome, ErrorPayload> {
    use tauri::Manager;
    tauri::async_runtime::spawn_blocking(move || {
        let (studio, state) = (app.state::<Studio>(), app.state::<JudgeState>());
        run_with(&studio, &state, &params, |s| {
            let _ = on_progress.send(s);
        })
    })
    .await
    .map_err(|e| forcebench::Error::Internal(format!("the battery stopped unexpectedly: {e}")).payload())?
}

/// [`battery_run`] without the channel (the tests call it with a plain closure). Every input is
/// checked before the first request: the report folder, the panel file, the lists.
pub fn run_with(
    studio: &Studio,
    state: &JudgeState,
    params: &BatteryParams,
    mut progress: impl FnMut(BatteryStep),
) -> Result<BatteryOutcome, ErrorPayload> {
    let out = params.out.trim();
    if out.is_empty() {
        return Err(forcebench::Error::InvalidArgument("choose or type the folder for the report".into()).payload());
    }
    let out = Path::new(out);
    battery::check_out(out, params.force).map_err(|e| e.payload())?;
    let mut profiles = read_panel(&params.panel)?;
    for p in &mut profiles {
        p.limit = params.limit.map(|n| n as usize);
    }
    let templates: Vec<String> = match params.templates.iter().any(|t| !t.trim().is_empty()) {
        true => params.templates.clone(),
        false => DEFAULT_TEMPLATES.iter().map(|t| t.to_string()).collect(),
    };
    let models: Vec<String> = profiles.iter().map(|o| o.model.clone()).collect();
    battery::check_lists(&models, &templates).map_err(|e| e.payload())?;
    let cells = (models.len() * templates.len()) as u32;

    let cancel = state.begin()?;
    let (mut index, mut last) = (0u32, String::new());
    let mut step = |cell: &str, p: &RunProgress| {
        if cell != last {
            (index, last) = (index + 1, cell.to_string());
        }
        progress(BatteryStep { cell: cell.to_string(), index: index.min(cells), cells, progress: p.clone() });
    };
    let work = |project: &mut Project| -> forcebench::Result<BatteryOutcome> {
        let (runs, failed) = match params.no_run {
            true => Default::default(),
            false => battery::run_profiles(project, &profiles, &templates, &[], &mut step, cancel)?,
        };
        let failed: Vec<CellFailure> =
            failed.into_iter().map(|(cell, e)| CellFailure { cell, error: e.payload() }).collect();
        let (report, written, report_error) =
            match battery::report(project, &models, &templates, params.include_incomplete) {
                Ok(r) => match r.write(out, params.force) {
                    Ok(paths) => (Some(r), paths.iter().map(|p| p.display().to_string()).collect(), None),
                    Err(e) => (Some(r), Vec::new(), Some(e.payload())),
                },
                Err(e) => (None, Vec::new(), Some(e.payload())),
            };
        let cancelled = cancel.load(std::sync::atomic::Ordering::SeqCst);
        Ok(BatteryOutcome { runs, failed, cancelled, report, written, report_error })
    };
    let result = studio.with_own_connection(work);
    state.end();
    result
}
