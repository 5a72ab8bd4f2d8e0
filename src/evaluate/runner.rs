//! Runs an LLM judge directly against an OpenAI-compatible chat-completions endpoint (the API
//! that OpenAI, vLLM, llama.cpp's server, Ollama and LM Studio serve).
//!
//! A run is named (its evaluator's name) and belongs to the locked split. Its requests are the
//! same complete, stateless prompts `judge export` writes, in the same seeded order, stored with
//! the run before the first is sent. Workers (at most `concurrency`) send them; every answer is
//! committed on its own as it arrives, with the time it was asked for, the HTTP status and the
//! raw body, so a run stopped in any way (kill -9, Ctrl-C, the network gone, Cancel in the app)
//! resumes by running the same command again: only requests without a committed answer are
//! sent. An answer that was received but not yet committed when the process died is asked for
//! again; an answered request never is.
//!
//! Failures: a timeout, a lost connection, 429 and 5xx are retried with exponential backoff
//! (honouring `Retry-After` in seconds; every wait at most [`MAX_WAIT`]) up to `max_attempts`; a
//! request still failing is left unanswered (the run says how many, and a later run sends them).
//! A 200 whose body is not the API's answer (an HTML page, an error object, an array, a legacy
//! `choices[].text` completion) is such a failure too: it is not the judge's answer, so it is
//! retried and then left unanswered, never scored. Any other 4xx (a wrong model, a missing key)
//! stops the run at once: retrying would not help.
//!
//! Answers the reader cannot use: as the ForceBench protocol does, an answer with no verdict the
//! reader can find (prose, broken JSON, a label the map does not know, a refusal with or without
//! text) is asked for again, as a fresh request, up to `answer_attempts` answers in all (3 by
//! default); only then does it count as missing (a violation with margin 0). The answer kept is
//! the first usable one, or the last; the ones set aside are kept too, and the number of answers
//! received is recorded per request.
//!
//! Decoding follows the paper's Appendix G by default: temperature 0 and an output cap of 1,024
//! tokens (`max_tokens`), every request fresh and stateless. The run records the endpoint, the
//! model, the template (its name, where it came from, its text and sha256), the parameters, the
//! answer reader's version ([`judge::PARSER_VERSION`]), and per request the attempts, answer
//! attempts and times.
//!
//! The API key is read from the environment variable named and sent as a bearer token; it is
//! never stored, logged or printed (the run records only the variable's name).
//!
//! Controls (see [`Control`]): `swapped_evidence` judges each claim against the passage of a row
//! of another group, `order` asks a pairwise template twice with the claims' order swapped. Both
//! are stored as runs of their own beside the evaluator's, and read by [`super::trust`].

use rusqlite::{params, OptionalExtension};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};
use ts_rs::TS;

pub use super::records::{requests, runs, Control, RequestRecord, RunRecord, SamplingParams};

use super::judge::{self, Request};
use super::{eval_pairs, LabelMap, Output, Pair};
use crate::error::{Error, Result};
use crate::project::{now, Project};

/// The most requests a run keeps in flight at once (one worker thread each).
pub const MAX_CONCURRENCY: usize = 64;

/// Everything `judge run` takes.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub name: String,
    pub base_url: String,
    pub model: String,
    /// A shipped template's name or a template file.
    pub template: String,
    /// How labels become scores; the template's own map when `None`.
    pub map: Option<String>,
    pub sampling: SamplingParams,
    pub concurrency: usize,
    /// Send at most this many of the unanswered requests (in run order), then stop.
    pub limit: Option<usize>,
    /// The longest one request may take, connection to last byte.
    pub timeout: Duration,
    pub max_attempts: u32,
    /// The wait before the first retry; doubled after each failure (at most 60 s).
    pub retry_wait: Duration,
    /// Answers asked for per request while the reader finds no verdict in them (at least 1).
    pub answer_attempts: u32,
    pub control: Control,
}

/// The paper's output cap (Appendix G): 1,024 tokens.
pub const DEFAULT_MAX_TOKENS: u32 = 1024;
/// Answers asked for per request before an unusable one counts as missing.
pub const DEFAULT_ANSWER_ATTEMPTS: u32 = 3;

