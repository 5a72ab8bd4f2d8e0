//! Two evaluators' agreement with the adjudicated labels, compared on the same claims.
//!
//! As in `judge trust`, every evaluation pair was adjudicated a force gap, so its calibrated
//! claim is labelled supported and its raised claim not; an evaluator's verdict scored above
//! [`SUPPORTED_ABOVE`] reads as supported. Each evaluator's Cohen's kappa and Gwet's AC1 with
//! those labels are computed on the claims both evaluators gave a usable verdict for, and the
//! difference A - B is given with two intervals that keep the shared rows together: a seeded
//! paired percentile bootstrap over evaluation rows (each replicate draws rows with replacement
//! and recomputes both evaluators' coefficients on the same draw), and the leave-one-row-out
//! jackknife's SE with a normal interval. Two evaluators scored on the same rows are correlated;
//! an interval that treated their coefficients as independent would be too wide when they make
//! the same mistakes and too narrow when they make opposite ones.

use rusqlite::OptionalExtension;
use serde::Serialize;
use std::collections::HashMap;
use ts_rs::TS;

use super::eval_pairs;
use super::trust::SUPPORTED_ABOVE;
use crate::error::{Error, Result};
use crate::project::Project;

/// One coefficient for both evaluators and their difference.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct CoefficientDifference {
    pub a: Option<f64>,
    pub b: Option<f64>,
    /// `a - b`.
    pub difference: Option<f64>,
    /// Paired percentile bootstrap over rows (`null` when skipped or when fewer than half the
    /// replicates are defined).
    pub bootstrap_ci95: Option<[f64; 2]>,
    /// Leave-one-row-out jackknife SE of the difference, and difference +- 1.96 SE.
    pub jackknife_se: Option<f64>,
    pub jackknife_ci95: Option<[f64; 2]>,
}

/// `forcebench evaluate agreement-paired A B`.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct AgreementPaired {
    pub a: String,
    pub b: String,
    #[ts(type = "number")]
    pub split_version: i64,
    /// Evaluation rows with at least one claim both evaluators judged.
    #[ts(type = "number")]
    pub rows: u64,
    /// Claims both evaluators judged (two per row at most).
    #[ts(type = "number")]
    pub claims: u64,
    /// Claims left out: one evaluator or both gave no usable verdict.
    #[ts(type = "number")]
    pub left_out: u64,
    pub kappa: CoefficientDifference,
    pub gwet_ac1: CoefficientDifference,
    #[ts(type = "number")]
    pub bootstrap_reps: u32,
    /// Why a figure is missing, in words.
    pub notes: Vec<String>,
}

/// A 2x2 table in the order (human supported & judge supported, human supported & judge not,
/// human not & judge supported, human not & judge not).
type Cells = [f64; 4];

fn kappa(t: &Cells) -> Option<f64> {
    let n = t.iter().sum::<f64>();
    if n <= 0.0 {
        return None;
    }
    let po = (t[0] + t[3]) / n;
    let (r0, c0) = ((t[0] + t[1]) / n, (t[0] + t[2]) / n);
    let pe = r0 * c0 + (1.0 - r0) * (1.0 - c0);
    ((1.0 - pe).abs() > 1e-12).then(|| (po - pe) / (1.0 - pe))
}

fn ac1(t: &Cells) -> Option<f64> {
    let n = t.iter().sum::<f64>();
    if n <= 0.0 {
        return None;
    }
    let po = (t[0] + t[3]) / n;
    let m = ((t[0] + t[1]) / n + (t[0] + t[2]) / n) / 2.0;
    let pe = 2.0 * m * (1.0 - m);
    ((1.0 - pe).abs() > 1e-12).then(|| (po - pe) / (1.0 - pe))
}

/// Each named evaluator's score per (row id, calibrated claim?), as stored on the split.
fn scores(project: &Project, version: i64, name: &str) -> Result<HashMap<(String, bool), Option<f64>>> {
    let name = super::evaluator_name(name)?;
    let conn = project.conn();
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
    let mut stmt = conn.prepare("SELECT candidate_id, claim, score FROM evaluator_outputs WHERE evaluator_id = ?1")?;
    let rows = stmt.query_map([id], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get(2)?)))?;
    let mut out = HashMap::new();
    for row in rows {
        let (cid, claim, score): (String, String, Option<f64>) = row?;
        out.insert((cid, claim == "safe"), score);
    }
    Ok(out)
}

/// Per row, A's and B's tables over the claims both judged.
pub type RowCells = (Cells, Cells);

