//! Scoring citation evaluators on the locked split.
//!
//! For each evaluation pair an evaluator gives a support score to the calibrated claim (`safe`)
//! and to the raised claim (`raised`). Monotonicity violation rate
//! MVR = mean of 1[s_raised >= s_safe] (lower is better; a tie is a violation) and force
//! sensitivity FS = mean of (s_safe - s_raised) (higher is better). A pair whose output is
//! unparsable or refused for either claim (an answer that stayed unusable after the retries)
//! counts as a violation with margin 0, and is counted and listed. A claim that was never
//! answered at all (no output: a run stopped, limited or cut off) is not a judgment: its pair is
//! left out of MVR and FS and counted as `unanswered`, and the evaluator is incomplete
//! ([`Completeness`]); [`fitness`] keeps incomplete evaluators out of pooled tables.

pub mod agreement_paired;
pub mod baselines;
pub mod battery;
pub mod declaration;
pub mod family;
pub mod fitness;
pub mod judge;
pub mod lexicon;
pub mod panel;
pub mod panel_file;
pub mod plots;
pub mod providers;
pub mod records;
pub mod release;
pub mod runner;
pub mod trust;

use rusqlite::params;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use ts_rs::TS;

use crate::error::{Error, Result};
use crate::input::InputProblem;
use crate::project::{now, Project};

/// The label maps known by name, each label with its score; [`LabelMap::named`] also reads a
/// JSON file of label -> number.
const BUILT_IN_MAPS: [(&str, &[(&str, f64)]); 3] = [
    (
        "generic",
        &[
            ("fully_supported", 1.0),
            ("partially_supported", 0.5),
            ("unsupported", 0.0),
            ("contradicted", 0.0),
            ("irrelevant", 0.0),
        ],
    ),
    ("force", &[("force_calibrated", 1.0), ("force_gap", 0.0), ("contradicted", 0.0), ("irrelevant", 0.0)]),
    ("audit", &[("fully_supported", 1.0), ("partially_supported", 0.5), ("not_supported", 0.0)]),
];

/// The names of the built-in label maps, in order.
pub const LABEL_MAPS: [&str; 3] = [BUILT_IN_MAPS[0].0, BUILT_IN_MAPS[1].0, BUILT_IN_MAPS[2].0];

/// How label outputs become scores.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelMap {
    pub name: String,
    pub scores: BTreeMap<String, f64>,
    /// Whether an answer may give a score in [0, 1] instead of a label (a map file says so with
    /// a `"score"` entry of `true`); the built-in maps take labels only.
    pub numeric: bool,
}

impl LabelMap {
    /// `generic`, `force`, `audit`, a JSON file mapping labels to numbers, or such a JSON object
    /// inline (how a template's declared labels are stored with its run).
    pub fn named(name: &str) -> Result<LabelMap> {
        if let Some((_, pairs)) = BUILT_IN_MAPS.iter().find(|(n, _)| *n == name) {
            let scores = pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect();
            return Ok(LabelMap { name: name.into(), scores, numeric: false });
        }
        if name.trim_start().starts_with('{') {
            let scores: BTreeMap<String, f64> = serde_json::from_str(name).map_err(|e| {
                Error::InvalidArgument(format!("the declared label map `{name}` is not label -> number: {e}"))
            })?;
            return Ok(LabelMap { name: name.into(), scores, numeric: false });
        }
        let path = name;
        let file = Path::new(path);
        let (_, text) = crate::input::read_text(file)?;
        let problem = |message: String| Error::InvalidInput {
            file: path.to_string(),
            problems: vec![InputProblem { file: path.to_string(), line: None, field: None, message }],
        };
        let value = crate::input::parse_strict(&text).map_err(|p| match p.field {
            Some(key) => problem(format!("label `{key}` appears twice; give each label once")),
            None => problem(format!("a label map is a JSON object of label -> number: {}", p.message)),
        })?;
        let obj = value.as_object().ok_or_else(|| problem("a label map is a JSON object of label -> number".into()))?;
        let mut scores = BTreeMap::new();
        let mut numeric = false;
        for (k, v) in obj {
            if k == "score" {
                numeric = v.as_bool().ok_or_else(|| {
                    problem("`score` says whether answers may give a number in [0, 1]: true or false".into())
                })?;
                continue;
            }
            let n = v
                .as_f64()
                .filter(|n| n.is_finite())
                .ok_or_else(|| problem(format!("label `{k}`: {v} is not a number")))?;
            scores.insert(k.clone(), n);
        }
        Ok(LabelMap { name: path.to_string(), scores, numeric })
    }
}

