//! IPC commands for running an LLM judge from the evaluation view: the shipped templates (with
//! the label map each is read with), the label maps and a run's defaults, a run with its progress
//! on a channel, cancelling it, the runs recorded, and a judge's trust report. Each is a call into
//! `forcebench::evaluate::runner` and `forcebench::evaluate::trust`.
//!
//! A run takes minutes: it works on its own connection to the project file, so the window's
//! other views keep answering while it runs (SQLite lets one writer and many readers share a
//! file). A cancelled run keeps every answer it committed; running it again resumes.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use forcebench::evaluate::providers::Api;
use forcebench::evaluate::runner::{self, Control, RunOptions, RunProgress, RunRecord, RunSummary};
use forcebench::evaluate::trust::{self, TrustReport};
use forcebench::evaluate::{judge, LABEL_MAPS};
use forcebench::ErrorPayload;
use serde::{Deserialize, Serialize};
use tauri::ipc::Channel;
use tauri::State;
use ts_rs::TS;

use crate::provider_settings::{blank, ProviderSettings};
use crate::Studio;

/// One shipped template as the window lists it.
#[derive(Debug, Clone, Serialize, TS)]
pub struct TemplateInfo {
    pub name: String,
    /// The label map its answers are read with.
    pub map: String,
    /// Asks about both claims at once: for the order control.
    pub pairwise: bool,
}

/// What a run uses for an option left out: `judge run`'s defaults (the core's `RunOptions::new`).
#[derive(Debug, Clone, Serialize, TS)]
pub struct RunDefaults {
    pub concurrency: u32,
    pub temperature: f64,
    /// Seconds one request may take before it is retried.
    #[ts(type = "number")]
    pub timeout: u64,
    /// Tries per request.
    pub attempts: u32,
    /// The output cap sent as `max_tokens` (the paper's 1,024).
    pub max_tokens: Option<u32>,
    /// Answers asked for per request while the answer holds no usable verdict.
    pub answer_attempts: u32,
}

/// One API style a judge can be sent with, as the core sends it.
#[derive(Debug, Clone, Serialize, TS)]
pub struct ApiInfo {
    /// `chat`, `responses` or `anthropic` (what `--api` takes).
    pub name: String,
    /// Where requests go under the base URL (`/chat/completions`...).
    pub path: String,
    /// The field the output cap goes in unless the profile names another.
    pub cap_field: String,
    /// The style refuses a request without an output cap (Anthropic's Messages API).
    pub needs_cap: bool,
}

/// What the window needs to offer a judge: the shipped templates in the core's order, the label
/// maps known by name (a JSON file path works too), the API styles, and the defaults of a run.
#[derive(Debug, Clone, Serialize, TS)]
pub struct JudgeCatalog {
    pub templates: Vec<TemplateInfo>,
    pub label_maps: Vec<String>,
    pub apis: Vec<ApiInfo>,
    pub defaults: RunDefaults,
}

/// The API styles the core sends, as the window offers them (a judge run's and a drafting run's).
pub fn api_infos() -> Vec<ApiInfo> {
    Api::ALL
        .iter()
        .map(|a| ApiInfo {
            name: a.as_str().to_string(),
            path: a.url(""),
            cap_field: a.cap_field().to_string(),
            needs_cap: *a == Api::Anthropic,
        })
        .collect()
}

/// The templates, label maps and run defaults that ship with ForceBench.
#[tauri::command]
pub async fn judge_templates() -> Result<JudgeCatalog, ErrorPayload> {
    let d = RunOptions::new("", "", "", "");
    Ok(JudgeCatalog {
        templates: judge::TEMPLATES
            .iter()
            .map(|(name, text, map)| TemplateInfo {
                name: name.to_string(),
                map: map.to_string(),
                pairwise: judge::is_pairwise(text),
            })
            .collect(),
        label_maps: LABEL_MAPS.iter().map(|m| m.to_string()).collect(),
        apis: api_infos(),
        defaults: RunDefaults {
            concurrency: d.concurrency as u32,
            temperature: d.sampling.temperature,
            timeout: d.timeout.as_secs(),
            attempts: d.max_attempts,
            max_tokens: d.sampling.max_tokens,
            answer_attempts: d.answer_attempts,
        },
    })
}

/// What the window asks for a run (the CLI's `judge run` options); an option left out takes the
/// CLI's default.
#[derive(Debug, Clone, Deserialize, TS)]
pub struct JudgeParams {
    pub base_url: String,
    pub model: String,
    pub template: String,
    pub name: String,
    #[serde(default)]
    pub map: Option<String>,
    #[serde(default)]
    pub concurrency: Option<u32>,
    #[serde(default)]
    #[ts(type = "number | null")]
    pub seed: Option<u64>,
    #[serde(default)]
    pub limit: Option<u32>,
    /// Answers asked for per request while the answer holds no usable verdict (at least 1).
    #[serde(default)]
    pub answer_attempts: Option<u32>,
    #[serde(default)]
    pub control: Option<Control>,
    /// API style, key variable, cap field, deterministic mode, extra fields, temperature, output
    /// cap (left out: the paper's 1,024; 0: none sent), timeout and tries.
    #[serde(flatten)]
    #[ts(flatten)]
    pub settings: ProviderSettings,
}