/// The comparison from per-row tables (exposed for the tests' independent checks).
pub fn compare_rows(
    rows: &[RowCells],
    bootstrap: Option<(u32, u64)>,
) -> (CoefficientDifference, CoefficientDifference) {
    let total = |mult: &dyn Fn(usize) -> f64| -> (Cells, Cells) {
        let (mut a, mut b) = ([0.0; 4], [0.0; 4]);
        for (i, (ra, rb)) in rows.iter().enumerate() {
            let m = mult(i);
            if m == 0.0 {
                continue;
            }
            for k in 0..4 {
                a[k] += m * ra[k];
                b[k] += m * rb[k];
            }
        }
        (a, b)
    };
    let one = |f: fn(&Cells) -> Option<f64>| -> CoefficientDifference {
        let (ta, tb) = total(&|_| 1.0);
        let (a, b) = (f(&ta), f(&tb));
        let difference = a.zip(b).map(|(a, b)| a - b);
        // Paired bootstrap: both evaluators on the same drawn rows.
        let bootstrap_ci95 = bootstrap.filter(|_| !rows.is_empty() && difference.is_some()).and_then(|(reps, seed)| {
            let mut rng = crate::sample::SplitMix64::new(seed);
            let n = rows.len();
            let mut mult = vec![0.0f64; n];
            let mut values = Vec::with_capacity(reps as usize);
            for _ in 0..reps {
                mult.fill(0.0);
                for _ in 0..n {
                    mult[rng.below(n as u64) as usize] += 1.0;
                }
                let (ta, tb) = total(&|i| mult[i]);
                if let (Some(a), Some(b)) = (f(&ta), f(&tb)) {
                    values.push(a - b);
                }
            }
            if values.len() * 2 < reps as usize {
                return None;
            }
            values.sort_by(f64::total_cmp);
            let at = |p: f64| values[((values.len() - 1) as f64 * p).round() as usize];
            Some([at(0.025), at(0.975)])
        });
        // Jackknife: every row left out once.
        let jackknife_se = difference.filter(|_| rows.len() >= 2).and_then(|_| {
            let n = rows.len();
            let mut values = Vec::with_capacity(n);
            for i in 0..n {
                let (ta, tb) = total(&|j| if j == i { 0.0 } else { 1.0 });
                values.push(f(&ta).zip(f(&tb)).map(|(a, b)| a - b)?);
            }
            let mean = values.iter().sum::<f64>() / n as f64;
            Some(((n as f64 - 1.0) / n as f64 * values.iter().map(|v| (v - mean).powi(2)).sum::<f64>()).sqrt())
        });
        let z = 1.959_963_984_540_054;
        let jackknife_ci95 =
            difference.zip(jackknife_se).map(|(d, se)| [(d - z * se).max(-2.0), (d + z * se).min(2.0)]);
        CoefficientDifference { a, b, difference, bootstrap_ci95, jackknife_se, jackknife_ci95 }
    };
    (one(kappa), one(ac1))
}

/// Compares evaluators `a` and `b` on the locked split.
pub fn agreement_paired(project: &Project, a: &str, b: &str, bootstrap: Option<(u32, u64)>) -> Result<AgreementPaired> {
    crate::limits::bootstrap(bootstrap)?;
    let (version, pairs) = eval_pairs(project)?;
    let (name_a, name_b) = (super::evaluator_name(a)?, super::evaluator_name(b)?);
    if name_a == name_b {
        return Err(Error::InvalidArgument(format!(
            "`{name_a}` twice: agreement-paired compares two different evaluators"
        )));
    }
    // A leaky judge (shown a gold field) is never compared; an incomplete one is, on the claims
    // both answered, with the rest counted in `left_out`.
    super::fitness::check(project, &[name_a.clone(), name_b.clone()], true)?;
    let (sa, sb) = (scores(project, version, &name_a)?, scores(project, version, &name_b)?);
    let mut rows: Vec<RowCells> = Vec::new();
    let mut claims = 0u64;
    for p in &pairs {
        let (mut ca, mut cb) = ([0.0; 4], [0.0; 4]);
        let mut any = false;
        for safe in [true, false] {
            let key = (p.id.clone(), safe);
            let (Some(Some(x)), Some(Some(y))) = (sa.get(&key), sb.get(&key)) else { continue };
            let human = usize::from(!safe) * 2;
            ca[human + usize::from(*x <= SUPPORTED_ABOVE)] += 1.0;
            cb[human + usize::from(*y <= SUPPORTED_ABOVE)] += 1.0;
            claims += 1;
            any = true;
        }
        if any {
            rows.push((ca, cb));
        }
    }
    let (kappa, gwet_ac1) = compare_rows(&rows, bootstrap);
    let mut notes = Vec::new();
    if rows.is_empty() {
        notes.push(format!("no claim has a usable verdict from both `{name_a}` and `{name_b}`"));
    } else if kappa.difference.is_none() {
        notes.push("kappa is undefined for one evaluator: all its verdicts and all the labels are one category".into());
    }
    if bootstrap.is_none() {
        notes.push("bootstrap skipped (--bootstrap 0): read the jackknife interval".into());
    }
    Ok(AgreementPaired {
        a: name_a,
        b: name_b,
        split_version: version,
        rows: rows.len() as u64,
        claims,
        left_out: pairs.len() as u64 * 2 - claims,
        kappa,
        gwet_ac1,
        bootstrap_reps: bootstrap.map_or(0, |b| b.0),
        notes,
    })
}