/// One evaluator output as imported.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    pub id: String,
    pub safe: bool,
    /// `None`: missing, unparsable or refused.
    pub score: Option<f64>,
    pub label: Option<String>,
    pub raw: Option<String>,
}

/// Reads evaluator outputs (JSONL: `id`, `claim` `safe`/`raised`, `score` or `label`, optional
/// `raw`). Lines that cannot be attributed to a pair are errors naming line and field; a label
/// the map does not know, a non-numeric score or a refusal is kept as an unscored output.
pub fn read_outputs(path: &Path, map: &LabelMap, eval_ids: &std::collections::BTreeSet<String>) -> Result<Vec<Output>> {
    let (file, objects, mut problems) = crate::input::jsonl_objects(path)?;
    if objects.is_empty() && problems.is_empty() {
        return Err(no_lines(&file, "output"));
    }
    let mut problem = |line: u64, field: Option<&str>, message: String| {
        problems.push(InputProblem { file: file.clone(), line: Some(line), field: field.map(String::from), message })
    };
    let mut out = Vec::new();
    let mut seen: HashMap<(String, bool), u64> = HashMap::new();
    for (line, obj) in objects {
        let Some(id) = obj.get("id").and_then(|v| v.as_str()) else {
            problem(line, Some("id"), "required field is missing or not a string".into());
            continue;
        };
        if !eval_ids.contains(id) {
            problem(line, Some("id"), format!("`{id}` is not in the locked split's evaluation set"));
            continue;
        }
        let safe = match obj.get("claim").and_then(|v| v.as_str()) {
            Some("safe") => true,
            Some("raised") => false,
            _ => {
                problem(line, Some("claim"), "must be \"safe\" or \"raised\"".into());
                continue;
            }
        };
        if let Some(first) = seen.insert((id.to_string(), safe), line) {
            problem(
                line,
                Some("id"),
                format!(
                    "a second output for `{id}` ({}) (first on line {first})",
                    if safe { "safe" } else { "raised" }
                ),
            );
            continue;
        }
        for key in obj.keys() {
            if !["id", "claim", "score", "label", "raw"].contains(&key.as_str()) {
                problem(line, Some(key), "unknown key (expected id, claim, score, label, raw)".into());
            }
        }
        let label = obj.get("label").and_then(|v| v.as_str()).map(str::to_string);
        let score = match (obj.get("score"), &label) {
            (Some(serde_json::Value::Number(n)), _) => n.as_f64().filter(|x| x.is_finite()),
            // A number written as a string is refused; other text (a refusal, "n/a") is unscored.
            (Some(serde_json::Value::String(s)), _) if s.trim().parse::<f64>().is_ok() => {
                problem(line, Some("score"), crate::input::number_as_string(s));
                continue;
            }
            (Some(serde_json::Value::String(_)), _) => None,
            (_, Some(l)) => map.scores.get(l.trim()).copied(),
            _ => None,
        };
        let raw = obj.get("raw").map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string));
        out.push(Output { id: id.to_string(), safe, score, label, raw });
    }
    if !problems.is_empty() {
        problems.sort_by_key(|p| p.line);
        return Err(Error::InvalidInput { file, problems });
    }
    Ok(out)
}

/// The refusal of an evaluator file with no lines: an evaluator with no outputs would be stored
/// with every pair missing (MVR 1.0), which reads as a real result.
pub(crate) fn no_lines(file: &str, what: &str) -> Error {
    Error::UnreadableInput {
        file: file.to_string(),
        message: format!("has no {what} lines; an evaluator needs at least one, so nothing was stored"),
    }
}