impl RunOptions {
    /// The defaults of `judge run` for the required values.
    pub fn new(name: &str, base_url: &str, model: &str, template: &str) -> Self {
        RunOptions {
            name: name.to_string(),
            base_url: base_url.to_string(),
            model: model.to_string(),
            template: template.to_string(),
            map: None,
            sampling: SamplingParams {
                temperature: 0.0,
                max_tokens: Some(DEFAULT_MAX_TOKENS),
                seed: None,
                api_key_env: None,
                api: Default::default(),
                cap_field: None,
                no_temperature: false,
                extra: Default::default(),
            },
            concurrency: 4,
            limit: None,
            timeout: Duration::from_secs(120),
            max_attempts: 5,
            retry_wait: Duration::from_millis(500),
            answer_attempts: DEFAULT_ANSWER_ATTEMPTS,
            control: Control::None,
        }
    }
}

/// Where a run stands, after each answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct RunProgress {
    /// Requests with a committed answer, of `total`.
    #[ts(type = "number")]
    pub done: u64,
    #[ts(type = "number")]
    pub total: u64,
    /// Requests given up on in this run (left unanswered for the next).
    #[ts(type = "number")]
    pub failed: u64,
    /// Retries so far in this run (429, 5xx, timeouts).
    #[ts(type = "number")]
    pub retries: u64,
    /// Answers asked for again in this run because the reader found no verdict in them.
    #[ts(type = "number")]
    pub answer_retries: u64,
    /// The last request given up on in this run and why, as it happens (the window shows it).
    pub last_failure: Option<(String, String)>,
}

/// What a run did.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct RunSummary {
    pub name: String,
    pub control: Control,
    pub base_url: String,
    pub model: String,
    pub template: String,
    pub template_sha256: String,
    #[ts(type = "number")]
    pub requests: u64,
    /// Answered before this run started (a resumed run).
    #[ts(type = "number")]
    pub answered_before: u64,
    /// Answered in this run.
    #[ts(type = "number")]
    pub answered_now: u64,
    /// Still unanswered: given up on after retries, skipped by `--limit`, or left by a cancel.
    #[ts(type = "number")]
    pub unanswered: u64,
    /// The last failure of each request given up on in this run.
    pub failures: Vec<(String, String)>,
    #[ts(type = "number")]
    pub retries: u64,
    /// Answers asked for again in this run because the reader found no verdict in them.
    #[ts(type = "number")]
    pub answer_retries: u64,
    pub parser_version: String,
    pub cancelled: bool,
    /// The evaluator's scores (control `none`), over every answered request.
    pub report: Option<super::EvaluatorReport>,
    pub stats: Option<judge::ResponseStats>,
}

