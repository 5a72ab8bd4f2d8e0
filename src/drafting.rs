//! Drafting candidates with a model: each kept context without a draft is sent to an
//! OpenAI-compatible chat-completions endpoint through the judge runner's client (same retries and refusals, the
//! key read from the environment and never stored), with the shipped drafting prompt
//! ([`DRAFTING_PROMPT`]) or a prompt file; each answer becomes the context's draft (origin
//! `model`).
//!
//! A run is named. It records the endpoint, the model, the prompt (where it came from, its text
//! and sha256) and the parameters; per context, the exact prompt sent, when, the HTTP status, the
//! raw body and the text read from it. Each answer is committed with its draft as it arrives, so
//! a run stopped in any way resumes by running the same command again: only contexts without a
//! committed answer are sent, and kept contexts added since join the run. A run resumed with
//! other settings is refused. An answer holding no JSON object with the draft fields is kept as
//! it came (with why it is unusable) and makes no draft.
//!
//! This is the model side of [`crate::contexts`], a module of its own so that the contexts'
//! accounting, which the split reads, does not depend on the judge runner (which reads the split).
//!
//! A prompt file is plain text with `{{context}}` and `{{passage}}` where the context's fields
//! go (`{{source_dataset}}` and `{{id}}` may be used too); it must hold `{{passage}}`.

use rusqlite::{params, OptionalExtension};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;
use ts_rs::TS;

use crate::contexts::draft::{self, DraftFields, DraftOrigin, DRAFT_FIELDS};
use crate::contexts::{ContextStage, State};
use crate::error::{Error, Result};
use crate::evaluate::runner::{Asked, ChatClient};
use crate::project::{now, Project};

/// The shipped drafting prompt.
pub const DRAFTING_PROMPT: &str = include_str!("contexts/drafting-prompt.txt");

/// Everything `draft run` takes.
#[derive(Debug, Clone)]
pub struct DraftRunOptions {
    pub name: String,
    pub base_url: String,
    pub model: String,
    /// A prompt file; the shipped prompt when `None`.
    pub template: Option<std::path::PathBuf>,
    pub api_key_env: Option<String>,
    /// The API style the endpoint speaks (as `judge run --api`).
    pub api: crate::evaluate::providers::Api,
    pub temperature: f64,
    pub max_tokens: Option<u32>,
    /// The field the output cap is sent in, when not the API style's own.
    pub cap_field: Option<String>,
    /// Send no temperature (a provider whose deterministic mode is a named setting in `extra`).
    pub no_temperature: bool,
    /// Fixed fields added to every request body.
    pub extra: std::collections::BTreeMap<String, serde_json::Value>,
    /// Send at most this many of the waiting contexts, then stop.
    pub limit: Option<usize>,
    pub timeout: Duration,
    pub max_attempts: u32,
    pub retry_wait: Duration,
}

impl DraftRunOptions {
    pub fn new(name: &str, base_url: &str, model: &str) -> Self {
        DraftRunOptions {
            name: name.to_string(),
            base_url: base_url.to_string(),
            model: model.to_string(),
            template: None,
            api_key_env: None,
            api: crate::evaluate::providers::Api::Chat,
            temperature: 0.0,
            max_tokens: Some(crate::evaluate::runner::DEFAULT_MAX_TOKENS),
            cap_field: None,
            no_temperature: false,
            extra: Default::default(),
            limit: None,
            timeout: Duration::from_secs(120),
            max_attempts: 5,
            retry_wait: Duration::from_millis(500),
        }
    }
}

/// What a drafting run did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct DraftRunSummary {
    pub name: String,
    pub model: String,
    pub prompt_source: String,
    pub prompt_sha256: String,
    /// Contexts in the run.
    #[ts(type = "number")]
    pub requests: u64,
    #[ts(type = "number")]
    pub answered_before: u64,
    #[ts(type = "number")]
    pub answered_now: u64,
    /// Answers of this run that became drafts.
    #[ts(type = "number")]
    pub drafted: u64,
    /// Answers of this run with no usable draft in them, with why (the answer is kept).
    pub unusable: Vec<(String, String)>,
    /// Contexts given up on in this run, with the last failure.
    pub failures: Vec<(String, String)>,
    /// Contexts of the run not sent because they got a draft (or left the kept stage) since.
    pub skipped: Vec<String>,
    /// Kept contexts without a draft still waiting for an answer of this run.
    #[ts(type = "number")]
    pub unanswered: u64,
}

/// The prompt for one context.
fn fill(template: &str, id: &str, source: &str, context: &str, passage: &str) -> String {
    template
        .replace("{{id}}", id)
        .replace("{{source_dataset}}", source)
        .replace("{{context}}", context)
        .replace("{{passage}}", passage)
}

