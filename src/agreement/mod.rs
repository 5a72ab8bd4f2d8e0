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

pub mod stats;

use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use ts_rs::TS;

use crate::error::{Error, Result};
use crate::import::InputProblem;
use crate::project::Project;
use stats::{KappaStats, MultiRaterStats};

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
}

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
    PairReport { kappa, bootstrap_ci95, labels: labels.to_vec(), confusion: table, notes }
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
    /// Every pair of annotators, when there are more than two.
    pub pairs: Vec<NamedPair>,
}

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct NamedPair {
    pub annotator_a: String,
    pub annotator_b: String,
    #[serde(flatten)]
    #[ts(flatten)]
    pub report: PairReport,
}

/// Reads `item,annotator,label` (header required; other columns ignored; blank labels are
/// missing) and reports agreement. An annotator labelling one item twice is an error.
pub fn labels_report(path: &Path, bootstrap: Option<(u32, u64)>) -> Result<LabelsReport> {
    let file = path.display().to_string();
    let problem = |line: Option<u64>, field: Option<&str>, message: String| Error::InvalidInput {
        file: file.clone(),
        problems: vec![InputProblem { file: file.clone(), line, field: field.map(String::from), message }],
    };
    let mut reader = csv::ReaderBuilder::new().from_path(path).map_err(|e| problem(None, None, e.to_string()))?;
    let headers = reader.headers().map_err(|e| problem(Some(1), None, e.to_string()))?.clone();
    let col = |name: &str| headers.iter().position(|h| h.trim() == name);
    let (Some(ci), Some(ca), Some(cl)) = (col("item"), col("annotator"), col("label")) else {
        return Err(problem(Some(1), None, "the header must name the columns item, annotator and label".into()));
    };
    let mut rows: Vec<(String, String, String)> = Vec::new();
    let mut seen: HashMap<(String, String), u64> = HashMap::new();
    for record in reader.records() {
        let record = record.map_err(|e| problem(e.position().map(|p| p.line()), None, e.to_string()))?;
        let line = record.position().map_or(0, |p| p.line());
        let get = |i: usize| record.get(i).unwrap_or("").trim().to_string();
        let (item, who, label) = (get(ci), get(ca), get(cl));
        if item.is_empty() || who.is_empty() {
            return Err(problem(Some(line), Some(if item.is_empty() { "item" } else { "annotator" }), "required value is empty".into()));
        }
        if label.is_empty() {
            continue; // missing
        }
        if let Some(first) = seen.insert((item.clone(), who.clone()), line) {
            return Err(problem(Some(line), Some("label"), format!("annotator `{who}` labels item `{item}` twice (first on line {first})")));
        }
        rows.push((item, who, label));
    }
    Ok(report_from_rows(&rows, bootstrap))
}

