//! How many double-annotated rows a kappa interval needs.
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

/// The coefficient a plan is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum PlanCoefficient {
    /// Cohen's kappa, Fleiss-Cohen-Everitt variance.
    Kappa,
    /// Gwet's AC1, Gwet's variance.
    Ac1,
    /// Krippendorff's alpha (nominal), Gwet's variance.
    Alpha,
}

impl std::str::FromStr for PlanCoefficient {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "kappa" => Ok(Self::Kappa),
            "ac1" => Ok(Self::Ac1),
            "alpha" => Ok(Self::Alpha),
            other => {
                Err(Error::InvalidArgument(format!("unknown coefficient `{other}`: plan for kappa, ac1 or alpha")))
            }
        }
    }
}

impl PlanCoefficient {
    /// The same coefficient as the coverage simulation names it.
    pub fn simulated(self) -> super::coverage::Coefficient {
        use super::coverage::Coefficient;
        match self {
            Self::Kappa => Coefficient::CohenKappa,
            Self::Ac1 => Coefficient::GwetAc1,
            Self::Alpha => Coefficient::KrippendorffAlpha,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Kappa => "kappa",
            Self::Ac1 => "ac1",
            Self::Alpha => "alpha",
        }
    }
}

/// How the formula's n was checked against the scatter of the estimated half-width.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum PlanCheck {
    /// 1,000 studies simulated at the answer (up to [`SIMULATED_ROWS_LIMIT`] rows).
    Simulation,
    /// Past that, the half-width's scatter measured in 1,000 studies of
    /// [`SIMULATED_ROWS_LIMIT`] rows and scaled by 1 / sqrt(n) (normal approximation): a study
    /// of millions of rows is not simulated.
    ScaledScatter,
}

/// Past this many rows the plan is not simulated at its own size ([`PlanCheck::ScaledScatter`]).
pub const SIMULATED_ROWS_LIMIT: u64 = 10_000;
/// Past this many rows the plan is refused: no study double-annotates so many.
pub const ROWS_LIMIT: f64 = 1e9;

/// The rows a planned interval needs.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Plan {
    pub coefficient: PlanCoefficient,
    /// The population's Cohen's kappa (what `--kappa` gives).
    pub kappa: f64,
    /// The planned coefficient's value at that population (equal to `kappa` for kappa and,
    /// with both annotators sharing the shares, for alpha in the limit; higher for AC1 when
    /// one label dominates).
    pub value: f64,
    pub half_width: f64,
    /// Each category's expected share of the labels (the first is accept).
    pub marginals: Vec<f64>,
    /// n times the variance of the coefficient at that population.
    pub n_variance: f64,
    /// Rows from the formula alone.
    #[ts(type = "number")]
    pub rows_formula: u64,
    /// Double-annotated rows for a 95% interval of half-width at most `half_width` in at least
    /// 60% of studies (`rows_formula` raised if the check needs it).
    #[ts(type = "number")]
    pub rows: u64,
    pub check: PlanCheck,
    /// Share of the 1,000 simulated studies of `rows` rows whose half-width is at most
    /// `half_width` (`null` when the plan was too large to simulate: see `check`).
    pub simulated_share_reaching: Option<f64>,
}

/// Where a running project stands against a planned half-width.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Progress {
    #[ts(type = "number")]
    pub rows: u64,
    /// The planned coefficient's value now (kappa unless the plan is for AC1 or alpha).
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
    plan_for(PlanCoefficient::Kappa, kappa, half_width, categories, prevalence)
}

/// The population table `(1 - kappa) m_i m_j + kappa m_i [i = j]`.
pub fn population(kappa: f64, m: &[f64]) -> Vec<Vec<f64>> {
    let q = m.len();
    (0..q)
        .map(|i| (0..q).map(|j| (1.0 - kappa) * m[i] * m[j] + if i == j { kappa * m[i] } else { 0.0 }).collect())
        .collect()
}

/// The coefficient's value and n times its variance on a table of cell probabilities: the
/// Fleiss-Cohen-Everitt variance for kappa; for AC1 and alpha Gwet's variance evaluated on the
/// table scaled to 10^9 units (its n times variance no longer changes with the scale there).
pub fn value_and_n_variance(coefficient: PlanCoefficient, p: &[Vec<f64>]) -> Option<(f64, f64)> {
    if coefficient == PlanCoefficient::Kappa {
        return stats::kappa_and_n_var(p);
    }
    const SCALE: f64 = 1e9;
    let q = p.len();
    let counts: Vec<Vec<u64>> = p.iter().map(|r| r.iter().map(|x| (x * SCALE).round() as u64).collect()).collect();
    let units: f64 = counts.iter().flatten().sum::<u64>() as f64;
    let family = stats::gwet_family(&stats::table_patterns(&counts), &stats::identity_weights(q));
    let (v, i) = match coefficient {
        PlanCoefficient::Ac1 => family.gwet_ac?,
        _ => family.krippendorff_alpha?,
    };
    Some((v, i.se? * i.se? * units))
}

