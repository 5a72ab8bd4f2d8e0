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
    /// The steps before candidacy (contexts imported, screened, drafted, excluded, promoted),
    /// when the project has contexts; absent otherwise, so a project without contexts reads as
    /// it always did.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub contexts: Option<crate::contexts::ContextCounts>,
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
    /// Accepted (counted above) but held back from any split draft because a promotion check
    /// is not affirmed (bulk-confirmed without `--affirm`, or the checklist left open).
    #[ts(type = "number")]
    pub unaffirmed: i64,
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
fn funnel(conn: &rusqlite::Connection, rows: &Rows, states: &[WorkflowState]) -> Result<Funnel> {
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
    // Accepts whose promotion checks are not all affirmed.
    let mut unaffirmed = vec![false; n];
    {
        let mut stmt = conn.prepare(
            "SELECT candidate_id FROM adjudications WHERE decision = 'accept_force_gap'
               AND NOT (coalesce(span_decisive, 0) = 1 AND coalesce(calibrated_supported, 0) = 1
                    AND coalesce(raised_underwarranted, 0) = 1 AND coalesce(one_local_axis, 0) = 1
                    AND coalesce(no_unrelated_addition, 0) = 1)",
        )?;
        let mut q = stmt.query([])?;
        while let Some(r) = q.next()? {
            if let Some(at) = rows.all.position(text(r, 0)?) {
                unaffirmed[at] = true;
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
        let state = states[at];
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
        c.unaffirmed += i64::from(state == WorkflowState::Accepted && unaffirmed[at]);
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
    into.unaffirmed += c.unaffirmed;
    into.rejected += c.rejected;
    into.locality_removed += c.locality_removed;
    for (to, from) in [(&mut into.retained, c.retained), (&mut into.evaluation, c.evaluation)] {
        if let Some(from) = from {
            *to.get_or_insert(0) += from;
        }
    }
}

/// Every row with its suggested axis and source, and the facts of `rowstate::AllRows`.
struct Rows {
    all: crate::rowstate::AllRows,
    /// Each row's suggested axis (index into `axes`; `none` for rows without one).
    axis: Vec<u32>,
    axes: Vec<String>,
    /// Rows per source (a project has a handful).
    sources: Vec<(String, i64)>,
}

/// Notes the suggested axis and source of the row just read (axis at column 1, source at 2).
fn note(
    axis: &mut Vec<u32>,
    axes: &mut Vec<String>,
    sources: &mut Vec<(String, i64)>,
    r: &rusqlite::Row<'_>,
) -> Result<()> {
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
}

/// What the status keeps of a project between calls in one process (the app asks on every
/// change): every row up to adjudication, brought up to date from what was added since. Rows and
/// assignments are only ever added (a reassignment changes who, not whether), and every change to
/// an annotation is an event, whose ids only grow; so the rows, assignments and events past the
/// last ones seen are all that can have changed. What follows annotation (decisions, QC, marks,
/// the split) is read afresh on every call.
struct Kept {
    project_id: String,
    path: String,
    /// The last candidate, assignment (rowid) and annotation event (id) read.
    candidates_seen: i64,
    assignments_seen: i64,
    events_seen: i64,
    groups: i64,
    rows: Rows,
}

static KEPT: std::sync::Mutex<Vec<Kept>> = std::sync::Mutex::new(Vec::new());
const KEPT_PROJECTS: usize = 4;
/// Past this many new events the annotations are read again whole (the rows they name would be
/// looked up one by one).
const REREAD_AFTER_EVENTS: i64 = 20_000;
const CANDIDATE_COLUMNS: &str = "SELECT id, coalesce(axis, 'none'), source_dataset, rowid FROM candidates";

/// The last rowid of the candidates and the assignments and the last annotation event id.
fn watermarks(conn: &rusqlite::Connection) -> Result<(i64, i64, i64)> {
    let last = |sql: &str| -> Result<i64> { Ok(conn.prepare_cached(sql)?.query_row([], |r| r.get(0))?) };
    Ok((
        last("SELECT coalesce(max(rowid), 0) FROM candidates")?,
        last("SELECT coalesce(max(rowid), 0) FROM assignments")?,
        crate::annotate::last_event_id(conn)?,
    ))
}

impl Kept {
    fn load(project: &Project) -> Result<Kept> {
        let conn = project.conn();
        // Read before the scans: anything written during them is read again next time.
        let (_, assignments_seen, events_seen) = watermarks(conn)?;
        let (mut axis, mut axes, mut sources, mut last) = (Vec::new(), Vec::new(), Vec::new(), 0i64);
        let all = crate::rowstate::AllRows::load_annotated(
            conn,
            ", coalesce(axis, 'none'), source_dataset, rowid",
            &mut |_, r| {
                last = last.max(r.get(3)?);
                note(&mut axis, &mut axes, &mut sources, r)
            },
        )?;
        Ok(Kept {
            project_id: project.info().id.clone(),
            path: project.info().path.clone(),
            candidates_seen: last,
            assignments_seen,
            events_seen,
            groups: conn.query_row("SELECT count(DISTINCT group_id) FROM candidates", [], |r| r.get(0))?,
            rows: Rows { all, axis, axes, sources },
        })
    }

    /// Reads what was added since; `false` when the file is not the one read before (fewer
    /// rows or events) or too much changed, and the project is to be read whole.
    fn refresh(&mut self, conn: &rusqlite::Connection) -> Result<bool> {
        let (candidates, assignments, events) = watermarks(conn)?;
        if candidates < self.candidates_seen
            || assignments < self.assignments_seen
            || events < self.events_seen
            || events - self.events_seen > REREAD_AFTER_EVENTS
        {
            return Ok(false);
        }
        if candidates > self.candidates_seen {
            let rows = &mut self.rows;
            let (axis, axes, sources) = (&mut rows.axis, &mut rows.axes, &mut rows.sources);
            rows.all.add(
                conn,
                &format!("{CANDIDATE_COLUMNS} WHERE rowid > ?1 AND rowid <= ?2 ORDER BY rowid"),
                [self.candidates_seen, candidates],
                &mut |_, r| note(axis, axes, sources, r),
            )?;
            self.candidates_seen = candidates;
            self.groups = conn.query_row("SELECT count(DISTINCT group_id) FROM candidates", [], |r| r.get(0))?;
        }
        let all = &mut self.rows.all;
        if assignments > self.assignments_seen {
            let facts = &mut all.facts;
            crate::rowstate::each_row(
                conn,
                "SELECT candidate_id FROM assignments WHERE rowid > ?1 AND rowid <= ?2",
                [self.assignments_seen, assignments],
                &all.index,
                &mut |at, _| {
                    facts[at].assigned = true;
                    Ok(())
                },
            )?;
            self.assignments_seen = assignments;
        }
        if events > self.events_seen {
            // The rows with new events.
            let changed = crate::annotate::rows_with_events(conn, self.events_seen, events, None)?;
            let mut count =
                conn.prepare_cached("SELECT count(*) FROM annotations WHERE candidate_id = ?1 AND finished = 1")?;
            let mut finished: Vec<(u32, u8)> = Vec::with_capacity(changed.len());
            for id in changed {
                let Some(&at) = all.index.get(id.as_str()) else { continue };
                let n: i64 = count.query_row([&id], |r| r.get(0))?;
                finished.push((at, n.clamp(0, 255) as u8));
            }
            for (at, n) in finished {
                all.facts[at as usize].finished = n;
            }
            self.events_seen = events;
        }
        Ok(true)
    }
}

/// The project's status: every row's state, the pool's make-up and the funnel. Every row is
/// read in a few whole-table scans joined in memory (4 s at a million rows, 6.7-19 s before);
/// in one process the rows up to adjudication are kept between calls and brought up to date
/// from what was added since ([`Kept`]), so the app's header, asked on every change, reads only
/// what follows annotation.
pub fn status(project: &Project) -> Result<StatusReport> {
    let conn = project.conn();
    let mut kept = KEPT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let info = project.info();
    let found = kept.iter().position(|k| k.project_id == info.id && k.path == info.path);
    if let Some(at) = found {
        // Taken out while it changes: an error leaves nothing half brought up to date.
        let mut k = kept.remove(at);
        if k.refresh(conn)? {
            kept.push(k);
        }
    }
    let mut read_whole = false;
    if kept.last().is_none_or(|k| k.project_id != info.id || k.path != info.path) {
        if kept.len() >= KEPT_PROJECTS {
            kept.remove(0);
        }
        kept.push(Kept::load(project)?);
        read_whole = true;
    }
    let k = kept.last_mut().expect("kept above");
    k.rows.all.settle(conn)?;
    let rows = &k.rows;
    let states: Vec<WorkflowState> = rows.all.facts.iter().map(crate::rowstate::settle).collect();
    let mut per_axis = vec![0i64; rows.axes.len()];
    for &a in &rows.axis {
        per_axis[a as usize] += 1;
    }
    let by_suggested_axis: BTreeMap<String, i64> = rows.axes.iter().cloned().zip(per_axis).collect();
    let mut by_source = BTreeMap::new();
    for (s, n) in &rows.sources {
        *by_source.entry(s.clone()).or_insert(0) += n;
    }
    let report = StatusReport {
        project: project.info().clone(),
        candidates: rows.all.facts.len() as i64,
        states: crate::rowstate::counts(&states),
        by_source,
        by_suggested_axis,
        groups: k.groups,
        funnel: funnel(conn, rows, &states)?,
        contexts: crate::contexts::accounting(conn)?,
        software: crate::software::software(),
    };
    if read_whole {
        crate::db::unmap_pages(conn)?;
    }
    Ok(report)
}
