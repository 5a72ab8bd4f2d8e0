//! IPC commands for the agreement view: the project report, the rows behind a confusion-matrix
//! cell, and the report's export. Each is a call into `forcebench::agreement`.

use std::path::Path;

use forcebench::agreement::export::ExportFormat;
use forcebench::agreement::{self, CellRow, ConfusionTable, ProjectAgreement};
use forcebench::ErrorPayload;
use tauri::State;

use crate::Studio;

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
