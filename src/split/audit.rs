//! What a lock waits for: the final locality audit and the QC of every selected row.
//!
//! A selected row (one in the evaluation set, after the locality removals) with a failed
//! locality check is *reviewed* once it is marked nonlocal or kept ([`crate::locality`]); one with
//! a failed QC error check is not resolved. A lock refuses while any is left, naming them, unless
//! the lead locks anyway, in which case the manifest and the datasheet list what was skipped. The
//! double-annotated rows never adjudicated are never in a split; the audit counts them so that the
//! lock and the datasheet say how many.

use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::error::Result;

/// A row and the checks that left it open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RowChecks {
    pub id: String,
    pub checks: Vec<String>,
}

/// The state of the final audit of a split's selected rows (for a locked split: as it was locked).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct LockAudit {
    /// Selected rows with a locality warning nobody reviewed (neither marked nonlocal nor kept).
    pub unreviewed_locality: Vec<RowChecks>,
    /// Selected rows with a failed QC error check.
    pub qc_errors: Vec<RowChecks>,
    /// Double-annotated rows that were never adjudicated (not in the split).
    #[ts(type = "number")]
    pub never_adjudicated: u64,
    /// Set on a split locked with the rows above left as they were (`--allow-unreviewed`).
    pub allowed_unreviewed: bool,
}

impl LockAudit {
    /// Whether nothing holds a lock back.
    pub fn is_clean(&self) -> bool {
        self.unreviewed_locality.is_empty() && self.qc_errors.is_empty()
    }

    /// What holds the lock back, in words, naming the first rows of each kind.
    pub fn describe(&self) -> String {
        let rows = |rows: &[RowChecks]| {
            let mut s = rows
                .iter()
                .take(10)
                .map(|r| format!("{} ({})", r.id, r.checks.join(", ")))
                .collect::<Vec<_>>()
                .join("; ");
            if rows.len() > 10 {
                s.push_str(&format!("; and {} more (`forcebench split show --json` lists them all)", rows.len() - 10));
            }
            s
        };
        let mut parts = Vec::new();
        if !self.unreviewed_locality.is_empty() {
            parts.push(format!(
                "{} selected row(s) have a locality warning nobody reviewed: {}",
                self.unreviewed_locality.len(),
                rows(&self.unreviewed_locality)
            ));
        }
        if !self.qc_errors.is_empty() {
            parts.push(format!(
                "{} selected row(s) have a QC error not resolved: {}",
                self.qc_errors.len(),
                rows(&self.qc_errors)
            ));
        }
        parts.join("; ")
    }

    /// The never-adjudicated count in words, for a lock's message and the datasheet.
    pub fn never_adjudicated_words(&self) -> String {
        match self.never_adjudicated {
            0 => "every double-annotated row was adjudicated".to_string(),
            n => format!("{n} double-annotated row(s) were never adjudicated and are not in the split"),
        }
    }
}

/// The audit of selected rows `eval_ids`, with `double_annotated` and `adjudicated` the
/// project's counts (a row adjudicated is double-annotated).
pub(super) fn audit(
    conn: &Connection,
    eval_ids: &[String],
    double_annotated: u64,
    adjudicated: u64,
) -> Result<LockAudit> {
    let unreviewed_locality =
        crate::locality::unreviewed(conn, eval_ids)?.into_iter().map(|(id, checks)| RowChecks { id, checks }).collect();
    let mut stmt = conn.prepare_cached(
        "SELECT check_name FROM qc_failures WHERE candidate_id = ?1 AND severity = 'error' ORDER BY check_name",
    )?;
    let mut qc_errors = Vec::new();
    for id in eval_ids {
        let checks: Vec<String> = stmt.query_map([id], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
        if !checks.is_empty() {
            qc_errors.push(RowChecks { id: id.clone(), checks });
        }
    }
    Ok(LockAudit {
        unreviewed_locality,
        qc_errors,
        never_adjudicated: double_annotated.saturating_sub(adjudicated),
        allowed_unreviewed: false,
    })
}

/// Simulates the adjudicator's final locality audit on the latest split draft, as `by`: every
/// selected sample row with a locality warning nobody reviewed yet is kept (the sample's answer
/// key calls every row it does not list sound, and the rows it lists are rejected before a
/// split). Rows that did not come from the bundled sample are left for a person to review.
/// Returns how many rows were kept. Refused when there is no draft.
pub fn audit_sample(project: &mut crate::Project, by: &str) -> Result<u64> {
    let Some(show) = super::show(project)? else {
        return Err(crate::error::Error::NoSplit(
            "there is no split draft to audit; draft one first (`forcebench split draft`)".into(),
        ));
    };
    if show.status == "locked" {
        return Err(crate::error::Error::SplitAlreadyLocked(format!(
            "split v{} is locked; its audit was recorded when it was locked",
            show.version
        )));
    }
    let sample: std::collections::HashSet<String> = project
        .conn()
        .prepare(
            "SELECT c.id FROM candidates c JOIN imports i ON i.id = c.import_id WHERE i.file_name = 'sample-data/candidates.csv'",
        )?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut kept = 0;
    for row in &show.audit.unreviewed_locality {
        if sample.contains(&row.id) && !crate::sample::SAMPLE_ANSWER_KEY.iter().any(|(id, _)| *id == row.id) {
            crate::locality::keep(project, &row.id, by, Some("sample: the answer key calls this row sound"))?;
            kept += 1;
        }
    }
    Ok(kept)
}
