//! The lead's first steps from the window (the Setup view): import candidates, the roster,
//! assignment, how suggestions are shown, and issuing packets. Each command is a call into the core; an import's refusal
//! crosses with its problems structured, so the view can show them row by row.

use std::path::Path;

use forcebench::assign::{self, AssignReport};
use forcebench::import::{self, ImportRefusal, ImportReport};
use forcebench::packets::{self, Blinding, IssuedPacket};
use forcebench::roster::{self, Annotator, Role};
use forcebench::settings::{self, SuggestionMode};
use forcebench::ErrorPayload;
use tauri::State;

use crate::Studio;

#[tauri::command]
pub async fn import_candidates(studio: State<'_, Studio>, path: String) -> Result<ImportReport, ImportRefusal> {
    match studio.try_mut(|p| import::import_file(p, Path::new(&path), &mut |_, _| {})) {
        Ok(done) => done.map_err(ImportRefusal::from),
        Err(opening) => {
            Err(ImportRefusal { code: opening.code, message: opening.message, problems: vec![], conflicts: vec![] })
        }
    }
}

#[tauri::command]
pub async fn roster_add(studio: State<'_, Studio>, name: String, role: String) -> Result<Annotator, ErrorPayload> {
    let role: Role = role.parse().map_err(|m| ErrorPayload { code: "invalid_argument".into(), message: m })?;
    studio.with_mut(|p| roster::add(p, &name, role))
}

#[tauri::command]
pub async fn assign_rows(studio: State<'_, Studio>, seed: u64) -> Result<AssignReport, ErrorPayload> {
    studio.with_mut(|p| assign::assign(p, seed))
}

#[tauri::command]
pub async fn issue_packets(
    studio: State<'_, Studio>,
    dir: String,
    blinding: String,
) -> Result<Vec<IssuedPacket>, ErrorPayload> {
    let blinding: Blinding =
        blinding.parse().map_err(|m| ErrorPayload { code: "invalid_argument".into(), message: m })?;
    studio.with_mut(|p| packets::issue(p, Path::new(&dir), blinding))
}

#[tauri::command]
pub async fn suggestion_mode(studio: State<'_, Studio>) -> Result<SuggestionMode, ErrorPayload> {
    studio.with(|p| settings::suggestion_mode(p.conn()))
}

#[tauri::command]
pub async fn set_suggestion_mode(
    studio: State<'_, Studio>,
    mode: SuggestionMode,
) -> Result<SuggestionMode, ErrorPayload> {
    studio.with_mut(|p| settings::set_suggestion_mode(p, mode))
}
