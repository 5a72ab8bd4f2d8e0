//! How far a judge can be trusted, from its runs (see [`super::runner`]):
//!
//! - **Agreement with the humans.** Every evaluation pair was adjudicated a force gap: its
//!   calibrated claim is licensed by the passage and its raised claim is not. Cohen's kappa
//!   between those labels and the judge's verdicts (a verdict scored above 0.5 reads as
//!   "supported"), overall and per axis, each with its 95% interval. Requests without a usable
//!   verdict are left out and counted.
//! - **Evidence swap.** The mean support the judge gives each claim against its own passage and
//!   against another group's (the `swapped_evidence` run). A faithful judge's support for the
//!   calibrated claim falls when the evidence is taken away: the drop is reported beside MVR and
//!   FS.
//! - **Primary axis.** A force prompt asks the judge to name the primary axis of a gap. On the
//!   raised claims the judge calls a force gap (label `force_gap`), the share whose named axis is
//!   the pair's adjudicated axis, overall and per adjudicated axis, each with a 95% Wilson
//!   interval. An axis the judge names that is none of the five counts as a mismatch.
//! - **Order.** With a pairwise template asked twice, the claims' order swapped (the `order`
//!   run): the share of pairs where the judge named the same position both times (position
//!   bias), and the share of its picks that named the calibrated claim.

use rusqlite::{params, OptionalExtension};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use ts_rs::TS;

use super::judge::pick;
use super::runner::{outputs_of, Control};
use super::{eval_pairs, LabelMap};
use crate::agreement::stats::{kappa_from_table, KappaStats};
use crate::error::{Error, Result};
use crate::project::Project;

/// A verdict scored above this reads as "supported".
pub const SUPPORTED_ABOVE: f64 = 0.5;

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct HumanAgreement {
    /// Claims with a usable verdict (two per pair at most).
    #[ts(type = "number")]
    pub claims: u64,
    /// Claims left out: no answer yet, or no usable verdict in it.
    #[ts(type = "number")]
    pub left_out: u64,
    pub overall: KappaStats,
    pub per_axis: BTreeMap<String, KappaStats>,
}

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct SwapReport {
    /// Pairs with a usable verdict for the calibrated claim under both evidences.
    #[ts(type = "number")]
    pub pairs: u64,
    /// Mean support of the calibrated claim against its own passage, and against another's.
    pub safe_own: Option<f64>,
    pub safe_swapped: Option<f64>,
    /// `safe_own - safe_swapped`: how much support the judge takes back when the evidence goes.
    pub support_drop: Option<f64>,
    /// Share of calibrated claims still judged supported against another group's passage.
    pub still_supported: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct OrderReport {
    /// Pairs answered in both orders with a readable pick.
    #[ts(type = "number")]
    pub pairs: u64,
    /// Share of those pairs where the judge picked the same position (A both times, or B both
    /// times), so its pick followed the order, not the claims.
    pub position_bias: Option<f64>,
    /// Share of all readable picks that named the calibrated claim.
    pub picks_calibrated: Option<f64>,
}

/// How often a proportion's event happened, with its 95% Wilson interval.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct AxisShare {
    #[ts(type = "number")]
    pub hits: u64,
    #[ts(type = "number")]
    pub n: u64,
    pub rate: Option<f64>,
    pub ci95: Option<[f64; 2]>,
}

impl AxisShare {
    /// `hits` of `n`, with the Wilson score interval (z = 1.96).
    pub fn of(hits: u64, n: u64) -> AxisShare {
        if n == 0 {
            return AxisShare { hits, n, rate: None, ci95: None };
        }
        let (k, n_f, z) = (hits as f64, n as f64, 1.959_963_984_540_054);
        let p = k / n_f;
        let denom = 1.0 + z * z / n_f;
        let centre = (p + z * z / (2.0 * n_f)) / denom;
        let half = z * (p * (1.0 - p) / n_f + z * z / (4.0 * n_f * n_f)).sqrt() / denom;
        AxisShare { hits, n, rate: Some(p), ci95: Some([(centre - half).max(0.0), (centre + half).min(1.0)]) }
    }
}