/// MVR and FS over a set of pairs, with a seeded bootstrap interval for each.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Metrics {
    #[ts(type = "number")]
    pub n_pairs: u64,
    pub mvr: Option<f64>,
    pub fs: Option<f64>,
    #[ts(type = "number")]
    pub violations: u64,
    /// Pairs with an unparsable or refused output (counted as violations, margin 0).
    #[ts(type = "number")]
    pub missing: u64,
    pub mvr_ci95: Option<[f64; 2]>,
    pub fs_ci95: Option<[f64; 2]>,
    /// Pairs left out of MVR and FS because a claim of theirs was never answered (not in
    /// `n_pairs`: a request that got no answer is not a judgment).
    #[ts(type = "number")]
    pub unanswered: u64,
}

/// How much of an evaluator's work is there, counted in requests (one per claim, two per pair).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, TS)]
pub struct Completeness {
    /// Every request the evaluator was asked (two per evaluation pair).
    #[ts(type = "number")]
    pub requests: u64,
    /// Answered with a usable score.
    #[ts(type = "number")]
    pub answered: u64,
    /// Answered, but with no usable verdict after the retries (each a violation, margin 0).
    #[ts(type = "number")]
    pub unusable: u64,
    /// Never answered (transport losses, a cancel, `--limit`, lines missing from a file).
    #[ts(type = "number")]
    pub unanswered: u64,
}

impl Completeness {
    /// Every request has an answer (usable or not).
    pub fn complete(&self) -> bool {
        self.unanswered == 0
    }
}

/// One pair's outcome: (violation, margin, missing).
pub type PairOutcome = (bool, f64, bool);

/// The outcome of one pair from its two scores.
pub fn outcome(safe: Option<f64>, raised: Option<f64>) -> PairOutcome {
    match (safe, raised) {
        (Some(s), Some(r)) => (r >= s, s - r, false),
        _ => (true, 0.0, true),
    }
}

/// Bootstrap replicates and seed for the metric intervals.
pub const BOOTSTRAP_REPS: u32 = 1000;
pub const BOOTSTRAP_SEED: u64 = 20_250_517;

pub fn metrics(pairs: &[PairOutcome], bootstrap: Option<(u32, u64)>) -> Metrics {
    let n = pairs.len();
    let mean = |f: &dyn Fn(&PairOutcome) -> f64, idx: &mut dyn Iterator<Item = usize>| -> f64 {
        let mut sum = 0.0;
        let mut k = 0;
        for i in idx {
            sum += f(&pairs[i]);
            k += 1;
        }
        sum / k as f64
    };
    let viol = |p: &PairOutcome| if p.0 { 1.0 } else { 0.0 };
    let margin = |p: &PairOutcome| p.1;
    let mut m = Metrics {
        n_pairs: n as u64,
        mvr: None,
        fs: None,
        violations: pairs.iter().filter(|p| p.0).count() as u64,
        missing: pairs.iter().filter(|p| p.2).count() as u64,
        mvr_ci95: None,
        fs_ci95: None,
        unanswered: 0,
    };
    if n == 0 {
        return m;
    }
    m.mvr = Some(mean(&viol, &mut (0..n)));
    m.fs = Some(mean(&margin, &mut (0..n)));
    if let Some((reps, seed)) = bootstrap.filter(|b| b.0 > 0) {
        let mut rng = crate::sample::SplitMix64::new(seed);
        let (mut mvrs, mut fss) = (Vec::with_capacity(reps as usize), Vec::with_capacity(reps as usize));
        for _ in 0..reps {
            let idx: Vec<usize> = (0..n).map(|_| rng.below(n as u64) as usize).collect();
            mvrs.push(mean(&viol, &mut idx.iter().copied()));
            fss.push(mean(&margin, &mut idx.iter().copied()));
        }
        let ci = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            let at = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
            [at(0.025), at(0.975)]
        };
        m.mvr_ci95 = Some(ci(&mut mvrs));
        m.fs_ci95 = Some(ci(&mut fss));
    }
    m
}