/// The prompt text and where it came from.
fn prompt(template: Option<&Path>) -> Result<(String, String)> {
    let Some(path) = template else { return Ok(("shipped:drafting".into(), DRAFTING_PROMPT.into())) };
    let (file, text) = crate::input::read_text(path)?;
    if !text.contains("{{passage}}") {
        return Err(Error::BadTemplate(format!(
            "{file}: a drafting prompt needs `{{{{passage}}}}` where the cited passage goes (and usually `{{{{context}}}}`)"
        )));
    }
    Ok((file, text))
}

/// The draft fields a model's answer holds: the JSON object from its first `{` to its last `}`
/// (fences and prose around it are ignored), its draft keys as text (a severity number as its digits). `Err` says
/// why the answer makes no draft.
pub fn read_answer(content: &str) -> std::result::Result<DraftFields, String> {
    let start = content.find('{').ok_or("the answer holds no JSON object")?;
    let end = content.rfind('}').ok_or("the answer holds no JSON object")?;
    if end < start {
        return Err("the answer holds no JSON object".into());
    }
    let object = crate::input::parse_object(&content[start..=end]).map_err(|p| p.message)?;
    let mut fields = DraftFields::default();
    let mut found = 0;
    for name in DRAFT_FIELDS {
        let value = match object.get(*name) {
            None | Some(serde_json::Value::Null) => continue,
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(serde_json::Value::Number(n)) => n.to_string(),
            Some(other) => return Err(format!("`{name}` is {}, not text", crate::input::json_kind(other))),
        };
        found += 1;
        fields.set(name, Some(value));
    }
    if fields.calibrated_claim.is_none() || fields.raised_claim.is_none() {
        return Err(format!(
            "the answer's JSON object has no calibrated_claim and raised_claim ({found} of the draft fields found)"
        ));
    }
    Ok(fields)
}

/// Refuses settings no drafting run can be made with, in words naming the setting, before
/// anything is read or sent (as [`crate::evaluate::runner::check_options`] does for a judge run).
pub fn check_options(opts: &DraftRunOptions) -> Result<()> {
    if opts.model.trim().is_empty() {
        return Err(Error::InvalidArgument("--model needs the model's name as the endpoint knows it".into()));
    }
    if !(0.0..=2.0).contains(&opts.temperature) {
        return Err(Error::InvalidArgument(format!("--temperature {} is not between 0 and 2", opts.temperature)));
    }
    if opts.api == crate::evaluate::providers::Api::Anthropic && opts.max_tokens.is_none() {
        return Err(Error::InvalidArgument(
            "--api anthropic needs an output cap (the Messages API requires max_tokens): give --max-tokens N".into(),
        ));
    }
    if opts.cap_field.as_deref().is_some_and(|f| f.trim().is_empty()) {
        return Err(Error::InvalidArgument(
            "--cap-field is blank: name the field, or leave it out for the style's own".into(),
        ));
    }
    crate::evaluate::providers::check_extra(&opts.extra)?;
    if opts.max_attempts == 0 {
        return Err(Error::InvalidArgument(
            "--attempts 0 would send nothing: give at least 1 (tries per request)".into(),
        ));
    }
    if opts.timeout.is_zero() {
        return Err(Error::InvalidArgument("--timeout 0 leaves no time for an answer: give at least 1 second".into()));
    }
    Ok(())
}