/// Rows for a 95% interval of `coefficient` of half-width `half_width` at a population of
/// Cohen's kappa `kappa` and the given shares. Large answers are checked without simulating
/// them ([`PlanCheck`]), and answers past [`ROWS_LIMIT`] are refused in words.
pub fn plan_for(
    coefficient: PlanCoefficient,
    kappa: f64,
    half_width: f64,
    categories: usize,
    prevalence: &[f64],
) -> Result<Plan> {
    if !(half_width > 0.0 && half_width < 1.0) {
        return Err(Error::InvalidArgument("the half-width is between 0 and 1 (for example 0.1)".into()));
    }
    if !(kappa > -1.0 && kappa < 1.0) {
        return Err(Error::InvalidArgument("the expected kappa is between -1 and 1, not 1 itself".into()));
    }
    let m = marginals(categories, prevalence)?;
    let table = population(kappa, &m);
    if table.iter().flatten().any(|&p| p < 0.0) {
        return Err(Error::InvalidArgument(format!(
            "kappa {kappa} is impossible with these shares (a category would be agreed on less than never)"
        )));
    }
    let (value, n_variance) = value_and_n_variance(coefficient, &table)
        .ok_or_else(|| Error::InvalidArgument("one category holds every label: the coefficient is undefined".into()))?;
    let exact = Z95 * Z95 * n_variance / (half_width * half_width);
    if exact.is_nan() || exact > ROWS_LIMIT {
        return Err(Error::InvalidArgument(format!(
            "a 95% interval of {} +- {half_width} at kappa {kappa} needs about {exact:.2e} double-annotated rows, past the planner's limit of 1,000,000,000 (no study labels so many): plan for a wider half-width",
            coefficient.as_str()
        )));
    }
    let rows_formula = exact.ceil().max(2.0) as u64;
    let share = |n: u64| {
        let widths =
            super::coverage::coefficient_half_widths(coefficient.simulated(), &table, n as usize, 1000, 0x91A4 ^ n);
        widths.iter().filter(|h| **h <= half_width).count() as f64 / widths.len().max(1) as f64
    };
    if rows_formula > SIMULATED_ROWS_LIMIT {
        // The estimated half-width's relative scatter shrinks as 1 / sqrt(n): measure it at the
        // limit, scale it to the formula's n, and raise n until the normal approximation puts 60%
        // of studies at or under W (z(0.6) = 0.2533).
        let n0 = SIMULATED_ROWS_LIMIT;
        let widths =
            super::coverage::coefficient_half_widths(coefficient.simulated(), &table, n0 as usize, 1000, 0x91A4 ^ n0);
        let mean = widths.iter().sum::<f64>() / widths.len().max(1) as f64;
        let sd = (widths.iter().map(|h| (h - mean).powi(2)).sum::<f64>() / (widths.len().max(2) - 1) as f64).sqrt();
        let cv = if mean > 0.0 { sd / mean } else { 0.0 };
        let factor = (1.0 + 0.2533 * cv * (n0 as f64 / rows_formula as f64).sqrt()).powi(2);
        let rows = (rows_formula as f64 * factor).ceil() as u64;
        return Ok(Plan {
            coefficient,
            kappa,
            value,
            half_width,
            marginals: m,
            n_variance,
            rows_formula,
            rows,
            check: PlanCheck::ScaledScatter,
            simulated_share_reaching: None,
        });
    }
    let mut rows = rows_formula;
    let mut reached = share(rows);
    // At most 60 steps (1.01^60 = 1.8 times the formula's n), and never past the limit.
    for _ in 0..60 {
        if reached >= 0.6 || rows >= SIMULATED_ROWS_LIMIT {
            break;
        }
        rows = ((rows as f64) * 1.01).ceil() as u64;
        reached = share(rows);
    }
    Ok(Plan {
        coefficient,
        kappa,
        value,
        half_width,
        marginals: m,
        n_variance,
        rows_formula,
        rows,
        check: PlanCheck::Simulation,
        simulated_share_reaching: Some(reached),
    })
}

/// How many more rows `report`'s kappa interval needs to reach `half_width`.
pub fn progress(report: &PairReport, half_width: f64) -> Progress {
    progress_for(PlanCoefficient::Kappa, report, half_width)
}

/// How many more rows `report`'s interval of `coefficient` needs to reach `half_width`.
pub fn progress_for(coefficient: PlanCoefficient, report: &PairReport, half_width: f64) -> Progress {
    let k = &report.kappa;
    let (value, se) = match coefficient {
        PlanCoefficient::Kappa => (k.cohen_kappa, k.kappa_se),
        PlanCoefficient::Ac1 => (k.gwet_ac1, k.gwet_ac1_interval.as_ref().and_then(|i| i.se)),
        PlanCoefficient::Alpha => {
            let q = report.confusion.len();
            let family = stats::gwet_family(&stats::table_patterns(&report.confusion), &stats::identity_weights(q));
            family.krippendorff_alpha.map_or((None, None), |(a, i)| (Some(a), i.se))
        }
    };
    let half_width_now = se.map(|se| Z95 * se);
    let rows_needed = half_width_now
        .filter(|h| *h > 0.0 && half_width > 0.0)
        .map(|h| (k.n_items as f64 * (h / half_width).powi(2)).ceil() as u64);
    Progress {
        rows: k.n_items,
        kappa: value,
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
