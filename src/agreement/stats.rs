//! Agreement statistics on nominal labels, independent of where the labels come from.
//!
//! Two raters: Cohen's kappa with the large-sample standard error of Fleiss, Cohen and Everitt
//! (1969) and the normal 95% interval from it, a seeded percentile bootstrap interval, PABAK,
//! Gwet's AC1, and Cohen's weighted kappa with quadratic weights. Any number of raters, missing
//! values allowed: Krippendorff's alpha (nominal, coincidence-matrix form) and Fleiss' kappa and
//! Gwet's AC1 in Gwet's form for unequal numbers of ratings per item (with exactly the same
//! number of ratings everywhere it is Fleiss' 1971 kappa).
//!
//! A statistic that is undefined for the data (a single category, no shared item) is `None`;
//! the caller says why in words. Nothing here returns NaN.

use serde::Serialize;
use ts_rs::TS;

/// Cohen's kappa and its companions from a square confusion table (rows: rater A, columns: B).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct KappaStats {
    #[ts(type = "number")]
    pub n_items: u64,
    pub percent_agreement: Option<f64>,
    pub chance_agreement: Option<f64>,
    pub cohen_kappa: Option<f64>,
    /// Large-sample standard error (Fleiss, Cohen and Everitt 1969).
    pub kappa_se: Option<f64>,
    /// kappa +- 1.96 SE, clipped to [-1, 1].
    pub kappa_ci95: Option<[f64; 2]>,
    /// Prevalence- and bias-adjusted kappa: (q * p_o - 1) / (q - 1), q the number of categories.
    pub pabak: Option<f64>,
    pub gwet_ac1: Option<f64>,
    /// Gwet's AC1 with Gwet's variance (t interval), as irrCAC gives it.
    pub gwet_ac1_interval: Option<Interval>,
    /// The interval to read for AC1 ([`read_interval`]): the same variance on Fisher's z scale,
    /// or the no-disagreement bound; it covers where `gwet_ac1_interval` does not.
    pub gwet_ac1_read_interval: Option<Interval>,
    /// PABAK's Wilson interval (see [`pabak_interval`]).
    pub pabak_interval: Option<Interval>,
    /// Two categories only: (a - d) / n, the first category's excess on the agreeing diagonal
    /// (Byrt, Bishop and Carlin 1993). Far from 0, chance agreement is high and kappa is held down.
    pub prevalence_index: Option<f64>,
    /// Two categories only: (b - c) / n, how differently often the two raters use the first
    /// category. Far from 0, kappa is pushed up.
    pub bias_index: Option<f64>,
}

/// Z for a two-sided 95% normal interval.
const Z95: f64 = 1.959_963_984_540_054;

pub fn kappa_from_table(table: &[Vec<u64>]) -> KappaStats {
    let q = table.len();
    let n: u64 = table.iter().flatten().sum();
    let mut out = KappaStats {
        n_items: n,
        percent_agreement: None,
        chance_agreement: None,
        cohen_kappa: None,
        kappa_se: None,
        kappa_ci95: None,
        pabak: None,
        gwet_ac1: None,
        gwet_ac1_interval: None,
        gwet_ac1_read_interval: None,
        pabak_interval: None,
        prevalence_index: None,
        bias_index: None,
    };
    if n == 0 || q == 0 {
        return out;
    }
    out.pabak_interval = pabak_interval(table);
    if let Some((pi, bi)) = prevalence_and_bias(table) {
        out.prevalence_index = Some(pi);
        out.bias_index = Some(bi);
    }
    if q >= 2 {
        let family = gwet_family(&table_patterns(table), &identity_weights(q));
        out.gwet_ac1_interval = family.gwet_ac.map(|(_, i)| i);
        out.gwet_ac1_read_interval = family.gwet_ac_read;
    }
    let nf = n as f64;
    let p: Vec<Vec<f64>> = table.iter().map(|row| row.iter().map(|&x| x as f64 / nf).collect()).collect();
    let rows: Vec<f64> = p.iter().map(|r| r.iter().sum()).collect();
    let cols: Vec<f64> = (0..q).map(|j| p.iter().map(|r| r[j]).sum()).collect();
    let po: f64 = (0..q).map(|i| p[i][i]).sum();
    let pe: f64 = (0..q).map(|i| rows[i] * cols[i]).sum();
    out.percent_agreement = Some(po);
    out.chance_agreement = Some(pe);
    if q >= 2 {
        out.pabak = Some((q as f64 * po - 1.0) / (q as f64 - 1.0));
        let pi: Vec<f64> = (0..q).map(|k| (rows[k] + cols[k]) / 2.0).collect();
        let pe_g: f64 = pi.iter().map(|x| x * (1.0 - x)).sum::<f64>() / (q as f64 - 1.0);
        if pe_g < 1.0 {
            out.gwet_ac1 = Some((po - pe_g) / (1.0 - pe_g));
        }
    }
    if (1.0 - pe).abs() < 1e-12 {
        return out; // every rating in one category: kappa is undefined
    }
    let Some((k, n_var)) = kappa_and_n_var(&p) else { return out };
    out.cohen_kappa = Some(k);
    let se = (n_var / nf).sqrt();
    out.kappa_se = Some(se);
    out.kappa_ci95 = Some([(k - Z95 * se).max(-1.0), (k + Z95 * se).min(1.0)]);
    out
}

