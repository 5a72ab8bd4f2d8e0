//! How many double-annotated rows a kappa interval needs (issue 32).
//!
//! The large-sample variance of Cohen's kappa (Fleiss, Cohen and Everitt 1969) evaluated on the
//! population the lead expects, as Flack, Afifi, Lachenbruch and Schouten (1988) plan sample
//! sizes: both annotators share the category marginals `m`, the joint distribution is
//! `(1 - kappa) m_i m_j + kappa m_i [i = j]`, and `n = ceil(z^2 V / W^2)` rows give a 95%
//! interval kappa +- z sqrt(V / n) of half-width at most `W`. With two categories and
//! prevalence `p`, `V` is Bloch and Kraemer's (1989) closed form `(1 - kappa) ((1 - kappa)
//! (1 - 2 kappa) + kappa (2 - kappa) / (2 p (1 - p)))`, which the test checks by hand.
//!
//! The formula's n makes the *expected* half-width W; the half-width a study will see is
//! estimated and scatters around it (a little above it at skewed prevalence). So the plan then
//! simulates 1,000 studies of that size from the same population and raises n by 1% steps until
//! at least 60% of them reach W (a margin over half, so that any other simulation of the same
//! plan sees at least half): the answer is the checked n, the formula's n is shown beside it.

use serde::Serialize;
use ts_rs::TS;

use super::stats;
use super::PairReport;
use crate::error::{Error, Result};

const Z95: f64 = 1.959_963_984_540_054;

/// The rows a planned interval needs.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Plan {
    pub kappa: f64,
    pub half_width: f64,
    /// Each category's expected share of the labels (the first is accept).
    pub marginals: Vec<f64>,
    /// n times the variance of kappa at that population.
    pub n_variance: f64,
    /// Rows from the formula alone.
    #[ts(type = "number")]
    pub rows_formula: u64,
    /// Double-annotated rows for a 95% interval of half-width at most `half_width` in at least
    /// 60% of simulated studies (`rows_formula` raised if the simulation needs it).
    #[ts(type = "number")]
    pub rows: u64,
    /// Share of the 1,000 simulated studies of `rows` rows whose half-width is at most `half_width`.
    pub simulated_share_reaching: f64,
}

/// Where a running project stands against a planned half-width.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Progress {
    #[ts(type = "number")]
    pub rows: u64,
    pub kappa: Option<f64>,
    /// 1.96 SE now.
    pub half_width_now: Option<f64>,
    /// Rows the current SE says are needed (SE shrinks as 1 / sqrt(n)).
    #[ts(type = "number | null")]
    pub rows_needed: Option<u64>,
    /// Rows still to double-annotate (0 when the interval is already narrow enough).
    #[ts(type = "number | null")]
    pub more_rows: Option<u64>,
}

/// The category shares from `--prevalence`: none (equal shares), one (the first category's
/// share; the rest split evenly), `q - 1` (the last takes what is left) or `q` (summing to 1).
pub fn marginals(categories: usize, prevalence: &[f64]) -> Result<Vec<f64>> {
    if !(2..=20).contains(&categories) {
        return Err(Error::InvalidArgument(format!("categories must be between 2 and 20, not {categories}")));
    }
    if prevalence.iter().any(|p| !(*p > 0.0 && *p < 1.0)) {
        return Err(Error::InvalidArgument("each prevalence is a share strictly between 0 and 1".into()));
    }
    let q = categories;
    let given: f64 = prevalence.iter().sum();
    let m = match prevalence.len() {
        0 => vec![1.0 / q as f64; q],
        1 => {
            let mut m = vec![(1.0 - prevalence[0]) / (q as f64 - 1.0); q];
            m[0] = prevalence[0];
            m
        }
        k if k == q - 1 && given < 1.0 => {
            let mut m = prevalence.to_vec();
            m.push(1.0 - given);
            m
        }
        k if k == q && (given - 1.0).abs() < 1e-9 => prevalence.to_vec(),
        k => {
            return Err(Error::InvalidArgument(format!(
                "{k} prevalences for {q} categories: give one (the first category's share), {} (the last takes the rest) or {q} summing to 1",
                q - 1
            )))
        }
    };
    Ok(m)
}

