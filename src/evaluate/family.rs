//! Results per construction family, and the shortcut audit.
//!
//! Every evaluation pair carries the construction family of its candidate (`none` when the import
//! gave none). [`super::report`] groups MVR and FS by it like by axis (`per_family`, with the same
//! bootstrap intervals), and a panel pools by it too.
//!
//! **The shortcut audit.** A family a lexical baseline finds much easier than the rest of the set
//! is a family whose contrast may be decidable from surface words (NEI-CAP audits its families
//! for this). For each stored lexical baseline (every built-in baseline but `citation_presence`,
//! whose constant score ties every pair) and each family, the audit compares the baseline's MVR on
//! the family's pairs with its MVR on all the other pairs. A family is **flagged** for that
//! baseline when both sides have at least [`MIN_PAIRS`] pairs and the family's MVR is lower than
//! the rest's by at least [`MIN_GAP`] (a quarter of the pairs: the baseline avoids a violation on
//! the family that much more often). The rest's MVR is computed from the same report's counts,
//! so the audit needs nothing but the baselines' reports.

use serde::Serialize;
use std::collections::BTreeMap;
use ts_rs::TS;

use super::{EvaluatorReport, Metrics};

/// The fewest pairs a family (and the rest of the set) needs for the audit to judge it.
pub const MIN_PAIRS: u64 = 5;
/// How much lower a baseline's MVR on a family must be than on the rest to flag the family.
pub const MIN_GAP: f64 = 0.25;

/// One baseline on one family against the rest of the evaluation set.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Shortcut {
    pub family: String,
    pub baseline: String,
    #[ts(type = "number")]
    pub n_pairs: u64,
    pub mvr: Option<f64>,
    pub mvr_ci95: Option<[f64; 2]>,
    #[ts(type = "number")]
    pub n_rest: u64,
    pub mvr_rest: Option<f64>,
    /// `mvr_rest - mvr`: how much better the baseline does on the family than elsewhere.
    pub gap: Option<f64>,
    /// Too few pairs on one side to judge.
    pub too_few: bool,
    pub flagged: bool,
}

/// The shortcut audit of every family, and the per-family results of every evaluator.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct FamilyReport {
    /// Family -> evaluation pairs.
    #[ts(as = "BTreeMap<String, u32>")]
    pub pairs: BTreeMap<String, u64>,
    /// Evaluator -> family -> MVR and FS with intervals.
    pub per_family: BTreeMap<String, BTreeMap<String, Metrics>>,
    /// Every lexical baseline on every family, in family then baseline order.
    pub shortcuts: Vec<Shortcut>,
    /// Families flagged by at least one baseline.
    pub flagged: Vec<String>,
    /// The rule, in words.
    pub rule: String,
}

/// Whether a stored evaluator is one of the lexical baselines the audit reads.
pub fn is_lexical_baseline(name: &str) -> bool {
    name.strip_prefix("baseline:").is_some_and(|b| super::baselines::NAMES.contains(&b) && b != "citation_presence")
}

/// The audit of one baseline's report, family by family.
pub fn shortcuts_of(r: &EvaluatorReport) -> Vec<Shortcut> {
    let (n_all, v_all) = (r.overall.n_pairs, r.overall.violations);
    r.per_family
        .iter()
        .map(|(family, m)| {
            let n_rest = n_all.saturating_sub(m.n_pairs);
            let mvr_rest = (n_rest > 0).then(|| v_all.saturating_sub(m.violations) as f64 / n_rest as f64);
            let gap = m.mvr.zip(mvr_rest).map(|(f, rest)| rest - f);
            let too_few = m.n_pairs < MIN_PAIRS || n_rest < MIN_PAIRS;
            Shortcut {
                family: family.clone(),
                baseline: r.name.clone(),
                n_pairs: m.n_pairs,
                mvr: m.mvr,
                mvr_ci95: m.mvr_ci95,
                n_rest,
                mvr_rest,
                gap,
                too_few,
                // A small tolerance: a gap of exactly a quarter, computed in floating point, counts.
                flagged: !too_few && gap.is_some_and(|g| g >= MIN_GAP - 1e-12),
            }
        })
        .collect()
}

/// The family report of a set of evaluator reports (those of `forcebench evaluate`).
pub fn family_report(reports: &[EvaluatorReport]) -> FamilyReport {
    let mut pairs = BTreeMap::new();
    let mut per_family = BTreeMap::new();
    let mut shortcuts = Vec::new();
    for r in reports {
        for (family, m) in &r.per_family {
            pairs.insert(family.clone(), m.n_pairs);
        }
        per_family.insert(r.name.clone(), r.per_family.clone());
        if is_lexical_baseline(&r.name) {
            shortcuts.extend(shortcuts_of(r));
        }
    }
    shortcuts.sort_by(|a, b| (&a.family, &a.baseline).cmp(&(&b.family, &b.baseline)));
    let mut flagged: Vec<String> = shortcuts.iter().filter(|s| s.flagged).map(|s| s.family.clone()).collect();
    flagged.dedup();
    FamilyReport {
        pairs,
        per_family,
        shortcuts,
        flagged,
        rule: format!(
            "a family is flagged when a lexical baseline's MVR on it is at least {MIN_GAP} lower than on the rest of \
             the evaluation set, with at least {MIN_PAIRS} pairs on each side"
        ),
    }
}
