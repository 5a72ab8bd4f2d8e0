//! Coverage of the agreement intervals, by simulation (issue 32).
//!
//! Two raters label `n` items drawn from a known population: both raters share the category
//! marginals `m` (the first category, accept, has the given prevalence; the rest split the
//! remainder evenly) and the joint distribution is `P(i, j) = (1 - kappa) m_i m_j + kappa m_i
//! [i = j]`, whose Cohen's kappa is exactly `kappa`. Each replicate draws a table, makes every
//! interval, and counts whether it holds the population value. `scripts/bench-coverage.sh` runs
//! the full grid; the test suite runs a few cells.

use serde::Serialize;

use super::stats::{self, Interval};
use crate::sample::SplitMix64;

/// A population of two-rater labels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Population {
    pub categories: usize,
    pub kappa: f64,
    /// Share of the first category (accept) in each rater's labels.
    pub prevalence: f64,
}

impl Population {
    pub fn marginals(&self) -> Vec<f64> {
        let q = self.categories;
        let mut m = vec![(1.0 - self.prevalence) / (q as f64 - 1.0); q];
        m[0] = self.prevalence;
        m
    }

    /// Joint probabilities, rows: rater A.
    pub fn table(&self) -> Vec<Vec<f64>> {
        let m = self.marginals();
        let q = m.len();
        (0..q)
            .map(|i| {
                (0..q)
                    .map(|j| (1.0 - self.kappa) * m[i] * m[j] + if i == j { self.kappa * m[i] } else { 0.0 })
                    .collect()
            })
            .collect()
    }

    /// The population value of each coefficient the simulation checks.
    pub fn truth(&self, coefficient: Coefficient) -> f64 {
        let p = self.table();
        let q = p.len();
        let m = self.marginals();
        match coefficient {
            // With equal marginals, Krippendorff's alpha and Fleiss' kappa tend to Scott's pi,
            // which equals Cohen's kappa here.
            Coefficient::CohenKappa | Coefficient::KrippendorffAlpha => self.kappa,
            Coefficient::GwetAc1 => {
                let po: f64 = (0..q).map(|i| p[i][i]).sum();
                let pe: f64 = m.iter().map(|x| x * (1.0 - x)).sum::<f64>() / (q as f64 - 1.0);
                (po - pe) / (1.0 - pe)
            }
            Coefficient::QuadraticKappa => {
                let w = stats::quadratic_weights(q);
                let (mut po, mut pe) = (0.0, 0.0);
                for i in 0..q {
                    for j in 0..q {
                        po += w[i][j] * p[i][j];
                        pe += w[i][j] * m[i] * m[j];
                    }
                }
                (po - pe) / (1.0 - pe)
            }
        }
    }
}

/// The coefficients whose intervals are simulated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Coefficient {
    CohenKappa,
    GwetAc1,
    KrippendorffAlpha,
    QuadraticKappa,
}

/// The interval methods compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Cohen's kappa +- 1.96 FCE SE.
    KappaWald,
    /// Cohen's kappa, FCE SE on Fisher's z scale (the no-disagreement bound at kappa = 1): the
    /// interval the report prefers.
    KappaFisherZ,
    /// Cohen's kappa, percentile bootstrap.
    KappaBootstrap,
    /// AC1 with Gwet's variance.
    Ac1Gwet,
    /// Krippendorff's alpha with Gwet's variance.
    AlphaGwet,
    /// Quadratic-weighted kappa, FCE SE.
    QuadraticWald,
}

impl Method {
    pub const ALL: [Method; 6] = [
        Method::KappaWald,
        Method::KappaFisherZ,
        Method::KappaBootstrap,
        Method::Ac1Gwet,
        Method::AlphaGwet,
        Method::QuadraticWald,
    ];
    pub fn coefficient(self) -> Coefficient {
        match self {
            Method::KappaWald | Method::KappaFisherZ | Method::KappaBootstrap => Coefficient::CohenKappa,
            Method::Ac1Gwet => Coefficient::GwetAc1,
            Method::AlphaGwet => Coefficient::KrippendorffAlpha,
            Method::QuadraticWald => Coefficient::QuadraticKappa,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Method::KappaWald => "kappa_wald_fce",
            Method::KappaFisherZ => "kappa_fisher_z",
            Method::KappaBootstrap => "kappa_bootstrap",
            Method::Ac1Gwet => "ac1_gwet",
            Method::AlphaGwet => "alpha_gwet",
            Method::QuadraticWald => "quadratic_kappa_wald_fce",
        }
    }
}

/// One cell of the coverage table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CoverageCell {
    pub population: Population,
    pub n: usize,
    pub method: Method,
    pub replicates: u32,
    /// Replicates where the statistic or its interval was undefined (left out of coverage).
    pub undefined: u32,
    pub coverage: f64,
    pub mean_half_width: f64,
}

fn uniform(rng: &mut SplitMix64) -> f64 {
    rng.below(1 << 53) as f64 / (1u64 << 53) as f64
}

/// `n` items from cell probabilities (row-major, `q x q`), as a confusion table.
fn draw(rng: &mut SplitMix64, cumulative: &[f64], q: usize, n: usize) -> Vec<Vec<u64>> {
    let mut t = vec![vec![0u64; q]; q];
    for _ in 0..n {
        let u = uniform(rng);
        let cell = cumulative.partition_point(|&c| c <= u).min(q * q - 1);
        t[cell / q][cell % q] += 1;
    }
    t
}

