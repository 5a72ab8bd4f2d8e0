//! The request and answer shapes of the three API styles a judge can be run against, each as its
//! provider documents it:
//!
//! - `chat` (the default): OpenAI chat completions, `POST BASE/chat/completions`, a system and a
//!   user message in `messages`, the output cap as `max_tokens`, the answer in
//!   `choices[0].message.content` (also what vLLM, llama.cpp's server, Ollama and LM Studio serve);
//! - `responses`: OpenAI Responses, `POST BASE/responses`, the system message as `instructions`
//!   and the user message as `input`, the cap as `max_output_tokens`, the answer in the
//!   `output_text` parts of the `message` items of `output`;
//! - `anthropic`: Anthropic Messages, `POST BASE/messages`, the system message as the top-level
//!   `system` and one user message in `messages`, the cap as `max_tokens` (required there), the
//!   key as `x-api-key` with an `anthropic-version` header, the answer in the `text` blocks of
//!   `content`.
//!
//! A profile may rename the cap field, leave the temperature out (a provider whose deterministic
//! mode is named otherwise) and add fixed fields to every request body (that named mode, a
//! reasoning setting...). A body that is not the style's answer shape is a failed exchange (see
//! [`super::runner`]), never an answer.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use ts_rs::TS;

use crate::error::{Error, Result};

/// What a request sends beside the prompt (the run's sampling parameters, as the runner gives
/// them).
pub struct Sampling<'a> {
    /// `None`: no temperature is sent.
    pub temperature: Option<f64>,
    /// The output cap and the field it goes in (`None`: the style's own).
    pub cap: Option<(u32, Option<&'a str>)>,
    pub seed: Option<u64>,
    pub extra: &'a std::collections::BTreeMap<String, Value>,
}

/// An API style.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Api {
    #[default]
    Chat,
    Responses,
    Anthropic,
}

impl Api {
    pub const ALL: [Api; 3] = [Api::Chat, Api::Responses, Api::Anthropic];

    pub fn as_str(self) -> &'static str {
        match self {
            Api::Chat => "chat",
            Api::Responses => "responses",
            Api::Anthropic => "anthropic",
        }
    }

    pub fn is_chat(&self) -> bool {
        *self == Api::Chat
    }

    /// The endpoint's URL under `base` (which usually ends in `/v1`).
    pub fn url(self, base: &str) -> String {
        let base = base.trim_end_matches('/');
        match self {
            Api::Chat => format!("{base}/chat/completions"),
            Api::Responses => format!("{base}/responses"),
            Api::Anthropic => format!("{base}/messages"),
        }
    }

    /// The field the output cap is sent in by default.
    pub fn cap_field(self) -> &'static str {
        match self {
            Api::Responses => "max_output_tokens",
            Api::Chat | Api::Anthropic => "max_tokens",
        }
    }

    /// The headers carrying the key (and any the style requires).
    pub fn headers(self, key: Option<&str>) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        match self {
            Api::Anthropic => {
                out.push(("anthropic-version", "2023-06-01".to_string()));
                if let Some(k) = key {
                    out.push(("x-api-key", k.to_string()));
                }
            }
            Api::Chat | Api::Responses => {
                if let Some(k) = key {
                    out.push(("Authorization", format!("Bearer {k}")));
                }
            }
        }
        out
    }

    /// The request body for one prompt.
    pub fn body(self, model: &str, system: Option<&str>, prompt: &str, s: &Sampling) -> Value {
        let mut body = match self {
            Api::Chat => {
                let mut messages = Vec::new();
                if let Some(system) = system {
                    messages.push(json!({ "role": "system", "content": system }));
                }
                messages.push(json!({ "role": "user", "content": prompt }));
                json!({ "model": model, "messages": messages })
            }
            Api::Responses => {
                let mut b = json!({ "model": model, "input": prompt });
                if let Some(system) = system {
                    b["instructions"] = system.into();
                }
                b
            }
            Api::Anthropic => {
                let mut b = json!({ "model": model, "messages": [{ "role": "user", "content": prompt }] });
                if let Some(system) = system {
                    b["system"] = system.into();
                }
                b
            }
        };
        if let Some(t) = s.temperature {
            body["temperature"] = t.into();
        }
        if let Some((n, field)) = s.cap {
            body[field.unwrap_or(self.cap_field())] = n.into();
        }
        if let Some(seed) = s.seed {
            body["seed"] = seed.into();
        }
        for (k, v) in s.extra {
            body[k.as_str()] = v.clone();
        }
        body
    }

    /// The answer's text: `Ok(None)` for an answer without text (a refusal), `Err` (in words) for
    /// a body that is not this style's answer at all.
    pub fn content_of(self, body: &str) -> std::result::Result<Option<String>, String> {
        match self {
            Api::Chat => {
                let obj = object(body)?;
                error_of(&obj)?;
                let first = obj.get("choices").and_then(Value::as_array).and_then(|c| c.first());
                let Some(choice) = first else {
                    return Err("the body has no choices".into());
                };
                match choice.get("message") {
                    Some(Value::Object(message)) => match message.get("content") {
                        Some(Value::String(s)) => Ok(Some(s.clone())),
                        None | Some(Value::Null) => Ok(None),
                        Some(_) => Err("the message's content is not text".into()),
                    },
                    _ if choice.get("text").is_some() => {
                        Err("the body is a legacy text completion (choices[].text), not a chat completion".into())
                    }
                    _ => Err("the first choice has no message".into()),
                }
            }
            Api::Responses => {
                let obj = object(body)?;
                error_of(&obj)?;
                let output = obj.get("output").and_then(Value::as_array).ok_or("the body has no output list")?;
                let texts: Vec<&str> = output
                    .iter()
                    .filter(|item| item.get("type").and_then(Value::as_str) == Some("message"))
                    .flat_map(|item| item.get("content").and_then(Value::as_array).into_iter().flatten())
                    .filter(|part| part.get("type").and_then(Value::as_str) == Some("output_text"))
                    .filter_map(|part| part.get("text").and_then(Value::as_str))
                    .collect();
                Ok((!texts.is_empty()).then(|| texts.concat()))
            }
            Api::Anthropic => {
                let obj = object(body)?;
                error_of(&obj)?;
                if obj.get("type").and_then(Value::as_str) != Some("message") {
                    return Err("the body is not a message (no \"type\": \"message\")".into());
                }
                let content = obj.get("content").and_then(Value::as_array).ok_or("the message has no content list")?;
                let texts: Vec<&str> = content
                    .iter()
                    .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                    .filter_map(|b| b.get("text").and_then(Value::as_str))
                    .collect();
                Ok((!texts.is_empty()).then(|| texts.concat()))
            }
        }
    }
}

