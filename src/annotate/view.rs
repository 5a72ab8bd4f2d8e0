//! What the annotate view reads: an annotator's queue in their own order, and one row as they
//! may see it.

use serde::Serialize;
use ts_rs::TS;

use super::*;
use crate::candidate;
use crate::error::{Error, Result};
use crate::project::Project;
use crate::roster;
use crate::settings::SuggestionMode;

/// A row in an annotator's queue, in the order they see rows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct QueueRow {
    pub id: String,
    /// 1-based position in the annotator's order.
    #[ts(type = "number")]
    pub position: u32,
    pub decision: Option<Decision>,
    pub finished: bool,
    pub started: bool,
}

/// The annotator's rows in their own seeded shuffle (independent of provenance and import order).
pub fn queue(project: &Project, annotator: &str) -> Result<Vec<QueueRow>> {
    let annotator: &str = &crate::input::name_key(annotator)?;
    let who = roster::require(project, annotator)?;
    let mut rows: Vec<(String, Option<String>, bool, bool)> = {
        let mut stmt = project.conn().prepare(
            "SELECT s.candidate_id, n.decision, coalesce(n.finished, 0), n.candidate_id IS NOT NULL
             FROM assignments s
             LEFT JOIN annotations n ON n.candidate_id = s.candidate_id AND n.annotator_id = s.annotator_id
             WHERE s.annotator_id = ?1",
        )?;
        let rows = stmt.query_map([who.id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let key = match crate::settings::place(project.conn())? {
        // A workspace keeps the packet's order (already the annotator's shuffle).
        crate::settings::Place::Workspace { .. } => None,
        crate::settings::Place::Lead => Some(project.info().id.clone()),
    };
    match key {
        Some(project_id) => {
            // The order of `assign::annotator_order`, each row's key computed once (a key per
            // comparison cost seconds on a queue of 500,000 rows).
            let seed = crate::assign::annotator_seed(&project_id, &who.name);
            rows.sort_by_cached_key(|r| crate::assign::stable_key(seed, &r.0));
        }
        None => {
            let seq: std::collections::HashMap<String, i64> = {
                let mut stmt = project.conn().prepare("SELECT id, seq FROM candidates")?;
                let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
                rows.collect::<rusqlite::Result<_>>()?
            };
            rows.sort_by_key(|r| seq[&r.0]);
        }
    }
    Ok(rows
        .into_iter()
        .enumerate()
        .map(|(i, (id, decision, finished, started))| QueueRow {
            id,
            position: i as u32 + 1,
            decision: decision.and_then(|d| d.parse().ok()),
            finished,
            started,
        })
        .collect())
}

/// Everything the annotate view shows for one row: only what this annotator may see (in a
/// strict workspace, hidden suggestions and provenance are absent), their annotation, and where
/// the row stands in their queue.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct AnnotateRow {
    pub id: String,
    #[ts(type = "number")]
    pub position: u32,
    #[ts(type = "number")]
    pub total: u32,
    pub context: String,
    pub passage: String,
    pub suggested_span: Option<String>,
    pub suggested_calibrated_claim: String,
    pub suggested_raised_claim: String,
    pub suggested_repair: Option<String>,
    pub suggested_rationale: Option<String>,
    pub suggested_axis: Option<Axis>,
    pub suggested_severity: Option<u8>,
    /// How the suggestions are shown: pre-filled (marked until confirmed), beside each field, or
    /// hidden (then every `suggested_*` but the two claims is `None`).
    pub suggestion_mode: SuggestionMode,
    /// `None` when blinding hides provenance.
    pub source_dataset: Option<String>,
    pub annotation: Annotation,
    /// The locked split that freezes the row, when one does (issue 31): the view shows it
    /// read-only rather than letting a change fail on saving.
    #[ts(type = "number | null")]
    pub locked_split: Option<i64>,
}

/// The annotate view's data for one row of one annotator's queue.
pub fn row_view(project: &Project, candidate_id: &str, annotator: &str) -> Result<AnnotateRow> {
    let candidate_id: &str = &crate::input::id_key(candidate_id)?;
    let annotator: &str = &crate::input::name_key(annotator)?;
    let c = candidate::find_in(project.conn(), candidate_id)?
        .ok_or_else(|| Error::CandidateNotFound(candidate_id.into()))?;
    let annotation = get(project, candidate_id, annotator)?;
    let (position, total) = super::queue::place(project, candidate_id, annotator)?;
    let locked_split = match crate::rowstate::guard(project.conn(), candidate_id) {
        Err(Error::SplitLocked { version, .. }) => Some(version),
        Err(other) => return Err(other),
        Ok(()) => None,
    };
    let strict = crate::settings::place(project.conn())? == crate::settings::Place::Workspace { strict: true };
    let mode = annotation.suggestion_mode;
    let hidden = mode == SuggestionMode::Hidden;
    Ok(AnnotateRow {
        id: c.id,
        position,
        total,
        context: c.context,
        passage: c.passage,
        suggested_span: if hidden { None } else { c.evidence_span },
        suggested_calibrated_claim: c.calibrated_claim,
        suggested_raised_claim: c.raised_claim,
        suggested_repair: if hidden { None } else { c.repair },
        suggested_rationale: if strict || hidden { None } else { c.rationale },
        suggested_axis: if strict || hidden { None } else { c.axis },
        suggested_severity: if strict || hidden { None } else { c.severity },
        suggestion_mode: mode,
        source_dataset: (!strict && !c.source_dataset.is_empty()).then_some(c.source_dataset),
        annotation,
        locked_split,
    })
}
