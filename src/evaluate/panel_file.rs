//! A panel file: the models of a judge battery with each one's provider profile, so a panel of
//! several vendors runs in one command (`forcebench judge battery --panel panel.toml --out DIR`).
//!
//! ```toml
//! [[model]]
//! name = "gpt-5.5"                      # the model as its endpoint knows it
//! api = "responses"                     # chat (default), responses or anthropic
//! base_url = "https://api.openai.com/v1"
//! api_key_env = "OPENAI_API_KEY"        # the variable holding the key (never the key)
//! max_tokens = 1024                     # the output cap (default 1024; 0 sends none)
//! cap_field = "max_output_tokens"       # optional: the field the cap is sent in
//! temperature = 0.0                     # default 0
//! no_temperature = false                # true: send no temperature (a named mode in extra)
//! extra = { reasoning = { effort = "minimal" } }   # fixed fields added to every request
//! ```
//!
//! Unknown keys are refused (a misspelt `max_token` is never silently the default), as are a
//! model named twice (in any Unicode form), a missing name or base URL, and anything the runner
//! refuses for one run. The schema is `schema/panel.schema.json`.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

use super::providers::Api;
use super::runner::{RunOptions, DEFAULT_MAX_TOKENS};
use crate::error::{Error, Result};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    model: Vec<Profile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Profile {
    name: String,
    #[serde(default)]
    api: Option<String>,
    base_url: String,
    #[serde(default)]
    api_key_env: Option<String>,
    #[serde(default)]
    max_tokens: Option<u32>,
    #[serde(default)]
    cap_field: Option<String>,
    #[serde(default)]
    temperature: Option<f64>,
    #[serde(default)]
    no_temperature: bool,
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default)]
    extra: BTreeMap<String, toml::Value>,
}

/// The run options of every model of a panel file, on top of `base` (concurrency, retries,
/// timeout, limit...), each checked as a run is before anything is sent.
pub fn read(path: &Path, base: &RunOptions) -> Result<Vec<RunOptions>> {
    let (file, text) = crate::input::read_text(path)?;
    let bad = |message: String| Error::InvalidArgument(format!("panel file {file}: {message}"));
    let parsed: File = toml::from_str(&text).map_err(|e| bad(e.to_string().trim().replace('\n', " ")))?;
    if parsed.model.is_empty() {
        return Err(bad("lists no model; give each as a [[model]] table with name and base_url".into()));
    }
    // The line of each `[[model]]` header, so a refusal about a model points at it in the file
    // (the parser gives lines for syntax only). Left out when the headers cannot be matched one
    // to one (an inline array of tables, say).
    let heads: Vec<usize> =
        text.lines().enumerate().filter(|(_, l)| l.trim_start().starts_with("[[model]]")).map(|(n, _)| n + 1).collect();
    let lines = (heads.len() == parsed.model.len()).then_some(heads);
    let mut out: Vec<RunOptions> = Vec::with_capacity(parsed.model.len());
    for (i, p) in parsed.model.into_iter().enumerate() {
        let line = lines.as_ref().map_or(String::new(), |l| format!(", line {}", l[i]));
        let at = |m: String| bad(format!("model {} (`{}`{line}): {m}", i + 1, p.name.trim()));
        let name = crate::input::identifier_key("model", p.name.trim())?.into_owned();
        if name.is_empty() {
            return Err(at("has no name".into()));
        }
        if out.iter().any(|o| o.model == name) {
            return Err(at("is listed twice (each model is one row of the panel)".into()));
        }
        let mut o = base.clone();
        o.model = name;
        o.base_url = p.base_url.trim().to_string();
        o.sampling.api = match &p.api {
            Some(a) => a.parse::<Api>().map_err(at)?,
            None => Api::Chat,
        };
        o.sampling.api_key_env = p.api_key_env.clone();
        o.sampling.max_tokens = match p.max_tokens {
            Some(0) => None,
            Some(n) => Some(n),
            None => Some(DEFAULT_MAX_TOKENS),
        };
        o.sampling.cap_field = p.cap_field.clone();
        o.sampling.temperature = p.temperature.unwrap_or(0.0);
        o.sampling.no_temperature = p.no_temperature;
        o.sampling.seed = p.seed.or(base.sampling.seed);
        o.sampling.extra = p
            .extra
            .into_iter()
            .map(|(k, v)| serde_json::to_value(v).map(|v| (k, v)).map_err(|e| at(e.to_string())))
            .collect::<Result<_>>()?;
        super::runner::check_options(&o).map_err(|e| match e {
            Error::InvalidArgument(m) => at(m),
            other => other,
        })?;
        out.push(o);
    }
    Ok(out)
}
