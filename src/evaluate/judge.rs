//! Judge packets: request files for an LLM judge, and a tolerant reader for its responses.
//!
//! A template is plain text with placeholders: `{{passage}}`, `{{claim}}`, `{{context}}`,
//! `{{evidence_span}}`, `{{axis}}` (the pair's axis) and `{{dummy_axis}}` (a different axis, for
//! the control that names the wrong one). Five templates ship with ForceBench (`generic`,
//! `force_aware`, `axis_free`, `dummy_axis`, and `pairwise`, which shows both claims of a pair for
//! the order control); `forcebench judge templates --out DIR` writes them out to edit, and any
//! file can be used instead.
//!
//! `export` writes one request per claim (two per pair), each a complete, stateless prompt: no
//! request refers to another, and requests are in a seeded shuffled order so a pair's two claims
//! are not side by side. `import` reads responses, finds a verdict in each, however it is wrapped,
//! and records what it could not parse.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::Path;
use ts_rs::TS;

use super::{LabelMap, Output, Pair};
use crate::error::{Error, Result};
use crate::input::InputProblem;
use crate::vocab::Axis;

/// The shipped templates: (name, text, the label map its answers use).
pub const TEMPLATES: [(&str, &str, &str); 5] = [
    ("generic", include_str!("templates/generic.txt"), "generic"),
    ("force_aware", include_str!("templates/force_aware.txt"), "force"),
    ("axis_free", include_str!("templates/axis_free.txt"), "force"),
    ("dummy_axis", include_str!("templates/dummy_axis.txt"), "force"),
    // Both claims in one prompt, for the order control (`judge run --control order`); its
    // answers name the better-licensed claim, A or B, and are read by `pairwise` below.
    ("pairwise", include_str!("templates/pairwise.txt"), "pairwise"),
];

/// The label map a shipped template's answers use (`generic` for a file).
pub fn map_of(template_name: &str) -> &'static str {
    TEMPLATES.iter().find(|t| t.0 == template_name).map_or("generic", |t| t.2)
}

/// Whether a template asks about both claims at once (`{{claim_a}}` and `{{claim_b}}`).
pub fn is_pairwise(text: &str) -> bool {
    text.contains("{{claim_a}}") && text.contains("{{claim_b}}")
}

/// A template by shipped name, or read from a file. Returns (name, text).
pub fn template(name_or_file: &str) -> Result<(String, String)> {
    if let Some((name, text, _)) = TEMPLATES.iter().find(|t| t.0 == name_or_file) {
        return Ok((name.to_string(), text.to_string()));
    }
    let path = Path::new(name_or_file);
    if !path.exists() {
        let names: Vec<&str> = TEMPLATES.iter().map(|t| t.0).collect();
        return Err(Error::InvalidArgument(format!(
            "`{name_or_file}` is neither a template ({}) nor a file",
            names.join(", ")
        )));
    }
    let (_, text) = crate::input::read_text(path)?;
    if !text.contains("{{claim}}") && !is_pairwise(&text) {
        return Err(Error::InvalidArgument(format!(
            "{name_or_file}: a template must contain {{{{claim}}}} (or {{{{claim_a}}}} and {{{{claim_b}}}} for a pairwise one)"
        )));
    }
    let name = path.file_stem().map_or("custom".into(), |s| s.to_string_lossy().into_owned());
    Ok((name, text))
}

/// One request for the judge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Request {
    /// `<pair id>:safe` or `<pair id>:raised`.
    pub request_id: String,
    pub id: String,
    pub claim: String,
    pub template: String,
    pub template_sha256: String,
    pub prompt: String,
}

fn dummy_axis(axis: &str) -> &'static str {
    let i = Axis::ALL.iter().position(|a| a.as_str() == axis).unwrap_or(0);
    Axis::ALL[(i + 2) % Axis::ALL.len()].as_str()
}

