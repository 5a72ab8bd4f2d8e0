//! What a judge template says it is, in its own text: a `[template]` section before `[system]`
//! that declares its role, the paper's prompt it stands for (if any), its label map and the
//! fields it asks for:
//!
//! ```text
//! [template]
//! role: force
//! prompt: force_aware
//! labels: force_calibrated = 1, force_gap = 0, contradicted = 0, irrelevant = 0
//! fields: label, primary_axis, severity, warranted_claim, rationale
//! ```
//!
//! `role` is `support` (a support verdict per claim), `force` (a force verdict per claim) or
//! `pairwise` (two claims compared; no labels: the answer names claim A or B). `prompt` is one of
//! the paper's ablation prompts (`generic`, `axis_free`, `force_aware`, `dummy_axis`) or left
//! out; the battery's tables place a template by it, never by its file name. Every label and
//! field declared must be named in the template's messages, and a label the messages name (any
//! label of the built-in maps) must be declared, so a template whose instructions list other
//! labels than it declares is refused before any request is sent.

use std::collections::BTreeMap;

use super::{LabelMap, LABEL_MAPS};
use crate::error::{Error, Result};

/// A template's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Support,
    Force,
    Pairwise,
}

/// What a template declares about itself.
#[derive(Debug, Clone, PartialEq)]
pub struct Declaration {
    pub role: Role,
    /// The paper's prompt it stands for (`generic`, `axis_free`, `force_aware`, `dummy_axis`).
    pub prompt: Option<String>,
    /// Label -> score (empty for a pairwise template).
    pub labels: BTreeMap<String, f64>,
    pub fields: Vec<String>,
}

impl Declaration {
    /// The label map its answers are read with: a built-in map when the labels are exactly one,
    /// else the labels as an inline JSON map (stored with the run as its label map).
    pub fn label_map_name(&self) -> String {
        if self.role == Role::Pairwise {
            return "pairwise".into();
        }
        for name in LABEL_MAPS {
            if LabelMap::named(name).is_ok_and(|m| m.scores == self.labels) {
                return name.to_string();
            }
        }
        serde_json::to_string(&self.labels).expect("labels serialise")
    }
}

/// Reads a `[template]` section's lines and checks them against the messages (`prompt_text`:
/// the system and user messages); `name` is for the messages.
pub fn parse(name: &str, section: &str, prompt_text: &str, pairwise: bool) -> Result<Declaration> {
    let bad = |message: String| Error::BadTemplate(format!("template {name}: [template] {message}"));
    let mut keys: BTreeMap<String, String> = BTreeMap::new();
    for line in section.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let Some((k, v)) = line.split_once(':') else {
            return Err(bad(format!("line `{line}` is not `key: value`")));
        };
        let k = k.trim().to_lowercase();
        if !["role", "prompt", "labels", "fields"].contains(&k.as_str()) {
            return Err(bad(format!("`{k}` is not a key (role, prompt, labels, fields)")));
        }
        if keys.insert(k.clone(), v.trim().to_string()).is_some() {
            return Err(bad(format!("`{k}` is given twice")));
        }
    }
    let role = match keys.get("role").map(String::as_str) {
        Some("support") => Role::Support,
        Some("force") => Role::Force,
        Some("pairwise") => Role::Pairwise,
        Some(other) => return Err(bad(format!("role `{other}` is not support, force or pairwise"))),
        None => return Err(bad("declares no role (support, force or pairwise)".into())),
    };
    if (role == Role::Pairwise) != pairwise {
        return Err(bad(if pairwise {
            "the messages compare {{claim_a}} and {{claim_b}}: the role is pairwise".into()
        } else {
            "role pairwise, but the messages ask about one {{claim}}".into()
        }));
    }
    let prompt = keys.get("prompt").filter(|p| !p.is_empty()).cloned();
    if let Some(p) = &prompt {
        let expected = match p.as_str() {
            "generic" => Role::Support,
            "axis_free" | "force_aware" | "dummy_axis" => Role::Force,
            other => {
                return Err(bad(format!(
                    "prompt `{other}` is not one of the paper's prompts (generic, axis_free, force_aware, dummy_axis); leave it out for another prompt"
                )))
            }
        };
        if expected != role {
            return Err(bad(format!("prompt `{p}` is a {} prompt, not {}", word(expected), word(role))));
        }
    }
    let lower = prompt_text.to_lowercase().replace("force-gap", "force_gap");
    let mut labels = BTreeMap::new();
    if let Some(list) = keys.get("labels").filter(|l| !l.is_empty()) {
        if role == Role::Pairwise {
            return Err(bad("a pairwise template declares no labels: its answers name claim A or B".into()));
        }
        for item in list.split(',') {
            let Some((l, v)) = item.split_once('=') else {
                return Err(bad(format!("label `{}` has no score (`label = number`)", item.trim())));
            };
            let l = l.trim().to_lowercase();
            let score: f64 = v
                .trim()
                .parse()
                .ok()
                .filter(|s: &f64| (0.0..=1.0).contains(s))
                .ok_or_else(|| bad(format!("label `{l}`: `{}` is not a score from 0 to 1", v.trim())))?;
            if !lower.contains(&l) {
                return Err(bad(format!("declares the label `{l}`, which the instructions never name")));
            }
            if labels.insert(l.clone(), score).is_some() {
                return Err(bad(format!("label `{l}` is declared twice")));
            }
        }
    } else if role != Role::Pairwise {
        return Err(bad("declares no labels (`labels: name = score, ...`)".into()));
    }
    // A label of a built-in map named in the instructions must be declared.
    for map in LABEL_MAPS {
        for l in LabelMap::named(map).map(|m| m.scores.into_keys().collect::<Vec<_>>()).unwrap_or_default() {
            if l.contains('_') && has_word(&lower, &l) && !labels.contains_key(&l) && role != Role::Pairwise {
                return Err(bad(format!(
                    "the instructions name the label `{l}`, which the template does not declare; its labels must match the instructions' list"
                )));
            }
        }
    }
    let fields: Vec<String> = keys
        .get("fields")
        .map(|f| f.split(',').map(|x| x.trim().to_string()).filter(|x| !x.is_empty()).collect())
        .unwrap_or_default();
    let needed = if role == Role::Pairwise { "better" } else { "label" };
    if !fields.iter().any(|f| f == needed) {
        return Err(bad(format!("fields must include `{needed}`, the field the verdict is read from")));
    }
    for f in &fields {
        if !prompt_text.contains(f.as_str()) {
            return Err(bad(format!("declares the field `{f}`, which the instructions never ask for")));
        }
    }
    Ok(Declaration { role, prompt, labels, fields })
}

/// Whether `word` appears in `text` not as part of a longer label (`supported` inside
/// `unsupported` does not count).
fn has_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        let part = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !part(before) && !part(after)
    })
}

fn word(role: Role) -> &'static str {
    match role {
        Role::Support => "support",
        Role::Force => "force",
        Role::Pairwise => "pairwise",
    }
}