/// Refuses a base URL that is not http(s), or that carries a user name or password: it would be
/// stored with the run and printed by `judge runs` (the key belongs in an environment variable).
/// Every step that asks a model (judging, drafting) checks its address here.
pub fn check_base_url(url: &str) -> Result<()> {
    let url = url.trim();
    let Some(rest) = url.strip_prefix("http://").or_else(|| url.strip_prefix("https://")) else {
        return Err(Error::InvalidArgument(format!(
            "--base-url `{url}` is not an http:// or https:// address (for example http://127.0.0.1:8080/v1)"
        )));
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if authority.contains('@') {
        return Err(Error::InvalidArgument(
            "--base-url holds a user name or password before `@`; it would be stored with the run and printed by `judge runs`. Give the address without it, and the key in an environment variable named by --api-key-env".into(),
        ));
    }
    Ok(())
}

/// Refuses settings no run can be made with, in words, before anything is read or sent: a base
/// URL that is not http(s) or that carries a user name or password (it would be stored with the
/// run and printed by `judge runs`; the key belongs in an environment variable), and zero tries,
/// answers or seconds (a run that may not send, or may not wait, is no run).
pub fn check_options(opts: &RunOptions) -> Result<()> {
    check_base_url(&opts.base_url)?;
    if opts.sampling.api == super::providers::Api::Anthropic && opts.sampling.max_tokens.is_none() {
        return Err(Error::InvalidArgument(
            "--api anthropic needs an output cap (the Messages API requires max_tokens): give --max-tokens N".into(),
        ));
    }
    super::providers::check_extra(&opts.sampling.extra)?;
    // The workers are bounded (one thread each); a count outside the bound was once clamped in
    // silence, so the run went with a setting nobody gave.
    if !(1..=MAX_CONCURRENCY).contains(&opts.concurrency) {
        return Err(Error::InvalidArgument(format!(
            "--concurrency {} is outside what a run can keep in flight: give 1 to {MAX_CONCURRENCY} (requests at once)",
            opts.concurrency
        )));
    }
    if opts.max_attempts == 0 {
        return Err(Error::InvalidArgument(
            "--attempts 0 would send nothing: give at least 1 (tries per request)".into(),
        ));
    }
    if opts.answer_attempts == 0 {
        return Err(Error::InvalidArgument(
            "--answer-attempts 0 would keep no answer: give at least 1 (answers asked for per request)".into(),
        ));
    }
    if opts.timeout.is_zero() {
        return Err(Error::InvalidArgument("--timeout 0 leaves no time for an answer: give at least 1 second".into()));
    }
    Ok(())
}

/// Refuses a template that does not fit the control: the order control asks a pairwise
/// template, the others one claim at a time.
fn check_control(control: Control, t: &judge::Template) -> Result<()> {
    let name = &t.name;
    match (control, t.is_pairwise()) {
        (Control::Order, false) => Err(Error::InvalidArgument(format!(
            "the order control needs a pairwise template (with {{{{claim_a}}}} and {{{{claim_b}}}}), such as `pairwise`; `{name}` is not one"
        ))),
        (Control::None | Control::SwappedEvidence, true) => Err(Error::InvalidArgument(format!(
            "`{name}` is a pairwise template (both claims in one prompt): it is for the order control (`--control order`), not for --control {}",
            control.as_str()
        ))),
        _ => Ok(()),
    }
}

/// The requests of a run, in the run's seeded order.
fn requests_for(control: Control, t: &judge::Template, pairs: &[Pair], seed: u64) -> Result<Vec<Request>> {
    let name = &t.name;
    let pairwise = t.is_pairwise();
    match control {
        Control::Order if !pairwise => {
            return Err(Error::InvalidArgument(format!(
                "the order control needs a pairwise template (with {{{{claim_a}}}} and {{{{claim_b}}}}), such as `pairwise`; `{name}` is not one"
            )))
        }
        Control::None | Control::SwappedEvidence if pairwise => {
            return Err(Error::InvalidArgument(format!(
                "`{name}` is a pairwise template: it is for the order control (`--control order`)"
            )))
        }
        _ => {}
    }
    let with_context = |p: &Pair| (p.clone(), p.context.clone());
    let list: Vec<Request> = match control {
        Control::None => judge::requests(t, &pairs.iter().map(with_context).collect::<Vec<_>>(), seed),
        Control::SwappedEvidence => {
            let donors = swap_donors(pairs, seed)?;
            let swapped: Vec<(Pair, String)> = pairs
                .iter()
                .zip(donors)
                .map(|(p, d)| {
                    let d = &pairs[d];
                    let mut q = p.clone();
                    q.passage = d.passage.clone();
                    q.evidence_span = d.evidence_span.clone();
                    (q, d.context.clone())
                })
                .collect();
            judge::requests(t, &swapped, seed)
        }
        Control::Order => {
            let mut out: Vec<Request> = pairs
                .iter()
                .flat_map(|p| {
                    [("ab", &p.calibrated_claim, &p.raised_claim), ("ba", &p.raised_claim, &p.calibrated_claim)].map(
                        |(order, a, b)| Request {
                            request_id: format!("{}:{order}", p.id),
                            id: p.id.clone(),
                            claim: order.to_string(),
                            template: name.to_string(),
                            template_sha256: String::new(),
                            system: t.system.clone(),
                            prompt: judge::fill_pairwise(&t.user, p, a, b),
                        },
                    )
                })
                .collect();
            out.sort_by_cached_key(|r| Sha256::digest(format!("judge:{seed}:{}", r.request_id).as_bytes()).to_vec());
            out
        }
    };
    Ok(list)
}

/// For each pair, the index of the pair whose evidence it is shown under the swap: the next pair
/// of another group in a seeded order (so no pair keeps its own passage, and the choice is
/// reproducible from the seed).
pub fn swap_donors(pairs: &[Pair], seed: u64) -> Result<Vec<usize>> {
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    order.sort_by_cached_key(|&i| Sha256::digest(format!("swap:{seed}:{}", pairs[i].id).as_bytes()).to_vec());
    let mut donors = vec![0; pairs.len()];
    for (k, &i) in order.iter().enumerate() {
        let donor = (1..order.len())
            .map(|step| order[(k + step) % order.len()])
            .find(|&j| pairs[j].group_id != pairs[i].group_id)
            .ok_or_else(|| {
                Error::NotEnoughGroups(
                    "the swapped-evidence control needs evaluation rows from at least two groups".into(),
                )
            })?;
        donors[i] = donor;
    }
    Ok(donors)
}

/// The run row for (name, split, control), created if new; refused if it exists with other
/// settings (a resumed run must ask the same of the same model).
#[allow(clippy::too_many_arguments)]
fn find_or_create_run(
    tx: &rusqlite::Transaction,
    opts: &RunOptions,
    split_id: i64,
    t: &judge::Template,
    map_name: &str,
    requests: &[Request],
) -> Result<i64> {
    let (template_name, template_text, sha) = (&t.name, &t.text, &t.sha256());
    let params_json = serde_json::to_string(&opts.sampling).expect("parameters serialise");
    let existing: Option<(i64, String, String, String, String, String, String)> = tx
        .query_row(
            "SELECT id, base_url, model, template_sha256, label_map, params_json, template_text FROM judge_runs
             WHERE name = ?1 AND split_id = ?2 AND control = ?3",
            params![opts.name, split_id, opts.control.as_str()],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?)),
        )
        .optional()?;
    if let Some((id, base_url, model, old_sha, old_map, old_params, old_text)) = existing {
        // A run begun before templates declared themselves sent the same messages: the added
        // [template] section changes the file's sha256, not what the judge was asked.
        let same_messages = judge::Template::parse(template_name, &old_text)
            .is_ok_and(|old| old.declared.is_none() && old.system == t.system && old.user == t.user);
        let mut differs = Vec::new();
        if base_url != opts.base_url {
            differs.push(format!("base URL {base_url}"));
        }
        if model != opts.model {
            differs.push(format!("model {model}"));
        }
        if &old_sha != sha && !same_messages {
            differs.push(format!("template sha256 {}…", &old_sha[..12]));
        }
        if old_map != map_name {
            differs.push(format!("label map {old_map}"));
        }
        if old_params != params_json {
            differs.push(format!("parameters {old_params}"));
        }
        if !differs.is_empty() {
            return Err(Error::JudgeRunDiffers(format!(
                "a judge run named `{}` ({}) already exists on this split with {}; resume it with the same settings, or give this run another --name",
                opts.name,
                opts.control.as_str(),
                differs.join(", ")
            )));
        }
        return Ok(id);
    }
    tx.execute(
        "INSERT INTO judge_runs (name, split_id, control, base_url, model, template_name, template_text, template_sha256, label_map, params_json, started_at,
                                 parser_version, answer_attempts, template_source)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
        params![
            opts.name,
            split_id,
            opts.control.as_str(),
            opts.base_url,
            opts.model,
            template_name,
            template_text,
            sha,
            map_name,
            params_json,
            now(),
            judge::PARSER_VERSION,
            opts.answer_attempts.max(1),
            opts.template
        ],
    )?;
    let run = tx.last_insert_rowid();
    let mut insert =
        tx.prepare("INSERT INTO judge_requests (run_id, request_id, seq, prompt, system) VALUES (?1, ?2, ?3, ?4, ?5)")?;
    for (seq, r) in requests.iter().enumerate() {
        insert.execute(params![run, r.request_id, seq as i64, r.prompt, r.system])?;
    }
    Ok(run)
}

