//! The provider settings a judge run and a drafting run both take from the window (the CLI's
//! `--api`, `--api-key-env`, `--cap-field`, `--no-temperature`, `--extra`, `--temperature`,
//! `--max-tokens`, `--timeout`, `--attempts`), declared and read once, so the two forms send the
//! same shape and are refused in the same words.

use std::time::Duration;

use forcebench::evaluate::providers::{self, Api, Extra};
use forcebench::ErrorPayload;
use serde::Deserialize;
use ts_rs::TS;

/// The settings as the window sends them; one left out takes the command line's default.
#[derive(Debug, Clone, Default, Deserialize, TS)]
pub struct ProviderSettings {
    /// `chat` (the default), `responses` or `anthropic`.
    #[serde(default)]
    pub api: Option<String>,
    /// The environment variable holding the key (the key itself never crosses).
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// The field the output cap is sent in, when not the style's own.
    #[serde(default)]
    pub cap_field: Option<String>,
    /// Send no temperature (a provider whose deterministic mode is a named field in `extra`).
    #[serde(default)]
    pub no_temperature: bool,
    /// Fixed fields added to every request body, one `KEY=JSON` each (`--extra`).
    #[serde(default)]
    pub extra: Vec<String>,
    #[serde(default)]
    pub temperature: Option<f64>,
    /// The output cap; 0 sends none.
    #[serde(default)]
    pub max_tokens: Option<u32>,
    /// Seconds one request may take before it is retried (the core refuses 0).
    #[serde(default)]
    #[ts(type = "number | null")]
    pub timeout: Option<u64>,
    /// Tries per request (the core refuses 0).
    #[serde(default)]
    pub attempts: Option<u32>,
}

/// [`ProviderSettings`] read: blanks are left out, the style and extra fields parsed, each
/// refused in the core's words. A field left out stays `None` (the core's default).
pub struct Read {
    pub api: Option<Api>,
    pub api_key_env: Option<String>,
    pub cap_field: Option<String>,
    pub no_temperature: bool,
    pub extra: Extra,
    pub temperature: Option<f64>,
    /// `Some(None)`: 0 was given, no cap is sent.
    pub max_tokens: Option<Option<u32>>,
    /// Passed on as given: a 0 is refused by the core in its words, never raised in silence.
    pub timeout: Option<Duration>,
    pub attempts: Option<u32>,
}

/// Text with surrounding blanks trimmed; blank is none.
pub fn blank(s: &Option<String>) -> Option<String> {
    s.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(String::from)
}

impl ProviderSettings {
    pub fn read(&self) -> Result<Read, ErrorPayload> {
        let api = match blank(&self.api) {
            Some(a) => Some(a.parse().map_err(|m: String| forcebench::Error::InvalidArgument(m).payload())?),
            None => None,
        };
        Ok(Read {
            api,
            api_key_env: blank(&self.api_key_env),
            cap_field: blank(&self.cap_field),
            no_temperature: self.no_temperature,
            extra: providers::parse_extra(&self.extra).map_err(|e| e.payload())?,
            temperature: self.temperature,
            max_tokens: self.max_tokens.map(|n| (n > 0).then_some(n)),
            timeout: self.timeout.map(Duration::from_secs),
            attempts: self.attempts,
        })
    }
}