/// Cohen's weighted kappa with quadratic weights over ordered categories (e.g. severity 1-3).
pub fn quadratic_weighted_kappa(table: &[Vec<u64>]) -> Option<f64> {
    let q = table.len();
    let n: u64 = table.iter().flatten().sum();
    if n == 0 || q < 2 {
        return None;
    }
    let nf = n as f64;
    let w = |i: usize, j: usize| 1.0 - ((i as f64 - j as f64) / (q as f64 - 1.0)).powi(2);
    let rows: Vec<f64> = table.iter().map(|r| r.iter().sum::<u64>() as f64 / nf).collect();
    let cols: Vec<f64> = (0..q).map(|j| table.iter().map(|r| r[j]).sum::<u64>() as f64 / nf).collect();
    let mut po = 0.0;
    let mut pe = 0.0;
    for i in 0..q {
        for j in 0..q {
            po += w(i, j) * table[i][j] as f64 / nf;
            pe += w(i, j) * rows[i] * cols[j];
        }
    }
    ((1.0 - pe).abs() > 1e-12).then(|| (po - pe) / (1.0 - pe))
}

/// The confusion table of paired labels (category indices below `q`).
pub fn table(pairs: &[(u32, u32)], q: usize) -> Vec<Vec<u64>> {
    let mut t = vec![vec![0u64; q]; q];
    for &(a, b) in pairs {
        t[a as usize][b as usize] += 1;
    }
    t
}

/// Percentile bootstrap 95% interval for Cohen's kappa: items resampled with replacement `reps`
/// times with a seeded generator (same seed, same interval on every machine). Resamples where
/// kappa is undefined are skipped; `None` if fewer than half are defined.
pub fn bootstrap_kappa_ci(pairs: &[(u32, u32)], q: usize, reps: u32, seed: u64) -> Option<[f64; 2]> {
    if pairs.is_empty() || reps == 0 {
        return None;
    }
    let mut rng = crate::sample::SplitMix64::new(seed);
    let mut kappas = Vec::with_capacity(reps as usize);
    let n = pairs.len() as u64;
    let mut t = vec![vec![0u64; q]; q];
    for _ in 0..reps {
        for row in t.iter_mut() {
            row.fill(0);
        }
        for _ in 0..n {
            let (a, b) = pairs[rng.below(n) as usize];
            t[a as usize][b as usize] += 1;
        }
        // Kappa alone (the same arithmetic as kappa_from_table, without the companions).
        let p: Vec<Vec<f64>> = t.iter().map(|r| r.iter().map(|&x| x as f64 / n as f64).collect()).collect();
        if let Some((k, _)) = kappa_and_n_var(&p) {
            kappas.push(k);
        }
    }
    if kappas.len() * 2 < reps as usize {
        return None;
    }
    kappas.sort_by(f64::total_cmp);
    let at = |p: f64| kappas[((kappas.len() - 1) as f64 * p).round() as usize];
    Some([at(0.025), at(0.975)])
}

/// Multi-rater statistics over items whose ratings are category indices (missing ones left out).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct MultiRaterStats {
    /// Items with at least two ratings (the only ones that carry agreement information).
    #[ts(type = "number")]
    pub n_items: u64,
    #[ts(type = "number")]
    pub n_ratings: u64,
    pub krippendorff_alpha: Option<f64>,
    pub fleiss_kappa: Option<f64>,
    pub gwet_ac1: Option<f64>,
    /// Gwet's variance for each (t interval), as irrCAC gives it.
    pub krippendorff_alpha_interval: Option<Interval>,
    pub fleiss_kappa_interval: Option<Interval>,
    pub gwet_ac1_interval: Option<Interval>,
    /// The intervals to read ([`read_interval`]; docs/agreement-intervals.md).
    pub krippendorff_alpha_read_interval: Option<Interval>,
    pub fleiss_kappa_read_interval: Option<Interval>,
    pub gwet_ac1_read_interval: Option<Interval>,
}

