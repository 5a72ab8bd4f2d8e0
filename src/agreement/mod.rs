//! Inter-annotator agreement on the pre-adjudication labels.
//!
//! [`project_report`] reads the two finished annotations of every double-annotated row (the
//! annotators' own labels, which adjudication never changes) and reports decision agreement
//! (three labels, and accept vs not-accept), field agreement, and breakdowns. Each row's two
//! annotations are oriented by roster order (the annotator added first is "A"), so with two
//! annotators this is the classic Cohen's kappa between them; with rotating pairs it is the
//! usual pooled reading, every actual pair is reported too, and Fleiss' kappa and
//! Krippendorff's alpha cover everyone at once.
//!
//! [`labels_report`] serves any long-format table (`item,annotator,label`), so the same
//! statistics apply to data from elsewhere. The numbers come from [`stats`].

pub mod coverage;
mod events;
pub mod export;
pub mod ordinal;
pub mod plan;
mod read;
pub mod stats;

use serde::Serialize;
use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use ts_rs::TS;

use crate::error::{Error, Result};
use crate::input::InputProblem;
use crate::project::Project;
use crate::settings::SuggestionMode;
use stats::{Interval, KappaStats, MultiRaterStats};

/// Defaults for the bootstrap interval.
pub const BOOTSTRAP_REPS: u32 = 1000;
pub const BOOTSTRAP_SEED: u64 = 20_250_517;

/// Agreement between two raters over labels, with the table behind it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct PairReport {
    #[serde(flatten)]
    #[ts(flatten)]
    pub kappa: KappaStats,
    pub bootstrap_ci95: Option<[f64; 2]>,
    /// Category names, in the order of the confusion matrix's rows and columns.
    pub labels: Vec<String>,
    /// Rows: the first rater's label; columns: the second's.
    #[ts(type = "Array<Array<number>>")]
    pub confusion: Vec<Vec<u64>>,
    /// Why a statistic is missing, in words.
    pub notes: Vec<String>,
    /// The interval to read for Cohen's kappa ([`stats::kappa_preferred_interval`]: Fisher's z
    /// on the Fleiss-Cohen-Everitt SE), which covers where `kappa_ci95` does not.
    pub kappa_interval: Option<Interval>,
    /// Sentences to read beside the figures: where the plain interval is known to under-cover,
    /// and (two categories) where skewed prevalence holds kappa down (Byrt, Bishop and Carlin
    /// 1993), pointing to AC1 and PABAK.
    pub advice: Vec<String>,
}

/// Below these, the plain kappa +- 1.96 SE interval covered under 93% in the coverage table
/// (docs/agreement-intervals.md); the sentence says so and names the interval to read.
pub fn plain_interval_under_covers(n: u64, kappa: f64, prevalence_index: Option<f64>) -> bool {
    n < 100 || (kappa >= 0.75 && n < 500) || prevalence_index.is_some_and(|p| p.abs() >= 0.6 && n < 500)
}

/// The sentences of [`PairReport::advice`] for one table.
pub fn advice(k: &KappaStats, preferred: Option<&Interval>) -> Vec<String> {
    let mut out = Vec::new();
    let f = |x: f64| format!("{x:.2}");
    if let (Some(kappa), Some(pref)) = (k.cohen_kappa, preferred) {
        if plain_interval_under_covers(k.n_items, kappa, k.prevalence_index) {
            out.push(format!(
                "with {} rows and kappa {}, kappa ± 1.96 SE covers less often than 95% (ForceBench's simulation of studies this size finds it holds the true kappa less often than it claims); read the interval {} to {} ({}) instead; the plain AC1, alpha and weighted-kappa intervals fall short here too, so read theirs from the intervals to read beside them",
                k.n_items,
                f(kappa),
                f(pref.ci95[0]),
                f(pref.ci95[1]),
                match pref.method {
                    stats::IntervalMethod::NoDisagreementBound => "no disagreement: the bound on the disagreement rate",
                    _ => "made on Fisher's z scale",
                }
            ));
        }
    }
    if let (Some(pi), Some(bi), Some(po)) = (k.prevalence_index, k.bias_index, k.percent_agreement) {
        if pi.abs() >= PREVALENCE_SKEWED {
            out.push(format!(
                "prevalence index {}: one label fills most of the agreeing rows, so chance agreement is high and kappa ({}) is held down although the annotators agree on {:.0}% of rows; read Gwet's AC1 ({}) and PABAK ({}) beside it",
                f(pi),
                k.cohen_kappa.map_or("undefined".into(), f),
                po * 100.0,
                k.gwet_ac1.map_or("undefined".into(), f),
                k.pabak.map_or("undefined".into(), f),
            ));
        }
        if bi.abs() >= BIAS_MARKED {
            out.push(format!(
                "bias index {}: the two annotators use the first label at different rates, which pushes kappa up; look at how each one labels",
                f(bi)
            ));
        }
    }
    out
}

/// |prevalence index| from which the report says kappa is held down by prevalence.
pub const PREVALENCE_SKEWED: f64 = 0.5;
/// |bias index| from which the report mentions the annotators' different rates.
pub const BIAS_MARKED: f64 = 0.1;

