//! What a judge run recorded, read back for an audit: every run with its manifest (`judge runs`)
//! and every request of one run as sent and answered (`judge requests`).

use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::judge;
use super::LabelMap;
use crate::error::{Error, Result};
use crate::project::Project;

/// What a run measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Control {
    /// The judge as an evaluator: each claim against its own passage; scored by MVR and FS.
    None,
    /// Each claim against the passage (and span and context) of a row of another group, chosen
    /// by a seeded rule: a faithful judge stops supporting the calibrated claim.
    SwappedEvidence,
    /// A pairwise template asked twice per pair, the claims' order swapped: a judge without
    /// position bias names the same claim both times.
    Order,
}

impl Control {
    pub const ALL: [Control; 3] = [Control::None, Control::SwappedEvidence, Control::Order];
    pub fn as_str(self) -> &'static str {
        match self {
            Control::None => "none",
            Control::SwappedEvidence => "swapped_evidence",
            Control::Order => "order",
        }
    }
}

impl std::str::FromStr for Control {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        Control::ALL
            .into_iter()
            .find(|c| c.as_str() == s.trim())
            .ok_or_else(|| format!("`{s}` is not a control; expected none, swapped_evidence or order"))
    }
}

/// The sampling parameters sent with every request (part of what a run is: a resumed run must
/// send the same).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct SamplingParams {
    pub temperature: f64,
    pub max_tokens: Option<u32>,
    /// Sent to the endpoint when given; also orders the requests (seed 1 when not given).
    #[ts(type = "number | null")]
    pub seed: Option<u64>,
    /// The environment variable the API key was read from (never the key).
    pub api_key_env: Option<String>,
    /// The API style (chat completions when absent, as runs before it was recorded were).
    #[serde(default, skip_serializing_if = "super::providers::Api::is_chat")]
    pub api: super::providers::Api,
    /// The field the output cap is sent in, when not the style's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cap_field: Option<String>,
    /// Send no temperature (a provider whose deterministic mode is a named setting, in `extra`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_temperature: bool,
    /// Fixed fields added to every request body.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    #[ts(type = "Record<string, unknown>")]
    pub extra: std::collections::BTreeMap<String, serde_json::Value>,
}

/// One stored run, as `judge runs` lists it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct RunRecord {
    pub name: String,
    pub control: Control,
    #[ts(type = "number")]
    pub split_version: i64,
    pub base_url: String,
    pub model: String,
    pub template: String,
    pub template_sha256: String,
    pub label_map: String,
    pub params: SamplingParams,
    pub started_at: String,
    pub finished_at: Option<String>,
    #[ts(type = "number")]
    pub requests: u64,
    #[ts(type = "number")]
    pub answered: u64,
    /// The template as given to `judge run` (a shipped name or a file path); `None` for runs
    /// made before it was recorded.
    pub template_source: Option<String>,
    /// The answer reader's version the run was read with (`None`: before it was recorded).
    pub parser_version: Option<String>,
    /// Answers asked for per request before an unusable one counts as missing.
    pub answer_attempts: Option<u32>,
    /// Sends beyond the first for transport failures (timeouts, 429, 5xx), over every request.
    #[ts(type = "number")]
    pub transport_retries: u64,
    /// Answers asked for again because the reader found no verdict, over every request.
    #[ts(type = "number")]
    pub answer_retries: u64,
    /// Answered requests whose kept answer still has no verdict (they count as missing).
    #[ts(type = "number")]
    pub unusable: u64,
    /// Why the run is leaky, if it is: its stored template shows the judge a field it is scored
    /// against (as the first `force_aware` template did with `{{axis}}`). A leaky run is kept out
    /// of every table, panel and comparison.
    pub leaky: Option<String>,
}

/// A base URL as it may be shown: a user name or password before `@` (which runs made before
/// such URLs were refused may hold) is replaced by `***`.
pub fn shown_url(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..end].rfind('@') {
        Some(at) => format!("{scheme}://***@{}", &rest[at + 1..]),
        None => url.to_string(),
    }
}