/// One finished exchange with the endpoint.
enum Outcome {
    /// A 200: the body as received and the message text read from it (if any), with the
    /// number of answers received and the unusable ones set aside before it.
    Answered {
        status: u16,
        body: String,
        content: Option<String>,
        sent_at: String,
        answers: u32,
        rejected: Vec<String>,
    },
    /// Given up on after retries (the last failure, in words).
    GaveUp(String),
    /// A refusal retrying cannot fix (401, 404...): the run stops.
    Fatal(String),
    /// Cancelled before an answer.
    Cancelled,
}

/// The longest wait between two tries of one request, whatever `Retry-After` or the backoff say.
pub const MAX_WAIT: Duration = Duration::from_secs(60);

/// What a worker sends back: the request, the outcome and how many retries it took.
type Done = (String, Outcome, u64);

/// The message text of a chat-completions body (`choices[0].message.content`): `Ok(None)` for an
/// answer without text (a refusal, a null content), `Err` (in words) for a body that is not a
/// chat completion at all, which is a failed exchange rather than an answer.
pub fn content_of(body: &str) -> std::result::Result<Option<String>, String> {
    super::providers::Api::Chat.content_of(body)
}

/// The endpoint's URL for chat completions: `BASE/chat/completions` (BASE usually ends in `/v1`).
pub fn completions_url(base_url: &str) -> String {
    format!("{}/chat/completions", base_url.trim_end_matches('/'))
}

