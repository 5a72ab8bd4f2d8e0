//! Judge packets: request files for an LLM judge, and a tolerant reader for its responses.
//!
//! A template is plain text with a system message and a user message (the format of Appendix F
//! of the ForceBench paper): a line `[system]` starts the system message and a line `[user]` the
//! user message; a file with neither is one user message. Placeholders are the only way row text
//! reaches a prompt, and they offer only what a judge may see: `{{question}}` (the candidate's
//! context; `{{context}}` is the same), `{{passage}}`, `{{claim}}`, and for a pairwise template
//! `{{claim_a}}` and `{{claim_b}}`. There is no placeholder for anything the judge is scored
//! against (the pair's axis, severity, which claim is raised, the other claim, the evidence span
//! or any adjudicated field): a template asking for one is refused, and so is a placeholder that
//! matches no field, so a misspelt `{{pasage}}` is never sent as written.
//!
//! A template file starts with a `[template]` section declaring its role, the paper's prompt it
//! stands for, its label map and the fields it asks for ([`super::declaration`]); answers are read
//! and tables placed by that declaration, never by the file's name, and a file without one is
//! refused before anything is sent.
//!
//! Five templates ship with ForceBench: `generic`, `force_aware`, `axis_free` and `dummy_axis`
//! (the paper's generic judge, force-aware judge and its two ablation controls) and `pairwise`
//! (both claims of a pair, for the order control). `forcebench judge templates --out DIR` writes
//! them out to edit, and any file can be used instead.
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

/// The version of the answer reader ([`parse_answer`]), recorded with every judge run: a change
/// to how answers are read changes it, so a run's scores can be traced to the reader that made
/// them. "2" reads every field the prompts ask for and normalises `force-gap` to `force_gap`.
pub const PARSER_VERSION: &str = "2";

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

/// The four prompts of the paper's ablation (Table 3), in its order.
pub const ABLATION: [&str; 4] = ["generic", "axis_free", "force_aware", "dummy_axis"];

/// Whether a template asks about both claims at once (`{{claim_a}}` and `{{claim_b}}`).
pub fn is_pairwise(text: &str) -> bool {
    text.contains("{{claim_a}}") && text.contains("{{claim_b}}")
}

/// The fields a judge may be shown, by placeholder name.
const VISIBLE: [&str; 6] = ["question", "context", "passage", "claim", "claim_a", "claim_b"];

/// Placeholders that would show the judge what it is scored against, with what each would show.
const GOLD: [(&str, &str); 15] = [
    ("axis", "the pair's adjudicated force axis"),
    ("primary_axis", "the pair's adjudicated force axis"),
    ("final_axis", "the pair's adjudicated force axis"),
    ("dummy_axis", "an axis chosen from the pair's adjudicated one"),
    ("severity", "the pair's adjudicated severity"),
    ("final_severity", "the pair's adjudicated severity"),
    ("evidence_span", "the span the annotators marked as deciding the pair"),
    ("calibrated_claim", "which claim of the pair is the calibrated one"),
    ("raised_claim", "which claim of the pair is the raised one"),
    ("other_claim", "the other claim of the pair"),
    ("which", "which claim of the pair is the raised one"),
    ("decision", "the adjudicated decision"),
    ("boundary_type", "the adjudicated boundary type"),
    ("repair", "the adjudicated repair"),
    ("rationale", "the adjudicator's rationale"),
];

/// A judge template: its name, its file text (what its sha256 is taken over), its messages and
/// what it declares about itself (its `[template]` section, see [`super::declaration`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    pub name: String,
    pub text: String,
    pub system: Option<String>,
    pub user: String,
    pub declared: Option<super::declaration::Declaration>,
}

