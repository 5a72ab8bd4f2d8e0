//! Project status: how many rows stand in each workflow state, and the pool's make-up.
//! The JSON form (`forcebench status --json`) is documented in the README and is stable: new keys
//! may be added, existing ones keep their meaning.

use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use ts_rs::TS;

use crate::db::text;
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

/// The funnel's tally: every row's counts added to the total and to its axis.
fn funnel(conn: &rusqlite::Connection, rows: &Rows) -> Result<Funnel> {
    use crate::vocab::{Axis, BoundaryType, Decision};
    let split: Option<i64> = conn.query_row("SELECT max(id) FROM splits", [], |r| r.get(0))?;
    let mut out = Funnel {
        rejected_by_boundary: BoundaryType::ALL.iter().map(|b| (b.as_str().to_string(), 0)).collect(),
        by_axis: Axis::ALL.iter().map(|a| (a.as_str().to_string(), FunnelCounts::default())).collect(),
        ..Funnel::default()
    };
    let n = rows.all.facts.len();
    // Each row's axis (index into `axes`): the final axis of an adjudicated accept, otherwise the
    // suggested axis, `none` when there is neither.
    let mut axes = rows.axes.clone();
    let mut axis: Vec<u32> = rows.axis.clone();
    let mut by_name: HashMap<String, u32> = axes.iter().enumerate().map(|(i, a)| (a.clone(), i as u32)).collect();
    let accepted = |at: usize| rows.all.facts[at].decision == Some(Decision::AcceptForceGap);
    {
        let mut stmt = conn.prepare("SELECT candidate_id, value FROM adjudication_fields WHERE field = 'axis'")?;
        let mut q = stmt.query([])?;
        while let Some(r) = q.next()? {
            let (Some(at), Some(value)) = (rows.all.position(text(r, 0)?), r.get::<_, Option<String>>(1)?) else {
                continue;
            };
            if accepted(at) {
                let next = axes.len() as u32;
                let i = *by_name.entry(value.clone()).or_insert(next);
                if i == next {
                    axes.push(value);
                }
                axis[at] = i;
            }
        }
    }
    // Each rejected row's boundary type (index into `BoundaryType::ALL` or `boundaries`).
    let mut boundaries: Vec<String> = BoundaryType::ALL.iter().map(|b| b.as_str().to_string()).collect();
    let mut boundary: HashMap<u32, u32> = HashMap::new();
    {
        let mut stmt =
            conn.prepare("SELECT candidate_id, boundary_type FROM adjudications WHERE boundary_type IS NOT NULL")?;
        let mut q = stmt.query([])?;
        while let Some(r) = q.next()? {
            if let Some(at) = rows.all.position(text(r, 0)?) {
                let b = text(r, 1)?;
                let i = boundaries.iter().position(|x| x == b).unwrap_or_else(|| {
                    boundaries.push(b.to_string());
                    boundaries.len() - 1
                });
                boundary.insert(at as u32, i as u32);
            }
        }
    }
    // The latest split's retained pool and evaluation set: bit 0 retained, bit 1 evaluation.
    let mut roles = vec![0u8; if split.is_some() { n } else { 0 }];
    if let Some(split) = split {
        let mut stmt = conn.prepare(
            "SELECT candidate_id, role = 'eval' FROM split_rows WHERE split_id = ?1 AND role IN ('retained', 'eval')",
        )?;
        let mut q = stmt.query([split])?;
        while let Some(r) = q.next()? {
            if let Some(at) = rows.all.position(text(r, 0)?) {
                roles[at] |= if r.get::<_, bool>(1)? { 2 } else { 1 };
            }
        }
    }
    let mut per_axis = vec![FunnelCounts::default(); axes.len()];
    let mut rejected_by = vec![0i64; boundaries.len()];
    for (at, f) in rows.all.facts.iter().enumerate() {
        let state = rows.states[at];
        let decision = f.decision;
        // Rows the locality audit removed leave the retained pool and the evaluation set.
        let kept = state != WorkflowState::LocalityRemoved;
        let role = roles.get(at).copied().unwrap_or(0);
        let (retained, eval) = (role & 1 != 0 && kept, role & 2 != 0 && kept);
        if state == WorkflowState::Rejected {
            if let Some(&b) = boundary.get(&(at as u32)) {
                rejected_by[b as usize] += 1;
            }
        }
        let c = &mut per_axis[axis[at] as usize];
        c.candidates += 1;
        c.double_annotated += i64::from(f.finished >= 2 || decision.is_some());
        c.adjudicated += i64::from(decision.is_some());
        c.accepted += i64::from(state == WorkflowState::Accepted);
        c.qc_blocked += i64::from(state == WorkflowState::Adjudicated && decision == Some(Decision::AcceptForceGap));
        c.rejected += i64::from(state == WorkflowState::Rejected);
        c.locality_removed += i64::from(state == WorkflowState::LocalityRemoved);
        if split.is_some() {
            *c.retained.get_or_insert(0) += i64::from(retained);
            *c.evaluation.get_or_insert(0) += i64::from(eval);
        }
    }
    for (name, count) in boundaries.into_iter().zip(rejected_by) {
        if count > 0 {
            *out.rejected_by_boundary.entry(name).or_insert(0) += count;
        }
    }
    for (name, c) in axes.into_iter().zip(per_axis) {
        if c.candidates == 0 {
            continue;
        }
        let total = out.by_axis.entry(name).or_default();
        add(total, &c);
        add(&mut out.total, &c);
    }
    if split.is_some() {
        for c in std::iter::once(&mut out.total).chain(out.by_axis.values_mut()) {
            c.retained.get_or_insert(0);
            c.evaluation.get_or_insert(0);
        }
    }
    Ok(out)
}

