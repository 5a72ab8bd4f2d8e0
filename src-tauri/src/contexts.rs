//! IPC commands for the steps before candidacy: the contexts with their stage, screening (keep,
//! or drop with a reason), a draft's field set by hand, promotion and exclusion, and the counts.
//! Each is a call into `forcebench::contexts`; the core refuses them in a workspace.

use forcebench::contexts::{
    self, draft, ContextCounts, ContextRow, ContextScreenReport, ExclusionReason, ScreenDecision,
};
use forcebench::ErrorPayload;
use tauri::State;

use crate::Studio;

fn reason(text: Option<String>) -> Result<Option<ExclusionReason>, ErrorPayload> {
    text.map(|t| t.parse().map_err(|e: String| forcebench::Error::InvalidArgument(e).payload())).transpose()
}

#[tauri::command]
pub async fn contexts_list(studio: State<'_, Studio>) -> Result<Vec<ContextRow>, ErrorPayload> {
    studio.with(contexts::list)
}

#[tauri::command]
pub async fn contexts_counts(studio: State<'_, Studio>) -> Result<Option<ContextCounts>, ErrorPayload> {
    studio.with(|p| contexts::accounting(p.conn()))
}

#[tauri::command]
pub fn contexts_screen(
    studio: State<'_, Studio>,
    id: String,
    keep: bool,
    reason: Option<String>,
    note: Option<String>,
    by: String,
) -> Result<ContextScreenReport, ErrorPayload> {
    let decision = if keep { ScreenDecision::Keep } else { ScreenDecision::Drop };
    let why = self::reason(reason)?;
    studio.with_mut(|p| contexts::screen(p, &id, decision, why, note.as_deref(), &by))
}

#[tauri::command]
pub async fn draft_list(studio: State<'_, Studio>) -> Result<Vec<draft::DraftRow>, ErrorPayload> {
    studio.with(draft::list)
}

#[tauri::command]
pub fn draft_set(
    studio: State<'_, Studio>,
    id: String,
    field: String,
    value: String,
    by: String,
) -> Result<draft::DraftSetReport, ErrorPayload> {
    studio.with_mut(|p| draft::set(p, &id, &field, &value, &by))
}

#[tauri::command]
pub fn draft_promote(
    studio: State<'_, Studio>,
    ids: Vec<String>,
    all: bool,
    by: String,
) -> Result<draft::DraftPromoteReport, ErrorPayload> {
    studio.with_mut(|p| draft::promote(p, &ids, all, &by))
}

#[tauri::command]
pub fn draft_exclude(
    studio: State<'_, Studio>,
    id: String,
    reason: String,
    note: Option<String>,
    by: String,
) -> Result<draft::DraftRow, ErrorPayload> {
    let why: ExclusionReason = reason.parse().map_err(|e: String| forcebench::Error::InvalidArgument(e).payload())?;
    studio.with_mut(|p| draft::exclude(p, &id, why, note.as_deref(), &by))
}