fn pair_report(pairs: &[(u32, u32)], labels: &[String], bootstrap: Option<(u32, u64)>) -> PairReport {
    let table = stats::table(pairs, labels.len());
    let kappa = stats::kappa_from_table(&table);
    let mut notes = Vec::new();
    if pairs.is_empty() {
        notes.push("no item was labelled by both annotators, so agreement is undefined".to_string());
    } else if kappa.cohen_kappa.is_none() {
        let used: BTreeSet<u32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
        if used.len() <= 1 {
            notes.push(format!(
                "every label is `{}`: with a single category chance agreement is 1 and kappa is undefined",
                labels[*used.iter().next().unwrap() as usize]
            ));
        } else {
            notes.push("chance agreement is 1, so kappa is undefined".to_string());
        }
    }
    let bootstrap_ci95 = bootstrap.and_then(|(reps, seed)| stats::bootstrap_kappa_ci(pairs, labels.len(), reps, seed));
    let kappa_interval = stats::kappa_preferred_interval(&kappa);
    let advice = advice(&kappa, kappa_interval.as_ref());
    PairReport { kappa, bootstrap_ci95, labels: labels.to_vec(), confusion: table, notes, kappa_interval, advice }
}

/// Agreement over a long-format label table.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct LabelsReport {
    pub annotators: Vec<String>,
    /// Cohen's kappa and companions for exactly two annotators (`null` values with more);
    /// `n_items` counts items labelled by both (two annotators) or by at least two (more).
    #[serde(flatten)]
    #[ts(flatten)]
    pub pair: PairReport,
    pub krippendorff_alpha: Option<f64>,
    pub fleiss_kappa: Option<f64>,
    /// Gwet's variance, t interval (as irrCAC).
    pub krippendorff_alpha_interval: Option<Interval>,
    pub fleiss_kappa_interval: Option<Interval>,
    /// The intervals to read for the two above ([`stats::read_interval`]).
    pub krippendorff_alpha_read_interval: Option<Interval>,
    pub fleiss_kappa_read_interval: Option<Interval>,
    /// Every pair of annotators, when there are more than two.
    pub pairs: Vec<NamedPair>,
    /// With `--ordinal` only: the labels read as ordered.
    pub ordinal: Option<ordinal::OrdinalReport>,
}

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct NamedPair {
    pub annotator_a: String,
    pub annotator_b: String,
    #[serde(flatten)]
    #[ts(flatten)]
    pub report: PairReport,
}

/// Reads `item,annotator,label` (header required, those three columns and no others; blank
/// labels are missing) and reports agreement. An annotator labelling one item twice is an error,
/// and so is an item or annotator holding an invisible character.
pub fn labels_report(path: &Path, bootstrap: Option<(u32, u64)>) -> Result<LabelsReport> {
    crate::limits::bootstrap(bootstrap)?;
    Ok(report_from_rows(&read_labels(path)?.rows, bootstrap))
}

/// [`labels_report`] with the labels read as ordered (`--ordinal`): also the quadratic-weighted
/// kappa and Krippendorff's ordinal alpha, each with both intervals ([`ordinal`]).
pub fn labels_report_ordinal(path: &Path, bootstrap: Option<(u32, u64)>) -> Result<LabelsReport> {
    crate::limits::bootstrap(bootstrap)?;
    let read = read_labels(path)?;
    let ordinal = ordinal::report(&read)?;
    let mut report = report_from_rows(&read.rows, bootstrap);
    report.ordinal = Some(ordinal);
    Ok(report)
}

/// The rows of a long-format label file, with the line each came from.
pub struct LabelRows {
    pub file: String,
    pub rows: Vec<(String, String, String)>,
    pub lines: Vec<u64>,
}

fn read_labels(path: &Path) -> Result<LabelRows> {
    const COLUMNS: [&str; 3] = ["item", "annotator", "label"];
    let (file, text) = crate::input::read_text(path)?;
    let at = |line: Option<u64>, field: Option<&str>, message: String| InputProblem {
        file: file.clone(),
        line,
        field: field.map(String::from),
        message,
    };
    let problem = |line: Option<u64>, field: Option<&str>, message: String| Error::InvalidInput {
        file: file.clone(),
        problems: vec![at(line, field, message)],
    };
    let mut reader = csv::ReaderBuilder::new().from_reader(text.as_bytes());
    let headers = reader.headers().map_err(|e| problem(Some(1), None, e.to_string()))?.clone();
    // An unknown column is refused: a typo (`labels`) would otherwise drop the column silently.
    let mut header_problems = Vec::new();
    for (i, name) in headers.iter().enumerate() {
        let name = name.trim();
        if !COLUMNS.contains(&name) {
            header_problems.push(at(
                Some(1),
                Some(name),
                "unknown column; the columns are item, annotator and label".into(),
            ));
        } else if headers.iter().take(i).any(|h| h.trim() == name) {
            header_problems.push(at(Some(1), Some(name), "this column appears twice in the header".into()));
        }
    }
    let col = |name: &str| headers.iter().position(|h| h.trim() == name);
    let (Some(ci), Some(ca), Some(cl)) = (col("item"), col("annotator"), col("label")) else {
        header_problems.push(at(Some(1), None, "the header must name the columns item, annotator and label".into()));
        return Err(Error::InvalidInput { file: file.clone(), problems: header_problems });
    };
    if !header_problems.is_empty() {
        return Err(Error::InvalidInput { file: file.clone(), problems: header_problems });
    }
    let mut rows: Vec<(String, String, String)> = Vec::new();
    let mut row_lines: Vec<u64> = Vec::new();
    let mut seen: HashMap<(String, String), u64> = HashMap::new();
    // The file's own lines, as an editor numbers them (the csv reader's count is one short after
    // CRLF line ends).
    let mut lines = crate::import::FileLines::new(text.as_bytes());
    for record in reader.records() {
        let record = match record {
            Ok(r) => r,
            Err(e) => return Err(problem(e.position().map(|p| lines.of_record_at(p.byte())), None, e.to_string())),
        };
        let line = record.position().map_or(0, |p| lines.of_record_at(p.byte()));
        let get = |i: usize| record.get(i).unwrap_or("").trim().to_string();
        // Items and names in one Unicode form: `José` composed or decomposed is one annotator.
        let (item, who, label) = (crate::input::nfc(&get(ci)), crate::input::nfc(&get(ca)), get(cl));
        if item.is_empty() || who.is_empty() {
            return Err(problem(
                Some(line),
                Some(if item.is_empty() { "item" } else { "annotator" }),
                "required value is empty".into(),
            ));
        }
        for (name, value) in [("item", &item), ("annotator", &who)] {
            crate::input::check_identifier(name, value).map_err(|m| problem(Some(line), Some(name), m))?;
        }
        if label.is_empty() {
            continue; // missing
        }
        if let Some(first) = seen.insert((item.clone(), who.clone()), line) {
            return Err(problem(
                Some(line),
                Some("label"),
                format!("annotator `{who}` labels item `{item}` twice (first on line {first})"),
            ));
        }
        rows.push((item, who, label));
        row_lines.push(line);
    }
    Ok(LabelRows { file, rows, lines: row_lines })
}

