//! IPC commands for feedback files (`forcebench feedback`): the annotator reads the file the lead
//! wrote. A call into `forcebench::feedback`.

use forcebench::ErrorPayload;

/// Annotator side: reads a feedback file the lead wrote (`forcebench feedback issue`).
#[tauri::command]
pub async fn open_feedback(path: String) -> Result<forcebench::feedback::Feedback, ErrorPayload> {
    let path = path.trim();
    if path.is_empty() {
        return Err(forcebench::Error::InvalidArgument("type the path of the feedback file".into()).payload());
    }
    forcebench::feedback::read(std::path::Path::new(path)).map_err(|e| e.payload())
}
