//! Several evaluators read together: a pooled panel (the ForceBench paper's "model aggregate",
//! whose units are judges × pairs) and a paired comparison of two evaluators or two panels scored
//! on the same pairs.
//!
//! Uncertainty is always taken over pairs, the unit every evaluator shares: a bootstrap replicate
//! draws the evaluation pairs with replacement and keeps every judge's outcome on each pair drawn,
//! so the judges' answers on one pair stay together (a cluster bootstrap). A paired comparison
//! matches unit to unit (the same pair, and for panels the i-th member of each panel: the same
//! model under two prompts when the panels list their models in one order), counts the
//! discordant units, and gives McNemar's exact test on them (a two-sided binomial test at 1/2 on
//! the discordant counts) beside the differences in MVR and FS with paired-bootstrap intervals.

use rusqlite::OptionalExtension;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use ts_rs::TS;

use super::{eval_pairs, outcome, EvaluatorReport, Metrics, Pair, PairOutcome, BOOTSTRAP_REPS, BOOTSTRAP_SEED};
use crate::error::{Error, Result};
use crate::project::Project;

/// MVR and FS pooled over a panel: `units` = members × pairs.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Pooled {
    #[ts(type = "number")]
    pub n_pairs: u64,
    #[ts(type = "number")]
    pub units: u64,
    #[ts(type = "number")]
    pub violations: u64,
    /// Units with an unparsable or refused output (counted as violations, margin 0).
    #[ts(type = "number")]
    pub missing: u64,
    /// Units left out because a claim was never answered (only with incomplete members let in).
    #[ts(type = "number")]
    pub unanswered: u64,
    pub mvr: Option<f64>,
    pub fs: Option<f64>,
    /// Percentile intervals from a bootstrap over pairs.
    pub mvr_ci95: Option<[f64; 2]>,
    pub fs_ci95: Option<[f64; 2]>,
}

/// A panel of evaluators pooled over the locked split.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct PanelReport {
    pub members: Vec<String>,
    #[ts(type = "number")]
    pub split_version: i64,
    #[serde(flatten)]
    #[ts(flatten)]
    pub overall: Pooled,
    pub per_axis: BTreeMap<String, Pooled>,
    /// Construction family (`none` for rows without one) -> the pool over its pairs.
    pub per_family: BTreeMap<String, Pooled>,
}

impl PanelReport {
    /// The panel as one evaluator row (for the plots): its `n_pairs` are units.
    pub fn as_report(&self, name: &str) -> EvaluatorReport {
        let m = |p: &Pooled| Metrics {
            n_pairs: p.units,
            mvr: p.mvr,
            fs: p.fs,
            violations: p.violations,
            missing: p.missing,
            mvr_ci95: p.mvr_ci95,
            fs_ci95: p.fs_ci95,
            unanswered: p.unanswered,
        };
        EvaluatorReport {
            name: name.to_string(),
            label_map: "panel".into(),
            split_version: self.split_version,
            overall: m(&self.overall),
            per_axis: self.per_axis.iter().map(|(k, v)| (k.clone(), m(v))).collect(),
            per_severity: BTreeMap::new(),
            per_source: BTreeMap::new(),
            per_family: self.per_family.iter().map(|(k, v)| (k.clone(), m(v))).collect(),
            missing_pairs: Vec::new(),
            completeness: super::Completeness::default(),
        }
    }
}

/// One member's outcome on one pair; `None` when a claim of the pair was never answered.
pub type Unit = Option<PairOutcome>;