/// Agreement over (item, annotator, label) triples.
pub fn report_from_rows(rows: &[(String, String, String)], bootstrap: Option<(u32, u64)>) -> LabelsReport {
    let sorted = |pick: fn(&(String, String, String)) -> &str| -> Vec<String> {
        let set: std::collections::HashSet<&str> = rows.iter().map(pick).collect();
        let mut v: Vec<String> = set.into_iter().map(String::from).collect();
        v.sort();
        v
    };
    let labels = sorted(|r| &r.2);
    let annotators = sorted(|r| &r.1);
    let label_index: HashMap<&str, u32> = labels.iter().enumerate().map(|(i, l)| (l.as_str(), i as u32)).collect();
    let who_index: HashMap<&str, usize> = annotators.iter().enumerate().map(|(i, l)| (l.as_str(), i)).collect();
    // Items x annotators, MISSING where an annotator gave no label.
    const MISSING: u32 = u32::MAX;
    let width = annotators.len();
    let mut item_index: HashMap<&str, usize> = HashMap::with_capacity(rows.len() / 2 + 1);
    let mut grid: Vec<u32> = Vec::with_capacity(rows.len());
    for (item, who, label) in rows {
        let next = item_index.len();
        let i = *item_index.entry(item.as_str()).or_insert(next);
        if i == next {
            grid.resize(grid.len() + width, MISSING);
        }
        grid[i * width + who_index[who.as_str()]] = label_index[label.as_str()];
    }
    let items: Vec<&[u32]> = if width == 0 { Vec::new() } else { grid.chunks(width).collect() };
    let pairs_of = |a: usize, b: usize| -> Vec<(u32, u32)> {
        items.iter().filter(|m| m[a] != MISSING && m[b] != MISSING).map(|m| (m[a], m[b])).collect()
    };
    let units: Vec<Vec<u32>> = items.iter().map(|m| m.iter().copied().filter(|&v| v != MISSING).collect()).collect();
    let multi: MultiRaterStats = stats::multi_rater(&units, labels.len());
    let mut report = LabelsReport {
        annotators: annotators.clone(),
        pair: pair_report(&[], &labels, None),
        krippendorff_alpha: multi.krippendorff_alpha,
        fleiss_kappa: multi.fleiss_kappa,
        krippendorff_alpha_interval: multi.krippendorff_alpha_interval.clone(),
        fleiss_kappa_interval: multi.fleiss_kappa_interval.clone(),
        krippendorff_alpha_read_interval: multi.krippendorff_alpha_read_interval.clone(),
        fleiss_kappa_read_interval: multi.fleiss_kappa_read_interval.clone(),
        pairs: Vec::new(),
        ordinal: None,
    };
    match annotators.len() {
        0 | 1 => {
            report.pair.notes =
                vec![format!("agreement needs at least two annotators; this table has {}", annotators.len())];
        }
        2 => {
            let pairs = pairs_of(0, 1);
            report.pair = pair_report(&pairs, &labels, bootstrap);
        }
        _ => {
            report.pair.notes =
                vec!["more than two annotators: Cohen's kappa is given per pair (see pairs), Fleiss' kappa and Krippendorff's alpha over everyone".into()];
            report.pair.kappa.gwet_ac1 = multi.gwet_ac1;
            report.pair.kappa.gwet_ac1_interval = multi.gwet_ac1_interval.clone();
            report.pair.kappa.gwet_ac1_read_interval = multi.gwet_ac1_read_interval.clone();
            report.pair.kappa.n_items = multi.n_items;
            for i in 0..annotators.len() {
                for j in i + 1..annotators.len() {
                    let pairs = pairs_of(i, j);
                    report.pairs.push(NamedPair {
                        annotator_a: annotators[i].clone(),
                        annotator_b: annotators[j].clone(),
                        report: pair_report(&pairs, &labels, bootstrap),
                    });
                }
            }
        }
    }
    if report.krippendorff_alpha.is_none() && annotators.len() >= 2 {
        report
            .pair
            .notes
            .push("Krippendorff's alpha is undefined: no item has two labels, or all labels are one category".into());
    }
    report
}

/// Both spans of a row, read compactly: most rows agree exactly, and only differing spans are
/// needed as text (for token overlap).
#[derive(Debug, Clone, PartialEq)]
enum SpanPair {
    /// At least one annotator marked no span.
    Missing,
    Same,
    Differ(String, String),
}

