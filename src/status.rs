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
}

pub fn status(project: &Project) -> Result<StatusReport> {
    let conn = project.conn();
    let mut states: BTreeMap<WorkflowState, i64> = WorkflowState::ALL.iter().map(|s| (*s, 0)).collect();
    let mut stmt = conn.prepare("SELECT state, count(*) FROM candidate_states GROUP BY state")?;
    for row in stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))? {
        let (state, n) = row?;
        let state: WorkflowState = state.parse().map_err(crate::error::Error::InvalidArgument)?;
        states.insert(state, n);
    }
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
    })
}
