//! Coverage of the agreement intervals, by simulation.
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
    #[serde(rename = "kappa_wald_fce")]
    KappaWald,
    /// Cohen's kappa, FCE SE on Fisher's z scale (the no-disagreement bound at kappa = 1): the
    /// interval the report prefers.
    KappaFisherZ,
    /// Cohen's kappa, percentile bootstrap.
    KappaBootstrap,
    /// AC1 with Gwet's variance.
    Ac1Gwet,
    /// AC1's interval to read: Gwet's variance on Fisher's z scale, or the no-disagreement bound
    /// ([`stats::read_interval`]).
    Ac1FisherZ,
    /// Krippendorff's alpha with Gwet's variance.
    AlphaGwet,
    /// Alpha's interval to read.
    AlphaFisherZ,
    /// Quadratic-weighted kappa, FCE SE.
    #[serde(rename = "quadratic_kappa_wald_fce")]
    QuadraticWald,
    /// Quadratic-weighted kappa's interval to read.
    #[serde(rename = "quadratic_kappa_fisher_z")]
    QuadraticFisherZ,
    /// Fleiss' kappa with Gwet's variance (many raters).
    FleissGwet,
    /// Fleiss' kappa's interval to read.
    FleissFisherZ,
}

impl Method {
    /// The methods of the two-rater grid.
    pub const ALL: [Method; 9] = [
        Method::KappaWald,
        Method::KappaFisherZ,
        Method::KappaBootstrap,
        Method::Ac1Gwet,
        Method::Ac1FisherZ,
        Method::AlphaGwet,
        Method::AlphaFisherZ,
        Method::QuadraticWald,
        Method::QuadraticFisherZ,
    ];
    /// The methods of the many-rater grid (three to five raters, missing ratings).
    pub const MANY: [Method; 6] = [
        Method::AlphaGwet,
        Method::AlphaFisherZ,
        Method::FleissGwet,
        Method::FleissFisherZ,
        Method::Ac1Gwet,
        Method::Ac1FisherZ,
    ];
    pub fn coefficient(self) -> Coefficient {
        match self {
            Method::KappaWald | Method::KappaFisherZ | Method::KappaBootstrap => Coefficient::CohenKappa,
            Method::Ac1Gwet | Method::Ac1FisherZ => Coefficient::GwetAc1,
            Method::AlphaGwet | Method::AlphaFisherZ => Coefficient::KrippendorffAlpha,
            Method::QuadraticWald | Method::QuadraticFisherZ => Coefficient::QuadraticKappa,
            // Fleiss' kappa tends to the population kappa as alpha does.
            Method::FleissGwet | Method::FleissFisherZ => Coefficient::KrippendorffAlpha,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Method::KappaWald => "kappa_wald_fce",
            Method::KappaFisherZ => "kappa_fisher_z",
            Method::KappaBootstrap => "kappa_bootstrap",
            Method::Ac1Gwet => "ac1_gwet",
            Method::Ac1FisherZ => "ac1_fisher_z",
            Method::AlphaGwet => "alpha_gwet",
            Method::AlphaFisherZ => "alpha_fisher_z",
            Method::QuadraticWald => "quadratic_kappa_wald_fce",
            Method::QuadraticFisherZ => "quadratic_kappa_fisher_z",
            Method::FleissGwet => "fleiss_gwet",
            Method::FleissFisherZ => "fleiss_fisher_z",
        }
    }
}

/// One cell of the coverage table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CoverageCell {
    pub population: Population,
    /// Raters per item (2 in the two-rater grid).
    pub raters: usize,
    /// Chance that a rater's rating of an item is missing (0 in the two-rater grid).
    pub missing: f64,
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
        Method::QuadraticWald => {
            let (k, i) = stats::weighted_kappa_interval(t, &stats::quadratic_weights(q))?;
            Some((k, i.ci95))
        }
        Method::QuadraticFisherZ => {
            let (k, _, i) = stats::weighted_kappa_intervals(t, &stats::quadratic_weights(q))?;
            Some((k, i.ci95))
        }
        _ => family_interval(method, &stats::gwet_family(&stats::table_patterns(t), &stats::identity_weights(q))),
    }
}