impl Template {
    /// Splits and checks a template's text (see the module documentation).
    pub fn parse(name: &str, text: &str) -> Result<Template> {
        let bad = |message: String| Error::BadTemplate(format!("template {name}: {message}"));
        let (mut system, mut user, mut current, mut seen_header) = (None::<String>, None::<String>, None, false);
        let mut declaration = None::<String>;
        let mut buffer = String::new();
        let mut flush = |current: Option<&str>, buffer: &mut String| -> Result<()> {
            let body = buffer.trim_matches('\n').to_string();
            buffer.clear();
            match current {
                Some("template") if declaration.is_none() && system.is_none() && user.is_none() => {
                    declaration = Some(body)
                }
                Some("template") if declaration.is_none() => {
                    return Err(bad("the [template] section comes first, before [system] and [user]".into()))
                }
                Some("system") if system.is_none() => system = Some(body),
                Some("user") if user.is_none() => user = Some(body),
                Some(section) => return Err(bad(format!("a second [{section}] section"))),
                None => {
                    if !body.trim().is_empty() {
                        return Err(bad("text before the first [system] or [user] line".into()));
                    }
                }
            }
            Ok(())
        };
        let has_headers = text.lines().any(|l| matches!(l.trim_end(), "[system]" | "[user]" | "[template]"));
        if has_headers {
            for line in text.split_inclusive('\n') {
                match line.trim_end() {
                    header @ ("[system]" | "[user]" | "[template]") => {
                        flush(current, &mut buffer)?;
                        current = Some(header.trim_matches(['[', ']']));
                        seen_header = true;
                    }
                    _ => buffer.push_str(line),
                }
            }
            flush(current, &mut buffer)?;
        }
        let user = match (seen_header, user) {
            (false, _) => text.to_string(),
            (true, Some(u)) => u,
            (true, None) => return Err(bad("a [system] section but no [user] section".into())),
        };
        let system = system.filter(|s| !s.trim().is_empty());
        let mut t = Template { name: name.to_string(), text: text.to_string(), system, user, declared: None };
        t.check()?;
        if let Some(section) = declaration {
            let messages = format!("{}\n{}", t.system.as_deref().unwrap_or(""), t.user);
            t.declared = Some(super::declaration::parse(name, &section, &messages, t.is_pairwise())?);
        }
        Ok(t)
    }

    /// The label map its answers are read with, as it declares it (`None`: it declares none).
    pub fn label_map_name(&self) -> Option<String> {
        self.declared.as_ref().map(|d| d.label_map_name())
    }

    /// The paper's prompt it declares it stands for, if any.
    pub fn prompt(&self) -> Option<&str> {
        self.declared.as_ref().and_then(|d| d.prompt.as_deref())
    }

    /// Refuses a placeholder no judge may see or that matches no field, and a template with no
    /// claim to judge.
    fn check(&self) -> Result<()> {
        let bad = |message: String| Error::BadTemplate(format!("template {}: {message}", self.name));
        for (where_, text) in [("system message", self.system.as_deref().unwrap_or("")), ("user message", &self.user)] {
            for p in placeholders(text) {
                if let Some((_, what)) = GOLD.iter().find(|(g, _)| *g == p) {
                    return Err(bad(format!(
                        "{{{{{p}}}}} in the {where_} would show the judge {what}, which it is scored against; a judge may see only {}",
                        visible_list()
                    )));
                }
                if !VISIBLE.contains(&p.as_str()) {
                    return Err(bad(format!(
                        "{{{{{p}}}}} in the {where_} matches no field; the placeholders are {}",
                        visible_list()
                    )));
                }
                if where_ == "system message" {
                    return Err(bad(format!(
                        "{{{{{p}}}}} in the system message: the system message is the same for every request, so row text goes in the user message"
                    )));
                }
            }
        }
        let has = |p: &str| placeholders(&self.user).iter().any(|q| q == p);
        let pairwise = has("claim_a") || has("claim_b");
        if pairwise && !(has("claim_a") && has("claim_b")) {
            return Err(bad("a pairwise template needs both {{claim_a}} and {{claim_b}}".into()));
        }
        if pairwise && has("claim") {
            return Err(bad("{{claim}} and {{claim_a}}/{{claim_b}} in one template: a template asks about one claim or compares two".into()));
        }
        if !pairwise && !has("claim") {
            return Err(bad("no {{claim}}: a template must show the claim to judge (or {{claim_a}} and {{claim_b}} for a pairwise one)".into()));
        }
        Ok(())
    }

    pub fn is_pairwise(&self) -> bool {
        is_pairwise(&self.user)
    }

    pub fn sha256(&self) -> String {
        hex::encode(Sha256::digest(self.text.as_bytes()))
    }
}

fn visible_list() -> String {
    VISIBLE.iter().map(|v| format!("{{{{{v}}}}}")).collect::<Vec<_>>().join(", ")
}

/// The placeholders of `text` that would show the judge what it is scored against (a stored
/// template of an old run may hold one: such a run leaked the answer into its prompts).
pub fn gold_placeholders(text: &str) -> Vec<String> {
    let mut out: Vec<String> = placeholders(text).into_iter().filter(|p| GOLD.iter().any(|g| g.0 == p)).collect();
    out.dedup();
    out
}