/// One row's two finished annotations, oriented by roster order, with every label as a small
/// index so that the statistics run over compact data.
#[derive(Debug, Clone)]
pub struct DoubleAnnotated {
    pub id: String,
    source: u32,                // index into AnnotatedRows::sources
    suggested_axis: Option<u8>, // index into Axis::ALL
    names: [u32; 2],            // indices into AnnotatedRows::names
    decision: [u8; 2],          // indices into Decision::ALL
    axis: [Option<u8>; 2],
    severity: [Option<u8>; 2], // 0-based
    span: SpanPair,
    /// Per annotator: kept the suggested calibrated claim, kept the suggested raised claim.
    kept: [[bool; 2]; 2],
    /// The suggestion mode both annotations were started in (index into
    /// [`SuggestionMode::ALL`]), or `SuggestionMode::ALL.len()` when the two differ.
    mode: u8,
    /// The guideline version both labels were last changed under (index into
    /// `AnnotatedRows::versions`; "mixed" when the two differ).
    version: u32,
    /// The ISO week (`2025-W10`) of the later of the two annotations' last changes (index into
    /// `AnnotatedRows::weeks`).
    week: u32,
}

/// Every double-annotated row of a project, with the tables its indices point into.
#[derive(Debug, Clone, Default)]
pub struct AnnotatedRows {
    pub rows: Vec<DoubleAnnotated>,
    sources: Vec<String>,
    names: Vec<String>,
    versions: Vec<String>,
    weeks: Vec<String>,
}

impl AnnotatedRows {
    pub fn len(&self) -> usize {
        self.rows.len()
    }
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The keys row `i` is counted under in the breakdowns by suggestion mode, guideline version
    /// and week (`mixed` where the two annotations differ; an empty week when no event has a
    /// readable time).
    pub fn keys(&self, i: usize) -> (&str, &str, &str) {
        let r = &self.rows[i];
        let mode = SuggestionMode::ALL.get(r.mode as usize).map_or("mixed", |m| m.as_str());
        (mode, &self.versions[r.version as usize], &self.weeks[r.week as usize])
    }
}

fn intern(table: &mut Vec<String>, index: &mut HashMap<String, u32>, value: String) -> u32 {
    if let Some(&i) = index.get(&value) {
        return i;
    }
    let i = table.len() as u32;
    table.push(value.clone());
    index.insert(value, i);
    i
}

fn vocab_index<T: std::str::FromStr + PartialEq + Copy>(
    all: &[T],
    value: Option<String>,
    column: usize,
) -> rusqlite::Result<Option<u8>> {
    let Some(value) = value else { return Ok(None) };
    let parsed: T = value.parse().map_err(|_| {
        rusqlite::Error::FromSqlConversionFailure(
            column,
            rusqlite::types::Type::Text,
            format!("unknown value `{value}`").into(),
        )
    })?;
    Ok(all.iter().position(|v| *v == parsed).map(|i| i as u8))
}

/// Reads every row with two finished pre-adjudication annotations. Equal spans and kept claims
/// are compared by digest as they are read, so only differing spans are kept as text.
pub fn double_annotated(project: &Project) -> Result<AnnotatedRows> {
    double_annotated_in(project.conn())
}

/// [`double_annotated`] on a connection (inside a transaction, say).
///
/// Every table is read once in storage order and joined in memory ([`read::rows`], then
/// [`events::event_facts`] for what each label takes from its events): asked row by row, the
/// annotations, the candidate and five lookups of the annotation events took 105 s at a
/// million rows, random probes into a file ten times SQLite's memory map.
pub fn double_annotated_in(conn: &rusqlite::Connection) -> Result<AnnotatedRows> {
    let (mut out, slots) = read::rows(conn)?;
    let facts = events::event_facts(conn, &out.rows, &slots)?;
    let (mut version_index, mut week_index) = (HashMap::new(), HashMap::new());
    let mut weeks = events::WeekOf::new(conn)?;
    for ((row, f), who) in out.rows.iter_mut().zip(&facts.rows).zip(&slots) {
        // An annotation's mode is the one it was started in (its first event); events made
        // before modes existed were pre-filled.
        let [m1, m2] = f.mode.map(|m| m.unwrap_or_default() as usize);
        row.mode = if m1 == m2 { m1 } else { SuggestionMode::ALL.len() } as u8;
        // A label's guideline version is the one in force at its last change.
        let version = |slot: usize| -> Result<&str> {
            let v = f.version[slot];
            facts.versions.get(v as usize).map(String::as_str).ok_or_else(|| {
                Error::Corrupt(format!(
                    "the finished annotation of row `{}` by annotator {} has no events",
                    row.id, who[slot]
                ))
            })
        };
        let (v1, v2) = (version(0)?, version(1)?);
        row.version =
            intern(&mut out.versions, &mut version_index, if v1 == v2 { v1.to_string() } else { "mixed".into() });
        // The ISO week of the later of the two labels' last events (the latest `at` of either).
        let week = match &f.latest {
            Some(at) => weeks.of(at)?,
            None => String::new(),
        };
        row.week = intern(&mut out.weeks, &mut week_index, week);
    }
    Ok(out)
}

/// Decision agreement alone: what a split records when it is locked.
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionAgreement {
    pub decision: PairReport,
    pub krippendorff_alpha: Option<f64>,
}