impl JudgeParams {
    /// The core's options for this run, refused in the core's words where `judge run` would
    /// refuse its flags (an unknown API style, an extra field that is not `KEY=JSON`). A 0 for
    /// timeout or attempts is passed on as given, for the core to refuse, never raised to 1.
    pub fn options(&self) -> Result<RunOptions, ErrorPayload> {
        let s = self.settings.read()?;
        let mut o = RunOptions::new(self.name.trim(), self.base_url.trim(), self.model.trim(), self.template.trim());
        o.map = blank(&self.map);
        o.sampling.api_key_env = s.api_key_env;
        o.sampling.api = s.api.unwrap_or(o.sampling.api);
        o.sampling.cap_field = s.cap_field;
        o.sampling.no_temperature = s.no_temperature;
        o.sampling.extra = s.extra;
        o.sampling.temperature = s.temperature.unwrap_or(o.sampling.temperature);
        o.sampling.max_tokens = s.max_tokens.unwrap_or(o.sampling.max_tokens);
        o.sampling.seed = self.seed;
        if let Some(c) = self.concurrency {
            o.concurrency = c as usize;
        }
        o.limit = self.limit.map(|n| n as usize);
        o.timeout = s.timeout.unwrap_or(o.timeout);
        o.max_attempts = s.attempts.unwrap_or(o.max_attempts);
        o.answer_attempts = self.answer_attempts.unwrap_or(o.answer_attempts);
        if let Some(c) = self.control {
            o.control = c;
        }
        Ok(o)
    }
}

/// The flag the running judge listens to (one run at a time per window).
#[derive(Default)]
pub struct JudgeState {
    cancel: Arc<AtomicBool>,
    running: AtomicBool,
}

impl JudgeState {
    /// Takes the window's one run slot (a judge run or a battery) and clears Cancel; refused
    /// while another run holds it. The flag returned is the one Cancel sets.
    pub fn begin(&self) -> Result<&AtomicBool, ErrorPayload> {
        if self.running.swap(true, Ordering::SeqCst) {
            return Err(forcebench::Error::InvalidArgument(
                "a judge run is already going on in this window; wait for it or cancel it".into(),
            )
            .payload());
        }
        self.cancel.store(false, Ordering::SeqCst);
        Ok(&self.cancel)
    }

    /// Gives the run slot back.
    pub fn end(&self) {
        self.running.store(false, Ordering::SeqCst);
    }
}

/// Runs (or resumes) a judge; `on_progress` hears after each answer. The run blocks for minutes,
/// so it goes on a thread of its own: the async runtime's few workers stay free for the window's
/// other commands, Cancel among them (a run that held one kept Cancel waiting).
#[tauri::command]
pub async fn judge_run<R: tauri::Runtime>(
    app: tauri::AppHandle<R>,
    params: JudgeParams,
    on_progress: Channel<RunProgress>,
) -> Result<RunSummary, ErrorPayload> {
    use tauri::Manager;
    tauri::async_runtime::spawn_blocking(move || {
        let (studio, state) = (app.state::<Studio>(), app.state::<JudgeState>());
        run_with(&studio, &state, &params, |p| {
            // A window closed mid-run must not stop the run itself.
            let _ = on_progress.send(p);
        })
    })
    .await
    .map_err(|e| forcebench::Error::Internal(format!("the judge run stopped unexpectedly: {e}")).payload())?
}

/// [`judge_run`] without the channel (the tests call it with a plain closure).
pub fn run_with(
    studio: &Studio,
    state: &JudgeState,
    params: &JudgeParams,
    mut progress: impl FnMut(RunProgress),
) -> Result<RunSummary, ErrorPayload> {
    let opts = params.options()?;
    let cancel = state.begin()?;
    let result = studio.with_own_connection(|p| runner::run(p, &opts, &mut |x| progress(x.clone()), cancel));
    state.end();
    result
}

/// Asks the running judge to stop: nothing more is sent, requests in flight are abandoned (their
/// answers are not recorded), and every committed answer stays.
#[tauri::command]
pub async fn judge_cancel(state: State<'_, JudgeState>) -> Result<bool, ErrorPayload> {
    state.cancel.store(true, Ordering::SeqCst);
    // Give the run a moment to hear it, so the window's next read sees the stop.
    std::thread::sleep(Duration::from_millis(50));
    Ok(state.running.load(Ordering::SeqCst))
}

/// Every judge run recorded in the project.
#[tauri::command]
pub async fn judge_runs(studio: State<'_, Studio>) -> Result<Vec<RunRecord>, ErrorPayload> {
    studio.with(runner::runs)
}

/// A judge's trust report on the locked split.
#[tauri::command]
pub async fn judge_trust(studio: State<'_, Studio>, name: String) -> Result<TrustReport, ErrorPayload> {
    studio.with(|p| trust::trust(p, &name))
}
