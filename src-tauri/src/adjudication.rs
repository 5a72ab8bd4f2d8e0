//! IPC commands for the adjudicate view and the funnel: the adjudication queue, one row
//! side by side, resolving it, bulk-confirming full agreements, quality control and the locality
//! audit. Each is a call into `forcebench::{adjudicate, qc, locality}`; the funnel itself comes
//! with `project_status`.
//!
//! Changes (`resolve_row`, `confirm_agreements`, `run_qc`, the locality marks) are `async` so the
//! durable commit never stalls the window, and answer only after it. Argument names are as the
//! UI sends them (`hide_names` is kept snake_case on purpose: it reads the same on both sides).

use forcebench::adjudicate::{self, AdjudicationPage, AdjudicationQuery, AffirmReport, Reopening, Resolution, RowView};
use forcebench::locality::{self, AuditRow, Keep, Mark};
use forcebench::qc::{self, QcReport};
use forcebench::ErrorPayload;
use tauri::State;

use crate::Studio;

/// One page of the queue (what the view asks for): the counts per category, how many rows match
/// the filter, the filter menus' values, and the page's items in queue order; with `around` the
/// page holding that row, with `open_after` the next open row after it and its page.
#[tauri::command]
pub async fn adjudication_page(
    studio: State<'_, Studio>,
    query: AdjudicationQuery,
) -> Result<AdjudicationPage, ErrorPayload> {
    studio.with(|p| adjudicate::page(p, &query))
}

/// One double-annotated row side by side: A, B, the suggestion, the final label with its sources,
/// the history and the row's QC results. With `hide_names` the annotators are "A" and "B".
#[tauri::command(rename_all = "snake_case")]
pub async fn adjudication_row(
    studio: State<'_, Studio>,
    id: String,
    hide_names: bool,
) -> Result<RowView, ErrorPayload> {
    studio.with(|p| adjudicate::row_view(p, &id, hide_names))
}

/// Adjudicates one row (or changes its final label again) as `adjudicator`; durable when it answers. The answer is the
/// row as the view shows it (names hidden again when the view hides them).
#[tauri::command(rename_all = "snake_case")]
pub async fn resolve_row(
    studio: State<'_, Studio>,
    id: String,
    adjudicator: String,
    resolution: Resolution,
    hide_names: Option<bool>,
) -> Result<RowView, ErrorPayload> {
    studio.with_mut(|p| {
        let view = adjudicate::resolve(p, &id, &adjudicator, &resolution)?;
        if hide_names.unwrap_or(false) {
            adjudicate::row_view(p, &id, true)
        } else {
            Ok(view)
        }
    })
}

/// Reopens an adjudicated row as `adjudicator`, for `reason`, so its annotators may change their
/// labels; answers with the reopening as recorded.
#[tauri::command]
pub async fn adjudication_reopen(
    studio: State<'_, Studio>,
    id: String,
    adjudicator: String,
    reason: String,
) -> Result<Reopening, ErrorPayload> {
    studio.with_mut(|p| adjudicate::reopen(p, &id, &adjudicator, &reason))
}

/// Confirms every open full agreement at once (logged as bulk-confirmed); answers how many.
#[tauri::command]
pub async fn confirm_agreements(studio: State<'_, Studio>, adjudicator: String) -> Result<u64, ErrorPayload> {
    studio.with_mut(|p| adjudicate::confirm_agreements(p, &adjudicator))
}

/// What confirming and affirming in bulk would do, for the confirm dialog.
#[tauri::command]
pub async fn affirm_preview(studio: State<'_, Studio>, adjudicator: String) -> Result<AffirmReport, ErrorPayload> {
    studio.with(|p| adjudicate::affirm_preview(p, &adjudicator))
}

/// Confirms every open full agreement and affirms, in bulk and in the adjudicator's name, the
/// promotion checks of the accepted rows.
#[tauri::command]
pub async fn confirm_and_affirm(studio: State<'_, Studio>, adjudicator: String) -> Result<AffirmReport, ErrorPayload> {
    studio.with_mut(|p| adjudicate::confirm_and_affirm(p, &adjudicator))
}

/// Re-runs quality control on every adjudicated row.
#[tauri::command]
pub async fn run_qc(studio: State<'_, Studio>) -> Result<QcReport, ErrorPayload> {
    studio.with_mut(qc::run)
}

/// Accepted and locality-removed rows for the audit, rows with locality warnings first.
#[tauri::command]
pub async fn locality_rows(studio: State<'_, Studio>) -> Result<Vec<AuditRow>, ErrorPayload> {
    studio.with(locality::audit_rows)
}

/// Marks an accepted row nonlocal; the reason is required (the core refuses a blank one).
#[tauri::command]
pub async fn mark_nonlocal(
    studio: State<'_, Studio>,
    id: String,
    reason: String,
    by: String,
) -> Result<Mark, ErrorPayload> {
    studio.with_mut(|p| locality::mark(p, &id, &reason, &by))
}

/// Takes a nonlocal mark back; answers with the mark that was removed.
#[tauri::command]
pub async fn unmark_nonlocal(studio: State<'_, Studio>, id: String) -> Result<Mark, ErrorPayload> {
    studio.with_mut(|p| locality::unmark(p, &id))
}

/// Keeps an accepted row with locality warnings after review, as `by` (recorded with when).
#[tauri::command]
pub async fn locality_keep(
    studio: State<'_, Studio>,
    id: String,
    by: String,
    note: Option<String>,
) -> Result<Keep, ErrorPayload> {
    studio.with_mut(|p| locality::keep(p, &id, &by, note.as_deref()))
}