/// Adds counts `c` to `into`.
fn add(into: &mut FunnelCounts, c: &FunnelCounts) {
    into.candidates += c.candidates;
    into.double_annotated += c.double_annotated;
    into.adjudicated += c.adjudicated;
    into.accepted += c.accepted;
    into.qc_blocked += c.qc_blocked;
    into.rejected += c.rejected;
    into.locality_removed += c.locality_removed;
    for (to, from) in [(&mut into.retained, c.retained), (&mut into.evaluation, c.evaluation)] {
        if let Some(from) = from {
            *to.get_or_insert(0) += from;
        }
    }
}

/// Every row with its state, suggested axis and source, from one scan of the candidates and the
/// row-state scans of [`crate::rowstate::AllRows`].
struct Rows {
    all: crate::rowstate::AllRows,
    states: Vec<WorkflowState>,
    /// Each row's suggested axis (index into `axes`; `none` for rows without one).
    axis: Vec<u32>,
    axes: Vec<String>,
    by_source: BTreeMap<String, i64>,
}

impl Rows {
    fn load(conn: &rusqlite::Connection) -> Result<Rows> {
        let mut axes: Vec<String> = Vec::new();
        let mut axis: Vec<u32> = Vec::new();
        // Sources by index while reading (a project has a handful), by name at the end.
        let mut sources: Vec<(String, i64)> = Vec::new();
        let all = crate::rowstate::AllRows::load(conn, ", coalesce(axis, 'none'), source_dataset", &mut |_, r| {
            let a = text(r, 1)?;
            let i = axes.iter().position(|x| x == a).unwrap_or_else(|| {
                axes.push(a.to_string());
                axes.len() - 1
            });
            axis.push(i as u32);
            let s = text(r, 2)?;
            match sources.iter_mut().find(|(x, _)| x == s) {
                Some((_, n)) => *n += 1,
                None => sources.push((s.to_string(), 1)),
            }
            Ok(())
        })?;
        let states = all.facts.iter().map(crate::rowstate::settle).collect();
        let mut by_source = BTreeMap::new();
        for (s, n) in sources {
            *by_source.entry(s).or_insert(0) += n;
        }
        Ok(Rows { all, states, axis, axes, by_source })
    }
}

/// The project's status: every row's state, the pool's make-up and the funnel, from a few
/// whole-table scans joined in memory (about a second for a million rows, where the project's
/// file is ten times SQLite's memory map).
pub fn status(project: &Project) -> Result<StatusReport> {
    let conn = project.conn();
    let rows = Rows::load(conn)?;
    let mut per_axis = vec![0i64; rows.axes.len()];
    for &a in &rows.axis {
        per_axis[a as usize] += 1;
    }
    let by_suggested_axis: BTreeMap<String, i64> = rows.axes.iter().cloned().zip(per_axis).collect();
    Ok(StatusReport {
        project: project.info().clone(),
        candidates: rows.all.facts.len() as i64,
        states: crate::rowstate::counts(&rows.states),
        by_source: rows.by_source.clone(),
        by_suggested_axis,
        groups: conn.query_row("SELECT count(DISTINCT group_id) FROM candidates", [], |r| r.get(0))?,
        funnel: funnel(conn, &rows)?,
        software: crate::software::software(),
    })
}