/// Rows for a 95% kappa interval of half-width `half_width` at expected `kappa`.
pub fn plan(kappa: f64, half_width: f64, categories: usize, prevalence: &[f64]) -> Result<Plan> {
    if !(half_width > 0.0 && half_width < 1.0) {
        return Err(Error::InvalidArgument("the half-width is between 0 and 1 (for example 0.1)".into()));
    }
    if !(kappa > -1.0 && kappa < 1.0) {
        return Err(Error::InvalidArgument("the expected kappa is between -1 and 1, not 1 itself".into()));
    }
    let m = marginals(categories, prevalence)?;
    let q = m.len();
    let table: Vec<Vec<f64>> = (0..q)
        .map(|i| (0..q).map(|j| (1.0 - kappa) * m[i] * m[j] + if i == j { kappa * m[i] } else { 0.0 }).collect())
        .collect();
    if table.iter().flatten().any(|&p| p < 0.0) {
        return Err(Error::InvalidArgument(format!(
            "kappa {kappa} is impossible with these shares (a category would be agreed on less than never)"
        )));
    }
    let (_, n_variance) = stats::kappa_and_n_var(&table)
        .ok_or_else(|| Error::InvalidArgument("one category holds every label: kappa is undefined".into()))?;
    let rows_formula = (Z95 * Z95 * n_variance / (half_width * half_width)).ceil().max(2.0) as u64;
    let share = |n: u64| {
        let widths = super::coverage::half_widths_from(&table, n as usize, 1000, 0x91A4 ^ n);
        widths.iter().filter(|h| **h <= half_width).count() as f64 / widths.len().max(1) as f64
    };
    let mut rows = rows_formula;
    let mut reached = share(rows);
    // At most 60 steps (1.01^60 = 1.8 times the formula's n).
    for _ in 0..60 {
        if reached >= 0.6 {
            break;
        }
        rows = ((rows as f64) * 1.01).ceil() as u64;
        reached = share(rows);
    }
    Ok(Plan { kappa, half_width, marginals: m, n_variance, rows_formula, rows, simulated_share_reaching: reached })
}

/// How many more rows `report`'s interval needs to reach `half_width`.
pub fn progress(report: &PairReport, half_width: f64) -> Progress {
    let k = &report.kappa;
    let half_width_now = k.kappa_se.map(|se| Z95 * se);
    let rows_needed = half_width_now
        .filter(|h| *h > 0.0 && half_width > 0.0)
        .map(|h| (k.n_items as f64 * (h / half_width).powi(2)).ceil() as u64);
    Progress {
        rows: k.n_items,
        kappa: k.cohen_kappa,
        half_width_now,
        rows_needed,
        more_rows: rows_needed.map(|n| n.saturating_sub(k.n_items)),
    }
}

/// One line of the Agreement view's planning panel.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct PlanRow {
    pub half_width: f64,
    /// Rows the formula gives at the kappa and label shares seen so far (`null` when kappa is
    /// undefined or 1).
    #[ts(type = "number | null")]
    pub rows_at_observed: Option<u64>,
    /// Rows still to double-annotate, from the current SE ([`progress`]).
    #[ts(type = "number | null")]
    pub more_rows: Option<u64>,
}

/// The half-widths the Agreement view plans for.
pub const PANEL_HALF_WIDTHS: [f64; 3] = [0.05, 0.1, 0.15];

/// The planning panel for one reading (formula only, no simulation: it runs with every report).
pub fn panel(report: &PairReport) -> Vec<PlanRow> {
    let q = report.confusion.len();
    let n: u64 = report.confusion.iter().flatten().sum();
    let shares: Vec<f64> = (0..q)
        .map(|i| {
            let row: u64 = report.confusion[i].iter().sum();
            let col: u64 = report.confusion.iter().map(|r| r[i]).sum();
            (row + col) as f64 / (2.0 * n.max(1) as f64)
        })
        .collect();
    PANEL_HALF_WIDTHS
        .iter()
        .map(|&w| {
            let rows_at_observed = report.kappa.cohen_kappa.filter(|k| *k < 1.0 && q >= 2 && n > 0).and_then(|k| {
                let table: Vec<Vec<f64>> = (0..q)
                    .map(|i| {
                        (0..q)
                            .map(|j| (1.0 - k) * shares[i] * shares[j] + if i == j { k * shares[i] } else { 0.0 })
                            .collect()
                    })
                    .collect();
                if table.iter().flatten().any(|&p| p < 0.0) {
                    return None;
                }
                stats::kappa_and_n_var(&table).map(|(_, v)| (Z95 * Z95 * v / (w * w)).ceil().max(2.0) as u64)
            });
            PlanRow { half_width: w, rows_at_observed, more_rows: progress(report, w).more_rows }
        })
        .collect()
}