/// The names of the `{{name}}` placeholders in `text` (a name is letters, digits and `_`).
fn placeholders(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        let after = &rest[open + 2..];
        match after.find("}}") {
            Some(close) if is_name(&after[..close]) => {
                out.push(after[..close].to_string());
                rest = &after[close + 2..];
            }
            _ => rest = &rest[open + 1..],
        }
    }
    out
}

fn is_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A template by shipped name, or read from a file.
pub fn template(name_or_file: &str) -> Result<Template> {
    if let Some((name, text, _)) = TEMPLATES.iter().find(|t| t.0 == name_or_file) {
        return Template::parse(name, text);
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
    let name = path.file_stem().map_or("custom".into(), |s| s.to_string_lossy().into_owned());
    let t = Template::parse(&name, &text).map_err(|e| match e {
        Error::BadTemplate(m) => Error::BadTemplate(format!("{name_or_file}: {m}")),
        other => other,
    })?;
    // A file says what it is in its own text: its name is never read as its role or label map.
    if t.declared.is_none() {
        return Err(Error::BadTemplate(format!(
            "{name_or_file}: declares no label map or role; add a [template] section before [system] (role, prompt, labels, fields: see `forcebench judge templates --out DIR` for the shipped ones)"
        )));
    }
    Ok(t)
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
    /// The system message (the same for every request of a template), if the template has one.
    pub system: Option<String>,
    /// The user message.
    pub prompt: String,
}

/// Fills a template's user message for one claim of one pair, in one pass over the template: a
/// placeholder is replaced only where the template has it, so text that holds `{{claim}}` (a
/// passage, a context, a claim) stays literal instead of leaking into the prompt. Only the fields
/// a judge may see are offered ([`Template::parse`] has refused any other placeholder).
pub fn fill(template: &str, pair: &Pair, question: &str, claim: &str) -> String {
    fill_with(template, |name| {
        Some(match name {
            "passage" => &pair.passage,
            "claim" => claim,
            "question" | "context" => question,
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
            "question" | "context" => &pair.context,
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

/// Requests for every claim of the pairs, in a seeded shuffled order. Each pair comes with the
/// question shown with it (its own context, or a donor's under the evidence swap).
pub fn requests(t: &Template, pairs: &[(Pair, String)], seed: u64) -> Vec<Request> {
    let sha = t.sha256();
    let mut out: Vec<Request> = pairs
        .iter()
        .flat_map(|(p, question)| {
            [("safe", &p.calibrated_claim), ("raised", &p.raised_claim)].map(|(which, claim)| Request {
                request_id: format!("{}:{which}", p.id),
                id: p.id.clone(),
                claim: which.to_string(),
                template: t.name.clone(),
                template_sha256: sha.clone(),
                system: t.system.clone(),
                prompt: fill(&t.user, p, question, claim),
            })
        })
        .collect();
    out.sort_by_cached_key(|r| Sha256::digest(format!("judge:{seed}:{}", r.request_id).as_bytes()).to_vec());
    out
}

/// What the reader made of one response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Parsed {
    /// A JSON object with `label`/`verdict` or `score` was found.
    Json,
    /// No usable JSON, but exactly one known label appears in the text.
    LabelInText,
    /// Nothing usable: the output counts as missing.
    Unparsable,
}

/// The first `{` in `text` from which a JSON object parses (code fences and prose around it are
/// ignored). Each start is tried with a streaming parse that stops at the object's end or at the
/// first byte that cannot continue it, so a start that fails costs only what it read; at most
/// [`MAX_OBJECT_STARTS`] starts are tried, so the reader stays linear in the answer's size
/// however many unbalanced braces it holds.
pub(crate) fn first_object(text: &str) -> Option<serde_json::Map<String, serde_json::Value>> {
    let mut tried = 0;
    for (open, _) in text.match_indices('{') {
        tried += 1;
        if tried > MAX_OBJECT_STARTS {
            break;
        }
        let mut stream = serde_json::Deserializer::from_str(&text[open..]).into_iter::<serde_json::Value>();
        if let Some(Ok(serde_json::Value::Object(m))) = stream.next() {
            return Some(m);
        }
    }
    None
}

/// How many `{` of one answer the reader tries as the start of its JSON object.
pub const MAX_OBJECT_STARTS: usize = 64;

/// Everything read from one answer: the verdict and the other fields the prompts ask for.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Answer {
    pub label: Option<String>,
    pub score: Option<f64>,
    pub confidence: Option<f64>,
    /// The axis the judge names as the main one (force prompts), lower-cased.
    pub primary_axis: Option<String>,
    #[ts(type = "number | null")]
    pub severity: Option<i64>,
    pub warranted_claim: Option<String>,
    pub rationale: Option<String>,
    pub parsed: Parsed,
}

/// A label as the maps spell it: trimmed, lower-cased, `-` and spaces as `_` (`force-gap` is
/// `force_gap`).
fn normal_label(s: &str) -> String {
    s.trim().to_lowercase().replace(['-', ' '], "_")
}

/// Reads a judge's answer: the verdict (from a JSON object, or failing that one known label in
/// the text) and, from the JSON object, confidence, primary axis, severity, warranted claim and
/// rationale (`reason` is read as the rationale).
pub fn parse_answer(text: &str, map: &LabelMap) -> Answer {
    let mut a = Answer {
        label: None,
        score: None,
        confidence: None,
        primary_axis: None,
        severity: None,
        warranted_claim: None,
        rationale: None,
        parsed: Parsed::Unparsable,
    };
    if let Some(obj) = first_object(text) {
        let string = |keys: &[&str]| {
            keys.iter()
                .find_map(|k| obj.get(*k).and_then(|v| v.as_str()))
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty() && s != "null")
        };
        let number =
            |k: &str| obj.get(k).and_then(|v| v.as_f64().or_else(|| v.as_str().and_then(|s| s.trim().parse().ok())));
        a.confidence = number("confidence").filter(|c| c.is_finite());
        a.primary_axis = string(&["primary_axis", "axis"]).map(|s| s.to_lowercase());
        a.severity = number("severity").filter(|s| s.fract() == 0.0 && (1.0..=3.0).contains(s)).map(|s| s as i64);
        a.warranted_claim = string(&["warranted_claim"]);
        a.rationale = string(&["rationale", "reason"]);
        // The label as written (lower-cased) when the map knows it, else in the maps' spelling.
        let label = string(&["label", "verdict", "answer"]).map(|s| {
            let lower = s.to_lowercase();
            if map.scores.contains_key(&lower) {
                lower
            } else {
                normal_label(&s)
            }
        });
        // The label decides the score. A bare number counts only under a map that takes numeric
        // scores, and only within [0, 1]: a stray `"score": 0.9` beside a label, or a
        // `"score": 1e300`, says nothing the label map does not.
        if let Some(s) = number("score").filter(|s| map.numeric && (0.0..=1.0).contains(s)) {
            if label.as_ref().is_none_or(|l| !map.scores.contains_key(l)) {
                a.label = label;
                a.score = Some(s);
                a.parsed = Parsed::Json;
                return a;
            }
        }
        if let Some(l) = label {
            if let Some(score) = map.scores.get(&l).copied() {
                a.label = Some(l);
                a.score = Some(score);
                a.parsed = Parsed::Json;
                return a;
            }
        }
    }
    // No JSON verdict: accept a label named exactly once in the text (longest names first, so
    // `unsupported` is not read inside `partially_supported`... nor `supported` in `unsupported`).
    let lower = text.to_lowercase().replace("force-gap", "force_gap");
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
        a.score = map.scores.get(&l).copied();
        a.label = Some(l);
        a.parsed = Parsed::LabelInText;
    }
    a
}

/// Reads a verdict from a judge's response: (label, score, how it was read).
pub fn parse_response(text: &str, map: &LabelMap) -> (Option<String>, Option<f64>, Parsed) {
    let a = parse_answer(text, map);
    (a.label, a.score, a.parsed)
}

fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
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
            // No answer text (a refusal without words): kept, and counted as missing.
            Some(serde_json::Value::Null) | None => String::new(),
            Some(other) => {
                problems.push(problem(
                    Some("response"),
                    format!("must be the judge's answer as a string (or null), not {}", json_kind(other)),
                ));
                continue;
            }
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

/// The claim a pairwise answer names: `A` or `B` from a JSON `better` (or `answer`, `choice`),
/// else a reply that is only the letter.
pub fn pick(text: &str) -> Option<char> {
    let letter = |s: &str| match s.trim().trim_matches(|c: char| !c.is_alphanumeric()).to_ascii_uppercase().as_str() {
        "A" | "CLAIM A" => Some('A'),
        "B" | "CLAIM B" => Some('B'),
        _ => None,
    };
    if let Some(obj) = first_object(text) {
        if let Some(p) = ["better", "answer", "choice"].iter().find_map(|k| obj.get(*k)?.as_str().and_then(letter)) {
            return Some(p);
        }
    }
    letter(text)
}
