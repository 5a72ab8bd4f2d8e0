//! Project status: how many rows stand in each workflow state, and the pool's make-up.
//! The JSON form (`forcebench status --json`) is documented in the README and is stable: new keys
//! may be added, existing ones keep their meaning.

use serde::Serialize;
use std::collections::BTreeMap;
use ts_rs::TS;

use crate::error::Result;
use crate::project::{Project, ProjectInfo};
use crate::vocab::WorkflowState;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct StatusReport {
    pub project: ProjectInfo,
    /// Number of candidate rows.
    #[ts(type = "number")]
    pub candidates: i64,
    /// Rows in each workflow state; every state is present, in workflow order.
    #[ts(as = "BTreeMap<WorkflowState, u32>")]
    pub states: BTreeMap<WorkflowState, i64>,
    /// Rows per source dataset, by name.
    #[ts(as = "BTreeMap<String, u32>")]
    pub by_source: BTreeMap<String, i64>,
    /// Rows per suggested axis (`none` for rows without a suggestion), by name.
    #[ts(as = "BTreeMap<String, u32>")]
    pub by_suggested_axis: BTreeMap<String, i64>,
    /// Number of groups (distinct `group_id`).
    #[ts(type = "number")]
    pub groups: i64,
    /// How many rows reached each step of the protocol, overall and per axis.
    pub funnel: Funnel,
    /// The software reading the project: its version, commit and the schema version it writes.
    pub software: crate::software::Software,
}

/// Rows reaching each step. A row counts at every step it has passed: an accepted row is also
/// double-annotated and adjudicated.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, TS)]
pub struct FunnelCounts {
    #[ts(type = "number")]
    pub candidates: i64,
    #[ts(type = "number")]
    pub double_annotated: i64,
    #[ts(type = "number")]
    pub adjudicated: i64,
    /// Adjudicated as a force gap and passing QC (locality-removed rows not included).
    #[ts(type = "number")]
    pub accepted: i64,
    /// Adjudicated as a force gap but held back by a failed QC check.
    #[ts(type = "number")]
    pub qc_blocked: i64,
    #[ts(type = "number")]
    pub rejected: i64,
    #[ts(type = "number")]
    pub locality_removed: i64,
    /// In the latest split's retained pool (`null` before any split is drafted).
    #[ts(type = "number | null")]
    pub retained: Option<i64>,
    /// In the latest split's evaluation set (`null` before any split is drafted).
    #[ts(type = "number | null")]
    pub evaluation: Option<i64>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, TS)]
pub struct Funnel {
    #[serde(flatten)]
    #[ts(flatten)]
    pub total: FunnelCounts,
    /// Rejected rows per boundary type (every type present).
    #[ts(as = "BTreeMap<String, u32>")]
    pub rejected_by_boundary: BTreeMap<String, i64>,
    /// The same counts per axis: the final axis of adjudicated accepts, otherwise the suggested
    /// axis (`none` when there is neither).
    pub by_axis: BTreeMap<String, FunnelCounts>,
}

fn funnel(conn: &rusqlite::Connection, states: &crate::rowstate::States) -> Result<Funnel> {
    use crate::vocab::{Axis, BoundaryType};
    let split: Option<i64> = conn.query_row("SELECT max(id) FROM splits", [], |r| r.get(0))?;
    let mut out = Funnel {
        rejected_by_boundary: BoundaryType::ALL.iter().map(|b| (b.as_str().to_string(), 0)).collect(),
        by_axis: Axis::ALL.iter().map(|a| (a.as_str().to_string(), FunnelCounts::default())).collect(),
        ..Funnel::default()
    };
    let mut stmt = conn.prepare(
        "SELECT coalesce(CASE WHEN j.decision = 'accept_force_gap' THEN
                    (SELECT value FROM adjudication_fields f WHERE f.candidate_id = c.id AND f.field = 'axis') END,
                  c.axis, 'none'),
                c.id,
                (SELECT count(*) FROM annotations n WHERE n.candidate_id = c.id AND n.finished = 1) >= 2,
                j.decision, j.boundary_type,
                EXISTS (SELECT 1 FROM split_rows r WHERE r.split_id = ?1 AND r.candidate_id = c.id AND r.role = 'retained'),
                EXISTS (SELECT 1 FROM split_rows r WHERE r.split_id = ?1 AND r.candidate_id = c.id AND r.role = 'eval')
         FROM candidates c
         LEFT JOIN adjudications j ON j.candidate_id = c.id",
    )?;
    let mut rows = stmt.query([split])?;
    while let Some(r) = rows.next()? {
        let axis: String = r.get(0)?;
        let state = states.get(crate::db::text(r, 1)?).map_or("imported", |s| s.as_str());
        let double: bool = r.get(2)?;
        let decision: Option<String> = r.get(3)?;
        let boundary: Option<String> = r.get(4)?;
        // Rows the locality audit removed leave the retained pool and the evaluation set.
        let kept = state != "locality_removed";
        let (retained, eval): (bool, bool) = (r.get::<_, bool>(5)? && kept, r.get::<_, bool>(6)? && kept);
        if state == "rejected" {
            if let Some(b) = boundary {
                *out.rejected_by_boundary.entry(b).or_insert(0) += 1;
            }
        }
        let add = |c: &mut FunnelCounts| {
            c.candidates += 1;
            c.double_annotated += i64::from(double || decision.is_some());
            c.adjudicated += i64::from(decision.is_some());
            c.accepted += i64::from(state == "accepted");
            c.qc_blocked += i64::from(state == "adjudicated" && decision.as_deref() == Some("accept_force_gap"));
            c.rejected += i64::from(state == "rejected");
            c.locality_removed += i64::from(state == "locality_removed");
            if split.is_some() {
                *c.retained.get_or_insert(0) += i64::from(retained);
                *c.evaluation.get_or_insert(0) += i64::from(eval);
            }
        };
        add(&mut out.total);
        add(out.by_axis.entry(axis).or_default());
    }
    if split.is_some() {
        for c in std::iter::once(&mut out.total).chain(out.by_axis.values_mut()) {
            c.retained.get_or_insert(0);
            c.evaluation.get_or_insert(0);
        }
    }
    Ok(out)
}

pub fn status(project: &Project) -> Result<StatusReport> {
    let conn = project.conn();
    let row_states = crate::rowstate::States::load(conn)?;
    let states: BTreeMap<WorkflowState, i64> = row_states.counts();
    let count_by = |sql: &str| -> Result<BTreeMap<String, i64>> {
        let mut stmt = conn.prepare(sql)?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    };
    Ok(StatusReport {
        project: project.info().clone(),
        candidates: conn.query_row("SELECT count(*) FROM candidates", [], |r| r.get(0))?,
        states,
        by_source: count_by("SELECT source_dataset, count(*) FROM candidates GROUP BY source_dataset")?,
        by_suggested_axis: count_by(
            "SELECT coalesce(axis, 'none'), count(*) FROM candidates GROUP BY coalesce(axis, 'none')",
        )?,
        groups: conn.query_row("SELECT count(DISTINCT group_id) FROM candidates", [], |r| r.get(0))?,
        funnel: funnel(conn, &row_states)?,
        software: crate::software::software(),
    })
}
