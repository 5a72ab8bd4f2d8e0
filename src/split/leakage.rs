//! The leakage audit of a split: what the evaluation set shares with the rest of the
//! retained pool. A model tuned on the rest must not have seen an evaluation row's group, its
//! passage or its raised claim, so all three counts are expected to be zero.
//!
//! Passages and raised claims are compared after [`normalise`] (case, white space and punctuation
//! ignored), so a copy that differs only in spacing or a full stop still counts as shared. The
//! lock records the audit in the manifest (`leakage_audit`) and refuses a split with a leak;
//! `verify` recomputes it from `eval.jsonl` and `benchmark.jsonl` and fails on any leak
//! ([`check`]).

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use ts_rs::TS;

pub use crate::provenance::normalise;

/// One exported row as the audit sees it.
#[derive(Debug, Clone, Copy)]
pub struct AuditRow<'a> {
    pub id: &'a str,
    pub group: &'a str,
    pub passage: &'a str,
    pub raised_claim: &'a str,
}

/// One thing the evaluation set shares with the rest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Leak {
    /// `group`, `passage` or `raised_claim`.
    pub kind: String,
    /// The evaluation rows that have it, in id order.
    pub eval_ids: Vec<String>,
    /// The other retained rows that have it, in id order.
    pub rest_ids: Vec<String>,
}

/// The audit: counts of distinct groups, passages and raised claims found on both sides.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct LeakageAudit {
    #[ts(type = "number")]
    pub eval_rows: u64,
    /// Retained rows outside the evaluation set.
    #[ts(type = "number")]
    pub rest_rows: u64,
    #[ts(type = "number")]
    pub shared_groups: u64,
    #[ts(type = "number")]
    pub shared_passages: u64,
    #[ts(type = "number")]
    pub shared_raised_claims: u64,
    pub leaks: Vec<Leak>,
}

impl LeakageAudit {
    pub fn is_clean(&self) -> bool {
        self.shared_groups == 0 && self.shared_passages == 0 && self.shared_raised_claims == 0
    }

    /// The leaks in words, for an error message (the first few).
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = self
            .leaks
            .iter()
            .take(5)
            .map(|l| {
                format!(
                    "{} shared by evaluation row(s) {} and other row(s) {}",
                    l.kind.replace('_', " "),
                    l.eval_ids.join(", "),
                    l.rest_ids.join(", ")
                )
            })
            .collect();
        if self.leaks.len() > 5 {
            parts.push(format!("and {} more", self.leaks.len() - 5));
        }
        parts.join("; ")
    }
}

/// Audits an evaluation set against the rest of the retained pool.
pub fn audit(eval: &[AuditRow], rest: &[AuditRow]) -> LeakageAudit {
    let mut out = LeakageAudit { eval_rows: eval.len() as u64, rest_rows: rest.len() as u64, ..Default::default() };
    type Key = fn(&AuditRow) -> String;
    let kinds: [(&str, Key); 3] = [
        ("group", |r| r.group.to_string()),
        ("passage", |r| normalise(r.passage)),
        ("raised_claim", |r| normalise(r.raised_claim)),
    ];
    for (kind, key) in kinds {
        let mut sides: BTreeMap<String, (BTreeSet<&str>, BTreeSet<&str>)> = BTreeMap::new();
        for r in eval {
            let k = key(r);
            if !k.is_empty() {
                sides.entry(k).or_default().0.insert(r.id);
            }
        }
        for r in rest {
            if let Some(entry) = sides.get_mut(&key(r)) {
                entry.1.insert(r.id);
            }
        }
        let mut n = 0;
        for (e, r) in sides.into_values().filter(|(_, r)| !r.is_empty()) {
            n += 1;
            out.leaks.push(Leak {
                kind: kind.into(),
                eval_ids: e.into_iter().map(String::from).collect(),
                rest_ids: r.into_iter().map(String::from).collect(),
            });
        }
        match kind {
            "group" => out.shared_groups = n,
            "passage" => out.shared_passages = n,
            _ => out.shared_raised_claims = n,
        }
    }
    out
}

/// The audit of a locked split, from the rows it exports.
pub(super) fn audit_split(
    conn: &rusqlite::Connection,
    eval_ids: &[String],
    retained_ids: &[String],
) -> crate::error::Result<LeakageAudit> {
    let mut stmt = conn.prepare_cached(
        "SELECT c.group_id, c.passage, coalesce(f.value, '') FROM candidates c
         LEFT JOIN adjudication_fields f ON f.candidate_id = c.id AND f.field = 'raised_claim' WHERE c.id = ?1",
    )?;
    let mut texts: BTreeMap<&str, (String, String, String)> = BTreeMap::new();
    for id in retained_ids.iter().chain(eval_ids) {
        if !texts.contains_key(id.as_str()) {
            let t = stmt.query_row([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
            texts.insert(id, t);
        }
    }
    let eval_set: BTreeSet<&str> = eval_ids.iter().map(String::as_str).collect();
    let row = |id: &'_ str| -> Option<AuditRow<'_>> {
        let (id, (g, p, r)) = texts.get_key_value(id)?;
        Some(AuditRow { id, group: g, passage: p, raised_claim: r })
    };
    let eval: Vec<AuditRow> = eval_ids.iter().filter_map(|id| row(id)).collect();
    let rest: Vec<AuditRow> =
        retained_ids.iter().filter(|id| !eval_set.contains(id.as_str())).filter_map(|id| row(id)).collect();
    Ok(audit(&eval, &rest))
}