/// Every judge run of the project, newest split first, then by name and control.
pub fn runs(project: &Project) -> Result<Vec<RunRecord>> {
    let mut stmt = project.conn().prepare(
        "SELECT r.name, r.control, s.version, r.base_url, r.model, r.template_name, r.template_sha256, r.label_map,
                r.params_json, r.started_at, r.finished_at,
                (SELECT count(*) FROM judge_requests q WHERE q.run_id = r.id),
                (SELECT count(*) FROM judge_requests q WHERE q.run_id = r.id AND q.answered_at IS NOT NULL),
                r.template_source, r.parser_version, r.answer_attempts,
                (SELECT coalesce(sum(max(q.attempts - max(q.answer_attempts, q.answered_at IS NOT NULL), 0)), 0) FROM judge_requests q WHERE q.run_id = r.id),
                (SELECT coalesce(sum(max(q.answer_attempts - 1, 0)), 0) FROM judge_requests q WHERE q.run_id = r.id),
                r.id, r.template_text
         FROM judge_runs r JOIN splits s ON s.id = r.split_id ORDER BY s.version DESC, r.name, r.control",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get(2)?,
            r.get::<_, String>(3)?,
            r.get(4)?,
            r.get(5)?,
            r.get(6)?,
            r.get::<_, String>(7)?,
            r.get::<_, String>(8)?,
            r.get(9)?,
            r.get(10)?,
            r.get::<_, i64>(11)?,
            r.get::<_, i64>(12)?,
            (r.get::<_, Option<String>>(13)?, r.get::<_, Option<String>>(14)?, r.get::<_, Option<u32>>(15)?),
            (r.get::<_, i64>(16)?, r.get::<_, i64>(17)?, r.get::<_, i64>(18)?),
            r.get::<_, String>(19)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (
            name,
            control,
            split_version,
            base_url,
            model,
            template,
            template_sha256,
            label_map,
            params,
            started_at,
            finished_at,
            n,
            a,
            (template_source, parser_version, answer_attempts),
            (transport_retries, answer_retries, run_id),
            template_text,
        ) = row?;
        let gold = judge::gold_placeholders(&template_text);
        let leaky = (!gold.is_empty()).then(|| {
            let list: Vec<String> = gold.iter().map(|g| format!("{{{{{g}}}}}")).collect();
            format!("its template puts {} in the prompt, a field the judge is scored against", list.join(", "))
        });
        let unusable = unusable_answers(project, run_id, &control, &label_map)?;
        out.push(RunRecord {
            name,
            control: control.parse().map_err(Error::Corrupt)?,
            split_version,
            base_url: shown_url(&base_url),
            model,
            template,
            template_sha256,
            label_map,
            params: serde_json::from_str(&params).map_err(|e| Error::Corrupt(format!("judge run parameters: {e}")))?,
            started_at,
            finished_at,
            requests: n as u64,
            answered: a as u64,
            template_source,
            parser_version,
            answer_attempts,
            transport_retries: transport_retries as u64,
            answer_retries: answer_retries as u64,
            unusable,
            leaky,
        });
    }
    Ok(out)
}

/// How many answered requests of a run hold no verdict the reader can use.
fn unusable_answers(project: &Project, run_id: i64, control: &str, label_map: &str) -> Result<u64> {
    let map = if control == Control::Order.as_str() { None } else { LabelMap::named(label_map).ok() };
    let mut stmt = project
        .conn()
        .prepare("SELECT coalesce(content, '') FROM judge_requests WHERE run_id = ?1 AND answered_at IS NOT NULL")?;
    let texts = stmt.query_map([run_id], |r| r.get::<_, String>(0))?;
    let mut n = 0;
    for t in texts {
        let t = t?;
        let ok = match &map {
            Some(m) => judge::parse_answer(&t, m).score.is_some(),
            None => judge::pick(&t).is_some(),
        };
        n += u64::from(!ok);
    }
    Ok(n)
}

/// One request of a run as recorded, for an audit (`judge requests`).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct RequestRecord {
    pub request_id: String,
    /// The system message sent with it (`None` for runs whose templates had none).
    pub system: Option<String>,
    pub prompt: String,
    /// Every send, transport retries and answers asked for again included.
    #[ts(type = "number")]
    pub attempts: i64,
    /// Answers received (more than one when an unusable answer was asked for again).
    #[ts(type = "number")]
    pub answer_attempts: i64,
    /// The unusable answers set aside before the one kept.
    pub rejected_answers: Vec<String>,
    pub sent_at: Option<String>,
    pub answered_at: Option<String>,
    pub http_status: Option<i64>,
    pub raw_response: Option<String>,
    pub content: Option<String>,
    pub last_error: Option<String>,
}

/// Every request of the named run on the latest locked split, in the order sent.
pub fn requests(project: &Project, name: &str, control: Control) -> Result<Vec<RequestRecord>> {
    let name = super::evaluator_name(name)?;
    let run_id: i64 = project
        .conn()
        .query_row(
            "SELECT r.id FROM judge_runs r JOIN splits s ON s.id = r.split_id
             WHERE r.name = ?1 AND r.control = ?2 ORDER BY s.version DESC LIMIT 1",
            params![name, control.as_str()],
            |r| r.get(0),
        )
        .optional()?
        .ok_or_else(|| Error::NoJudgeRun(format!("no judge run named `{}` ({})", name.trim(), control.as_str())))?;
    let mut stmt = project.conn().prepare(
        "SELECT request_id, prompt, attempts, sent_at, answered_at, http_status, raw_response, content, last_error,
                system, answer_attempts, rejected_answers
         FROM judge_requests WHERE run_id = ?1 ORDER BY seq",
    )?;
    let rows = stmt.query_map([run_id], |r| {
        Ok(RequestRecord {
            request_id: r.get(0)?,
            system: r.get(9)?,
            prompt: r.get(1)?,
            attempts: r.get(2)?,
            answer_attempts: r.get(10)?,
            rejected_answers: r
                .get::<_, Option<String>>(11)?
                .and_then(|j| serde_json::from_str(&j).ok())
                .unwrap_or_default(),
            sent_at: r.get(3)?,
            answered_at: r.get(4)?,
            http_status: r.get(5)?,
            raw_response: r.get(6)?,
            content: r.get(7)?,
            last_error: r.get(8)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