/// Each named evaluator's outcome on every evaluation pair (in the pairs' order), and the pairs.
pub fn outcomes(project: &Project, names: &[String]) -> Result<(i64, Vec<Pair>, Vec<Vec<Unit>>)> {
    let (version, pairs) = eval_pairs(project)?;
    let conn = project.conn();
    let mut all = Vec::with_capacity(names.len());
    for name in names {
        let name = super::evaluator_name(name)?;
        let id: Option<i64> = conn
            .query_row(
                "SELECT e.id FROM evaluators e JOIN splits s ON s.id = e.split_id WHERE s.version = ?1 AND e.name = ?2",
                rusqlite::params![version, name],
                |r| r.get(0),
            )
            .optional()?;
        let Some(id) = id else {
            return Err(Error::NoEvaluator(format!(
                "no evaluator named `{name}` is scored on locked split v{version}; `forcebench evaluate --json` lists them"
            )));
        };
        let mut stmt =
            conn.prepare("SELECT candidate_id, claim, score FROM evaluator_outputs WHERE evaluator_id = ?1")?;
        let mut scores: HashMap<(String, bool), Option<f64>> = HashMap::new();
        for row in stmt.query_map([id], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get(2)?)))? {
            let (cid, claim, score) = row?;
            scores.insert((cid, claim == "safe"), score);
        }
        // No output row: never answered (left out); a row without a score: unusable (violation).
        let get = |p: &Pair, safe: bool| scores.get(&(p.id.clone(), safe)).copied();
        all.push(
            pairs
                .iter()
                .map(|p| match (get(p, true), get(p, false)) {
                    (Some(s), Some(r)) => Some(outcome(s, r)),
                    _ => None,
                })
                .collect(),
        );
    }
    Ok((version, pairs, all))
}

fn percentile_ci(v: &mut [f64]) -> [f64; 2] {
    v.sort_by(f64::total_cmp);
    let at = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
    [at(0.025), at(0.975)]
}

/// Pools `members` (each a list of outcomes over the same `idx` pairs) with a pair bootstrap.
fn pool(members: &[Vec<Unit>], idx: &[usize], bootstrap: Option<(u32, u64)>) -> Pooled {
    let n = idx.len();
    let sums = |draw: &mut dyn Iterator<Item = usize>| -> (f64, f64, u64) {
        let (mut v, mut m, mut k) = (0.0, 0.0, 0u64);
        for i in draw {
            for o in members.iter().filter_map(|member| member[i]) {
                v += f64::from(u8::from(o.0));
                m += o.1;
                k += 1;
            }
        }
        (v, m, k)
    };
    let units = idx.iter().map(|&i| members.iter().filter(|m| m[i].is_some()).count() as u64).sum();
    let count = |f: &dyn Fn(&PairOutcome) -> bool| -> u64 {
        idx.iter().map(|&i| members.iter().filter(|m| m[i].as_ref().is_some_and(f)).count() as u64).sum()
    };
    let mut p = Pooled {
        n_pairs: n as u64,
        units,
        violations: count(&|o| o.0),
        missing: count(&|o| o.2),
        unanswered: (n * members.len()) as u64 - units,
        mvr: None,
        fs: None,
        mvr_ci95: None,
        fs_ci95: None,
    };
    if units == 0 {
        return p;
    }
    let (v, m, k) = sums(&mut idx.iter().copied());
    p.mvr = Some(v / k as f64);
    p.fs = Some(m / k as f64);
    if let Some((reps, seed)) = bootstrap.filter(|b| b.0 > 0) {
        let mut rng = crate::sample::SplitMix64::new(seed);
        let (mut mvrs, mut fss) = (Vec::with_capacity(reps as usize), Vec::with_capacity(reps as usize));
        for _ in 0..reps {
            let draw: Vec<usize> = (0..n).map(|_| idx[rng.below(n as u64) as usize]).collect();
            let (v, m, k) = sums(&mut draw.into_iter());
            // A draw of only unanswered units (possible only with incomplete members) has no rate.
            if k > 0 {
                mvrs.push(v / k as f64);
                fss.push(m / k as f64);
            }
        }
        if !mvrs.is_empty() {
            p.mvr_ci95 = Some(percentile_ci(&mut mvrs));
            p.fs_ci95 = Some(percentile_ci(&mut fss));
        }
    }
    p
}