/// Sends one request, retrying what may pass on a later try.
#[allow(clippy::too_many_arguments)]
fn exchange(
    api: super::providers::Api,
    agent: &ureq::Agent,
    url: &str,
    key: Option<&str>,
    body: &serde_json::Value,
    max_attempts: u32,
    retry_wait: Duration,
    cancel: &AtomicBool,
) -> (Outcome, u64) {
    let mut retries = 0;
    let mut wait = retry_wait;
    let mut last = String::new();
    for attempt in 1..=max_attempts.max(1) {
        if cancel.load(Ordering::Relaxed) {
            return (Outcome::Cancelled, retries);
        }
        let sent_at = now();
        let mut request = agent.post(url).header("Content-Type", "application/json");
        for (name, value) in api.headers(key) {
            request = request.header(name, value);
        }
        let mut retry_after = None;
        match request.send_json(body) {
            Ok(mut response) => {
                let status = response.status().as_u16();
                let text = response.body_mut().read_to_string();
                match (status, text) {
                    (200..=299, Ok(body)) => match api.content_of(&body) {
                        Ok(content) => {
                            let answered =
                                Outcome::Answered { status, body, content, sent_at, answers: 1, rejected: Vec::new() };
                            return (answered, retries);
                        }
                        Err(why) => last = format!("HTTP {status}, but not an answer: {why}{}", excerpt(&body)),
                    },
                    (200..=299, Err(e)) => last = format!("the answer could not be read: {e}"),
                    (429 | 500..=599, text) => {
                        retry_after = response
                            .headers()
                            .get("retry-after")
                            .and_then(|v| v.to_str().ok())
                            .and_then(|v| v.trim().parse::<u64>().ok())
                            .map(|s| Duration::from_secs(s.min(60)));
                        last = format!("HTTP {status}{}", excerpt(&text.unwrap_or_default()));
                    }
                    (status, text) => {
                        let advice = match status {
                            401 | 403 => " (check the API key: --api-key-env names the variable holding it)",
                            404 => " (check --base-url, which usually ends in /v1, and --model)",
                            _ => "",
                        };
                        return (
                            Outcome::Fatal(format!(
                                "the endpoint refused the request: HTTP {status}{}{advice}",
                                excerpt(&text.unwrap_or_default())
                            )),
                            retries,
                        );
                    }
                }
            }
            Err(ureq::Error::Timeout(_)) => last = "no answer within the timeout".into(),
            Err(ureq::Error::Io(e)) => last = format!("connection failed: {e}"),
            Err(ureq::Error::ConnectionFailed) => last = "connection failed".into(),
            Err(ureq::Error::HostNotFound) => {
                return (Outcome::Fatal(format!("no host at {url} (check --base-url)")), retries)
            }
            Err(e) => return (Outcome::Fatal(format!("the request could not be sent: {e}")), retries),
        }
        if attempt == max_attempts.max(1) {
            break;
        }
        retries += 1;
        let pause = retry_after.unwrap_or(wait).min(MAX_WAIT);
        wait = (wait.min(MAX_WAIT) * 2).min(MAX_WAIT);
        // Sleep in short steps so a cancel is heard.
        let until = Instant::now() + pause;
        while Instant::now() < until {
            if cancel.load(Ordering::Relaxed) {
                return (Outcome::Cancelled, retries);
            }
            std::thread::sleep(Duration::from_millis(20).min(until - Instant::now()));
        }
    }
    (Outcome::GaveUp(format!("{last} (after {} attempts)", max_attempts.max(1))), retries)
}

/// `: <the first 200 characters of the body>`, or nothing for an empty body.
fn excerpt(body: &str) -> String {
    let t = body.trim();
    if t.is_empty() {
        return String::new();
    }
    let cut: String = t.chars().take(200).collect();
    format!(": {cut}{}", if t.chars().count() > 200 { "…" } else { "" })
}

/// The API key from the environment variable named, refused when the variable is unset.
fn api_key(var: Option<&str>) -> Result<Option<String>> {
    match var {
        None => Ok(None),
        Some(v) => match std::env::var(v) {
            Ok(k) if !k.trim().is_empty() => Ok(Some(k.trim().to_string())),
            _ => Err(Error::InvalidArgument(format!(
                "the environment variable {v} (named by --api-key-env) is not set; export the API key in it"
            ))),
        },
    }
}