fn proportions(t: &[Vec<u64>]) -> Vec<Vec<f64>> {
    let n = t.iter().flatten().sum::<u64>() as f64;
    t.iter().map(|r| r.iter().map(|&x| x as f64 / n).collect()).collect()
}

fn cumulative(p: &[Vec<f64>]) -> Vec<f64> {
    let mut acc = 0.0;
    p.iter()
        .flatten()
        .map(|x| {
            acc += x;
            acc
        })
        .collect()
}

/// The interval a method gives on one table (`None` where undefined).
pub(crate) fn interval(
    method: Method,
    t: &[Vec<u64>],
    rng: &mut SplitMix64,
    boot_reps: u32,
) -> Option<(f64, [f64; 2])> {
    let q = t.len();
    match method {
        Method::KappaWald => {
            let k = stats::kappa_from_table(t);
            Some((k.cohen_kappa?, k.kappa_ci95?))
        }
        Method::KappaFisherZ => {
            let k = stats::kappa_from_table(t);
            let i = stats::kappa_preferred_interval(&k)?;
            Some((k.cohen_kappa?, i.ci95))
        }
        Method::KappaBootstrap => {
            let k = stats::kappa_from_table(t).cohen_kappa?;
            let n: u64 = t.iter().flatten().sum();
            let total = n as f64;
            let p: Vec<Vec<f64>> = t.iter().map(|r| r.iter().map(|&x| x as f64 / total).collect()).collect();
            let cum = cumulative(&p);
            let mut ks = Vec::with_capacity(boot_reps as usize);
            for _ in 0..boot_reps {
                if let Some((b, _)) = stats::kappa_and_n_var(&proportions(&draw(rng, &cum, q, n as usize))) {
                    ks.push(b);
                }
            }
            if ks.len() * 2 < boot_reps as usize {
                return None;
            }
            ks.sort_by(f64::total_cmp);
            let at = |p: f64| ks[((ks.len() - 1) as f64 * p).round() as usize];
            Some((k, [at(0.025), at(0.975)]))
        }
        Method::Ac1Gwet => {
            let k = stats::kappa_from_table(t);
            Some((k.gwet_ac1?, k.gwet_ac1_interval?.ci95))
        }
        Method::AlphaGwet => {
            let (a, i): (f64, Interval) =
                stats::gwet_family(&stats::table_patterns(t), &stats::identity_weights(q)).krippendorff_alpha?;
            Some((a, i.ci95))
        }
        Method::QuadraticWald => {
            let (k, i) = stats::weighted_kappa_interval(t, &stats::quadratic_weights(q))?;
            Some((k, i.ci95))
        }
    }
}

/// Coverage of `methods` at one population and `n`. `narrow` scales every interval's two arms
/// around the estimate (1.0 as made; 0.8 is an interval 20% too narrow, which a check must
/// catch).
pub fn simulate(
    population: Population,
    n: usize,
    methods: &[Method],
    replicates: u32,
    boot_reps: u32,
    seed: u64,
    narrow: f64,
) -> Vec<CoverageCell> {
    let q = population.categories;
    let cum = cumulative(&population.table());
    let mut rng = SplitMix64::new(seed);
    let mut boot_rng = SplitMix64::new(seed ^ 0x5EED_B007);
    let mut hits = vec![0u32; methods.len()];
    let mut undefined = vec![0u32; methods.len()];
    let mut widths = vec![0.0f64; methods.len()];
    for _ in 0..replicates {
        let t = draw(&mut rng, &cum, q, n);
        for (m, &method) in methods.iter().enumerate() {
            let truth = population.truth(method.coefficient());
            match interval(method, &t, &mut boot_rng, boot_reps) {
                Some((est, [lo, hi])) => {
                    let (lo, hi) = (est - narrow * (est - lo), est + narrow * (hi - est));
                    if lo <= truth + 1e-12 && truth <= hi + 1e-12 {
                        hits[m] += 1;
                    }
                    widths[m] += (hi - lo) / 2.0;
                }
                None => undefined[m] += 1,
            }
        }
    }
    methods
        .iter()
        .enumerate()
        .map(|(m, &method)| {
            let defined = (replicates - undefined[m]).max(1) as f64;
            CoverageCell {
                population,
                n,
                method,
                replicates,
                undefined: undefined[m],
                coverage: hits[m] as f64 / defined,
                mean_half_width: widths[m] / defined,
            }
        })
        .collect()
}

/// The half-width (1.96 SE, Fleiss-Cohen-Everitt) of Cohen's kappa on `replicates` tables of
/// `n` rows from `population`: what the plan promises, checked by simulation.
pub fn half_widths(population: Population, n: usize, replicates: u32, seed: u64) -> Vec<f64> {
    half_widths_from(&population.table(), n, replicates, seed)
}

/// [`half_widths`] from any table of cell probabilities (rows: rater A).
pub fn half_widths_from(table: &[Vec<f64>], n: usize, replicates: u32, seed: u64) -> Vec<f64> {
    let q = table.len();
    let cum = cumulative(table);
    let mut rng = SplitMix64::new(seed);
    (0..replicates)
        .filter_map(|_| {
            let k = stats::kappa_from_table(&draw(&mut rng, &cum, q, n));
            k.kappa_ci95.map(|[lo, hi]| (hi - lo) / 2.0).filter(|_| k.kappa_se.is_some_and(|se| se > 0.0))
        })
        .collect()
}
