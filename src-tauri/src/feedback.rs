//! IPC commands for feedback files (`forcebench feedback`): the lead writes one blinded
//! `<annotator>.feedback.json` per annotator with adjudicated rows into a folder it picks (issue
//! 31: it was `forcebench feedback issue` alone), and the annotator reads theirs. Calls into
//! `forcebench::feedback`; the core checks every file before writing any.

use forcebench::feedback::{self, IssuedFeedback};
use forcebench::ErrorPayload;
use tauri::State;

use crate::Studio;

/// Lead side: writes the feedback files into `dir`; an existing file is replaced only with
/// `force`. Refuses with no folder typed; the core refuses in a workspace (the lead's step).
#[tauri::command]
pub async fn issue_feedback(
    studio: State<'_, Studio>,
    dir: String,
    force: bool,
) -> Result<Vec<IssuedFeedback>, ErrorPayload> {
    let dir = dir.trim();
    if dir.is_empty() {
        return Err(forcebench::Error::InvalidArgument(
            "choose or type the folder to write the feedback files into".into(),
        )
        .payload());
    }
    studio.with(|p| feedback::issue(p, std::path::Path::new(dir), force))
}

/// Annotator side: reads a feedback file the lead wrote (`forcebench feedback issue`).
#[tauri::command]
pub async fn open_feedback(path: String) -> Result<feedback::Feedback, ErrorPayload> {
    let path = path.trim();
    if path.is_empty() {
        return Err(forcebench::Error::InvalidArgument("type the path of the feedback file".into()).payload());
    }
    feedback::read(std::path::Path::new(path)).map_err(|e| e.payload())
}