/// Runs (or resumes) a judge: see the module documentation. `progress` hears after each
/// answer; setting `cancel` stops sending (what was answered stays, and the run resumes later).
pub fn run(
    project: &mut Project,
    opts: &RunOptions,
    progress: &mut dyn FnMut(&RunProgress),
    cancel: &AtomicBool,
) -> Result<RunSummary> {
    crate::limits::retry_wait(opts.retry_wait)?;
    let name = super::evaluator_name(&opts.name)?;
    check_options(opts)?;
    let key = api_key(opts.sampling.api_key_env.as_deref())?;
    if opts.model.trim().is_empty() {
        return Err(Error::InvalidArgument("--model needs the model's name as the endpoint knows it".into()));
    }
    if !(0.0..=2.0).contains(&opts.sampling.temperature) {
        return Err(Error::InvalidArgument(format!(
            "--temperature {} is not between 0 and 2",
            opts.sampling.temperature
        )));
    }
    let template = judge::template(&opts.template)?;
    check_control(opts.control, &template)?;
    let template_name = template.name.clone();
    // The label map the template declares in its own text (never one guessed from its name).
    let map_name = match (&opts.map, template.label_map_name()) {
        (Some(m), _) => m.clone(),
        (None, Some(m)) => m,
        (None, None) => {
            return Err(Error::BadTemplate(format!(
                "template {template_name} declares no label map; add a [template] section or give --map"
            )))
        }
    };
    let map = if opts.control == Control::Order { None } else { Some(LabelMap::named(&map_name)?) };
    let sha = template.sha256();
    let (version, pairs) = eval_pairs(project)?;
    let seed = opts.sampling.seed.unwrap_or(1);
    let requests = requests_for(opts.control, &template, &pairs, seed)?;

    let tx = project.conn_mut().transaction()?;
    let split_id: i64 = tx.query_row("SELECT id FROM splits WHERE version = ?1", [version], |r| r.get(0))?;
    let run_id = find_or_create_run(&tx, opts, split_id, &template, &map_name, &requests)?;
    tx.commit()?;

    let total = requests.len() as u64;
    let pending: Vec<(String, Option<String>, String)> = {
        let mut stmt = project.conn().prepare(
            "SELECT request_id, system, prompt FROM judge_requests WHERE run_id = ?1 AND answered_at IS NULL ORDER BY seq",
        )?;
        let rows = stmt.query_map([run_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let answered_before = total - pending.len() as u64;
    let to_send: Vec<(String, Option<String>, String)> =
        pending.into_iter().take(opts.limit.unwrap_or(usize::MAX)).collect();
    let sent = to_send.len() as u64;
    // Whether the reader finds a verdict in an answer; one without is asked for again.
    let usable: Arc<dyn Fn(&str) -> bool + Send + Sync> = match &map {
        Some(m) => {
            let m = m.clone();
            Arc::new(move |text: &str| judge::parse_answer(text, &m).score.is_some())
        }
        None => Arc::new(|text: &str| judge::pick(text).is_some()),
    };

    let mut state =
        RunProgress { done: answered_before, total, failed: 0, retries: 0, answer_retries: 0, last_failure: None };
    progress(&state);
    let mut failures = Vec::new();
    let mut answered_now = 0;
    let mut fatal = None;
    let stop = Arc::new(AtomicBool::new(false));

    if !to_send.is_empty() {
        let agent: ureq::Agent =
            ureq::Agent::config_builder().timeout_global(Some(opts.timeout)).http_status_as_error(false).build().into();
        let api = opts.sampling.api;
        let url = api.url(&opts.base_url);
        let jobs = Arc::new(Mutex::new(to_send.into_iter()));
        let (tx_done, rx_done) = mpsc::channel::<Done>();
        let workers = opts.concurrency.clamp(1, MAX_CONCURRENCY);
        for _ in 0..workers {
            let (agent, url, key, jobs, tx_done, stop) =
                (agent.clone(), url.clone(), key.clone(), jobs.clone(), tx_done.clone(), stop.clone());
            let (model, sampling, max_attempts, retry_wait, usable) =
                (opts.model.clone(), opts.sampling.clone(), opts.max_attempts, opts.retry_wait, usable.clone());
            let answer_attempts = opts.answer_attempts.max(1);
            std::thread::spawn(move || loop {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let Some((rid, system, prompt)) = jobs.lock().expect("job list").next() else { return };
                let body = api.body(
                    &model,
                    system.as_deref(),
                    &prompt,
                    &super::providers::Sampling {
                        temperature: (!sampling.no_temperature).then_some(sampling.temperature),
                        cap: sampling.max_tokens.map(|n| (n, sampling.cap_field.as_deref())),
                        seed: sampling.seed,
                        extra: &sampling.extra,
                    },
                );
                // Ask again (a fresh request) while the answer holds no verdict the reader can use.
                let (mut outcome, mut retries) = (Outcome::Cancelled, 0);
                let mut set_aside: Vec<String> = Vec::new();
                for answer in 1..=answer_attempts {
                    let (o, r) = exchange(api, &agent, &url, key.as_deref(), &body, max_attempts, retry_wait, &stop);
                    retries += r;
                    outcome = o;
                    let Outcome::Answered { content, answers, rejected, .. } = &mut outcome else { break };
                    *answers = answer;
                    let text = content.clone().unwrap_or_default();
                    if usable(&text) || answer == answer_attempts {
                        *rejected = std::mem::take(&mut set_aside);
                        break;
                    }
                    set_aside.push(text);
                }
                if matches!(outcome, Outcome::Fatal(_)) {
                    // Stop the other workers before they take another request.
                    stop.store(true, Ordering::Relaxed);
                }
                if tx_done.send((rid, outcome, retries)).is_err() {
                    return;
                }
            });
        }
        drop(tx_done);
        loop {
            // Wake now and then to hear a cancel even while every worker waits on the network.
            let (rid, outcome, retries) = match rx_done.recv_timeout(Duration::from_millis(100)) {
                Ok(done) => done,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if cancel.load(Ordering::Relaxed) {
                        stop.store(true, Ordering::Relaxed);
                        break;
                    }
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            };
            state.retries += retries;
            match outcome {
                Outcome::Answered { status, body, content, sent_at, answers, rejected } => {
                    let rejected_json =
                        (!rejected.is_empty()).then(|| serde_json::to_string(&rejected).expect("strings serialise"));
                    state.answer_retries += u64::from(answers.saturating_sub(1));
                    let tx = project.conn_mut().transaction()?;
                    tx.execute(
                        "UPDATE judge_requests SET attempts = attempts + ?3, sent_at = ?4, answered_at = ?5,
                             http_status = ?6, raw_response = ?7, content = ?8, last_error = NULL,
                             answer_attempts = ?9, rejected_answers = ?10
                         WHERE run_id = ?1 AND request_id = ?2",
                        params![
                            run_id,
                            rid,
                            retries as i64 + i64::from(answers),
                            sent_at,
                            now(),
                            status,
                            body,
                            content,
                            answers,
                            rejected_json
                        ],
                    )?;
                    tx.commit()?;
                    crate::crashpoint::hit("judge-after-answer");
                    answered_now += 1;
                    state.done += 1;
                }
                Outcome::GaveUp(why) => {
                    project.conn().execute(
                        "UPDATE judge_requests SET attempts = attempts + ?3, last_error = ?4 WHERE run_id = ?1 AND request_id = ?2",
                        params![run_id, rid, retries as i64 + 1, why],
                    )?;
                    state.failed += 1;
                    state.last_failure = Some((rid.clone(), why.clone()));
                    failures.push((rid, why));
                }
                Outcome::Fatal(why) => {
                    fatal = Some(why);
                    stop.store(true, Ordering::Relaxed);
                    break;
                }
                Outcome::Cancelled => {}
            }
            progress(&state);
            if cancel.load(Ordering::Relaxed) {
                stop.store(true, Ordering::Relaxed);
                break;
            }
        }
    }
    if let Some(why) = fatal {
        return Err(Error::EndpointRefused(format!(
            "{why}; {answered_now} answer(s) from this run are kept, and running the same command again resumes"
        )));
    }
    let unanswered = project.conn().query_row(
        "SELECT count(*) FROM judge_requests WHERE run_id = ?1 AND answered_at IS NULL",
        [run_id],
        |r| r.get::<_, i64>(0),
    )? as u64;
    if unanswered == 0 {
        project.conn().execute(
            "UPDATE judge_runs SET finished_at = coalesce(finished_at, ?2) WHERE id = ?1",
            params![run_id, now()],
        )?;
    }
    let cancelled = cancel.load(Ordering::Relaxed);
    if sent > 0 && answered_now == 0 && !cancelled {
        // Nothing came back: a dead endpoint is not an evaluator with every pair missing.
        let why = failures.last().map_or(String::new(), |(rid, why)| format!("; the last, {rid}: {why}"));
        return Err(Error::Unfinished(format!(
            "none of the {sent} request(s) sent was answered{why}. Nothing was scored; check the endpoint and run the same command again to resume"
        )));
    }
    let (report, stats) = match (&map, opts.control) {
        (Some(map), Control::None) => {
            let ids = pairs.iter().map(|p| p.id.clone()).collect();
            let (outputs, stats) = outputs_of(project, run_id, map, &ids)?;
            if outputs.is_empty() {
                // No answer yet (a run cancelled before its first): nothing to score.
                (None, None)
            } else {
                super::store(project, &name, &map.name, &outputs)?;
                (
                    Some(super::report(
                        &name,
                        &map.name,
                        version,
                        &pairs,
                        &outputs,
                        Some((super::BOOTSTRAP_REPS, super::BOOTSTRAP_SEED)),
                    )),
                    Some(stats),
                )
            }
        }
        _ => (None, None),
    };
    Ok(RunSummary {
        name,
        control: opts.control,
        base_url: opts.base_url.clone(),
        model: opts.model.clone(),
        template: template_name,
        template_sha256: sha,
        requests: total,
        answered_before,
        answered_now,
        unanswered,
        failures,
        retries: state.retries,
        answer_retries: state.answer_retries,
        parser_version: judge::PARSER_VERSION.to_string(),
        cancelled,
        report,
        stats,
    })
}

/// The evaluator outputs of a run's answered requests, read with the tolerant reader.
pub(crate) fn outputs_of(
    project: &Project,
    run_id: i64,
    map: &LabelMap,
    ids: &std::collections::BTreeSet<String>,
) -> Result<(Vec<Output>, judge::ResponseStats)> {
    let mut stmt = project.conn().prepare(
        "SELECT request_id, coalesce(content, '') FROM judge_requests WHERE run_id = ?1 AND answered_at IS NOT NULL ORDER BY seq",
    )?;
    let rows: Vec<(String, String)> =
        stmt.query_map([run_id], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<_>>()?;
    let mut outputs = Vec::with_capacity(rows.len());
    let mut stats = judge::ResponseStats { responses: 0, json: 0, label_in_text: 0, unparsable: Vec::new() };
    for (rid, content) in rows {
        let Some((id, which)) = rid.rsplit_once(':') else { continue };
        if !ids.contains(id) {
            continue;
        }
        stats.responses += 1;
        let (label, score, how) = judge::parse_response(&content, map);
        match how {
            judge::Parsed::Json => stats.json += 1,
            judge::Parsed::LabelInText => stats.label_in_text += 1,
            judge::Parsed::Unparsable => stats.unparsable.push(rid.clone()),
        }
        outputs.push(Output { id: id.to_string(), safe: which == "safe", score, label, raw: Some(content) });
    }
    Ok((outputs, stats))
}

/// A client of an OpenAI-compatible endpoint for the other steps that ask a model (drafting
/// candidates), so they send through the same HTTP client, retries and refusals as a judge run.
pub(crate) struct ChatClient {
    api: super::providers::Api,
    agent: ureq::Agent,
    url: String,
    key: Option<String>,
}

/// What one request of a [`ChatClient`] came to.
pub(crate) enum Asked {
    /// A 200: the body as received, the message text read from it, when it was asked for.
    Answered {
        status: u16,
        body: String,
        content: Option<String>,
        sent_at: String,
    },
    /// Given up on after retries (the last failure, in words).
    GaveUp(String),
    /// A refusal retrying cannot fix (401, 404...).
    Fatal(String),
    Cancelled,
}

impl ChatClient {
    /// A client of `base_url`, with the key read from the environment variable named (never
    /// stored); refused for an address that is not http(s).
    pub(crate) fn new(
        api: super::providers::Api,
        base_url: &str,
        api_key_env: Option<&str>,
        timeout: Duration,
    ) -> Result<ChatClient> {
        check_base_url(base_url)?;
        let key = api_key(api_key_env)?;
        let agent: ureq::Agent =
            ureq::Agent::config_builder().timeout_global(Some(timeout)).http_status_as_error(false).build().into();
        Ok(ChatClient { api, agent, url: api.url(base_url.trim()), key })
    }

    /// The request body of one prompt (no system message) in the client's API style.
    pub(crate) fn body(&self, model: &str, prompt: &str, sampling: &super::providers::Sampling) -> serde_json::Value {
        self.api.body(model, None, prompt, sampling)
    }

    /// Sends one request body, retrying as a judge run does; returns the outcome and
    /// the retries it took.
    pub(crate) fn ask(
        &self,
        body: &serde_json::Value,
        max_attempts: u32,
        retry_wait: Duration,
        cancel: &AtomicBool,
    ) -> (Asked, u64) {
        let (outcome, retries) =
            exchange(self.api, &self.agent, &self.url, self.key.as_deref(), body, max_attempts, retry_wait, cancel);
        let asked = match outcome {
            Outcome::Answered { status, body, content, sent_at, .. } => {
                Asked::Answered { status, body, content, sent_at }
            }
            Outcome::GaveUp(why) => Asked::GaveUp(why),
            Outcome::Fatal(why) => Asked::Fatal(why),
            Outcome::Cancelled => Asked::Cancelled,
        };
        (asked, retries)
    }
}
