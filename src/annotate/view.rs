//! What the annotate view reads of one row: only what the annotator may see, their annotation,
//! and where the row stands in their queue (from `queue.rs`).

use serde::Serialize;
use ts_rs::TS;

use super::*;
use crate::candidate;
use crate::error::{Error, Result};
use crate::project::Project;
use crate::settings::SuggestionMode;

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
    /// The locked split that freezes the row, when one does: the view shows it
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