/// The names in the form they are stored (trimmed, NFC), refused when empty or when one
/// evaluator is named twice (in whatever spelling: composed and decomposed forms are one name).
fn distinct(names: &[String], what: &str) -> Result<Vec<String>> {
    if names.is_empty() {
        return Err(Error::InvalidArgument(format!("{what} needs at least one evaluator name")));
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::with_capacity(names.len());
    for n in names {
        let key = super::evaluator_name(n)?;
        if !seen.insert(key.clone()) {
            return Err(Error::InvalidArgument(format!(
                "`{key}` is named twice in {what}: each evaluator counts once"
            )));
        }
        out.push(key);
    }
    Ok(out)
}

/// Pools the named evaluators over the locked split's pairs (complete, non-leaky ones only).
pub fn panel(project: &Project, names: &[String], bootstrap: Option<(u32, u64)>) -> Result<PanelReport> {
    panel_with(project, names, bootstrap, false)
}

/// [`panel`], letting incomplete members in when `include_incomplete` (their unanswered pairs
/// are left out of the units and counted in `unanswered`).
pub fn panel_with(
    project: &Project,
    names: &[String],
    bootstrap: Option<(u32, u64)>,
    include_incomplete: bool,
) -> Result<PanelReport> {
    crate::limits::bootstrap(bootstrap)?;
    let names = distinct(names, "a panel")?;
    super::fitness::check(project, &names, include_incomplete)?;
    let (version, pairs, members) = outcomes(project, &names)?;
    Ok(panel_of(&names, version, &pairs, &members, bootstrap))
}

fn panel_of(
    names: &[String],
    version: i64,
    pairs: &[Pair],
    members: &[Vec<Unit>],
    bootstrap: Option<(u32, u64)>,
) -> PanelReport {
    let all: Vec<usize> = (0..pairs.len()).collect();
    let (mut by_axis, mut by_family): (BTreeMap<String, Vec<usize>>, BTreeMap<String, Vec<usize>>) = Default::default();
    for (i, p) in pairs.iter().enumerate() {
        by_axis.entry(p.axis.clone()).or_default().push(i);
        by_family.entry(p.family.clone()).or_default().push(i);
    }
    PanelReport {
        members: names.iter().map(|n| n.trim().to_string()).collect(),
        split_version: version,
        overall: pool(members, &all, bootstrap),
        per_axis: by_axis.into_iter().map(|(k, idx)| (k, pool(members, &idx, bootstrap))).collect(),
        per_family: by_family.into_iter().map(|(k, idx)| (k, pool(members, &idx, bootstrap))).collect(),
    }
}

/// Two evaluators (or two panels of as many members) compared unit by unit on the same pairs.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct PairedReport {
    pub a: Vec<String>,
    pub b: Vec<String>,
    #[ts(type = "number")]
    pub split_version: i64,
    #[ts(type = "number")]
    pub n_pairs: u64,
    /// Matched units: pairs × members of each side.
    #[ts(type = "number")]
    pub units: u64,
    pub mvr_a: Option<f64>,
    pub mvr_b: Option<f64>,
    pub fs_a: Option<f64>,
    pub fs_b: Option<f64>,
    /// Units where A violates monotonicity and B does not.
    #[ts(type = "number")]
    pub only_a_violates: u64,
    /// Units where B violates and A does not.
    #[ts(type = "number")]
    pub only_b_violates: u64,
    #[ts(type = "number")]
    pub both_violate: u64,
    #[ts(type = "number")]
    pub neither_violates: u64,
    /// Member-pairs left out because either side never answered a claim of the pair (only with
    /// incomplete evaluators let in).
    #[ts(type = "number")]
    pub unanswered: u64,
    /// MVR(A) − MVR(B), with a paired-bootstrap interval over pairs.
    pub delta_mvr: Option<f64>,
    pub delta_mvr_ci95: Option<[f64; 2]>,
    /// FS(A) − FS(B), with a paired-bootstrap interval over pairs.
    pub delta_fs: Option<f64>,
    pub delta_fs_ci95: Option<[f64; 2]>,
    /// McNemar's exact two-sided p-value on the discordant units.
    pub mcnemar_p: f64,
}

