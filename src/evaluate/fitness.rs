//! Which stored evaluators may enter a pooled table, a panel or a comparison.
//!
//! Two things keep one out. An incomplete evaluator (a request never answered: a run stopped by
//! `--limit`, a cancel or an endpoint that went down, or lines missing from an imported file)
//! would be pooled over fewer units than its neighbours, or, as the tool once did, with its
//! unanswered requests scored as violations; the paper counts as violations only answers that
//! stay unusable after retry. It is refused by name, with what is missing and the command that
//! resumes it, unless the caller asks to include incomplete evaluators (their unanswered pairs
//! are then left out and counted beside every figure). A leaky evaluator (its judge run's stored
//! template shows the judge a field it is scored against, as the first `force_aware` template did
//! with `{{axis}}`) is refused always: its scores measure nothing.

use rusqlite::OptionalExtension;
use serde::Serialize;
use ts_rs::TS;

use super::{judge, Completeness};
use crate::error::{Error, Result};
use crate::project::Project;

/// What keeps an evaluator out of pooled results, if anything.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Fitness {
    pub name: String,
    pub completeness: Completeness,
    /// Why the evaluator's judge run is leaky (the gold placeholders its stored template holds).
    pub leaky: Option<String>,
    /// The command that sends its unanswered requests (for a judge run), in words otherwise.
    pub resume: String,
}

impl Fitness {
    /// Why it is kept out (with `include_incomplete`, only a leak keeps it out).
    pub fn refusal(&self, include_incomplete: bool) -> Option<String> {
        if let Some(why) = &self.leaky {
            return Some(format!("`{}` is leaky: {why}; it is kept out of every table, panel and comparison (run the judge again under another name with a current template)", self.name));
        }
        let c = &self.completeness;
        (!c.complete() && !include_incomplete).then(|| {
            format!(
                "`{}` is incomplete: {} of its {} requests were never answered ({} answered, {} answered but unusable); {}, or pass --include-incomplete to pool it with its unanswered pairs left out and counted",
                self.name, c.unanswered, c.requests, c.answered, c.unusable, self.resume
            )
        })
    }
}

/// The fitness of one stored evaluator on the latest locked split (`None` if no such evaluator).
pub fn of(project: &Project, name: &str) -> Result<Option<Fitness>> {
    let (version, pairs) = super::eval_pairs(project)?;
    let name = super::evaluator_name(name)?;
    let conn = project.conn();
    let id: Option<i64> = conn
        .query_row(
            "SELECT e.id FROM evaluators e JOIN splits s ON s.id = e.split_id WHERE s.version = ?1 AND e.name = ?2",
            rusqlite::params![version, name],
            |r| r.get(0),
        )
        .optional()?;
    let Some(id) = id else { return Ok(None) };
    let ids: std::collections::BTreeSet<&str> = pairs.iter().map(|p| p.id.as_str()).collect();
    let mut stmt =
        conn.prepare("SELECT candidate_id, score IS NOT NULL FROM evaluator_outputs WHERE evaluator_id = ?1")?;
    let mut c = Completeness { requests: 2 * pairs.len() as u64, ..Completeness::default() };
    for row in stmt.query_map([id], |r| Ok((r.get::<_, String>(0)?, r.get::<_, bool>(1)?)))? {
        let (cid, usable) = row?;
        if ids.contains(cid.as_str()) {
            if usable {
                c.answered += 1;
            } else {
                c.unusable += 1;
            }
        }
    }
    c.unanswered = c.requests.saturating_sub(c.answered + c.unusable);
    let run: Option<(String, String, String, String, Option<String>)> = conn
        .query_row(
            "SELECT r.base_url, r.model, coalesce(r.template_source, r.template_name), r.template_text, r.params_json
             FROM judge_runs r JOIN splits s ON s.id = r.split_id
             WHERE s.version = ?1 AND r.name = ?2 AND r.control = 'none'",
            rusqlite::params![version, name],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .optional()?;
    let (leaky, resume) = match run {
        Some((base_url, model, template, text, params)) => {
            let gold = judge::gold_placeholders(&text);
            let leaky = (!gold.is_empty()).then(|| {
                let list: Vec<String> = gold.iter().map(|g| format!("{{{{{g}}}}}")).collect();
                format!("its judge run's template puts {} in the prompt, a field it is scored against", list.join(", "))
            });
            let key = params
                .and_then(|p| serde_json::from_str::<serde_json::Value>(&p).ok())
                .and_then(|v| v.get("api_key_env").and_then(|k| k.as_str()).map(str::to_string))
                .map_or(String::new(), |k| format!(" --api-key-env {k}"));
            (
                leaky,
                format!(
                    "resume it with `forcebench judge run --base-url {base_url} --model {} --template {} --name {}{key}` (answered requests are not sent again)",
                    quote(&model),
                    quote(&template),
                    quote(&name)
                ),
            )
        }
        None => {
            (None, format!("import its missing outputs (`forcebench evaluate --scores FILE --name {}`)", quote(&name)))
        }
    };
    Ok(Some(Fitness { name, completeness: c, leaky, resume }))
}

/// A word for a shell command line: quoted when it holds anything but plain characters.
fn quote(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || "-_.@/:+=,".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Refuses, in one message naming each, every evaluator of `names` that may not be pooled (see
/// the module documentation); an unknown name is refused too.
pub fn check(project: &Project, names: &[String], include_incomplete: bool) -> Result<Vec<Fitness>> {
    let mut out = Vec::with_capacity(names.len());
    let mut refusals = Vec::new();
    let mut leak = false;
    for n in names {
        let Some(f) = of(project, n)? else {
            let (version, _) = super::eval_pairs(project)?;
            return Err(Error::NoEvaluator(format!(
                "no evaluator named `{}` is scored on locked split v{version}; `forcebench evaluate --json` lists them",
                n.trim()
            )));
        };
        if let Some(why) = f.refusal(include_incomplete) {
            leak |= f.leaky.is_some();
            refusals.push(why);
        }
        out.push(f);
    }
    if refusals.is_empty() {
        return Ok(out);
    }
    let message = refusals.join("\n");
    Err(if leak { Error::BadTemplate(message) } else { Error::Unfinished(message) })
}
