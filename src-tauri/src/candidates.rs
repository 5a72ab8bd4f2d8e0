//! IPC commands for the candidate list: a page of the pool filtered in the core, and one row in
//! full. Each is a call into `forcebench::candidate`.

use forcebench::candidate::{self, CandidateDetail, CandidatePage, CandidateQuery};
use forcebench::ErrorPayload;
use tauri::State;

use crate::Studio;

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
