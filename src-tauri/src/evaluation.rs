//! IPC commands for the evaluation view: compare every evaluator on the locked split,
//! import an evaluator's scores, run the baselines, the two plots as the core draws them, and
//! export them as SVG and PNG; write an LLM judge's requests and read its responses back. Each
//! is a call into `forcebench::evaluate`.

use std::path::Path;

use forcebench::evaluate::{self, judge::ResponseStats, plots, EvaluatorReport, LabelMap};
use forcebench::ErrorPayload;
use serde::Serialize;
use tauri::State;
use ts_rs::TS;

use crate::Studio;

/// The bootstrap every command uses: the CLI's defaults, so the window and `forcebench
/// evaluate` show the same intervals.
const BOOTSTRAP: Option<(u32, u64)> = Some((evaluate::BOOTSTRAP_REPS, evaluate::BOOTSTRAP_SEED));

fn invalid(message: &str) -> ErrorPayload {
    forcebench::Error::InvalidArgument(message.into()).payload()
}

/// Every evaluator stored for the locked split, scored again; an error (in words) when no
/// split is locked.
#[tauri::command]
pub async fn evaluation_compare(studio: State<'_, Studio>) -> Result<Vec<EvaluatorReport>, ErrorPayload> {
    studio.with(|p| evaluate::compare(p, BOOTSTRAP))
}

/// Every stored evaluator's MVR and FS per construction family, and the shortcut audit of the
/// lexical baselines (the core's rule; the view only shows it).
#[tauri::command]
pub async fn evaluation_families(studio: State<'_, Studio>) -> Result<evaluate::family::FamilyReport, ErrorPayload> {
    studio.with(|p| Ok(evaluate::family::family_report(&evaluate::compare(p, BOOTSTRAP)?)))
}

/// The model × prompt grid of the evaluators stored as `<model>@<template>` (as `judge battery`
/// stores them), each prompt pooled over its models, and the baselines.
#[tauri::command]
pub async fn evaluation_grid(studio: State<'_, Studio>) -> Result<evaluate::battery::BatteryReport, ErrorPayload> {
    studio.with(evaluate::battery::stored)
}

/// Two evaluators, or two panels of as many members, compared unit by unit on the same pairs.
#[tauri::command]
pub async fn evaluation_paired(
    studio: State<'_, Studio>,
    a: Vec<String>,
    b: Vec<String>,
) -> Result<evaluate::panel::PairedReport, ErrorPayload> {
    studio.with(|p| evaluate::panel::paired(p, &a, &b, BOOTSTRAP))
}

/// Two evaluators' agreement with the adjudicated labels (kappa and AC1) and its difference on
/// the claims both judged, with paired intervals over rows.
#[tauri::command]
pub async fn evaluation_agreement_paired(
    studio: State<'_, Studio>,
    a: String,
    b: String,
) -> Result<evaluate::agreement_paired::AgreementPaired, ErrorPayload> {
    studio.with(|p| evaluate::agreement_paired::agreement_paired(p, &a, &b, BOOTSTRAP))
}

/// Removes a stored evaluator and the judge runs stored under its name; answers how many runs.
#[tauri::command]
pub async fn evaluator_remove(studio: State<'_, Studio>, name: String) -> Result<u64, ErrorPayload> {
    studio.with_mut(|p| evaluate::panel::remove(p, &name))
}

/// Imports an evaluator's JSONL outputs from `path` as `name`, reading labels through `map`
/// (`generic`, `force`, `audit`, or a JSON file of label -> number); replaces an earlier
/// import under the same name.
#[tauri::command]
pub async fn import_scores(
    studio: State<'_, Studio>,
    path: String,
    name: String,
    map: String,
) -> Result<EvaluatorReport, ErrorPayload> {
    let path = path.trim();
    if path.is_empty() {
        return Err(invalid("type the path of the scores file (JSONL)"));
    }
    let map = LabelMap::named(map.trim()).map_err(|e| e.payload())?;
    studio.with_mut(|p| evaluate::import_and_score(p, Path::new(path), &name, &map, BOOTSTRAP))
}

/// Runs the five lexical baselines on the locked split and stores them.
#[tauri::command]
pub async fn run_baselines(studio: State<'_, Studio>) -> Result<Vec<EvaluatorReport>, ErrorPayload> {
    studio.with_mut(|p| evaluate::run_baselines(p, BOOTSTRAP))
}

/// The two plots as the core draws them: exactly the SVG that export writes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct PlotsSvg {
    pub scatter: String,
    pub heatmap: String,
}

/// The plots of the current comparison, as SVG text.
#[tauri::command]
pub async fn evaluation_plots_svg(studio: State<'_, Studio>) -> Result<PlotsSvg, ErrorPayload> {
    let reports = studio.with(|p| evaluate::compare(p, BOOTSTRAP))?;
    Ok(PlotsSvg { scatter: plots::scatter_svg(&reports), heatmap: plots::heatmap_svg(&reports) })
}

/// Writes `mvr_fs.svg/.png` and `mvr_by_axis.svg/.png` into `dir` (created if needed); answers
/// with the paths written.
#[tauri::command]
pub async fn export_plots(studio: State<'_, Studio>, dir: String) -> Result<Vec<String>, ErrorPayload> {
    let dir = dir.trim();
    if dir.is_empty() {
        return Err(invalid("type the folder to write the plots to"));
    }
    let reports = studio.with(|p| evaluate::compare(p, BOOTSTRAP))?;
    let paths = plots::write_all(&reports, Path::new(dir), true).map_err(|e| e.payload())?;
    Ok(paths.into_iter().map(|p| p.display().to_string()).collect())
}

/// Writes judge requests (one stateless prompt per claim) for the locked split to `out`, with
/// a shipped template that asks about one claim (see `judge_templates`) or a template file;
/// answers with how many requests were written.
#[tauri::command]
pub async fn judge_export(
    studio: State<'_, Studio>,
    template: String,
    out: String,
    seed: Option<u64>,
) -> Result<u64, ErrorPayload> {
    let out = out.trim();
    if out.is_empty() {
        return Err(invalid("type the file to write the judge requests to"));
    }
    let template = match template.trim() {
        "" => "generic",
        t => t,
    };
    studio.with(|p| evaluate::judge_export(p, template, Path::new(out), seed.unwrap_or(1), true))
}

/// What reading a judge's responses gave: its scores, and how each response was read.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct JudgeImport {
    pub report: EvaluatorReport,
    pub parsing: ResponseStats,
}

/// Reads an LLM judge's responses (JSONL: `request_id`, `response`) from `path` and scores them
/// as `name`, reading verdicts through `map`; answers with the scores and what could not be
/// read (the same as `forcebench judge import --json`).
#[tauri::command]
pub async fn judge_import(
    studio: State<'_, Studio>,
    path: String,
    name: String,
    map: String,
) -> Result<JudgeImport, ErrorPayload> {
    let path = path.trim();
    if path.is_empty() {
        return Err(invalid("type the path of the judge's responses (JSONL)"));
    }
    let map = LabelMap::named(map.trim()).map_err(|e| e.payload())?;
    let (report, parsing) = studio.with_mut(|p| evaluate::judge_import(p, Path::new(path), &name, &map, BOOTSTRAP))?;
    Ok(JudgeImport { report, parsing })
}
