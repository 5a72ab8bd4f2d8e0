//! Agreement on ordered labels (`agreement --from-csv FILE --ordinal`).
//!
//! Nominal coefficients count a 1-vs-2 disagreement as much as a 1-vs-5 one. When the labels are
//! grades, the quadratic-weighted kappa (two annotators) and Krippendorff's alpha with his
//! ordinal metric (any number, missing ratings allowed) give partial credit for near misses.
//! Labels are ordered by their numeric value, so every label must be a number; the weights use
//! the labels' ranks (equal steps between consecutive labels, as statsmodels' quadratic kappa and
//! the severity figure do; the ordinal metric depends on ranks only anyway).

use serde::Serialize;
use std::collections::HashMap;
use ts_rs::TS;

use super::stats::{self, Interval};
use super::LabelRows;
use crate::error::{Error, Result};
use crate::input::InputProblem;

/// The ordered reading of a label table.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct OrdinalReport {
    /// The labels from lowest to highest value.
    pub order: Vec<String>,
    /// Items with two ratings or more.
    #[ts(type = "number")]
    pub n_items: u64,
    /// Cohen's kappa with quadratic weights on the ranks (exactly two annotators; `null` with
    /// more, see `notes`), its Fleiss-Cohen-Everitt interval and the interval to read.
    pub quadratic_weighted_kappa: Option<f64>,
    pub quadratic_weighted_kappa_interval: Option<Interval>,
    pub quadratic_weighted_kappa_read_interval: Option<Interval>,
    /// Krippendorff's alpha with the ordinal metric over every annotator, Gwet's interval and
    /// the interval to read.
    pub krippendorff_alpha_ordinal: Option<f64>,
    pub krippendorff_alpha_ordinal_interval: Option<Interval>,
    pub krippendorff_alpha_ordinal_read_interval: Option<Interval>,
    /// Why a figure is missing, in words.
    pub notes: Vec<String>,
}

/// The ordered reading of `read`'s rows; a label that is not a number is refused with its line.
pub fn report(read: &LabelRows) -> Result<OrdinalReport> {
    let mut values: HashMap<&str, f64> = HashMap::new();
    for ((_, _, label), line) in read.rows.iter().zip(&read.lines) {
        match label.parse::<f64>() {
            Ok(v) if v.is_finite() => {
                values.insert(label.as_str(), v);
            }
            _ => {
                return Err(Error::InvalidInput {
                    file: read.file.clone(),
                    problems: vec![InputProblem {
                        file: read.file.clone(),
                        line: Some(*line),
                        field: Some("label".into()),
                        message: format!(
                            "`{label}` is not a number: --ordinal orders the labels by their numeric value (1, 2, 3 ...); leave --ordinal out to read them as names"
                        ),
                    }],
                });
            }
        }
    }
    let mut order: Vec<&str> = values.keys().copied().collect();
    order.sort_by(|a, b| values[a].total_cmp(&values[b]).then(a.cmp(b)));
    // `1` and `1.0` are one grade written twice: refuse rather than count them as two.
    for w in order.windows(2) {
        if values[w[0]] == values[w[1]] {
            return Err(Error::InvalidInput {
                file: read.file.clone(),
                problems: vec![InputProblem {
                    file: read.file.clone(),
                    line: None,
                    field: Some("label".into()),
                    message: format!("`{}` and `{}` are the same value written two ways: write it one way", w[0], w[1]),
                }],
            });
        }
    }
    let rank: HashMap<&str, u32> = order.iter().enumerate().map(|(i, l)| (*l, i as u32)).collect();
    let q = order.len();
    let mut annotators: Vec<&str> = read.rows.iter().map(|r| r.1.as_str()).collect();
    annotators.sort();
    annotators.dedup();
    let mut units: HashMap<&str, Vec<(usize, u32)>> = HashMap::new();
    for (item, who, label) in &read.rows {
        let a = annotators.binary_search(&who.as_str()).unwrap_or(0);
        units.entry(item.as_str()).or_default().push((a, rank[label.as_str()]));
    }
    let mut out = OrdinalReport {
        order: order.iter().map(|s| s.to_string()).collect(),
        n_items: units.values().filter(|u| u.len() >= 2).count() as u64,
        quadratic_weighted_kappa: None,
        quadratic_weighted_kappa_interval: None,
        quadratic_weighted_kappa_read_interval: None,
        krippendorff_alpha_ordinal: None,
        krippendorff_alpha_ordinal_interval: None,
        krippendorff_alpha_ordinal_read_interval: None,
        notes: Vec::new(),
    };
    if q < 2 {
        out.notes.push("a single label value: ordered agreement is undefined".into());
        return Ok(out);
    }
    let ranks: Vec<Vec<u32>> = units.values().map(|u| u.iter().map(|x| x.1).collect()).collect();
    let family = stats::krippendorff_ordinal_family(&ranks, q);
    if let Some((a, i)) = family.krippendorff_alpha {
        out.krippendorff_alpha_ordinal = Some(a);
        out.krippendorff_alpha_ordinal_interval = Some(i);
        out.krippendorff_alpha_ordinal_read_interval = family.krippendorff_alpha_read;
    } else {
        out.notes.push("ordinal alpha is undefined: no item has two labels, or every label is one value".into());
    }
    if annotators.len() == 2 {
        let mut table = vec![vec![0u64; q]; q];
        for u in units.values() {
            let a = u.iter().find(|x| x.0 == 0);
            let b = u.iter().find(|x| x.0 == 1);
            if let (Some(a), Some(b)) = (a, b) {
                table[a.1 as usize][b.1 as usize] += 1;
            }
        }
        match stats::weighted_kappa_intervals(&table, &stats::quadratic_weights(q)) {
            Some((k, plain, read)) => {
                out.quadratic_weighted_kappa = Some(k);
                out.quadratic_weighted_kappa_interval = Some(plain);
                out.quadratic_weighted_kappa_read_interval = Some(read);
            }
            None => out.notes.push(
                "quadratic-weighted kappa is undefined: no item labelled by both, or chance agreement is 1".into(),
            ),
        }
    } else {
        out.notes.push(format!(
            "quadratic-weighted kappa compares two annotators and this table has {}: read the ordinal alpha",
            annotators.len()
        ));
    }
    Ok(out)
}