/// Agreement over (item, annotator, label) triples.
pub fn report_from_rows(rows: &[(String, String, String)], bootstrap: Option<(u32, u64)>) -> LabelsReport {
    let labels: Vec<String> = rows.iter().map(|r| r.2.clone()).collect::<BTreeSet<_>>().into_iter().collect();
    let annotators: Vec<String> = rows.iter().map(|r| r.1.clone()).collect::<BTreeSet<_>>().into_iter().collect();
    let label_index: HashMap<&str, u32> = labels.iter().enumerate().map(|(i, l)| (l.as_str(), i as u32)).collect();
    let mut by_item: BTreeMap<&str, BTreeMap<&str, u32>> = BTreeMap::new();
    for (item, who, label) in rows {
        by_item.entry(item).or_default().insert(who, label_index[label.as_str()]);
    }
    let pairs_of = |a: &str, b: &str| -> Vec<(u32, u32)> {
        by_item.values().filter_map(|m| Some((*m.get(a)?, *m.get(b)?))).collect()
    };
    let units: Vec<Vec<u32>> = by_item.values().map(|m| m.values().copied().collect()).collect();
    let multi: MultiRaterStats = stats::multi_rater(&units, labels.len());
    let mut report = LabelsReport {
        annotators: annotators.clone(),
        pair: pair_report(&[], &labels, None),
        krippendorff_alpha: multi.krippendorff_alpha,
        fleiss_kappa: multi.fleiss_kappa,
        pairs: Vec::new(),
    };
    match annotators.len() {
        0 | 1 => {
            report.pair.notes = vec![format!(
                "agreement needs at least two annotators; this table has {}",
                annotators.len()
            )];
        }
        2 => {
            let pairs = pairs_of(&annotators[0], &annotators[1]);
            report.pair = pair_report(&pairs, &labels, bootstrap);
        }
        _ => {
            report.pair.notes =
                vec!["more than two annotators: Cohen's kappa is given per pair (see pairs), Fleiss' kappa and Krippendorff's alpha over everyone".into()];
            report.pair.kappa.gwet_ac1 = multi.gwet_ac1;
            report.pair.kappa.n_items = multi.n_items;
            for i in 0..annotators.len() {
                for j in i + 1..annotators.len() {
                    let pairs = pairs_of(&annotators[i], &annotators[j]);
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
        report.pair.notes.push("Krippendorff's alpha is undefined: no item has two labels, or all labels are one category".into());
    }
    report
}

/// One row's two finished annotations, oriented by roster order.
pub struct DoubleAnnotated {
    source: String,
    suggested_axis: Option<String>,
    suggested: [String; 2], // calibrated, raised
    names: [String; 2],
    decision: [String; 2],
    axis: [Option<String>; 2],
    severity: [Option<i64>; 2],
    span: [Option<String>; 2],
    claims: [[Option<String>; 2]; 2], // per annotator: calibrated, raised
}

/// Reads every row with two finished pre-adjudication annotations.
pub fn double_annotated(project: &Project) -> Result<Vec<DoubleAnnotated>> {
    let mut stmt = project.conn().prepare(
        "SELECT c.source_dataset, c.axis, c.calibrated_claim, c.raised_claim, a1.id > a2.id,
                a1.name, n1.decision, n1.axis, n1.severity, n1.evidence_span, n1.calibrated_claim, n1.raised_claim,
                a2.name, n2.decision, n2.axis, n2.severity, n2.evidence_span, n2.calibrated_claim, n2.raised_claim
         FROM candidates c
         JOIN assignments s1 ON s1.candidate_id = c.id AND s1.slot = 1
         JOIN assignments s2 ON s2.candidate_id = c.id AND s2.slot = 2
         JOIN annotations n1 ON n1.candidate_id = c.id AND n1.annotator_id = s1.annotator_id AND n1.finished = 1
         JOIN annotations n2 ON n2.candidate_id = c.id AND n2.annotator_id = s2.annotator_id AND n2.finished = 1
         JOIN annotators a1 ON a1.id = s1.annotator_id
         JOIN annotators a2 ON a2.id = s2.annotator_id
         ORDER BY c.seq",
    )?;
    let rows = stmt.query_map([], |r| {
        // Columns after the flag: annotator 1 at 5..=11, annotator 2 at 12..=18.
        let swap: bool = r.get(4)?;
        let (x, y) = if swap { (12, 5) } else { (5, 12) };
        Ok(DoubleAnnotated {
            source: r.get(0)?,
            suggested_axis: r.get(1)?,
            suggested: [r.get(2)?, r.get(3)?],
            names: [r.get(x)?, r.get(y)?],
            decision: [r.get(x + 1)?, r.get(y + 1)?],
            axis: [r.get(x + 2)?, r.get(y + 2)?],
            severity: [r.get(x + 3)?, r.get(y + 3)?],
            span: [r.get(x + 4)?, r.get(y + 4)?],
            claims: [[r.get(x + 5)?, r.get(x + 6)?], [r.get(y + 5)?, r.get(y + 6)?]],
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Span agreement on rows where both annotators marked a span.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct SpanAgreement {
    #[ts(type = "number")]
    pub n_items: u64,
    pub exact_match_rate: Option<f64>,
    pub mean_token_f1: Option<f64>,
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
    /// Accept vs not accept (reject or needs discussion).
    pub accept_vs_not: PairReport,
    /// Primary axis, on rows both annotators accepted.
    pub axis_when_both_accept: PairReport,
    /// Severity with quadratic weights, on rows both annotators accepted.
    pub severity_weighted_kappa: Option<f64>,
    #[ts(type = "number")]
    pub severity_n_items: u64,
    pub span: SpanAgreement,
    pub calibrated_claim_edits: ClaimEdits,
    pub raised_claim_edits: ClaimEdits,
    pub by_source: Vec<Breakdown>,
    pub by_suggested_axis: Vec<Breakdown>,
    pub by_pair: Vec<Breakdown>,
}

const DECISIONS: [&str; 3] = ["accept_force_gap", "reject_not_force_gap", "needs_discussion"];

fn index_of(labels: &[String], value: &str) -> u32 {
    labels.iter().position(|l| l == value).expect("label in its list") as u32
}

/// Decision agreement per group of rows; `pairs[i]` holds row i's decisions as indices.
fn breakdown<'a, K: Ord>(
    rows: &'a [DoubleAnnotated],
    pairs: &[(u32, u32)],
    key: impl Fn(&'a DoubleAnnotated) -> K,
    name: impl Fn(&K) -> String,
) -> Vec<Breakdown> {
    let mut groups: BTreeMap<K, Vec<(u32, u32)>> = BTreeMap::new();
    for (r, p) in rows.iter().zip(pairs) {
        groups.entry(key(r)).or_default().push(*p);
    }
    groups
        .into_iter()
        .map(|(key, pairs)| {
            let k = stats::kappa_from_table(&stats::table(&pairs, DECISIONS.len()));
            Breakdown { key: name(&key), n_items: pairs.len() as u64, percent_agreement: k.percent_agreement, cohen_kappa: k.cohen_kappa }
        })
        .collect()
}

/// Agreement of the project's pre-adjudication labels. `bootstrap`: (replicates, seed), or
/// `None` to skip the bootstrap interval.
pub fn project_report(project: &Project, bootstrap: Option<(u32, u64)>) -> Result<ProjectAgreement> {
    Ok(report_for(&double_annotated(project)?, bootstrap))
}

/// Every statistic of [`project_report`] on rows already read.
pub fn report_for(rows: &[DoubleAnnotated], bootstrap: Option<(u32, u64)>) -> ProjectAgreement {
    let labels: Vec<String> = DECISIONS.iter().map(|s| s.to_string()).collect();
    let pairs: Vec<(u32, u32)> =
        rows.iter().map(|r| (index_of(&labels, &r.decision[0]), index_of(&labels, &r.decision[1]))).collect();
    let decision = pair_report(&pairs, &labels, bootstrap);

    // Everyone at once: items x annotators.
    let units: Vec<Vec<u32>> = pairs.iter().map(|&(a, b)| vec![a, b]).collect();
    let multi = stats::multi_rater(&units, labels.len());

    let binary = ["accept".to_string(), "not_accept".to_string()];
    let bin_pairs: Vec<(u32, u32)> = pairs.iter().map(|&(a, b)| (u32::from(a != 0), u32::from(b != 0))).collect();
    let accept_vs_not = pair_report(&bin_pairs, &binary, None);

    let both_accept: Vec<&DoubleAnnotated> =
        rows.iter().zip(&pairs).filter(|(_, &(a, b))| a == 0 && b == 0).map(|(r, _)| r).collect();
    let axes: Vec<String> = crate::vocab::Axis::ALL.iter().map(|a| a.as_str().to_string()).collect();
    let axis_pairs: Vec<(u32, u32)> = both_accept
        .iter()
        .filter_map(|r| Some((index_of(&axes, r.axis[0].as_deref()?), index_of(&axes, r.axis[1].as_deref()?))))
        .collect();
    let axis_when_both_accept = pair_report(&axis_pairs, &axes, None);
    let sev_pairs: Vec<(u32, u32)> =
        both_accept.iter().filter_map(|r| Some(((r.severity[0]? - 1) as u32, (r.severity[1]? - 1) as u32))).collect();
    let severity_weighted_kappa = stats::quadratic_weighted_kappa(&stats::table(&sev_pairs, 3));

    let spans: Vec<(&str, &str)> = rows.iter().filter_map(|r| Some((r.span[0].as_deref()?, r.span[1].as_deref()?))).collect();
    let n_spans = spans.len() as f64;
    let span = SpanAgreement {
        n_items: spans.len() as u64,
        exact_match_rate: (!spans.is_empty()).then(|| spans.iter().filter(|(a, b)| a == b).count() as f64 / n_spans),
        mean_token_f1: (!spans.is_empty()).then(|| spans.iter().map(|(a, b)| stats::token_f1(a, b)).sum::<f64>() / n_spans),
    };
    let edits = |which: usize| {
        let mut e = ClaimEdits { both_kept: 0, one_changed: 0, both_changed: 0 };
        for r in rows {
            let changed = (0..2).filter(|&a| r.claims[a][which].as_deref() != Some(r.suggested[which].as_str())).count();
            match changed {
                0 => e.both_kept += 1,
                1 => e.one_changed += 1,
                _ => e.both_changed += 1,
            }
        }
        e
    };
    ProjectAgreement {
        decision,
        krippendorff_alpha: multi.krippendorff_alpha,
        fleiss_kappa: multi.fleiss_kappa,
        accept_vs_not,
        axis_when_both_accept,
        severity_weighted_kappa,
        severity_n_items: sev_pairs.len() as u64,
        span,
        calibrated_claim_edits: edits(0),
        raised_claim_edits: edits(1),
        by_source: breakdown(rows, &pairs, |r| r.source.as_str(), |k| k.to_string()),
        by_suggested_axis: breakdown(rows, &pairs, |r| r.suggested_axis.as_deref().unwrap_or("none"), |k| k.to_string()),
        by_pair: breakdown(
            rows,
            &pairs,
            |r| {
                let (a, b) = (r.names[0].as_str(), r.names[1].as_str());
                if a <= b { (a, b) } else { (b, a) }
            },
            |(a, b)| format!("{a} + {b}"),
        ),
    }
}