impl std::str::FromStr for Api {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        Api::ALL
            .into_iter()
            .find(|a| a.as_str() == s.trim())
            .ok_or_else(|| format!("`{s}` is not an API style; expected chat, responses or anthropic"))
    }
}

fn object(body: &str) -> std::result::Result<serde_json::Map<String, Value>, String> {
    match serde_json::from_str::<Value>(body) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err("the body is JSON but not an object".into()),
        Err(_) => Err("the body is not JSON (an HTML page or a proxy's message?)".into()),
    }
}

fn error_of(obj: &serde_json::Map<String, Value>) -> std::result::Result<(), String> {
    match obj.get("error").filter(|e| !e.is_null()) {
        Some(e) => {
            let what = e.get("message").and_then(Value::as_str).map_or_else(|| e.to_string(), str::to_string);
            Err(format!("the body is an error object: {}", what.chars().take(200).collect::<String>()))
        }
        None => Ok(()),
    }
}

/// Refuses an extra field that would replace what a run sends itself (the model, the prompt or
/// the system message), naming it.
pub fn check_extra(extra: &BTreeMap<String, Value>) -> Result<()> {
    if let Some(k) =
        extra.keys().find(|k| ["model", "messages", "input", "system", "instructions"].contains(&k.as_str()))
    {
        return Err(Error::InvalidArgument(format!(
            "the extra field `{k}` would replace the prompt or the model the run sends; extra fields are for fixed settings"
        )));
    }
    Ok(())
}

/// Fixed fields added to every request body, by name.
pub type Extra = BTreeMap<String, Value>;

/// Fixed request fields given as `KEY=JSON` (the CLI's `--extra`, the app's extra-field lines),
/// each refused in words naming it: no `=`, a blank key, a value that is not JSON, a key given
/// twice. Blank entries are skipped (an empty line in the app). What the fields may not replace
/// (the prompt, the model) is [`super::runner::check_options`]'s rule.
pub fn parse_extra(entries: &[String]) -> Result<Extra> {
    let mut out = BTreeMap::new();
    for e in entries.iter().filter(|e| !e.trim().is_empty()) {
        let bad = |m: String| Error::InvalidArgument(format!("--extra `{}`: {m}", e.trim()));
        let (k, v) = e.split_once('=').ok_or_else(|| bad("give KEY=JSON".into()))?;
        if k.trim().is_empty() {
            return Err(bad("the field has no name before `=`".into()));
        }
        let v: Value = serde_json::from_str(v.trim()).map_err(|x| bad(format!("the value is not JSON ({x})")))?;
        if out.insert(k.trim().to_string(), v).is_some() {
            return Err(bad("the field is given twice".into()));
        }
    }
    Ok(out)
}
