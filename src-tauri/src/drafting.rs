//! IPC commands for drafting kept contexts with a model from the contexts view: a drafting run
//! with its progress on a channel, cancelling it, the shipped prompt, and every suggestion's
//! record (who or which model, the prompt's sha256, when, the raw answer). Each is a call into
//! `forcebench::drafting`.
//!
//! As a judge run, a drafting run takes minutes: it works on its own connection to the project
//! file so the window's other commands keep answering, and a cancelled run keeps every answer it
//! committed; running it again with the same name resumes.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use forcebench::drafting::{self, DraftRunOptions, DraftRunSummary, SuggestionRecord};
use forcebench::ErrorPayload;
use serde::{Deserialize, Serialize};
use tauri::ipc::Channel;
use tauri::State;
use ts_rs::TS;

use crate::judging::ApiInfo;
use crate::provider_settings::{blank, ProviderSettings};
use crate::Studio;

/// What the window asks for a drafting run (`draft run`'s options); an option left out takes the
/// command line's default.
#[derive(Debug, Clone, Deserialize, TS)]
pub struct DraftRunParams {
    pub name: String,
    pub base_url: String,
    pub model: String,
    /// A prompt file; the shipped prompt when left out.
    #[serde(default)]
    pub template: Option<String>,
    #[serde(default)]
    pub limit: Option<u32>,
    #[serde(flatten)]
    #[ts(flatten)]
    pub settings: ProviderSettings,
}

impl DraftRunParams {
    /// The core's options for this run, refused in the core's words where `draft run` would
    /// refuse its flags (an unknown API style, an extra field that is not `KEY=JSON`, zero tries
    /// or seconds, a temperature outside 0-2), before anything is sent.
    pub fn options(&self) -> Result<DraftRunOptions, ErrorPayload> {
        let s = self.settings.read()?;
        let mut o = DraftRunOptions::new(self.name.trim(), self.base_url.trim(), self.model.trim());
        o.api = s.api.unwrap_or(o.api);
        o.api_key_env = s.api_key_env;
        o.template = blank(&self.template).map(std::path::PathBuf::from);
        o.cap_field = s.cap_field;
        o.no_temperature = s.no_temperature;
        o.extra = s.extra;
        o.temperature = s.temperature.unwrap_or(o.temperature);
        o.max_tokens = s.max_tokens.unwrap_or(o.max_tokens);
        o.limit = self.limit.map(|n| n as usize);
        o.timeout = s.timeout.unwrap_or(o.timeout);
        o.max_attempts = s.attempts.unwrap_or(o.max_attempts);
        drafting::check_options(&o).map_err(|e| e.payload())?;
        Ok(o)
    }
}

/// What a drafting run uses for an option left out (`draft run`'s defaults, the core's
/// `DraftRunOptions::new`), and the API styles it can speak.
#[derive(Debug, Clone, Serialize, TS)]
pub struct DraftCatalog {
    pub apis: Vec<ApiInfo>,
    pub temperature: f64,
    /// The output cap (0: none is sent).
    pub max_tokens: u32,
    /// Seconds one request may take before it is retried.
    #[ts(type = "number")]
    pub timeout: u64,
    /// Tries per request.
    pub attempts: u32,
}

/// The API styles and the defaults the drafting form starts from.
#[tauri::command]
pub async fn draft_catalog() -> Result<DraftCatalog, ErrorPayload> {
    let d = DraftRunOptions::new("", "", "");
    Ok(DraftCatalog {
        apis: crate::judging::api_infos(),
        temperature: d.temperature,
        max_tokens: d.max_tokens.unwrap_or(0),
        timeout: d.timeout.as_secs(),
        attempts: d.max_attempts,
    })
}

/// How far a drafting run is: answers committed of the contexts in the run.
#[derive(Debug, Clone, Copy, Serialize, TS)]
pub struct DraftProgress {
    #[ts(type = "number")]
    pub done: u64,
    #[ts(type = "number")]
    pub total: u64,
}

/// The flag the running drafting run listens to (one run at a time per window).
#[derive(Default)]
pub struct DraftState {
    cancel: Arc<AtomicBool>,
    running: AtomicBool,
}

/// Runs (or resumes) a drafting run over the kept contexts without a draft; `on_progress` hears
/// after each answer. On a thread of its own, so Cancel and the other commands stay free.
#[tauri::command]
pub async fn draft_run<R: tauri::Runtime>(
    app: tauri::AppHandle<R>,
    params: DraftRunParams,
    on_progress: Channel<DraftProgress>,
) -> Result<DraftRunSummary, ErrorPayload> {
    use tauri::Manager;
    tauri::async_runtime::spawn_blocking(move || {
        let (studio, state) = (app.state::<Studio>(), app.state::<DraftState>());
        run_with(&studio, &state, &params, |p| {
            // A window closed mid-run must not stop the run itself.
            let _ = on_progress.send(p);
        })
    })
    .await
    .map_err(|e| forcebench::Error::Internal(format!("the drafting run stopped unexpectedly: {e}")).payload())?
}

/// [`draft_run`] without the channel (the tests call it with a plain closure).
pub fn run_with(
    studio: &Studio,
    state: &DraftState,
    params: &DraftRunParams,
    mut progress: impl FnMut(DraftProgress),
) -> Result<DraftRunSummary, ErrorPayload> {
    let opts = params.options()?;
    if state.running.swap(true, Ordering::SeqCst) {
        return Err(forcebench::Error::InvalidArgument(
            "a drafting run is already going on in this window; wait for it or cancel it".into(),
        )
        .payload());
    }
    state.cancel.store(false, Ordering::SeqCst);
    let mut hear = |done, total| progress(DraftProgress { done, total });
    let result = studio.with_own_connection(|p| drafting::run(p, &opts, &mut hear, &state.cancel));
    state.running.store(false, Ordering::SeqCst);
    result
}

/// Asks the running drafting run to stop: nothing more is sent, and every answer it committed
/// stays. Answers whether a run was still going when asked.
#[tauri::command]
pub async fn draft_cancel(state: State<'_, DraftState>) -> Result<bool, ErrorPayload> {
    state.cancel.store(true, Ordering::SeqCst);
    // Give the run a moment to hear it, so the window's next read sees the stop.
    std::thread::sleep(Duration::from_millis(50));
    Ok(state.running.load(Ordering::SeqCst))
}

/// The shipped drafting prompt, for the window to show what a model is asked.
#[tauri::command]
pub async fn draft_prompt() -> Result<String, ErrorPayload> {
    Ok(drafting::DRAFTING_PROMPT.to_string())
}

/// Every suggestion for a context, oldest first, with the model's record behind each model draft.
#[tauri::command]
pub async fn draft_records(studio: State<'_, Studio>, id: String) -> Result<Vec<SuggestionRecord>, ErrorPayload> {
    studio.with(|p| drafting::records(p, &id))
}