/// One evaluator's scores on the locked split.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct EvaluatorReport {
    pub name: String,
    pub label_map: String,
    #[ts(type = "number")]
    pub split_version: i64,
    #[serde(flatten)]
    #[ts(flatten)]
    pub overall: Metrics,
    pub per_axis: BTreeMap<String, Metrics>,
    pub per_severity: BTreeMap<String, Metrics>,
    pub per_source: BTreeMap<String, Metrics>,
    /// Construction family (`none` for rows without one) -> metrics (see [`family`]).
    pub per_family: BTreeMap<String, Metrics>,
    /// Pairs with an unparsable or refused output, with what is wrong.
    pub missing_pairs: Vec<MissingPair>,
    /// Its requests answered, answered but unusable, and never answered.
    pub completeness: Completeness,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct MissingPair {
    pub id: String,
    pub problem: String,
}

/// An evaluation row with what the metrics group by.
#[derive(Debug, Clone)]
pub struct Pair {
    pub id: String,
    pub axis: String,
    pub severity: i64,
    pub source: String,
    /// The row's group (rows of one group share a source passage).
    pub group_id: String,
    /// How the row was constructed (`none` when the import gave no family).
    pub family: String,
    pub evidence_span: String,
    pub context: String,
    pub passage: String,
    pub calibrated_claim: String,
    pub raised_claim: String,
}

/// The locked split's evaluation pairs (its version, and the pairs in id order).
pub fn eval_pairs(project: &Project) -> Result<(i64, Vec<Pair>)> {
    let s = crate::split::show(project)?
        .ok_or_else(|| Error::NoLockedSplit("there is no split; draft and lock one first".into()))?;
    if s.status != "locked" {
        return Err(Error::NoLockedSplit(format!(
            "split v{} is a draft; evaluators are scored on a locked split (`forcebench split lock`)",
            s.version
        )));
    }
    let rows = crate::split::eval_rows(project)?;
    let families: HashMap<String, String> = project
        .conn()
        .prepare("SELECT id, construction_family FROM candidates WHERE construction_family IS NOT NULL")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok((
        s.version,
        rows.into_iter()
            .map(|r| Pair {
                family: families.get(&r.id).cloned().unwrap_or_else(|| crate::split::NO_FAMILY.to_string()),
                id: r.id,
                axis: r.axis,
                severity: r.severity,
                source: r.source_dataset,
                group_id: r.group_id,
                evidence_span: r.evidence_span,
                context: r.context,
                passage: r.passage,
                calibrated_claim: r.calibrated_claim,
                raised_claim: r.raised_claim,
            })
            .collect(),
    ))
}

/// Scores outputs against the pairs.
pub fn report(
    name: &str,
    map_name: &str,
    version: i64,
    pairs: &[Pair],
    outputs: &[Output],
    bootstrap: Option<(u32, u64)>,
) -> EvaluatorReport {
    let mut scores: HashMap<(&str, bool), &Output> = HashMap::new();
    for o in outputs {
        scores.insert((o.id.as_str(), o.safe), o);
    }
    // `None`: a claim of the pair was never answered (left out, counted as unanswered).
    let mut outcomes: Vec<Option<PairOutcome>> = Vec::with_capacity(pairs.len());
    let mut missing_pairs = Vec::new();
    let mut completeness = Completeness { requests: 2 * pairs.len() as u64, ..Completeness::default() };
    for p in pairs {
        let row = |safe: bool| scores.get(&(p.id.as_str(), safe));
        for safe in [true, false] {
            match row(safe) {
                None => completeness.unanswered += 1,
                Some(o) if o.score.is_none() => completeness.unusable += 1,
                Some(_) => completeness.answered += 1,
            }
        }
        if row(true).is_none() || row(false).is_none() {
            outcomes.push(None);
            continue;
        }
        let get = |safe: bool| row(safe).and_then(|o| o.score);
        let o = outcome(get(true), get(false));
        if o.2 {
            let why = |safe: bool| -> Option<String> {
                let claim = if safe { "safe" } else { "raised" };
                match row(safe) {
                    Some(o) if o.score.is_none() => Some(match &o.label {
                        Some(l) => format!("{claim} label `{l}` is not in the label map"),
                        None => format!("{claim} output has no usable score or label"),
                    }),
                    _ => None,
                }
            };
            let reasons: Vec<String> = [why(true), why(false)].into_iter().flatten().collect();
            missing_pairs.push(MissingPair { id: p.id.clone(), problem: reasons.join("; ") });
        }
        outcomes.push(Some(o));
    }
    let scored = |list: &[Option<PairOutcome>]| -> Metrics {
        let kept: Vec<PairOutcome> = list.iter().flatten().copied().collect();
        let mut m = metrics(&kept, bootstrap);
        m.unanswered = list.iter().filter(|o| o.is_none()).count() as u64;
        m
    };
    let group = |key: &dyn Fn(&Pair) -> String| -> BTreeMap<String, Metrics> {
        let mut by: BTreeMap<String, Vec<Option<PairOutcome>>> = BTreeMap::new();
        for (p, o) in pairs.iter().zip(&outcomes) {
            by.entry(key(p)).or_default().push(*o);
        }
        by.into_iter().map(|(k, v)| (k, scored(&v))).collect()
    };
    EvaluatorReport {
        name: name.to_string(),
        label_map: map_name.to_string(),
        split_version: version,
        overall: scored(&outcomes),
        per_axis: group(&|p| p.axis.clone()),
        per_severity: group(&|p| p.severity.to_string()),
        per_source: group(&|p| p.source.clone()),
        per_family: group(&|p| p.family.clone()),
        missing_pairs,
        completeness,
    }
}