/// Fills a template for one claim of one pair, in one pass over the template: a placeholder is
/// replaced only where the template has it, so text that holds `{{claim}}` or `{{axis}}` (a
/// passage, a context, a claim) stays literal instead of leaking the claim under test or the true
/// axis into the prompt. An unknown `{{name}}` is kept as written.
pub fn fill(template: &str, pair: &Pair, context: &str, claim: &str) -> String {
    fill_with(template, |name| {
        Some(match name {
            "passage" => &pair.passage,
            "claim" => claim,
            "context" => context,
            "evidence_span" => &pair.evidence_span,
            "dummy_axis" => dummy_axis(&pair.axis),
            "axis" => &pair.axis,
            _ => return None,
        })
    })
}

/// Fills a pairwise template (`{{claim_a}}`, `{{claim_b}}`: both claims in one prompt) for one
/// pair, in the same single pass as [`fill`].
pub fn fill_pairwise(template: &str, pair: &Pair, claim_a: &str, claim_b: &str) -> String {
    fill_with(template, |name| {
        Some(match name {
            "passage" => &pair.passage,
            "claim_a" => claim_a,
            "claim_b" => claim_b,
            "context" => &pair.context,
            "evidence_span" => &pair.evidence_span,
            "axis" => &pair.axis,
            _ => return None,
        })
    })
}