/// Runs (or resumes) a drafting run: see the module documentation.
pub fn run(
    project: &mut Project,
    opts: &DraftRunOptions,
    progress: &mut dyn FnMut(u64, u64),
    cancel: &AtomicBool,
) -> Result<DraftRunSummary> {
    crate::settings::lead_only(project.conn(), "drafting candidates")?;
    let name = crate::evaluate::evaluator_name(&opts.name)?;
    check_options(opts)?;
    let client = ChatClient::new(opts.api, &opts.base_url, opts.api_key_env.as_deref(), opts.timeout)?;
    let (source, text) = prompt(opts.template.as_deref())?;
    let sha = hex::encode(Sha256::digest(text.as_bytes()));
    let mut params = serde_json::json!({
        "temperature": opts.temperature,
        "max_tokens": opts.max_tokens,
        "api_key_env": opts.api_key_env,
    });
    // The default style and an unchanged profile are left out, so runs recorded before they
    // could be chosen read the same (and resume).
    if !opts.api.is_chat() {
        params["api"] = opts.api.as_str().into();
    }
    if let Some(field) = &opts.cap_field {
        params["cap_field"] = field.as_str().into();
    }
    if opts.no_temperature {
        params["no_temperature"] = true.into();
    }
    if !opts.extra.is_empty() {
        params["extra"] = serde_json::to_value(&opts.extra).map_err(|e| Error::Internal(e.to_string()))?;
    }
    let params_json = params.to_string();

    let tx = project.conn_mut().transaction()?;
    let existing: Option<(i64, String, String, String, String)> = tx
        .query_row(
            "SELECT id, base_url, model, prompt_sha256, params_json FROM draft_runs WHERE name = ?1",
            [&name],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .optional()?;
    let run_id = match existing {
        Some((id, base_url, model, old_sha, old_params)) => {
            let mut differs = Vec::new();
            if base_url != opts.base_url {
                differs.push(format!("base URL {base_url}"));
            }
            if model != opts.model {
                differs.push(format!("model {model}"));
            }
            if old_sha != sha {
                differs.push(format!("prompt sha256 {}…", &old_sha[..12]));
            }
            if old_params != params_json {
                differs.push(format!("parameters {old_params}"));
            }
            if !differs.is_empty() {
                return Err(Error::InvalidArgument(format!(
                    "a drafting run named `{name}` already exists with {}; resume it with the same settings, or give this run another --name",
                    differs.join(", ")
                )));
            }
            id
        }
        None => {
            tx.execute(
                "INSERT INTO draft_runs (name, base_url, model, prompt_source, prompt_text, prompt_sha256, params_json, started_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![name, opts.base_url, opts.model, source, text, sha, params_json, now()],
            )?;
            tx.last_insert_rowid()
        }
    };
    // Kept contexts without a draft that the run has not asked about yet join it.
    let state = State::load(&tx)?;
    {
        let mut stmt = tx.prepare(
            "SELECT c.id, c.source_dataset, c.context, c.passage FROM contexts c
             WHERE NOT EXISTS (SELECT 1 FROM draft_requests q WHERE q.run_id = ?1 AND q.context_id = c.id)
             ORDER BY c.seq",
        )?;
        let new: Vec<(String, String, String, String)> = stmt
            .query_map([run_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
            .collect::<rusqlite::Result<_>>()?;
        let mut seq: i64 =
            tx.query_row("SELECT coalesce(max(seq), 0) FROM draft_requests WHERE run_id = ?1", [run_id], |r| r.get(0))?;
        for (id, source, context, passage) in new {
            if state.stage(&id) != ContextStage::Kept {
                continue;
            }
            seq += 1;
            tx.execute(
                "INSERT INTO draft_requests (run_id, context_id, seq, prompt) VALUES (?1, ?2, ?3, ?4)",
                params![run_id, id, seq, fill(&text, &id, &source, &context, &passage)],
            )?;
        }
    }
    tx.commit()?;

    let total: i64 =
        project.conn().query_row("SELECT count(*) FROM draft_requests WHERE run_id = ?1", [run_id], |r| r.get(0))?;
    let pending: Vec<(String, String)> = {
        let mut stmt = project.conn().prepare(
            "SELECT context_id, prompt FROM draft_requests WHERE run_id = ?1 AND answered_at IS NULL ORDER BY seq",
        )?;
        let rows = stmt.query_map([run_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let answered_before = total as u64 - pending.len() as u64;
    let mut summary = DraftRunSummary {
        name: name.clone(),
        model: opts.model.clone(),
        prompt_source: source,
        prompt_sha256: sha,
        requests: total as u64,
        answered_before,
        answered_now: 0,
        drafted: 0,
        unusable: Vec::new(),
        failures: Vec::new(),
        skipped: Vec::new(),
        unanswered: 0,
    };
    let mut done = answered_before;
    progress(done, total as u64);
    let sampling = crate::evaluate::providers::Sampling {
        temperature: (!opts.no_temperature).then_some(opts.temperature),
        cap: opts.max_tokens.map(|n| (n, opts.cap_field.as_deref())),
        seed: None,
        extra: &opts.extra,
    };
    for (id, prompt) in pending.into_iter().take(opts.limit.unwrap_or(usize::MAX)) {
        if cancel.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
        // A context drafted (by hand or another run), promoted, excluded or dropped meanwhile is
        // not asked about: a model's answer never replaces a person's draft behind their back.
        if State::of(project.conn(), &id)?.stage(&id) != ContextStage::Kept {
            summary.skipped.push(id);
            continue;
        }
        let body = client.body(&opts.model, &prompt, &sampling);
        let (asked, retries) = client.ask(&body, opts.max_attempts, opts.retry_wait, cancel);
        match asked {
            Asked::Answered { status, body, content, sent_at } => {
                let read = content.as_deref().ok_or_else(|| "the answer holds no message text".to_string());
                let fields = read.and_then(read_answer);
                let tx = project.conn_mut().transaction()?;
                tx.execute(
                    "UPDATE draft_requests SET attempts = attempts + ?3, sent_at = ?4, answered_at = ?5, http_status = ?6,
                         raw_response = ?7, content = ?8, last_error = ?9
                     WHERE run_id = ?1 AND context_id = ?2",
                    params![
                        run_id,
                        id,
                        retries as i64 + 1,
                        sent_at,
                        now(),
                        status,
                        body,
                        content,
                        fields.as_ref().err()
                    ],
                )?;
                match &fields {
                    Ok(f) => {
                        draft::insert(&tx, &id, DraftOrigin::Model, &opts.model, Some(run_id), f)?;
                        summary.drafted += 1;
                    }
                    Err(why) => summary.unusable.push((id.clone(), why.clone())),
                }
                tx.commit()?;
                crate::crashpoint::hit("draft-after-answer");
                summary.answered_now += 1;
                done += 1;
                progress(done, total as u64);
            }
            Asked::GaveUp(why) => {
                project.conn().execute(
                    "UPDATE draft_requests SET attempts = attempts + ?3, last_error = ?4 WHERE run_id = ?1 AND context_id = ?2",
                    params![run_id, id, retries as i64 + 1, why],
                )?;
                summary.failures.push((id, why));
            }
            Asked::Fatal(why) => {
                return Err(Error::EndpointRefused(format!(
                    "{why}; {} answer(s) from this run are kept, and running the same command again resumes",
                    summary.answered_now
                )));
            }
            Asked::Cancelled => break,
        }
    }
    summary.unanswered = {
        let state = State::load(project.conn())?;
        let mut stmt = project
            .conn()
            .prepare("SELECT context_id FROM draft_requests WHERE run_id = ?1 AND answered_at IS NULL")?;
        let ids: Vec<String> = stmt.query_map([run_id], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
        ids.iter().filter(|id| state.stage(id) == ContextStage::Kept).count() as u64
    };
    if summary.unanswered == 0 {
        project.conn().execute(
            "UPDATE draft_runs SET finished_at = coalesce(finished_at, ?2) WHERE id = ?1",
            params![run_id, now()],
        )?;
    }
    if summary.answered_now == 0 && !summary.failures.is_empty() {
        let (id, why) = summary.failures.last().expect("not empty");
        return Err(Error::Unfinished(format!(
            "none of the {} context(s) sent was answered; the last, {id}: {why}. Check the endpoint and run the same command again to resume",
            summary.failures.len()
        )));
    }
    Ok(summary)
}

/// One suggestion for a context with everything a reader needs to weigh it: the draft version
/// (who or which model, how, when) and, for a model's draft, the run's prompt and its sha256,
/// when the request went and came back, and the raw answer as received.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct SuggestionRecord {
    #[serde(flatten)]
    #[ts(flatten)]
    pub draft: draft::Draft,
    /// The model's side, `null` for a draft a person wrote.
    pub asked: Option<AskedRecord>,
}

/// A model's answer behind a draft, as its drafting run recorded it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct AskedRecord {
    pub model: String,
    pub base_url: String,
    /// `shipped:drafting`, or the prompt file's name.
    pub prompt_source: String,
    pub prompt_sha256: String,
    pub sent_at: Option<String>,
    pub answered_at: Option<String>,
    pub http_status: Option<i64>,
    /// The response body exactly as the endpoint sent it.
    pub raw_response: Option<String>,
    /// The answer's text read from the body.
    pub content: Option<String>,
}

/// Every suggestion for a context, oldest first, each with its model's record when a model
/// wrote it (the run named in the draft; a person's edit of a model draft names no run).
pub fn records(project: &Project, id: &str) -> Result<Vec<SuggestionRecord>> {
    let drafts = draft::history(project, id)?;
    let mut stmt = project.conn().prepare(
        "SELECT r.model, r.base_url, r.prompt_source, r.prompt_sha256, q.sent_at, q.answered_at, q.http_status,
                q.raw_response, q.content
         FROM draft_runs r LEFT JOIN draft_requests q ON q.run_id = r.id AND q.context_id = ?2
         WHERE r.name = ?1",
    )?;
    let mut out = Vec::with_capacity(drafts.len());
    for d in drafts {
        let asked = match (&d.run, d.origin) {
            (Some(run), DraftOrigin::Model) => stmt
                .query_row(params![run, d.context_id], |r| {
                    Ok(AskedRecord {
                        model: r.get(0)?,
                        base_url: r.get(1)?,
                        prompt_source: r.get(2)?,
                        prompt_sha256: r.get(3)?,
                        sent_at: r.get(4)?,
                        answered_at: r.get(5)?,
                        http_status: r.get(6)?,
                        raw_response: r.get(7)?,
                        content: r.get(8)?,
                    })
                })
                .optional()?,
            _ => None,
        };
        out.push(SuggestionRecord { draft: d, asked });
    }
    Ok(out)
}
