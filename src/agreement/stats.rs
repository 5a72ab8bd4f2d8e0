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
    };
    if n == 0 || q == 0 {
        return out;
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
    let k = (po - pe) / (1.0 - pe);
    out.cohen_kappa = Some(k);
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
    let var = (a + b - c) / (nf * (1.0 - pe).powi(2));
    let se = var.max(0.0).sqrt();
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
        if let Some(k) = kappa_from_table(&t).cohen_kappa {
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
    };
    if pairable.is_empty() || q == 0 {
        return out;
    }
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