/// `units[i]` holds item i's ratings as category indices below `q`.
pub fn multi_rater<U: AsRef<[u32]>>(units: &[U], q: usize) -> MultiRaterStats {
    let pairable: Vec<&[u32]> = units.iter().map(AsRef::as_ref).filter(|u| u.len() >= 2).collect();
    let mut out = MultiRaterStats {
        n_items: pairable.len() as u64,
        n_ratings: pairable.iter().map(|u| u.len() as u64).sum(),
        krippendorff_alpha: None,
        fleiss_kappa: None,
        gwet_ac1: None,
        krippendorff_alpha_interval: None,
        fleiss_kappa_interval: None,
        gwet_ac1_interval: None,
        krippendorff_alpha_read_interval: None,
        fleiss_kappa_read_interval: None,
        gwet_ac1_read_interval: None,
    };
    if pairable.is_empty() || q == 0 {
        return out;
    }
    let family = gwet_family(&patterns(units, q), &identity_weights(q));
    out.krippendorff_alpha_interval = family.krippendorff_alpha.map(|(_, i)| i);
    out.fleiss_kappa_interval = family.fleiss_kappa.map(|(_, i)| i);
    out.gwet_ac1_interval = family.gwet_ac.map(|(_, i)| i);
    out.krippendorff_alpha_read_interval = family.krippendorff_alpha_read;
    out.fleiss_kappa_read_interval = family.fleiss_kappa_read;
    out.gwet_ac1_read_interval = family.gwet_ac_read;
    // Krippendorff: coincidences within units, each unit weighted 1 / (m_u - 1).
    let mut counts = vec![0u64; q];
    let mut o_diag = 0.0; // total coincidences of equal values
    let mut n_total = 0.0;
    for u in &pairable {
        counts.fill(0);
        for &v in u.iter() {
            counts[v as usize] += 1;
        }
        let m = u.len() as f64;
        for &c in &counts {
            o_diag += (c as f64) * (c as f64 - 1.0) / (m - 1.0);
        }
        n_total += m;
    }
    let mut n_c = vec![0.0f64; q];
    for u in &pairable {
        for &v in u.iter() {
            n_c[v as usize] += 1.0;
        }
    }
    let observed_disagreement = n_total - o_diag; // sum of o_ck over c != k
    let expected_pairs: f64 = n_total * n_total - n_c.iter().map(|x| x * x).sum::<f64>(); // sum n_c n_k, c != k
    if expected_pairs > 0.0 {
        out.krippendorff_alpha = Some(1.0 - (n_total - 1.0) * observed_disagreement / expected_pairs);
    }
    // Fleiss / Gwet with unequal numbers of ratings (Gwet 2014): agreement over items with >= 2
    // ratings; category prevalence from the per-item proportions of every rated item.
    let mut pa = 0.0;
    for u in &pairable {
        counts.fill(0);
        for &v in u.iter() {
            counts[v as usize] += 1;
        }
        let r = u.len() as f64;
        pa += counts.iter().map(|&c| c as f64 * (c as f64 - 1.0)).sum::<f64>() / (r * (r - 1.0));
    }
    pa /= pairable.len() as f64;
    let rated: Vec<&[u32]> = units.iter().map(AsRef::as_ref).filter(|u| !u.is_empty()).collect();
    let mut pi = vec![0.0f64; q];
    for u in &rated {
        let r = u.len() as f64;
        for &v in u.iter() {
            pi[v as usize] += 1.0 / r;
        }
    }
    for x in pi.iter_mut() {
        *x /= rated.len() as f64;
    }
    let pe_f: f64 = pi.iter().map(|x| x * x).sum();
    if (1.0 - pe_f).abs() > 1e-12 {
        out.fleiss_kappa = Some((pa - pe_f) / (1.0 - pe_f));
    }
    if q >= 2 {
        let pe_g: f64 = pi.iter().map(|x| x * (1.0 - x)).sum::<f64>() / (q as f64 - 1.0);
        if (1.0 - pe_g).abs() > 1e-12 {
            out.gwet_ac1 = Some((pa - pe_g) / (1.0 - pe_g));
        }
    }
    out
}

/// Token-overlap F1 between two spans (lower-cased words), as in extractive QA evaluation.
pub fn token_f1(a: &str, b: &str) -> f64 {
    if a == b {
        return 1.0; // the common case, without tokenising
    }
    let tokens = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_alphanumeric()).filter(|t| !t.is_empty()).map(str::to_lowercase).collect()
    };
    let (ta, tb) = (tokens(a), tokens(b));
    if ta.is_empty() && tb.is_empty() {
        return 1.0;
    }
    if ta.is_empty() || tb.is_empty() {
        return 0.0;
    }
    let mut pool: std::collections::HashMap<&str, i64> = std::collections::HashMap::new();
    for t in &tb {
        *pool.entry(t.as_str()).or_insert(0) += 1;
    }
    let mut common = 0;
    for t in &ta {
        if let Some(c) = pool.get_mut(t.as_str()) {
            if *c > 0 {
                *c -= 1;
                common += 1;
            }
        }
    }
    if common == 0 {
        return 0.0;
    }
    let precision = common as f64 / ta.len() as f64;
    let recall = common as f64 / tb.len() as f64;
    2.0 * precision * recall / (precision + recall)
}

// ---------------------------------------------------------------------------------------------
// Intervals on every coefficient. Which method serves which coefficient, and why, is
// in docs/agreement-intervals.md.
// ---------------------------------------------------------------------------------------------

/// How an interval was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum IntervalMethod {
    /// Estimate +- z * SE with the large-sample SE of Fleiss, Cohen and Everitt (1969); for
    /// weighted kappa their weighted form.
    FleissCohenEveritt,
    /// The Fleiss-Cohen-Everitt SE carried to Fisher's z scale (atanh), a t(n - 1) interval made
    /// there and mapped back: asymmetric, never past 1, and it covers where the plain one does
    /// not (small n, kappa near 1; see docs/agreement-intervals.md).
    FisherZ,
    /// Estimate +- t(n - 1) * SE with Gwet's linearised variance (Gwet 2014, as in irrCAC).
    Gwet,
    /// The Wilson score interval of the observed agreement, mapped through the coefficient's
    /// linear formula (PABAK, exact-match rate).
    Wilson,
    /// Seeded percentile bootstrap over rows.
    BootstrapPercentile,
    /// No disagreement at all (kappa = 1): the one-sided 97.5% Clopper-Pearson bound on the
    /// disagreement rate, 1 - 0.025^(1/n), carried to kappa with chance agreement held, up to 1.
    NoDisagreementBound,
}