/// One pass over `template`, replacing each `{{name}}` that `value` knows.
fn fill_with<'a>(template: &str, value: impl Fn(&str) -> Option<&'a str>) -> String {
    let mut out = String::with_capacity(template.len() * 2);
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        match after.find("}}").and_then(|close| value(&after[..close]).map(|v| (v, close))) {
            Some((v, close)) => {
                out.push_str(v);
                rest = &after[close + 2..];
            }
            None => {
                // Not a placeholder here: keep one brace and look again from the next one.
                out.push('{');
                rest = &rest[open + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Requests for every claim of the pairs, in a seeded shuffled order.
pub fn requests(name: &str, text: &str, pairs: &[(Pair, String)], seed: u64) -> Vec<Request> {
    let sha = hex::encode(Sha256::digest(text.as_bytes()));
    let mut out: Vec<Request> = pairs
        .iter()
        .flat_map(|(p, context)| {
            [("safe", &p.calibrated_claim), ("raised", &p.raised_claim)].map(|(which, claim)| Request {
                request_id: format!("{}:{which}", p.id),
                id: p.id.clone(),
                claim: which.to_string(),
                template: name.to_string(),
                template_sha256: sha.clone(),
                prompt: fill(text, p, context, claim),
            })
        })
        .collect();
    out.sort_by_cached_key(|r| Sha256::digest(format!("judge:{seed}:{}", r.request_id).as_bytes()).to_vec());
    out
}

/// What the reader made of one response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Parsed {
    /// A JSON object with `label`/`verdict` or `score` was found.
    Json,
    /// No usable JSON, but exactly one known label appears in the text.
    LabelInText,
    /// Nothing usable: the output counts as missing.
    Unparsable,
}

/// The first balanced `{...}` in `text` that parses as a JSON object (code fences and prose
/// around it are ignored).
pub(crate) fn first_object(text: &str) -> Option<serde_json::Map<String, serde_json::Value>> {
    let bytes = text.as_bytes();
    let mut start = 0;
    while let Some(offset) = text[start..].find('{') {
        let open = start + offset;
        let (mut depth, mut in_string, mut escaped) = (0i32, false, false);
        for (i, &b) in bytes.iter().enumerate().skip(open) {
            if in_string {
                match (escaped, b) {
                    (true, _) => escaped = false,
                    (false, b'\\') => escaped = true,
                    (false, b'"') => in_string = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => in_string = true,
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        if let Ok(serde_json::Value::Object(m)) = serde_json::from_str(&text[open..=i]) {
                            return Some(m);
                        }
                        break;
                    }
                }
                _ => {}
            }
        }
        start = open + 1;
    }
    None
}

/// Reads a verdict from a judge's response: (label, score, how it was read).
pub fn parse_response(text: &str, map: &LabelMap) -> (Option<String>, Option<f64>, Parsed) {
    if let Some(obj) = first_object(text) {
        let label = ["label", "verdict", "answer"]
            .iter()
            .find_map(|k| obj.get(*k).and_then(|v| v.as_str()))
            .map(|s| s.trim().to_lowercase());
        let score =
            obj.get("score").and_then(|v| v.as_f64().or_else(|| v.as_str().and_then(|s| s.trim().parse().ok())));
        if let Some(s) = score.filter(|s| s.is_finite()) {
            return (label, Some(s), Parsed::Json);
        }
        if let Some(l) = label {
            let score = map.scores.get(&l).copied();
            if score.is_some() {
                return (Some(l), score, Parsed::Json);
            }
        }
    }
    // No JSON verdict: accept a label named exactly once in the text (longest names first, so
    // `unsupported` is not read inside `partially_supported`... nor `supported` in `unsupported`).
    let lower = text.to_lowercase();
    let mut labels: Vec<&String> = map.scores.keys().collect();
    labels.sort_by_key(|l| std::cmp::Reverse(l.len()));
    let mut remaining = lower.clone();
    let mut found = Vec::new();
    for l in labels {
        if remaining.contains(l.as_str()) {
            found.push(l.clone());
            remaining = remaining.replace(l.as_str(), " ");
        }
    }
    if found.len() == 1 {
        let l = found.pop().expect("one label");
        let score = map.scores.get(&l).copied();
        return (Some(l), score, Parsed::LabelInText);
    }
    (None, None, Parsed::Unparsable)
}

/// The result of reading a response file.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ResponseStats {
    #[ts(type = "number")]
    pub responses: u64,
    #[ts(type = "number")]
    pub json: u64,
    #[ts(type = "number")]
    pub label_in_text: u64,
    /// Request ids whose response had no usable verdict.
    pub unparsable: Vec<String>,
}

/// Reads responses (JSONL: `request_id` and `response`, the judge's text) into outputs.
pub fn read_responses(
    path: &Path,
    map: &LabelMap,
    eval_ids: &std::collections::BTreeSet<String>,
) -> Result<(Vec<Output>, ResponseStats)> {
    let (file, objects, mut problems) = crate::input::jsonl_objects(path)?;
    if objects.is_empty() && problems.is_empty() {
        return Err(super::no_lines(&file, "response"));
    }
    let mut outputs = Vec::new();
    let mut stats = ResponseStats { responses: 0, json: 0, label_in_text: 0, unparsable: Vec::new() };
    let mut seen = std::collections::HashMap::new();
    for (line, obj) in objects {
        let problem = |field: Option<&str>, message: String| InputProblem {
            file: file.clone(),
            line: Some(line),
            field: field.map(String::from),
            message,
        };
        let Some(rid) = obj.get("request_id").and_then(|v| v.as_str()) else {
            problems.push(problem(Some("request_id"), "required field is missing or not a string".into()));
            continue;
        };
        let Some((id, which)) = rid.rsplit_once(':').filter(|(_, w)| *w == "safe" || *w == "raised") else {
            problems.push(problem(Some("request_id"), format!("`{rid}` is not `<id>:safe` or `<id>:raised`")));
            continue;
        };
        if !eval_ids.contains(id) {
            problems.push(problem(Some("request_id"), format!("`{id}` is not in the locked split's evaluation set")));
            continue;
        }
        if let Some(first) = seen.insert(rid.to_string(), line) {
            problems
                .push(problem(Some("request_id"), format!("a second response for `{rid}` (first on line {first})")));
            continue;
        }
        let response = match obj.get("response") {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(serde_json::Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        };
        stats.responses += 1;
        let (label, score, how) = parse_response(&response, map);
        match how {
            Parsed::Json => stats.json += 1,
            Parsed::LabelInText => stats.label_in_text += 1,
            Parsed::Unparsable => stats.unparsable.push(rid.to_string()),
        }
        outputs.push(Output { id: id.to_string(), safe: which == "safe", score, label, raw: Some(response) });
    }
    if !problems.is_empty() {
        problems.sort_by_key(|p| p.line);
        return Err(Error::InvalidInput { file, problems });
    }
    Ok((outputs, stats))
}