/// The exact two-sided p-value of McNemar's test: a binomial test of `b` successes in `b + c`
/// trials at probability 1/2 (twice the smaller tail, at most 1).
pub fn mcnemar_exact(b: u64, c: u64) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    let k = b.min(c);
    // Log-probabilities of 0..=k successes, summed in log space (n may be in the thousands).
    let mut lp = n as f64 * 0.5f64.ln();
    let mut terms = Vec::with_capacity(k as usize + 1);
    for i in 0..=k {
        terms.push(lp);
        lp += ((n - i) as f64).ln() - ((i + 1) as f64).ln();
    }
    let max = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let tail = max.exp() * terms.iter().map(|t| (t - max).exp()).sum::<f64>();
    (2.0 * tail).min(1.0)
}

/// Compares A and B (each one evaluator or a panel; panels are matched member by member).
pub fn paired(project: &Project, a: &[String], b: &[String], bootstrap: Option<(u32, u64)>) -> Result<PairedReport> {
    paired_with(project, a, b, bootstrap, false)
}

/// [`paired`], letting incomplete evaluators in when `include_incomplete` (a unit either side
/// never answered is left out and counted in `unanswered`).
pub fn paired_with(
    project: &Project,
    a: &[String],
    b: &[String],
    bootstrap: Option<(u32, u64)>,
    include_incomplete: bool,
) -> Result<PairedReport> {
    crate::limits::bootstrap(bootstrap)?;
    let a = distinct(a, "side A")?;
    let b = distinct(b, "side B")?;
    if a == b {
        return Err(Error::InvalidArgument(format!(
            "side A and side B are the same ({}): a comparison needs two different evaluators or panels",
            a.join(", ")
        )));
    }
    if a.len() != b.len() {
        return Err(Error::InvalidArgument(format!(
            "side A has {} evaluator(s) and side B {}: a paired comparison matches them one to one",
            a.len(),
            b.len()
        )));
    }
    let mut both = a.clone();
    both.extend(b.iter().filter(|n| !a.contains(n)).cloned());
    super::fitness::check(project, &both, include_incomplete)?;
    let (version, pairs, oa) = outcomes(project, &a)?;
    let (_, _, ob) = outcomes(project, &b)?;
    Ok(paired_of(&a, &b, version, pairs.len(), &oa, &ob, bootstrap))
}

fn paired_of(
    a: &[String],
    b: &[String],
    version: i64,
    n: usize,
    oa: &[Vec<Unit>],
    ob: &[Vec<Unit>],
    bootstrap: Option<(u32, u64)>,
) -> PairedReport {
    let (mut only_a, mut only_b, mut both, mut neither, mut left_out) = (0, 0, 0, 0, 0u64);
    // Per pair: (violations A − violations B, margins A − margins B, units), summed over the
    // members whose unit both sides answered; and the sums of each side over the same units.
    let mut diffs: Vec<(f64, f64, u64)> = vec![(0.0, 0.0, 0); n];
    let (mut va, mut vb, mut fa, mut fb) = (0.0, 0.0, 0.0, 0.0);
    for (ma, mb) in oa.iter().zip(ob) {
        for (i, d) in diffs.iter_mut().enumerate() {
            let (Some(x), Some(y)) = (ma[i], mb[i]) else {
                left_out += 1;
                continue;
            };
            match (x.0, y.0) {
                (true, false) => only_a += 1,
                (false, true) => only_b += 1,
                (true, true) => both += 1,
                (false, false) => neither += 1,
            }
            let (vx, vy) = (f64::from(u8::from(x.0)), f64::from(u8::from(y.0)));
            *d = (d.0 + vx - vy, d.1 + x.1 - y.1, d.2 + 1);
            (va, vb, fa, fb) = (va + vx, vb + vy, fa + x.1, fb + y.1);
        }
    }
    let units: u64 = diffs.iter().map(|d| d.2).sum();
    let per = |sum: f64| (units > 0).then(|| sum / units as f64);
    let mut r = PairedReport {
        a: a.to_vec(),
        b: b.to_vec(),
        split_version: version,
        n_pairs: n as u64,
        units,
        mvr_a: per(va),
        mvr_b: per(vb),
        fs_a: per(fa),
        fs_b: per(fb),
        only_a_violates: only_a,
        only_b_violates: only_b,
        both_violate: both,
        neither_violates: neither,
        unanswered: left_out,
        delta_mvr: per(diffs.iter().map(|d| d.0).sum::<f64>()),
        delta_mvr_ci95: None,
        delta_fs: per(diffs.iter().map(|d| d.1).sum::<f64>()),
        delta_fs_ci95: None,
        mcnemar_p: mcnemar_exact(only_a, only_b),
    };
    if let Some((reps, seed)) = bootstrap.filter(|b| b.0 > 0 && n > 0 && units > 0) {
        let mut rng = crate::sample::SplitMix64::new(seed);
        let (mut dv, mut dm) = (Vec::with_capacity(reps as usize), Vec::with_capacity(reps as usize));
        for _ in 0..reps {
            let (mut sv, mut sm, mut k) = (0.0, 0.0, 0u64);
            for _ in 0..n {
                let d = diffs[rng.below(n as u64) as usize];
                sv += d.0;
                sm += d.1;
                k += d.2;
            }
            if k > 0 {
                dv.push(sv / k as f64);
                dm.push(sm / k as f64);
            }
        }
        if !dv.is_empty() {
            r.delta_mvr_ci95 = Some(percentile_ci(&mut dv));
            r.delta_fs_ci95 = Some(percentile_ci(&mut dm));
        }
    }
    r
}