/// Imports an evaluator's outputs for the locked split (replacing an earlier import under the
/// same name) and scores them.
pub fn import_and_score(
    project: &mut Project,
    path: &Path,
    name: &str,
    map: &LabelMap,
    bootstrap: Option<(u32, u64)>,
) -> Result<EvaluatorReport> {
    crate::limits::bootstrap(bootstrap)?;
    let name = evaluator_name(name)?;
    let (version, pairs) = eval_pairs(project)?;
    let ids = pairs.iter().map(|p| p.id.clone()).collect();
    let outputs = read_outputs(path, map, &ids)?;
    store(project, &name, &map.name, &outputs)?;
    Ok(report(&name, &map.name, version, &pairs, &outputs, bootstrap))
}

/// An evaluator's name as it arrives from outside (an import, a run, a lookup): trimmed and in
/// NFC, as ids and annotator names are, so a name typed in decomposed form finds the one stored;
/// refused when empty or holding an invisible character (before any file is read).
pub(crate) fn evaluator_name(name: &str) -> Result<String> {
    let name = name.trim();
    if name.is_empty() {
        return Err(Error::InvalidArgument("an evaluator needs a name".into()));
    }
    Ok(crate::input::identifier_key("evaluator name", name)?.into_owned())
}

fn store(project: &mut Project, name: &str, map: &str, outputs: &[Output]) -> Result<()> {
    let tx = project.conn_mut().transaction()?;
    let split_id: i64 =
        tx.query_row("SELECT id FROM splits WHERE status = 'locked' ORDER BY version DESC LIMIT 1", [], |r| r.get(0))?;
    if let Ok(old) =
        tx.query_row("SELECT id FROM evaluators WHERE name = ?1 AND split_id = ?2", params![name, split_id], |r| {
            r.get::<_, i64>(0)
        })
    {
        tx.execute("DELETE FROM evaluator_outputs WHERE evaluator_id = ?1", [old])?;
        tx.execute("DELETE FROM evaluators WHERE id = ?1", [old])?;
    }
    tx.execute(
        "INSERT INTO evaluators (name, split_id, label_map, imported_at) VALUES (?1, ?2, ?3, ?4)",
        params![name, split_id, map, now()],
    )?;
    let evaluator = tx.last_insert_rowid();
    {
        let mut insert = tx.prepare(
            "INSERT INTO evaluator_outputs (evaluator_id, candidate_id, claim, score, label, raw) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?;
        for o in outputs {
            insert.execute(params![
                evaluator,
                o.id,
                if o.safe { "safe" } else { "raised" },
                o.score,
                o.label,
                o.raw
            ])?;
        }
    }
    tx.commit()?;
    Ok(())
}

/// The names of the evaluators stored on the locked split, in name order.
pub fn stored_names(project: &Project) -> Result<Vec<String>> {
    let (version, _) = eval_pairs(project)?;
    let mut stmt = project.conn().prepare(
        "SELECT e.name FROM evaluators e JOIN splits s ON s.id = e.split_id WHERE s.version = ?1 ORDER BY e.name",
    )?;
    let names = stmt.query_map([version], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
    Ok(names)
}

/// Every stored evaluator on the locked split, scored again (for the comparison table).
pub fn compare(project: &Project, bootstrap: Option<(u32, u64)>) -> Result<Vec<EvaluatorReport>> {
    crate::limits::bootstrap(bootstrap)?;
    let (version, pairs) = eval_pairs(project)?;
    let conn = project.conn();
    let mut stmt = conn.prepare(
        "SELECT e.id, e.name, e.label_map FROM evaluators e JOIN splits s ON s.id = e.split_id
         WHERE s.version = ?1 ORDER BY e.name",
    )?;
    let evaluators: Vec<(i64, String, String)> =
        stmt.query_map([version], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect::<rusqlite::Result<_>>()?;
    let mut out = Vec::new();
    for (id, name, map) in evaluators {
        let mut s = conn
            .prepare("SELECT candidate_id, claim, score, label, raw FROM evaluator_outputs WHERE evaluator_id = ?1")?;
        let outputs: Vec<Output> = s
            .query_map([id], |r| {
                Ok(Output {
                    id: r.get(0)?,
                    safe: r.get::<_, String>(1)? == "safe",
                    score: r.get(2)?,
                    label: r.get(3)?,
                    raw: r.get(4)?,
                })
            })?
            .collect::<rusqlite::Result<_>>()?;
        out.push(report(&name, &map, version, &pairs, &outputs, bootstrap));
    }
    Ok(out)
}

/// Runs every baseline on the locked split, stores each as evaluator `baseline:<name>`, and
/// returns their reports.
pub fn run_baselines(project: &mut Project, bootstrap: Option<(u32, u64)>) -> Result<Vec<EvaluatorReport>> {
    crate::limits::bootstrap(bootstrap)?;
    let (version, pairs) = eval_pairs(project)?;
    let mut out = Vec::new();
    for name in baselines::NAMES {
        let outputs = baselines::outputs(name, &pairs);
        let full = format!("baseline:{name}");
        store(project, &full, "baseline", &outputs)?;
        out.push(report(&full, "baseline", version, &pairs, &outputs, bootstrap));
    }
    Ok(out)
}

/// Writes judge requests for the locked split's pairs: one complete prompt per claim. An
/// existing `out` is replaced only with `force`.
pub fn judge_export(project: &Project, template: &str, out: &Path, seed: u64, force: bool) -> Result<u64> {
    crate::output::check_target(out, force)?;
    let t = judge::template(template)?;
    let name = &t.name;
    if t.is_pairwise() {
        return Err(Error::InvalidArgument(format!(
            "`{name}` is a pairwise template (both claims in one prompt): it is for `judge run --control order`, not for one request per claim"
        )));
    }
    let (_, pairs) = eval_pairs(project)?;
    let with_context: Vec<(Pair, String)> = pairs
        .into_iter()
        .map(|p| {
            let c = p.context.clone();
            (p, c)
        })
        .collect();
    let requests = judge::requests(&t, &with_context, seed);
    let mut bytes = Vec::new();
    for r in &requests {
        serde_json::to_writer(&mut bytes, r).map_err(|e| Error::Internal(e.to_string()))?;
        bytes.push(b'\n');
    }
    crate::output::write_file(out, &bytes, force)?;
    Ok(requests.len() as u64)
}

/// Reads a judge's responses, stores them as evaluator `name` and scores them.
pub fn judge_import(
    project: &mut Project,
    path: &Path,
    name: &str,
    map: &LabelMap,
    bootstrap: Option<(u32, u64)>,
) -> Result<(EvaluatorReport, judge::ResponseStats)> {
    crate::limits::bootstrap(bootstrap)?;
    let name = evaluator_name(name)?;
    let (version, pairs) = eval_pairs(project)?;
    let ids = pairs.iter().map(|p| p.id.clone()).collect();
    let (outputs, stats) = judge::read_responses(path, map, &ids)?;
    store(project, &name, &map.name, &outputs)?;
    Ok((report(&name, &map.name, version, &pairs, &outputs, bootstrap), stats))
}