/// The decision agreement of [`report_for`] over the rows [`double_annotated_in`] reads (both
/// assigned annotators finished, oriented by roster order), from two narrow scans joined in
/// memory instead of six index probes per row: a split locks a 100,000-row project in a tenth of
/// the time.
pub fn decision_agreement_in(conn: &rusqlite::Connection) -> Result<DecisionAgreement> {
    use crate::vocab::Decision;
    // Row -> (annotator id, decision index) per slot.
    let mut slots: HashMap<String, [(i64, Option<u8>); 2]> = HashMap::new();
    {
        let mut stmt = conn.prepare("SELECT candidate_id, slot, annotator_id FROM assignments")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let slot: i64 = r.get(1)?;
            let entry = slots.entry(r.get(0)?).or_insert([(-1, None); 2]);
            entry[(slot == 2) as usize].0 = r.get(2)?;
        }
    }
    let mut stmt = conn.prepare(
        "SELECT candidate_id, annotator_id, decision FROM annotations WHERE finished = 1 AND decision IS NOT NULL",
    )?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let id = crate::db::text(r, 0)?;
        let Some(pair) = slots.get_mut(id) else { continue };
        let annotator: i64 = r.get(1)?;
        let decision = vocab_index(Decision::ALL, Some(r.get(2)?), 2)?;
        for slot in pair.iter_mut().filter(|s| s.0 == annotator) {
            slot.1 = decision;
        }
    }
    let mut pairs: Vec<(u32, u32)> = slots
        .into_values()
        .filter_map(|[(a, da), (b, db)]| {
            let (da, db) = (da? as u32, db? as u32);
            Some(if a > b { (db, da) } else { (da, db) })
        })
        .collect();
    // The statistics do not depend on row order; a fixed order keeps any later resampling stable.
    pairs.sort_unstable();
    let labels = names_of(Decision::ALL, Decision::as_str);
    let units: Vec<[u32; 2]> = pairs.iter().map(|&(a, b)| [a, b]).collect();
    Ok(DecisionAgreement {
        decision: pair_report(&pairs, &labels, None),
        krippendorff_alpha: stats::multi_rater(&units, labels.len()).krippendorff_alpha,
    })
}

/// Span agreement on rows where both annotators marked a span.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct SpanAgreement {
    #[ts(type = "number")]
    pub n_items: u64,
    pub exact_match_rate: Option<f64>,
    pub mean_token_f1: Option<f64>,
    /// Wilson interval of the exact-match rate.
    pub exact_match_interval: Option<Interval>,
    /// Seeded percentile bootstrap over rows (no formula for a mean of bounded, lumpy values
    /// that covers near 1); `null` when the report is made without a bootstrap.
    pub mean_token_f1_interval: Option<Interval>,
}

/// Whether the two annotators kept the suggested claim or changed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ClaimEdits {
    #[ts(type = "number")]
    pub both_kept: u64,
    #[ts(type = "number")]
    pub one_changed: u64,
    #[ts(type = "number")]
    pub both_changed: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Breakdown {
    pub key: String,
    #[ts(type = "number")]
    pub n_items: u64,
    pub percent_agreement: Option<f64>,
    pub cohen_kappa: Option<f64>,
    /// kappa +- 1.96 large-sample SE, clipped to [-1, 1] (as the overall `kappa_ci95`).
    pub kappa_ci95: Option<[f64; 2]>,
    /// The interval to read (as the overall `kappa_interval`).
    pub kappa_interval: Option<Interval>,
    /// Set when kappa +- 1.96 SE under-covers at this group's n and kappa (read `kappa_interval`).
    pub plain_interval_under_covers: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ProjectAgreement {
    /// Decision agreement over the three labels (annotation A vs B); its `n_items` counts the
    /// rows with two finished pre-adjudication annotations.
    #[serde(flatten)]
    #[ts(flatten)]
    pub decision: PairReport,
    pub krippendorff_alpha: Option<f64>,
    pub fleiss_kappa: Option<f64>,
    /// Gwet's variance, t interval (as irrCAC), for the two above.
    pub krippendorff_alpha_interval: Option<Interval>,
    pub fleiss_kappa_interval: Option<Interval>,
    /// The intervals to read for every coefficient that has a plain one
    /// ([`stats::read_interval`]; docs/agreement-intervals.md).
    pub krippendorff_alpha_read_interval: Option<Interval>,
    pub fleiss_kappa_read_interval: Option<Interval>,
    pub axis_krippendorff_alpha_read_interval: Option<Interval>,
    pub severity_weighted_kappa_read_interval: Option<Interval>,
    pub severity_krippendorff_alpha_read_interval: Option<Interval>,
    /// Accept vs not accept (reject or needs discussion).
    pub accept_vs_not: PairReport,
    /// Primary axis, on rows both annotators accepted.
    pub axis_when_both_accept: PairReport,
    /// Krippendorff's alpha (nominal) of the primary axis, on rows both accepted, with Gwet's
    /// variance.
    pub axis_krippendorff_alpha: Option<f64>,
    pub axis_krippendorff_alpha_interval: Option<Interval>,
    /// Severity with quadratic weights, on rows both annotators accepted.
    pub severity_weighted_kappa: Option<f64>,
    /// Fleiss-Cohen-Everitt SE of the weighted kappa, normal interval.
    pub severity_weighted_kappa_interval: Option<Interval>,
    /// Krippendorff's alpha with his ordinal metric, on the same rows, with Gwet's variance.
    pub severity_krippendorff_alpha: Option<f64>,
    pub severity_krippendorff_alpha_interval: Option<Interval>,
    #[ts(type = "number")]
    pub severity_n_items: u64,
    pub span: SpanAgreement,
    pub calibrated_claim_edits: ClaimEdits,
    pub raised_claim_edits: ClaimEdits,
    pub by_source: Vec<Breakdown>,
    pub by_suggested_axis: Vec<Breakdown>,
    pub by_pair: Vec<Breakdown>,
    /// Decision agreement per suggestion mode the two annotations were made in (`prefilled`,
    /// `beside`, `hidden`, or `mixed` when the two annotators worked in different modes).
    pub by_suggestion_mode: Vec<Breakdown>,
    /// Decision agreement per guideline version both labels were last changed under (`mixed`
    /// when the two differ): whether a clarification helped.
    pub by_guideline_version: Vec<Breakdown>,
    /// Decision agreement per ISO week (`2025-W10`) of the later of the two labels.
    pub by_week: Vec<Breakdown>,
    /// Each annotator against the final labels (empty when no row is adjudicated, and in a
    /// report read from a CSV).
    pub by_annotator: Vec<AnnotatorQuality>,
    /// The suggestions followed through: how often each finished annotation kept the suggested
    /// value of a field, per field, drafter and construction family, with the annotations made
    /// with suggestions hidden counted apart (`null` in a report read from a CSV).
    pub suggestion_uptake: Option<crate::contexts::uptake::UptakeReport>,
    /// How many rows the decision kappa needs for an interval of +- 0.05, 0.10 and 0.15: at the
    /// kappa and label shares seen so far, and more from now ([`plan::panel`]).
    pub plan: Vec<plan::PlanRow>,
}

/// One annotator against the adjudicated labels.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct AnnotatorQuality {
    pub annotator: String,
    /// Adjudicated rows this annotator finished.
    #[ts(type = "number")]
    pub adjudicated_rows: u64,
    /// Field -> share of rows where their value is the final one (over the rows whose final
    /// decision uses the field), with its Wilson 95% interval.
    pub per_field: std::collections::BTreeMap<String, Proportion>,
    /// Mean seconds per finished row, over the rows with time recorded in the app.
    pub seconds_per_row: Option<f64>,
    /// Share of their finished rows they sent to discussion.
    pub sent_to_discussion: Option<f64>,
    /// Finished rows decided in under two seconds of time recorded in the app (flagged to the
    /// adjudicator; labels imported from a file have no time and are not counted).
    #[ts(type = "number")]
    pub under_two_seconds: u64,
}

