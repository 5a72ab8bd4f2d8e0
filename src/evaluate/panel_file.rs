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
//! refuses for one run; a refusal names the model's `[[model]]` line and the line of the field at
//! fault. The schema is `schema/panel.schema.json`.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use toml::Spanned;

use super::providers::Api;
use super::runner::{RunOptions, DEFAULT_MAX_TOKENS};
use crate::error::{Error, Result};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    model: Vec<Profile>,
}

/// One `[[model]]` table; each value keeps where it is in the file, so a refusal names the line
/// of the field at fault.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Profile {
    name: Spanned<String>,
    #[serde(default)]
    api: Option<Spanned<String>>,
    base_url: Spanned<String>,
    #[serde(default)]
    api_key_env: Option<Spanned<String>>,
    #[serde(default)]
    max_tokens: Option<Spanned<u32>>,
    #[serde(default)]
    cap_field: Option<Spanned<String>>,
    #[serde(default)]
    temperature: Option<Spanned<f64>>,
    #[serde(default)]
    no_temperature: Option<Spanned<bool>>,
    #[serde(default)]
    seed: Option<Spanned<u64>>,
    #[serde(default)]
    extra: BTreeMap<String, Spanned<toml::Value>>,
}

/// The line (from 1) where a value starts.
fn line_of<T>(text: &str, value: &Spanned<T>) -> usize {
    text[..value.span().start.min(text.len())].matches('\n').count() + 1
}

/// The run options of every model of a panel file, on top of `base` (concurrency, retries,
/// timeout, limit...), each checked as a run is before anything is sent. A refusal about a model
/// names its `[[model]]` line and, when one field is at fault, that field and its own line.
pub fn read(path: &Path, base: &RunOptions) -> Result<Vec<RunOptions>> {
    let (file, text) = crate::input::read_text(path)?;
    let bad = |message: String| Error::InvalidArgument(format!("panel file {file}: {message}"));
    let parsed: File = toml::from_str(&text).map_err(|e| bad(e.to_string().trim().replace('\n', " ")))?;
    if parsed.model.is_empty() {
        return Err(bad("lists no model; give each as a [[model]] table with name and base_url".into()));
    }
    // The line of each `[[model]]` header, so a refusal about a model points at it in the file.
    // Left out when the headers cannot be matched one to one (an inline array of tables, say).
    let heads: Vec<usize> =
        text.lines().enumerate().filter(|(_, l)| l.trim_start().starts_with("[[model]]")).map(|(n, _)| n + 1).collect();
    let lines = (heads.len() == parsed.model.len()).then_some(heads);
    let mut out: Vec<RunOptions> = Vec::with_capacity(parsed.model.len());
    for (i, p) in parsed.model.into_iter().enumerate() {
        let line = lines.as_ref().map_or(String::new(), |l| format!(", line {}", l[i]));
        let shown = p.name.get_ref().trim().to_string();
        let at = |m: String| bad(format!("model {} (`{shown}`{line}): {m}", i + 1));
        // A refusal about one field: its name and the line it is on.
        let field = |name: &str, on: usize| {
            let at = &at;
            let name = name.to_string();
            move |m: String| at(format!("`{name}` on line {on}: {m}"))
        };
        let in_field = |name: &str, on: usize, e: Error| match e {
            Error::InvalidArgument(m) => field(name, on)(m),
            other => other,
        };
        let name_at = line_of(&text, &p.name);
        let name = crate::input::identifier_key("model", p.name.get_ref().trim())
            .map_err(|e| in_field("name", name_at, e))?
            .into_owned();
        if name.is_empty() {
            return Err(field("name", name_at)("has no name".into()));
        }
        if out.iter().any(|o| o.model == name) {
            return Err(field("name", name_at)("is listed twice (each model is one row of the panel)".into()));
        }
        let mut o = base.clone();
        o.model = name;
        o.base_url = p.base_url.get_ref().trim().to_string();
        super::runner::check_base_url(&o.base_url).map_err(|e| in_field("base_url", line_of(&text, &p.base_url), e))?;
        o.sampling.api = match &p.api {
            Some(a) => a.get_ref().parse::<Api>().map_err(field("api", line_of(&text, a)))?,
            None => Api::Chat,
        };
        o.sampling.api_key_env = p.api_key_env.map(Spanned::into_inner);
        o.sampling.max_tokens = match p.max_tokens.as_ref().map(Spanned::get_ref) {
            Some(0) => None,
            Some(n) => Some(*n),
            None => Some(DEFAULT_MAX_TOKENS),
        };
        if let (Api::Anthropic, None, Some(cap)) = (o.sampling.api, o.sampling.max_tokens, &p.max_tokens) {
            return Err(field("max_tokens", line_of(&text, cap))(
                "0 sends no output cap, but the anthropic style requires one (its Messages API needs max_tokens): give a number of tokens".into(),
            ));
        }
        o.sampling.cap_field = p.cap_field.map(Spanned::into_inner);
        if let Some(t) = &p.temperature {
            if !(0.0..=2.0).contains(t.get_ref()) {
                return Err(field("temperature", line_of(&text, t))(format!("{} is not between 0 and 2", t.get_ref())));
            }
        }
        o.sampling.temperature = p.temperature.map_or(0.0, Spanned::into_inner);
        o.sampling.no_temperature = p.no_temperature.is_some_and(Spanned::into_inner);
        o.sampling.seed = p.seed.map(Spanned::into_inner).or(base.sampling.seed);
        let mut extra = BTreeMap::new();
        for (k, v) in p.extra {
            let on = line_of(&text, &v);
            let one = BTreeMap::from([(k.clone(), serde_json::Value::Null)]);
            super::providers::check_extra(&one).map_err(|e| in_field(&format!("extra.{k}"), on, e))?;
            let value =
                serde_json::to_value(v.into_inner()).map_err(|e| field(&format!("extra.{k}"), on)(e.to_string()))?;
            extra.insert(k, value);
        }
        o.sampling.extra = extra;
        super::runner::check_options(&o).map_err(|e| match e {
            Error::InvalidArgument(m) => at(m),
            other => other,
        })?;
        out.push(o);
    }
    Ok(out)
}