/// The judge's named primary axis against the adjudicated one, on the raised claims it called a
/// force gap.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct AxisMatch {
    pub overall: AxisShare,
    /// By the pair's adjudicated axis.
    pub per_axis: BTreeMap<String, AxisShare>,
    /// Gap answers that named no axis (left out of the rates).
    #[ts(type = "number")]
    pub no_axis_named: u64,
}

/// A judge's trust report; each part is `None` until its run exists.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct TrustReport {
    pub name: String,
    pub human_agreement: Option<HumanAgreement>,
    /// `None` without a run of the judge itself, or when its answers name no axis at all (a
    /// generic prompt).
    pub axis_match: Option<AxisMatch>,
    pub swapped_evidence: Option<SwapReport>,
    pub order: Option<OrderReport>,
}

/// The run id and label map of `name`'s run of `control` on the split `split_version`.
fn run_of(project: &Project, name: &str, control: Control, split_version: i64) -> Result<Option<(i64, String)>> {
    Ok(project
        .conn()
        .query_row(
            "SELECT r.id, r.label_map FROM judge_runs r JOIN splits s ON s.id = r.split_id
             WHERE r.name = ?1 AND r.control = ?2 AND s.version = ?3",
            params![name, control.as_str(), split_version],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?)
}

/// (pair id, safe?) -> score, over a run's usable verdicts.
fn scores(project: &Project, run: i64, map: &str, ids: &BTreeSet<String>) -> Result<HashMap<(String, bool), f64>> {
    let map = LabelMap::named(map)?;
    let (outputs, _) = outputs_of(project, run, &map, ids)?;
    Ok(outputs.into_iter().filter_map(|o| o.score.map(|s| ((o.id, o.safe), s))).collect())
}

/// 2x2 table (rows: the humans, columns: the judge; 0 supported, 1 not) -> kappa.
fn kappa(cells: &[(bool, bool)]) -> KappaStats {
    let mut table = vec![vec![0u64; 2]; 2];
    for (human, judge) in cells {
        table[usize::from(!human)][usize::from(!judge)] += 1;
    }
    kappa_from_table(&table)
}

/// The trust report of the judge `name` on the locked split.
pub fn trust(project: &Project, name: &str) -> Result<TrustReport> {
    let name = super::evaluator_name(name)?;
    let name = name.as_str();
    let (version, pairs) = eval_pairs(project)?;
    let ids: BTreeSet<String> = pairs.iter().map(|p| p.id.clone()).collect();
    let own = run_of(project, name, Control::None, version)?;
    let swapped = run_of(project, name, Control::SwappedEvidence, version)?;
    let order = run_of(project, name, Control::Order, version)?;
    if own.is_none() && swapped.is_none() && order.is_none() {
        return Err(Error::NoJudgeRun(format!(
            "no judge run named `{name}` on split v{version}; run one with `forcebench judge run --name {name} ...`"
        )));
    }
    let own_scores = own.as_ref().map(|(run, map)| scores(project, *run, map, &ids)).transpose()?;

    let human_agreement = own_scores.as_ref().map(|s| {
        let mut all = Vec::new();
        let mut by_axis: BTreeMap<String, Vec<(bool, bool)>> = BTreeMap::new();
        for p in &pairs {
            for safe in [true, false] {
                if let Some(score) = s.get(&(p.id.clone(), safe)) {
                    let cell = (safe, *score > SUPPORTED_ABOVE);
                    all.push(cell);
                    by_axis.entry(p.axis.clone()).or_default().push(cell);
                }
            }
        }
        HumanAgreement {
            claims: all.len() as u64,
            left_out: (pairs.len() * 2 - all.len()) as u64,
            overall: kappa(&all),
            per_axis: by_axis.into_iter().map(|(axis, cells)| (axis, kappa(&cells))).collect(),
        }
    });

    let swapped_evidence = match (&own_scores, &swapped) {
        (Some(own), Some((run, map))) => {
            let other = scores(project, *run, map, &ids)?;
            let both: Vec<(f64, f64)> = pairs
                .iter()
                .filter_map(|p| Some((*own.get(&(p.id.clone(), true))?, *other.get(&(p.id.clone(), true))?)))
                .collect();
            let n = both.len();
            let mean = |f: &dyn Fn(&(f64, f64)) -> f64| (n > 0).then(|| both.iter().map(f).sum::<f64>() / n as f64);
            let (safe_own, safe_swapped) = (mean(&|x| x.0), mean(&|x| x.1));
            Some(SwapReport {
                pairs: n as u64,
                safe_own,
                safe_swapped,
                support_drop: safe_own.zip(safe_swapped).map(|(a, b)| a - b),
                still_supported: mean(&|x| f64::from(u8::from(x.1 > SUPPORTED_ABOVE))),
            })
        }
        _ => None,
    };

    let order = order
        .map(|(run, _)| -> Result<OrderReport> {
            let mut picks: HashMap<String, [Option<char>; 2]> = HashMap::new();
            let mut stmt = project.conn().prepare(
                "SELECT request_id, coalesce(content, '') FROM judge_requests WHERE run_id = ?1 AND answered_at IS NOT NULL",
            )?;
            let rows: Vec<(String, String)> =
                stmt.query_map([run], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<_>>()?;
            for (rid, content) in rows {
                let Some((id, which)) = rid.rsplit_once(':') else { continue };
                let slot = match which {
                    "ab" => 0,
                    "ba" => 1,
                    _ => continue,
                };
                picks.entry(id.to_string()).or_default()[slot] = pick(&content);
            }
            let mut both = 0u64;
            let mut same_position = 0u64;
            let (mut readable, mut calibrated) = (0u64, 0u64);
            for [ab, ba] in picks.values() {
                // In `ab` claim A is the calibrated one; in `ba` it is claim B.
                for (p, calibrated_is) in [(ab, 'A'), (ba, 'B')] {
                    if let Some(p) = p {
                        readable += 1;
                        calibrated += u64::from(*p == calibrated_is);
                    }
                }
                if let (Some(a), Some(b)) = (ab, ba) {
                    both += 1;
                    same_position += u64::from(a == b);
                }
            }
            Ok(OrderReport {
                pairs: both,
                position_bias: (both > 0).then(|| same_position as f64 / both as f64),
                picks_calibrated: (readable > 0).then(|| calibrated as f64 / readable as f64),
            })
        })
        .transpose()?;

    let axis_match = own.as_ref().map(|(run, map)| axis_match(project, *run, map, &pairs)).transpose()?.flatten();
    Ok(TrustReport { name: name.to_string(), human_agreement, axis_match, swapped_evidence, order })
}

/// The judge's named axis on the raised claims it called a force gap, against the adjudicated
/// axis.
fn axis_match(project: &Project, run: i64, map: &str, pairs: &[super::Pair]) -> Result<Option<AxisMatch>> {
    let map = LabelMap::named(map)?;
    let axis_of: HashMap<&str, &str> = pairs.iter().map(|p| (p.id.as_str(), p.axis.as_str())).collect();
    let mut stmt = project.conn().prepare(
        "SELECT request_id, coalesce(content, '') FROM judge_requests WHERE run_id = ?1 AND answered_at IS NOT NULL",
    )?;
    let rows: Vec<(String, String)> =
        stmt.query_map([run], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<_>>()?;
    let (mut named_any, mut no_axis) = (false, 0);
    let mut counts: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for (rid, content) in rows {
        let Some((id, "raised")) = rid.rsplit_once(':') else { continue };
        let Some(gold) = axis_of.get(id) else { continue };
        let a = super::judge::parse_answer(&content, &map);
        if a.primary_axis.is_some() {
            named_any = true;
        }
        if a.label.as_deref() != Some("force_gap") {
            continue;
        }
        let Some(named) = a.primary_axis else {
            no_axis += 1;
            continue;
        };
        let c = counts.entry(gold.to_string()).or_default();
        c.0 += u64::from(named == *gold);
        c.1 += 1;
    }
    if !named_any {
        return Ok(None);
    }
    let (hits, n) = counts.values().fold((0, 0), |(h, n), c| (h + c.0, n + c.1));
    Ok(Some(AxisMatch {
        overall: AxisShare::of(hits, n),
        per_axis: counts.into_iter().map(|(k, (h, n))| (k, AxisShare::of(h, n))).collect(),
        no_axis_named: no_axis,
    }))
}