/// A share with its Wilson 95% interval.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Proportion {
    #[ts(type = "number")]
    pub agree: u64,
    #[ts(type = "number")]
    pub total: u64,
    pub share: Option<f64>,
    pub ci95: Option<[f64; 2]>,
}

/// `agree` of `total` with the Wilson score interval (Wilson 1927) at 95%.
pub fn proportion(agree: u64, total: u64) -> Proportion {
    if total == 0 {
        return Proportion { agree, total, share: None, ci95: None };
    }
    let (n, p) = (total as f64, agree as f64 / total as f64);
    let z = 1.959_963_984_540_054_f64;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    Proportion { agree, total, share: Some(p), ci95: Some([(centre - half).max(0.0), (centre + half).min(1.0)]) }
}

/// Each annotator with finished rows, against the final labels (see [`AnnotatorQuality`]).
pub fn by_annotator(project: &Project) -> Result<Vec<AnnotatorQuality>> {
    let conn = project.conn();
    let mut out = Vec::new();
    for person in crate::roster::list(project)?.into_iter().filter(|p| p.role == crate::roster::Role::Annotator) {
        let (finished, seconds, discuss, fast): (i64, Option<f64>, i64, i64) = conn.query_row(
            "SELECT count(*), avg(CASE WHEN seconds_spent > 0 THEN seconds_spent END), coalesce(sum(decision = 'needs_discussion'), 0),
                    coalesce(sum(seconds_spent > 0 AND seconds_spent < 2), 0)
             FROM annotations WHERE annotator_id = ?1 AND finished = 1",
            [person.id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )?;
        if finished == 0 {
            continue;
        }
        let f = crate::feedback::for_annotator(project, &person.name)?;
        out.push(AnnotatorQuality {
            annotator: person.name,
            adjudicated_rows: f.summary.adjudicated_rows,
            per_field: f.summary.per_field.iter().map(|(k, t)| (k.clone(), proportion(t.agree, t.total))).collect(),
            seconds_per_row: seconds,
            sent_to_discussion: Some(discuss as f64 / finished as f64),
            under_two_seconds: fast as u64,
        });
    }
    Ok(out)
}

fn names_of<T: Copy>(all: &[T], name: impl Fn(T) -> &'static str) -> Vec<String> {
    all.iter().map(|&v| name(v).to_string()).collect()
}

/// Decision agreement per group of rows; `groups` names each group, `key` gives a row's group.
fn breakdown(rows: &[DoubleAnnotated], groups: Vec<String>, key: impl Fn(&DoubleAnnotated) -> usize) -> Vec<Breakdown> {
    let q = crate::vocab::Decision::ALL.len();
    let mut tables = vec![vec![vec![0u64; q]; q]; groups.len()];
    for r in rows {
        tables[key(r)][r.decision[0] as usize][r.decision[1] as usize] += 1;
    }
    let mut out: Vec<Breakdown> = groups
        .into_iter()
        .zip(tables)
        .filter_map(|(key, table)| {
            let k = stats::kappa_from_table(&table);
            (k.n_items > 0).then(|| Breakdown {
                key,
                n_items: k.n_items,
                percent_agreement: k.percent_agreement,
                cohen_kappa: k.cohen_kappa,
                kappa_ci95: k.kappa_ci95,
                kappa_interval: stats::kappa_preferred_interval(&k),
                plain_interval_under_covers: k
                    .cohen_kappa
                    .is_some_and(|kappa| plain_interval_under_covers(k.n_items, kappa, k.prevalence_index)),
            })
        })
        .collect();
    out.sort_by(|a, b| a.key.cmp(&b.key));
    out
}

/// Agreement of the project's pre-adjudication labels. `bootstrap`: (replicates, seed), or
/// `None` to skip the bootstrap interval.
pub fn project_report(project: &Project, bootstrap: Option<(u32, u64)>) -> Result<ProjectAgreement> {
    crate::limits::bootstrap(bootstrap)?;
    let mut report = report_for(&double_annotated(project)?, bootstrap);
    report.by_annotator = by_annotator(project)?;
    report.suggestion_uptake = Some(crate::contexts::uptake::uptake(project)?);
    Ok(report)
}

/// Every statistic of [`project_report`] on rows already read.
pub fn report_for(data: &AnnotatedRows, bootstrap: Option<(u32, u64)>) -> ProjectAgreement {
    use crate::vocab::{Axis, Decision};
    let rows = &data.rows;
    let accept = Decision::ALL.iter().position(|d| *d == Decision::AcceptForceGap).unwrap() as u8;
    let labels = names_of(Decision::ALL, Decision::as_str);
    let pairs: Vec<(u32, u32)> = rows.iter().map(|r| (r.decision[0] as u32, r.decision[1] as u32)).collect();
    let decision = pair_report(&pairs, &labels, bootstrap);
    let plan = plan::panel(&decision);

    // Everyone at once: items x annotators.
    let units: Vec<[u32; 2]> = pairs.iter().map(|&(a, b)| [a, b]).collect();
    let multi = stats::multi_rater(&units, labels.len());

    let binary = ["accept".to_string(), "not_accept".to_string()];
    let bin_pairs: Vec<(u32, u32)> =
        rows.iter().map(|r| (u32::from(r.decision[0] != accept), u32::from(r.decision[1] != accept))).collect();
    let accept_vs_not = pair_report(&bin_pairs, &binary, None);

    let mut axis_pairs = Vec::new();
    let mut sev_pairs = Vec::new();
    for r in rows.iter().filter(|r| r.decision == [accept, accept]) {
        if let [Some(a), Some(b)] = r.axis {
            axis_pairs.push((a as u32, b as u32));
        }
        if let [Some(a), Some(b)] = r.severity {
            sev_pairs.push((a as u32, b as u32));
        }
    }
    let axes = names_of(Axis::ALL, Axis::as_str);
    let axis_when_both_accept = pair_report(&axis_pairs, &axes, None);
    let severity_weighted_kappa = stats::quadratic_weighted_kappa(&stats::table(&sev_pairs, 3));
    let severity_kappa = stats::weighted_kappa_intervals(&stats::table(&sev_pairs, 3), &stats::quadratic_weights(3));
    let axis_units: Vec<[u32; 2]> = axis_pairs.iter().map(|&(a, b)| [a, b]).collect();
    let axis_family =
        stats::gwet_family(&stats::patterns(&axis_units, axes.len()), &stats::identity_weights(axes.len()));
    let axis_alpha = axis_family.krippendorff_alpha;
    let sev_units: Vec<[u32; 2]> = sev_pairs.iter().map(|&(a, b)| [a, b]).collect();
    let severity_alpha = stats::krippendorff_ordinal_family(&sev_units, 3);

    let (mut n_spans, mut exact, mut f1_sum) = (0u64, 0u64, 0.0f64);
    // Token F1 of each row whose spans differ (rows with equal spans score 1).
    let mut differing: Vec<f64> = Vec::new();
    for r in rows {
        match &r.span {
            SpanPair::Missing => continue,
            SpanPair::Same => {
                exact += 1;
                f1_sum += 1.0;
            }
            SpanPair::Differ(a, b) => {
                let f = stats::token_f1(a, b);
                f1_sum += f;
                differing.push(f);
            }
        }
        n_spans += 1;
    }
    let span = SpanAgreement {
        n_items: n_spans,
        exact_match_rate: (n_spans > 0).then(|| exact as f64 / n_spans as f64),
        mean_token_f1: (n_spans > 0).then(|| f1_sum / n_spans as f64),
        exact_match_interval: stats::wilson(exact as f64, n_spans as f64).map(|ci95| Interval {
            se: Some((exact as f64 / n_spans as f64 * (1.0 - exact as f64 / n_spans as f64) / n_spans as f64).sqrt()),
            ci95,
            method: stats::IntervalMethod::Wilson,
        }),
        mean_token_f1_interval: bootstrap.and_then(|(reps, seed)| span_f1_bootstrap(exact, &differing, reps, seed)),
    };
    let edits = |which: usize| {
        let mut e = ClaimEdits { both_kept: 0, one_changed: 0, both_changed: 0 };
        for r in rows {
            match (!r.kept[0][which]) as u8 + (!r.kept[1][which]) as u8 {
                0 => e.both_kept += 1,
                1 => e.one_changed += 1,
                _ => e.both_changed += 1,
            }
        }
        e
    };

    // Annotator pairs as unordered pairs of name indices, named "X + Y" in name order.
    let n_names = data.names.len();
    let pair_key = |r: &DoubleAnnotated| {
        let (a, b) = (r.names[0] as usize, r.names[1] as usize);
        if data.names[a] <= data.names[b] {
            a * n_names + b
        } else {
            b * n_names + a
        }
    };
    let pair_names: Vec<String> =
        (0..n_names * n_names).map(|k| format!("{} + {}", data.names[k / n_names], data.names[k % n_names])).collect();
    let mut mode_groups: Vec<String> = SuggestionMode::ALL.iter().map(|m| m.as_str().to_string()).collect();
    mode_groups.push("mixed".into());
    let mut axis_groups = axes.clone();
    axis_groups.push("none".into());
    ProjectAgreement {
        decision,
        krippendorff_alpha: multi.krippendorff_alpha,
        fleiss_kappa: multi.fleiss_kappa,
        krippendorff_alpha_interval: multi.krippendorff_alpha_interval,
        fleiss_kappa_interval: multi.fleiss_kappa_interval,
        krippendorff_alpha_read_interval: multi.krippendorff_alpha_read_interval,
        fleiss_kappa_read_interval: multi.fleiss_kappa_read_interval,
        axis_krippendorff_alpha_read_interval: axis_family.krippendorff_alpha_read,
        severity_weighted_kappa_read_interval: severity_kappa.as_ref().map(|k| k.2.clone()),
        severity_krippendorff_alpha_read_interval: severity_alpha.krippendorff_alpha_read.clone(),
        accept_vs_not,
        axis_when_both_accept,
        axis_krippendorff_alpha: axis_alpha.as_ref().map(|a| a.0),
        axis_krippendorff_alpha_interval: axis_alpha.map(|a| a.1),
        severity_weighted_kappa,
        severity_weighted_kappa_interval: severity_kappa.map(|k| k.1),
        severity_krippendorff_alpha: severity_alpha.krippendorff_alpha.as_ref().map(|a| a.0),
        severity_krippendorff_alpha_interval: severity_alpha.krippendorff_alpha.map(|a| a.1),
        severity_n_items: sev_pairs.len() as u64,
        span,
        calibrated_claim_edits: edits(0),
        raised_claim_edits: edits(1),
        by_source: breakdown(rows, data.sources.clone(), |r| r.source as usize),
        by_suggested_axis: breakdown(rows, axis_groups, |r| r.suggested_axis.map_or(Axis::ALL.len(), usize::from)),
        by_pair: breakdown(rows, pair_names, pair_key),
        by_suggestion_mode: breakdown(rows, mode_groups, |r| r.mode as usize),
        by_guideline_version: breakdown(rows, data.versions.clone(), |r| r.version as usize),
        by_week: breakdown(rows, data.weeks.clone(), |r| r.week as usize),
        by_annotator: Vec::new(),
        suggestion_uptake: None,
        plan,
    }
}

/// Percentile bootstrap of the mean token F1 over rows: `same` rows score 1, the others their
/// own F1. Each replicate draws n rows with replacement; only the draws that land on a differing
/// row need a value, so the draws in between are skipped with geometric gaps (exactly the same
/// distribution as drawing every row, at the cost of the differing rows only: at a million rows
/// most spans agree and this is what keeps the view quick).
#[doc(hidden)]
pub fn span_f1_interval_for_tests(same: u64, differing: &[f64], reps: u32, seed: u64) -> Option<Interval> {
    span_f1_bootstrap(same, differing, reps, seed)
}

fn span_f1_bootstrap(same: u64, differing: &[f64], reps: u32, seed: u64) -> Option<Interval> {
    let n = same as usize + differing.len();
    let d = differing.len();
    if n == 0 || reps == 0 {
        return None;
    }
    let mut rng = crate::sample::SplitMix64::new(seed);
    let mut uniform = move || (rng.below(1 << 53) as f64 + 0.5) / (1u64 << 53) as f64;
    let p = d as f64 / n as f64;
    let mut means = Vec::with_capacity(reps as usize);
    for _ in 0..reps {
        let (mut sum, mut hits, mut at) = (0.0, 0usize, 0usize);
        if d > 0 {
            loop {
                // Draws until the next one on a differing row: geometric with success p.
                let gap = if p >= 1.0 { 0 } else { (uniform().ln() / (1.0 - p).ln()).floor() as usize };
                at = at.saturating_add(gap);
                if at >= n {
                    break;
                }
                sum += differing[((uniform() * d as f64) as usize).min(d - 1)];
                hits += 1;
                at += 1;
            }
        }
        means.push((sum + (n - hits) as f64) / n as f64);
    }
    means.sort_by(f64::total_cmp);
    let at = |q: f64| means[((means.len() - 1) as f64 * q).round() as usize];
    Some(Interval { se: None, ci95: [at(0.025), at(0.975)], method: stats::IntervalMethod::BootstrapPercentile })
}

/// A confusion matrix of the project report, for opening the rows behind a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ConfusionTable {
    Decision,
    AcceptVsNot,
    AxisWhenBothAccept,
}