/// A 95% interval, its standard error when it has one, and how it was made.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Interval {
    pub se: Option<f64>,
    pub ci95: [f64; 2],
    pub method: IntervalMethod,
}

fn clip(lo: f64, hi: f64) -> [f64; 2] {
    [lo.max(-1.0), hi.min(1.0)]
}

/// ln Gamma (Lanczos, g = 7, nine terms), for the t quantile.
fn ln_gamma(x: f64) -> f64 {
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + 7.5;
    for (i, c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// The regularised incomplete beta function I_x(a, b) (continued fraction, modified Lentz).
fn incomplete_beta(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front = (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    if x > (a + 1.0) / (a + b + 2.0) {
        return 1.0 - incomplete_beta(1.0 - x, b, a);
    }
    let tiny = 1e-300;
    let (mut c, mut d) = (1.0, 1.0 - (a + b) * x / (a + 1.0));
    if d.abs() < tiny {
        d = tiny;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..500 {
        let m = m as f64;
        for num in [
            m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0)),
        ] {
            d = 1.0 + num * d;
            if d.abs() < tiny {
                d = tiny;
            }
            c = 1.0 + num / c;
            if c.abs() < tiny {
                c = tiny;
            }
            d = 1.0 / d;
            h *= d * c;
        }
        if (d * c - 1.0).abs() < 1e-16 {
            break;
        }
    }
    front * h / a
}

/// The 97.5% quantile of Student's t with `df` degrees of freedom (the normal one past 1e7).
pub fn t_quantile_975(df: f64) -> f64 {
    if df.is_nan() || df < 1.0 {
        return f64::NAN;
    }
    if df > 1e7 {
        return Z95;
    }
    thread_local! {
        static CACHE: std::cell::RefCell<std::collections::HashMap<u64, f64>> = Default::default();
    }
    if let Some(t) = CACHE.with(|c| c.borrow().get(&df.to_bits()).copied()) {
        return t;
    }
    // Upper tail: P(T > t) = I_{df / (df + t^2)}(df / 2, 1 / 2) / 2; bisect it to 0.025.
    let tail = |t: f64| 0.5 * incomplete_beta(df / (df + t * t), df / 2.0, 0.5);
    let (mut lo, mut hi) = (Z95, 13.0);
    for _ in 0..64 {
        let mid = 0.5 * (lo + hi);
        if tail(mid) > 0.025 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let t = 0.5 * (lo + hi);
    CACHE.with(|c| c.borrow_mut().insert(df.to_bits(), t));
    t
}

/// The Fleiss-Cohen-Everitt interval of Cohen's kappa on Fisher's z scale: atanh(kappa) +-
/// t(n - 1) * SE / (1 - kappa^2), mapped back with tanh (t rather than z: at n = 30 the z one
/// still under-covered near kappa 0.9). `None` at |kappa| = 1 (no scale to move on).
pub fn fisher_z_interval(kappa: f64, se: f64, n: u64) -> Option<Interval> {
    if kappa.abs() >= 1.0 - 1e-12 || n < 2 {
        return None;
    }
    let z = kappa.atanh();
    let h = t_quantile_975(n as f64 - 1.0) * se / (1.0 - kappa * kappa);
    Some(Interval { se: Some(se), ci95: [(z - h).tanh(), (z + h).tanh()], method: IntervalMethod::FisherZ })
}

/// The interval the report prefers for Cohen's kappa: [`fisher_z_interval`] on the
/// Fleiss-Cohen-Everitt SE, or, when the raters never disagree (kappa = 1, SE 0), the
/// [`IntervalMethod::NoDisagreementBound`]. The coverage table in docs/agreement-intervals.md
/// is the reason: the plain interval under-covers at small n and high kappa, this one does not.
pub fn kappa_preferred_interval(k: &KappaStats) -> Option<Interval> {
    let (kappa, se, pe) = (k.cohen_kappa?, k.kappa_se?, k.chance_agreement?);
    if kappa >= 1.0 - 1e-12 {
        let bound = 1.0 - 0.025f64.powf(1.0 / k.n_items as f64);
        return Some(Interval {
            se: Some(se),
            ci95: [(1.0 - bound / (1.0 - pe)).max(-1.0), 1.0],
            method: IntervalMethod::NoDisagreementBound,
        });
    }
    fisher_z_interval(kappa, se, k.n_items)
}

/// Cohen's kappa and n times its Fleiss-Cohen-Everitt variance from a table of proportions
/// (rows: rater A). `None` when chance agreement is 1. The plan uses it on a population table.
pub fn kappa_and_n_var(p: &[Vec<f64>]) -> Option<(f64, f64)> {
    let q = p.len();
    let rows: Vec<f64> = p.iter().map(|r| r.iter().sum()).collect();
    let cols: Vec<f64> = (0..q).map(|j| p.iter().map(|r| r[j]).sum()).collect();
    let po: f64 = (0..q).map(|i| p[i][i]).sum();
    let pe: f64 = (0..q).map(|i| rows[i] * cols[i]).sum();
    if (1.0 - pe).abs() < 1e-12 {
        return None;
    }
    let k = (po - pe) / (1.0 - pe);
    let a: f64 = (0..q).map(|i| p[i][i] * (1.0 - (rows[i] + cols[i]) * (1.0 - k)).powi(2)).sum();
    let mut b = 0.0;
    for i in 0..q {
        for j in 0..q {
            if i != j {
                b += p[i][j] * (cols[i] + rows[j]).powi(2);
            }
        }
    }
    b *= (1.0 - k).powi(2);
    let c = (k - pe * (1.0 - k)).powi(2);
    Some((k, ((a + b - c) / (1.0 - pe).powi(2)).max(0.0)))
}

/// Quadratic agreement weights 1 - ((i - j) / (q - 1))^2.
pub fn quadratic_weights(q: usize) -> Vec<Vec<f64>> {
    (0..q).map(|i| (0..q).map(|j| 1.0 - ((i as f64 - j as f64) / (q.max(2) as f64 - 1.0)).powi(2)).collect()).collect()
}

/// Weighted kappa with agreement weights `w` and the large-sample SE of Fleiss, Cohen and
/// Everitt (1969) (the form in the SAS manual and statsmodels), with its normal 95% interval.
pub fn weighted_kappa_interval(table: &[Vec<u64>], w: &[Vec<f64>]) -> Option<(f64, Interval)> {
    let q = table.len();
    let n: u64 = table.iter().flatten().sum();
    if n == 0 || q < 2 {
        return None;
    }
    let nf = n as f64;
    let p: Vec<Vec<f64>> = table.iter().map(|r| r.iter().map(|&x| x as f64 / nf).collect()).collect();
    let rows: Vec<f64> = p.iter().map(|r| r.iter().sum()).collect();
    let cols: Vec<f64> = (0..q).map(|j| p.iter().map(|r| r[j]).sum()).collect();
    let (mut po, mut pe) = (0.0, 0.0);
    for i in 0..q {
        for j in 0..q {
            po += w[i][j] * p[i][j];
            pe += w[i][j] * rows[i] * cols[j];
        }
    }
    if (1.0 - pe).abs() < 1e-12 {
        return None;
    }
    let k = (po - pe) / (1.0 - pe);
    // w_row[i] = sum_j cols[j] w[i][j]; w_col[j] = sum_i rows[i] w[i][j].
    let w_row: Vec<f64> = (0..q).map(|i| (0..q).map(|j| cols[j] * w[i][j]).sum()).collect();
    let w_col: Vec<f64> = (0..q).map(|j| (0..q).map(|i| rows[i] * w[i][j]).sum()).collect();
    let mut a = 0.0;
    for i in 0..q {
        for j in 0..q {
            a += p[i][j] * (w[i][j] - (w_col[j] + w_row[i]) * (1.0 - k)).powi(2);
        }
    }
    let var = ((a - (k - pe * (1.0 - k)).powi(2)) / ((1.0 - pe).powi(2) * nf)).max(0.0);
    let se = var.sqrt();
    Some((
        k,
        Interval { se: Some(se), ci95: clip(k - Z95 * se, k + Z95 * se), method: IntervalMethod::FleissCohenEveritt },
    ))
}

/// Gwet's AC1/AC2, Fleiss' kappa and Krippendorff's alpha, each with Gwet's linearised
/// variance (Gwet 2014, chapters 2-5; the formulas of irrCAC `CAC.gwet`, `fleiss` and
/// `krippendorff`, with no finite-population correction).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GwetFamily {
    pub gwet_ac: Option<(f64, Interval)>,
    pub fleiss_kappa: Option<(f64, Interval)>,
    pub krippendorff_alpha: Option<(f64, Interval)>,
    /// The intervals to read for the three ([`read_interval`] on the same variances).
    pub gwet_ac_read: Option<Interval>,
    pub fleiss_kappa_read: Option<Interval>,
    pub krippendorff_alpha_read: Option<Interval>,
}

/// The interval to read for a chance-corrected coefficient (AC1, alpha, Fleiss' kappa, weighted
/// kappa), made as the one for Cohen's kappa: the coefficient's own SE carried to Fisher's z
/// scale with a t(n - 1) quantile ([`fisher_z_interval`]), and, when no unit holds any
/// disagreement (the coefficient is 1 and its SE 0, so the plain interval is the single point
/// 1), the one-sided 97.5% Clopper-Pearson bound b = 1 - 0.025^(1/n) on the share of units with a
/// disagreement, carried to the coefficient as 1 - b / (1 - chance) (a unit's disagreement is at
/// most 1, so the bound holds for weighted and many-rater coefficients too). Where neither
/// applies (a coefficient of exactly -1) the plain interval stands. The coverage table in
/// docs/agreement-intervals.md is why: the plain intervals hold about half the time at n = 30
/// near 1, these hold 93% or more.
pub fn read_interval(value: f64, plain: &Interval, n: u64, chance: f64, no_disagreement: bool) -> Interval {
    if no_disagreement && n >= 1 && chance < 1.0 {
        let bound = 1.0 - 0.025f64.powf(1.0 / n as f64);
        return Interval {
            se: plain.se,
            ci95: [(1.0 - bound / (1.0 - chance)).max(-1.0), 1.0],
            method: IntervalMethod::NoDisagreementBound,
        };
    }
    plain.se.and_then(|se| fisher_z_interval(value, se, n)).unwrap_or_else(|| plain.clone())
}

/// Weighted kappa with agreement weights `w`: its value, the Fleiss-Cohen-Everitt interval
/// ([`weighted_kappa_interval`]) and the interval to read ([`read_interval`]).
pub fn weighted_kappa_intervals(table: &[Vec<u64>], w: &[Vec<f64>]) -> Option<(f64, Interval, Interval)> {
    let (k, plain) = weighted_kappa_interval(table, w)?;
    let q = table.len();
    let n: u64 = table.iter().flatten().sum();
    let nf = n as f64;
    let rows: Vec<f64> = table.iter().map(|r| r.iter().sum::<u64>() as f64 / nf).collect();
    let cols: Vec<f64> = (0..q).map(|j| table.iter().map(|r| r[j]).sum::<u64>() as f64 / nf).collect();
    let chance: f64 = (0..q).flat_map(|i| (0..q).map(move |j| (i, j))).map(|(i, j)| w[i][j] * rows[i] * cols[j]).sum();
    let no_disagreement = (0..q).all(|i| (0..q).all(|j| i == j || table[i][j] == 0 || w[i][j] >= 1.0));
    let read = read_interval(k, &plain, n, chance, no_disagreement);
    Some((k, plain, read))
}

fn gwet_interval(value: f64, var: f64, n: f64) -> Interval {
    let se = var.max(0.0).sqrt();
    let t = t_quantile_975(n - 1.0);
    Interval { se: Some(se), ci95: clip(value - t * se, value + t * se), method: IntervalMethod::Gwet }
}

/// `units`: distinct rating patterns (counts per category, summing to the unit's number of
/// ratings) with how many units share each; `w`: agreement weights (identity for nominal).
/// Units with no rating are ignored.
pub fn gwet_family(units: &[(Vec<u32>, u64)], w: &[Vec<f64>]) -> GwetFamily {
    let q = w.len();
    let mut out = GwetFamily::default();
    let units: Vec<(Vec<f64>, f64, f64)> = units
        .iter()
        .filter(|(c, m)| *m > 0 && c.iter().any(|&x| x > 0))
        .map(|(c, m)| (c.iter().map(|&x| x as f64).collect::<Vec<f64>>(), c.iter().sum::<u32>() as f64, *m as f64))
        .collect();
    if q == 0 || units.is_empty() {
        return out;
    }
    // No unit with two ratings holds two categories: every coefficient is 1 and its SE 0.
    let unanimous = units.iter().all(|(c, _, _)| c.iter().filter(|&&x| x > 0.0).count() <= 1);
    // sum_k c_k (sum_l w_kl c_l - 1) per unit.
    let sum_q = |c: &[f64]| -> f64 { (0..q).map(|k| c[k] * ((0..q).map(|l| w[k][l] * c[l]).sum::<f64>() - 1.0)).sum() };
    let n: f64 = units.iter().map(|u| u.2).sum();
    let n2: f64 = units.iter().filter(|u| u.1 >= 2.0).map(|u| u.2).sum();
    if n2 > 0.0 && n >= 2.0 {
        let pa: f64 =
            units.iter().filter(|u| u.1 >= 2.0).map(|(c, r, m)| m * sum_q(c) / (r * (r - 1.0))).sum::<f64>() / n2;
        let mut pi = vec![0.0; q];
        for (c, r, m) in &units {
            for k in 0..q {
                pi[k] += m * c[k] / r / n;
            }
        }
        let pa_i = |c: &[f64], r: f64| if r >= 2.0 { sum_q(c) / (r * (r - 1.0)) } else { 0.0 };
        let variance = |value: f64, pe: f64, pe_i: &dyn Fn(&[f64], f64) -> f64| -> f64 {
            let mut s = 0.0;
            for (c, r, m) in &units {
                let pe_r2 = if *r >= 2.0 { pe } else { 0.0 };
                let k_i = (n / n2) * (pa_i(c, *r) - pe_r2) / (1.0 - pe);
                let x = k_i - 2.0 * (1.0 - value) * (pe_i(c, *r) - pe) / (1.0 - pe);
                s += m * (x - value).powi(2);
            }
            s / (n * (n - 1.0))
        };
        if q >= 2 {
            let wsum: f64 = w.iter().flatten().sum();
            let scale = wsum / (q as f64 * (q as f64 - 1.0));
            let pe = scale * pi.iter().map(|p| p * (1.0 - p)).sum::<f64>();
            if (1.0 - pe).abs() > 1e-12 {
                let ac = (pa - pe) / (1.0 - pe);
                let pe_i = |c: &[f64], r: f64| scale * (0..q).map(|k| c[k] * (1.0 - pi[k])).sum::<f64>() / r;
                let plain = gwet_interval(ac, variance(ac, pe, &pe_i), n);
                out.gwet_ac_read = Some(read_interval(ac, &plain, n as u64, pe, unanimous));
                out.gwet_ac = Some((ac, plain));
            }
        }
        let mut pe = 0.0;
        for k in 0..q {
            for l in 0..q {
                pe += w[k][l] * pi[k] * pi[l];
            }
        }
        if (1.0 - pe).abs() > 1e-12 {
            let fk = (pa - pe) / (1.0 - pe);
            let piw: Vec<f64> =
                (0..q).map(|k| (0..q).map(|l| (w[k][l] + w[l][k]) * pi[l]).sum::<f64>() / 2.0).collect();
            let pe_i = |c: &[f64], r: f64| (0..q).map(|k| c[k] * piw[k]).sum::<f64>() / r;
            let plain = gwet_interval(fk, variance(fk, pe, &pe_i), n);
            out.fleiss_kappa_read = Some(read_interval(fk, &plain, n as u64, pe, unanimous));
            out.fleiss_kappa = Some((fk, plain));
        }
    }
    // Krippendorff's alpha over units with two ratings or more.
    let pairable: Vec<&(Vec<f64>, f64, f64)> = units.iter().filter(|u| u.1 >= 2.0).collect();
    let n: f64 = pairable.iter().map(|u| u.2).sum();
    if n >= 2.0 {
        let total: f64 = pairable.iter().map(|u| u.1 * u.2).sum();
        let rbar = total / n;
        let eps = 1.0 / total;
        let paprime: f64 = pairable.iter().map(|(c, r, m)| m * sum_q(c) / (rbar * (r - 1.0))).sum::<f64>() / n;
        let pa = (1.0 - eps) * paprime + eps;
        let mut pi = vec![0.0; q];
        for (c, _, m) in &pairable {
            for k in 0..q {
                pi[k] += m * c[k] / rbar / n;
            }
        }
        let mut pe = 0.0;
        for k in 0..q {
            for l in 0..q {
                pe += w[k][l] * pi[k] * pi[l];
            }
        }
        if (1.0 - pe).abs() > 1e-12 {
            let alpha = (pa - pe) / (1.0 - pe);
            let alpha_prime = (paprime - pe) / (1.0 - pe);
            let piw: Vec<f64> =
                (0..q).map(|k| (0..q).map(|l| (w[k][l] + w[l][k]) * pi[l]).sum::<f64>() / 2.0).collect();
            let mut s = 0.0;
            for (c, r, m) in &pairable {
                let pa_i = sum_q(c) / (rbar * (r - 1.0)) - pa * (r - rbar) / rbar;
                let k_i = (pa_i - pe) / (1.0 - pe);
                let pe_i = (0..q).map(|k| c[k] * piw[k]).sum::<f64>() / rbar - pe * (r - rbar) / rbar;
                let x = k_i - 2.0 * (1.0 - alpha_prime) * (pe_i - pe) / (1.0 - pe);
                s += m * (x - alpha_prime).powi(2);
            }
            let var = s / (n * (n - 1.0));
            let plain = gwet_interval(alpha, var, n);
            out.krippendorff_alpha_read = Some(read_interval(alpha, &plain, n as u64, pe, unanimous));
            out.krippendorff_alpha = Some((alpha, plain));
        }
    }
    out
}

/// Rating patterns of `units` (category indices below `q`) with their multiplicities, the form
/// [`gwet_family`] reads (identical patterns counted once, so a million rows cost little).
pub fn patterns<U: AsRef<[u32]>>(units: &[U], q: usize) -> Vec<(Vec<u32>, u64)> {
    let mut seen: std::collections::HashMap<Vec<u32>, u64> = std::collections::HashMap::new();
    let mut c = vec![0u32; q];
    for u in units {
        c.fill(0);
        for &v in u.as_ref() {
            c[v as usize] += 1;
        }
        // Allocate only for a pattern not seen yet (a handful in a million rows).
        match seen.get_mut(c.as_slice()) {
            Some(m) => *m += 1,
            None => {
                seen.insert(c.clone(), 1);
            }
        }
    }
    let mut out: Vec<(Vec<u32>, u64)> = seen.into_iter().collect();
    out.sort();
    out
}

/// The patterns of a two-rater confusion table (each cell is a unit rated `i` and `j`).
pub fn table_patterns(table: &[Vec<u64>]) -> Vec<(Vec<u32>, u64)> {
    let q = table.len();
    let mut out = Vec::new();
    for (i, row) in table.iter().enumerate() {
        for (j, &m) in row.iter().enumerate() {
            if m > 0 {
                let mut c = vec![0u32; q];
                c[i] += 1;
                c[j] += 1;
                out.push((c, m));
            }
        }
    }
    out
}

/// Krippendorff's ordinal metric as agreement weights, from the pairable values' category
/// counts `n_c` (Krippendorff 2011: delta^2_ck = (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2), scaled
/// to 1 - delta^2 / max delta^2. Alpha is unchanged by the scale; the weights depend on the data,
/// and the SE treats them as fixed.
pub fn ordinal_weights(counts: &[f64]) -> Vec<Vec<f64>> {
    let q = counts.len();
    let mut d = vec![vec![0.0; q]; q];
    for c in 0..q {
        for k in 0..q {
            let (a, b) = (c.min(k), c.max(k));
            let s: f64 = counts[a..=b].iter().sum();
            d[c][k] = (s - (counts[c] + counts[k]) / 2.0).powi(2);
        }
    }
    let max = d.iter().flatten().cloned().fold(0.0, f64::max);
    if max <= 0.0 {
        return (0..q).map(|i| (0..q).map(|j| f64::from(u8::from(i == j))).collect()).collect();
    }
    d.iter().map(|r| r.iter().map(|x| 1.0 - x / max).collect()).collect()
}

/// Identity weights (nominal data).
pub fn identity_weights(q: usize) -> Vec<Vec<f64>> {
    (0..q).map(|i| (0..q).map(|j| f64::from(u8::from(i == j))).collect()).collect()
}

/// Krippendorff's ordinal alpha (with Gwet's SE) for units of category indices.
pub fn krippendorff_ordinal<U: AsRef<[u32]>>(units: &[U], q: usize) -> Option<(f64, Interval)> {
    krippendorff_ordinal_family(units, q).krippendorff_alpha
}

/// [`gwet_family`] with Krippendorff's ordinal metric as weights (its `krippendorff_alpha` and
/// `krippendorff_alpha_read` are the ordinal alpha's).
pub fn krippendorff_ordinal_family<U: AsRef<[u32]>>(units: &[U], q: usize) -> GwetFamily {
    let pats = patterns(units, q);
    let mut counts = vec![0.0; q];
    for (c, m) in pats.iter().filter(|(c, _)| c.iter().sum::<u32>() >= 2) {
        for k in 0..q {
            counts[k] += c[k] as f64 * *m as f64;
        }
    }
    gwet_family(&pats, &ordinal_weights(&counts))
}

/// The Wilson 95% interval of `agree` of `n`.
pub fn wilson(agree: f64, n: f64) -> Option<[f64; 2]> {
    if n <= 0.0 {
        return None;
    }
    let p = agree / n;
    let z = Z95;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    Some([(centre - half).max(0.0), (centre + half).min(1.0)])
}

/// PABAK's interval: the Wilson interval of the observed agreement p_o mapped through
/// (q p_o - 1) / (q - 1); its SE is q / (q - 1) * sqrt(p_o (1 - p_o) / n).
pub fn pabak_interval(table: &[Vec<u64>]) -> Option<Interval> {
    let q = table.len();
    let n: u64 = table.iter().flatten().sum();
    if q < 2 || n == 0 {
        return None;
    }
    let agree: u64 = (0..q).map(|i| table[i][i]).sum();
    let [lo, hi] = wilson(agree as f64, n as f64)?;
    let qf = q as f64;
    let map = |x: f64| (qf * x - 1.0) / (qf - 1.0);
    let po = agree as f64 / n as f64;
    Some(Interval {
        se: Some(qf / (qf - 1.0) * (po * (1.0 - po) / n as f64).sqrt()),
        ci95: [map(lo), map(hi)],
        method: IntervalMethod::Wilson,
    })
}

/// Seeded percentile bootstrap over `n` rows: each replicate draws `n` rows with replacement,
/// passes their multiplicities to `stat`, and keeps the defined values. `None` when fewer than
/// half are defined.
pub fn bootstrap_ci(n: usize, reps: u32, seed: u64, mut stat: impl FnMut(&[u32]) -> Option<f64>) -> Option<Interval> {
    if n == 0 || reps == 0 {
        return None;
    }
    let mut rng = crate::sample::SplitMix64::new(seed);
    let mut mult = vec![0u32; n];
    let mut values = Vec::with_capacity(reps as usize);
    for _ in 0..reps {
        mult.fill(0);
        for _ in 0..n {
            mult[rng.below(n as u64) as usize] += 1;
        }
        if let Some(v) = stat(&mult) {
            values.push(v);
        }
    }
    if values.len() * 2 < reps as usize {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let at = |p: f64| values[((values.len() - 1) as f64 * p).round() as usize];
    Some(Interval { se: None, ci95: [at(0.025), at(0.975)], method: IntervalMethod::BootstrapPercentile })
}

/// The kappa paradox indices of a 2x2 table (Byrt, Bishop and Carlin 1993): prevalence index
/// (a - d) / n and bias index (b - c) / n, with a = both first category, d = both second,
/// b = A first and B second, c the reverse.
pub fn prevalence_and_bias(table: &[Vec<u64>]) -> Option<(f64, f64)> {
    if table.len() != 2 {
        return None;
    }
    let n: u64 = table.iter().flatten().sum();
    if n == 0 {
        return None;
    }
    let nf = n as f64;
    Some(((table[0][0] as f64 - table[1][1] as f64) / nf, (table[0][1] as f64 - table[1][0] as f64) / nf))
}