/// The Gwet-family methods' intervals from one family of estimates.
fn family_interval(method: Method, f: &stats::GwetFamily) -> Option<(f64, [f64; 2])> {
    let pick = |v: &Option<(f64, Interval)>, read: &Option<Interval>, use_read: bool| -> Option<(f64, [f64; 2])> {
        let (value, plain) = v.as_ref()?;
        Some((*value, if use_read { read.as_ref()?.ci95 } else { plain.ci95 }))
    };
    match method {
        Method::Ac1Gwet => pick(&f.gwet_ac, &f.gwet_ac_read, false),
        Method::Ac1FisherZ => pick(&f.gwet_ac, &f.gwet_ac_read, true),
        Method::AlphaGwet => pick(&f.krippendorff_alpha, &f.krippendorff_alpha_read, false),
        Method::AlphaFisherZ => pick(&f.krippendorff_alpha, &f.krippendorff_alpha_read, true),
        Method::FleissGwet => pick(&f.fleiss_kappa, &f.fleiss_kappa_read, false),
        Method::FleissFisherZ => pick(&f.fleiss_kappa, &f.fleiss_kappa_read, true),
        _ => None,
    }
}

/// A many-rater population: each item has a true category drawn from the population's shares;
/// each of `raters` raters rates it (unless the rating is missing, with chance `missing`) with
/// the true category with chance s = sqrt(kappa), else with a category drawn from the shares.
/// Two ratings of an item then follow exactly [`Population::table`] (agreeing by truth with
/// chance s^2 = kappa, independently otherwise), so Fleiss' kappa and alpha tend to `kappa`
/// and AC1 to [`Population::truth`]'s.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ManyRaters {
    pub population: Population,
    pub raters: usize,
    pub missing: f64,
}

fn draw_units(rng: &mut SplitMix64, many: &ManyRaters, n: usize) -> Vec<Vec<u32>> {
    let m = many.population.marginals();
    let mut cum = Vec::with_capacity(m.len());
    let mut acc = 0.0;
    for x in &m {
        acc += x;
        cum.push(acc);
    }
    let pick = |u: f64| cum.partition_point(|&c| c <= u).min(m.len() - 1) as u32;
    let s = many.population.kappa.max(0.0).sqrt();
    (0..n)
        .map(|_| {
            let truth = pick(uniform(rng));
            let mut unit = Vec::with_capacity(many.raters);
            for _ in 0..many.raters {
                if uniform(rng) < many.missing {
                    continue;
                }
                let own = uniform(rng) < s;
                let other = pick(uniform(rng));
                unit.push(if own { truth } else { other });
            }
            unit
        })
        .collect()
}

/// [`simulate`] for the Gwet-family methods on many-rater data with missing ratings (`n` items).
pub fn simulate_many(many: ManyRaters, n: usize, methods: &[Method], replicates: u32, seed: u64) -> Vec<CoverageCell> {
    let q = many.population.categories;
    let mut rng = SplitMix64::new(seed);
    let mut hits = vec![0u32; methods.len()];
    let mut undefined = vec![0u32; methods.len()];
    let mut widths = vec![0.0f64; methods.len()];
    for _ in 0..replicates {
        let units = draw_units(&mut rng, &many, n);
        let family = stats::gwet_family(&stats::patterns(&units, q), &stats::identity_weights(q));
        for (m, &method) in methods.iter().enumerate() {
            let truth = many.population.truth(method.coefficient());
            match family_interval(method, &family) {
                Some((_, [lo, hi])) => {
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
                population: many.population,
                raters: many.raters,
                missing: many.missing,
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
                raters: 2,
                missing: 0.0,
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

/// The half-width (1.96 SE) of `coefficient` on `replicates` tables of `n` rows drawn from
/// `table` (cell probabilities, rows: rater A): the Fleiss-Cohen-Everitt SE for kappa, Gwet's
/// for AC1 and alpha. Tables where the SE is undefined or 0 are left out.
pub fn coefficient_half_widths(
    coefficient: Coefficient,
    table: &[Vec<f64>],
    n: usize,
    replicates: u32,
    seed: u64,
) -> Vec<f64> {
    if coefficient == Coefficient::CohenKappa {
        return half_widths_from(table, n, replicates, seed);
    }
    let q = table.len();
    let cum = cumulative(table);
    let mut rng = SplitMix64::new(seed);
    (0..replicates)
        .filter_map(|_| {
            let t = draw(&mut rng, &cum, q, n);
            let family = stats::gwet_family(&stats::table_patterns(&t), &stats::identity_weights(q));
            let i = match coefficient {
                Coefficient::GwetAc1 => family.gwet_ac?.1,
                _ => family.krippendorff_alpha?.1,
            };
            i.se.filter(|se| *se > 0.0).map(|se| 1.959_963_984_540_054 * se)
        })
        .collect()
}