/// One row behind a confusion-matrix cell, with who labelled it which way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct CellRow {
    pub id: String,
    pub annotator_a: String,
    pub annotator_b: String,
}

/// The rows counted in cell (`row`, `col`) of a confusion matrix of [`project_report`]: rows are
/// annotation A's label, columns B's, in the matrix's label order.
pub fn cell_rows(project: &Project, table: ConfusionTable, row: usize, col: usize) -> Result<Vec<CellRow>> {
    let data = double_annotated(project)?;
    let accept =
        crate::vocab::Decision::ALL.iter().position(|d| *d == crate::vocab::Decision::AcceptForceGap).unwrap() as u8;
    let label = |r: &DoubleAnnotated, who: usize| -> Option<usize> {
        match table {
            ConfusionTable::Decision => Some(r.decision[who] as usize),
            ConfusionTable::AcceptVsNot => Some(usize::from(r.decision[who] != accept)),
            ConfusionTable::AxisWhenBothAccept => {
                if r.decision != [accept, accept] || r.axis.contains(&None) {
                    return None;
                }
                r.axis[who].map(usize::from)
            }
        }
    };
    Ok(data
        .rows
        .iter()
        .filter(|r| label(r, 0) == Some(row) && label(r, 1) == Some(col))
        .map(|r| CellRow {
            id: r.id.clone(),
            annotator_a: data.names[r.names[0] as usize].clone(),
            annotator_b: data.names[r.names[1] as usize].clone(),
        })
        .collect())
}
