//! IPC commands: thin calls into the core. Errors cross to the UI as `{code, message}`.

use forcebench::candidate::{self, CandidateDetail, CandidateSummary};
use forcebench::status::{self, StatusReport};
use forcebench::ErrorPayload;
use tauri::State;

use crate::Studio;

#[tauri::command]
pub fn project_status(studio: State<'_, Studio>) -> Result<StatusReport, ErrorPayload> {
    studio.with(status::status)
}

#[tauri::command]
pub fn list_candidates(studio: State<'_, Studio>) -> Result<Vec<CandidateSummary>, ErrorPayload> {
    studio.with(candidate::list)
}

#[tauri::command]
pub fn get_candidate(studio: State<'_, Studio>, id: String) -> Result<CandidateDetail, ErrorPayload> {
    studio.with(|p| candidate::get(p, &id))
}