/// The default bootstrap of the panel and paired reports.
pub const DEFAULT_BOOTSTRAP: (u32, u64) = (BOOTSTRAP_REPS, BOOTSTRAP_SEED);

/// Removes a stored evaluator from the locked split (its scores, and the judge runs stored under
/// its name on that split, every control). Returns how many judge runs went with it.
pub fn remove(project: &mut Project, name: &str) -> Result<u64> {
    let (version, _) = eval_pairs(project)?;
    let name = super::evaluator_name(name)?;
    let tx = project.conn_mut().transaction()?;
    let split_id: i64 = tx.query_row("SELECT id FROM splits WHERE version = ?1", [version], |r| r.get(0))?;
    let evaluator: Option<i64> = tx
        .query_row(
            "SELECT id FROM evaluators WHERE name = ?1 AND split_id = ?2",
            rusqlite::params![name, split_id],
            |r| r.get(0),
        )
        .optional()?;
    let runs: Vec<i64> = {
        let mut stmt = tx.prepare("SELECT id FROM judge_runs WHERE name = ?1 AND split_id = ?2")?;
        let ids = stmt.query_map(rusqlite::params![name, split_id], |r| r.get(0))?;
        ids.collect::<rusqlite::Result<_>>()?
    };
    if evaluator.is_none() && runs.is_empty() {
        return Err(Error::NoEvaluator(format!(
            "no evaluator or judge run named `{name}` on locked split v{version}; nothing was removed"
        )));
    }
    if let Some(id) = evaluator {
        tx.execute("DELETE FROM evaluator_outputs WHERE evaluator_id = ?1", [id])?;
        tx.execute("DELETE FROM evaluators WHERE id = ?1", [id])?;
    }
    for run in &runs {
        tx.execute("DELETE FROM judge_requests WHERE run_id = ?1", [run])?;
        tx.execute("DELETE FROM judge_runs WHERE id = ?1", [run])?;
    }
    tx.commit()?;
    Ok(runs.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::mcnemar_exact;

    #[test]
    fn mcnemar_exact_matches_hand_computed_binomial_tails() {
        // b = 1, c = 5: P(X <= 1 | n = 6) = 7/64; two-sided 14/64.
        assert!((mcnemar_exact(1, 5) - 14.0 / 64.0).abs() < 1e-12);
        assert!((mcnemar_exact(5, 1) - 14.0 / 64.0).abs() < 1e-12);
        assert_eq!(mcnemar_exact(3, 3), 1.0);
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        // b = 0, c = 10: 2 / 1024.
        assert!((mcnemar_exact(0, 10) - 2.0 / 1024.0).abs() < 1e-15);
    }
}
