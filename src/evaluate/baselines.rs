//! Deterministic baseline evaluators: each scores a claim against the cited passage with no model,
//! so they run on any split and give reference points for MVR and FS. Word lists are in
//! [`super::lexicon`].
//!
//! | name | score of a claim |
//! |---|---|
//! | `citation_presence` | 1 when the claim cites a non-empty passage: every pair ties, the floor (MVR 1, FS 0) |
//! | `token_overlap` | share of the claim's distinct words found in the passage |
//! | `entity_overlap` | share of the claim's names and numbers found in the passage (1 when it has none) |
//! | `rule_force` | 1 minus 0.25 per strong word (all, always, proves, will...) the claim uses and the passage does not, floored at 0 |
//! | `axis_lexical` | as the ForceBench paper's axis-aware prototype, `token_overlap` minus 1/3 per limit of the passage the claim drops: a hedge removed, a range turned into a point, a dated statement made current, a bounded population generalised, an association turned into causation (a causal verb the passage does not use); floored at 0 |

use super::lexicon::*;
use super::{Output, Pair};
use std::collections::BTreeSet;

pub const NAMES: [&str; 5] = ["citation_presence", "token_overlap", "entity_overlap", "rule_force", "axis_lexical"];

fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !(c.is_alphanumeric() || c == '\'')).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

fn has_any(ws: &BTreeSet<String>, list: &[&str]) -> bool {
    list.iter().any(|w| ws.contains(*w))
}

fn flat(s: &str) -> String {
    words(s).join(" ")
}

pub fn citation_presence(passage: &str, _claim: &str) -> f64 {
    if passage.trim().is_empty() {
        0.0
    } else {
        1.0
    }
}

pub fn token_overlap(passage: &str, claim: &str) -> f64 {
    let p: BTreeSet<String> = words(passage).into_iter().collect();
    let c: BTreeSet<String> = words(claim).into_iter().collect();
    if c.is_empty() {
        return 0.0;
    }
    c.iter().filter(|w| p.contains(*w)).count() as f64 / c.len() as f64
}

pub fn entity_overlap(passage: &str, claim: &str) -> f64 {
    let p: BTreeSet<String> = words(passage).into_iter().collect();
    let mut items: BTreeSet<String> = crate::qc::entities(claim).iter().flat_map(|e| words(e)).collect();
    items.extend(crate::qc::numbers(claim));
    let passage_numbers = crate::qc::numbers(passage);
    if items.is_empty() {
        return 1.0;
    }
    items.iter().filter(|x| p.contains(*x) || passage_numbers.contains(*x)).count() as f64 / items.len() as f64
}

pub fn rule_force(passage: &str, claim: &str) -> f64 {
    let p: BTreeSet<String> = words(passage).into_iter().collect();
    let new_strong = words(claim).into_iter().filter(|w| STRONG.contains(&w.as_str()) && !p.contains(w)).count();
    (1.0 - 0.25 * new_strong as f64).max(0.0)
}

/// A range such as "between 12 and 18", "12–18%", "12 to 18".
fn has_range(text: &str) -> bool {
    let t = text.to_lowercase().replace(['–', '—'], " - ");
    let toks: Vec<&str> = t.split_whitespace().collect();
    let num = |s: &str| s.trim_matches(|c: char| !c.is_ascii_digit() && c != '.').parse::<f64>().is_ok();
    toks.windows(3).any(|w| num(w[0]) && ["to", "and", "-"].contains(&w[1]) && num(w[2]))
        || toks.iter().any(|w| {
            let parts: Vec<&str> = w.split('-').collect();
            parts.len() == 2 && num(parts[0]) && num(parts[1])
        })
}

/// Which limits of the passage the claim drops (names of the checks that fired).
pub fn dropped_limits(passage: &str, claim: &str) -> Vec<&'static str> {
    let pw: BTreeSet<String> = words(passage).into_iter().collect();
    let cw: BTreeSet<String> = words(claim).into_iter().collect();
    let (pf, cf) = (flat(passage), flat(claim));
    let mut out = Vec::new();
    if has_any(&pw, HEDGES) && !has_any(&cw, HEDGES) {
        out.push("hedge_removed");
    }
    if has_range(passage) && !crate::qc::numbers(claim).is_empty() && !has_range(claim) {
        out.push("range_to_point");
    }
    let dated = |f: &str, w: &BTreeSet<String>| {
        !crate::qc::dates(f).is_empty() || f.contains("as of") || has_any(w, &["forecast", "projected", "planned"])
    };
    if dated(&pf, &pw) && crate::qc::dates(claim).is_empty() && !cf.contains("as of") {
        out.push("dated_made_current");
    }
    let pt: Vec<String> = words(passage);
    let bounds: BTreeSet<&str> = pt
        .windows(2)
        .filter(|w| SCOPE_INTRODUCERS.contains(&w[0].as_str()))
        .filter_map(|w| BOUNDED.iter().find(|b| **b == w[1]).copied())
        .collect();
    if !bounds.is_empty() && !bounds.iter().any(|b| cw.contains(*b)) {
        out.push("bounded_population_generalised");
    }
    let new_causal = CAUSATION.iter().any(|w| cw.contains(*w) && !pw.contains(*w));
    if has_any(&pw, ASSOCIATION) && new_causal && !has_any(&cw, ASSOCIATION) {
        out.push("association_made_causal");
    }
    out
}

/// The paper's axis-aware prototype: token overlap, less 1/3 per limit of the passage the claim
/// drops, floored at 0.
pub fn axis_lexical(passage: &str, claim: &str) -> f64 {
    (token_overlap(passage, claim) - dropped_limits(passage, claim).len() as f64 / 3.0).max(0.0)
}

pub fn scorer(name: &str) -> Option<fn(&str, &str) -> f64> {
    Some(match name {
        "citation_presence" => citation_presence,
        "token_overlap" => token_overlap,
        "entity_overlap" => entity_overlap,
        "rule_force" => rule_force,
        "axis_lexical" => axis_lexical,
        _ => return None,
    })
}

/// A baseline's outputs on the pairs (both claims of each, scored against the passage).
pub fn outputs(name: &str, pairs: &[Pair]) -> Vec<Output> {
    let f = scorer(name).expect("a known baseline");
    pairs
        .iter()
        .flat_map(|p| {
            [(true, &p.calibrated_claim), (false, &p.raised_claim)].map(|(safe, claim)| Output {
                id: p.id.clone(),
                safe,
                score: Some(f(&p.passage, claim)),
                label: None,
                raw: None,
            })
        })
        .collect()
}
