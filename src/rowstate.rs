//! A row's settled state: the one place that decides where a candidate row stands and whether
//! it may still change.
//!
//! Everything downstream of annotation asks this module and restates none of it:
//! - the **workflow state** of a row ([`state`], one row) or of every row ([`States`], a few
//!   whole-table scans): imported, assigned, annotating, double-annotated, adjudicated,
//!   accepted, rejected or locality-removed;
//! - what settles an adjudicated row besides its decision: its **QC outcome** and its
//!   **locality mark** ([`StateRule`]);
//! - the **lock guard** ([`guard`], [`Frozen`]): a locked split freezes every row its export
//!   covers (its own rows and every row adjudicated when it was locked), recorded in
//!   `locked_rows` by [`freeze`]. Every write path that can touch a row (annotation events,
//!   time spent, assignments, adjudication, QC, locality marks, packet merges) asks the guard
//!   first, for a message naming the row and the split; triggers in the schema refuse the same
//!   writes in storage, so a path that forgot to ask still cannot change a frozen row.
//!
//! To add a workflow state: a variant in [`WorkflowState`] (and its row in the
//! `workflow_states` table), and its place in [`settle`].

use rusqlite::{Connection, OptionalExtension};
use std::collections::HashMap;

use crate::db::text;
use crate::error::{Error, Result};
use crate::vocab::{Decision, WorkflowState};

// ---- the rule --------------------------------------------------------------------------------

/// What is known of one row, from which its workflow state follows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RowFacts {
    /// The final decision, once adjudicated.
    pub decision: Option<Decision>,
    /// Whether quality control has run on the row, and whether an error check failed.
    pub qc: Option<QcOutcome>,
    /// Marked nonlocal in the locality audit.
    pub marked: bool,
    /// Finished independent annotations (0, 1 or 2).
    pub finished: u8,
    pub assigned: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QcOutcome {
    Passed,
    /// An error check failed: the row is held back.
    Blocked,
}

/// The workflow rule. A locality mark removes a row whatever else holds; a reject rejects it;
/// an accept is accepted once QC has run with no failed error check, and merely adjudicated
/// until then; before adjudication the row's annotations and assignment say where it stands.
pub fn settle(f: &RowFacts) -> WorkflowState {
    match f.decision {
        _ if f.marked => WorkflowState::LocalityRemoved,
        Some(Decision::RejectNotForceGap) => WorkflowState::Rejected,
        Some(Decision::AcceptForceGap) if f.qc == Some(QcOutcome::Passed) => WorkflowState::Accepted,
        Some(_) => WorkflowState::Adjudicated,
        None if f.finished >= 2 => WorkflowState::DoubleAnnotated,
        None if f.finished == 1 => WorkflowState::Annotating,
        None if f.assigned => WorkflowState::Assigned,
        None => WorkflowState::Imported,
    }
}

/// The workflow state of one row, or `None` when there is no such candidate.
pub fn state(conn: &Connection, id: &str) -> Result<Option<WorkflowState>> {
    let exists: bool =
        conn.prepare_cached("SELECT EXISTS (SELECT 1 FROM candidates WHERE id = ?1)")?.query_row([id], |r| r.get(0))?;
    if !exists {
        return Ok(None);
    }
    let decision: Option<String> = conn
        .prepare_cached("SELECT decision FROM adjudications WHERE candidate_id = ?1")?
        .query_row([id], |r| r.get(0))
        .optional()?;
    let qc: Option<bool> = conn
        .prepare_cached("SELECT blocked FROM qc_runs WHERE candidate_id = ?1")?
        .query_row([id], |r| r.get(0))
        .optional()?;
    let facts = RowFacts {
        decision: decision.map(|d| d.parse()).transpose().map_err(Error::Corrupt)?,
        qc: qc.map(|blocked| if blocked { QcOutcome::Blocked } else { QcOutcome::Passed }),
        marked: conn
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM locality_marks WHERE candidate_id = ?1)")?
            .query_row([id], |r| r.get(0))?,
        finished: conn
            .prepare_cached("SELECT count(*) FROM annotations WHERE candidate_id = ?1 AND finished = 1")?
            .query_row([id], |r| r.get::<_, i64>(0))?
            .clamp(0, 2) as u8,
        assigned: conn
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM assignments WHERE candidate_id = ?1)")?
            .query_row([id], |r| r.get(0))?,
    };
    Ok(Some(settle(&facts)))
}

/// Every row QC has run on, in id order, with whether an error check failed: one row of the
/// run table per row (schema 20), already in id order, where the results were a row per check.
pub(crate) fn qc_outcomes(conn: &Connection) -> Result<Vec<(String, bool)>> {
    let mut stmt = conn.prepare("SELECT candidate_id, blocked FROM qc_runs ORDER BY candidate_id")?;
    let mut rows = stmt.query([])?;
    let mut qc: Vec<(String, bool)> = Vec::new();
    while let Some(r) = rows.next()? {
        qc.push((text(r, 0)?.to_string(), r.get(1)?));
    }
    Ok(qc)
}

/// A hasher for row ids (FxHash's word-at-a-time multiply, then a final mix), several times
/// faster than the default SipHash on short keys. Ids are the project's own and not chosen to
/// collide, and a collision would cost time, never a wrong answer.
#[derive(Default, Clone, Copy)]
pub(crate) struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(c.try_into().expect("8 bytes"))).wrapping_mul(K);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(last)).wrapping_mul(K);
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.0 = (self.0.rotate_left(5) ^ u64::from(i)).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn finish(&self) -> u64 {
        // The table picks buckets by the low bits and tags by the high ones: mix both.
        let h = self.0 ^ (self.0 >> 29);
        h.wrapping_mul(0xbf58_476d_1ce4_e5b9) ^ (h >> 32)
    }
}

/// Row id -> value, hashed with [`IdHasher`].
pub(crate) type IdMap<V> = HashMap<Box<str>, V, std::hash::BuildHasherDefault<IdHasher>>;

/// Every candidate row in storage order, with the facts its workflow state follows from: read in
/// whole-table scans and joined in memory by position, for code that needs every row's state
/// (the status, the candidate list). A per-row lookup costs seconds on a large project.
pub(crate) struct AllRows {
    /// Row id -> position in storage order.
    pub index: IdMap<u32>,
    /// Each row's facts, by position.
    pub facts: Vec<RowFacts>,
}

impl AllRows {
    /// Reads every row. `columns` are more columns of `candidates` to read in the same scan
    /// (`", axis"`, say, or empty); `each` sees every row as it is read, with its position, and
    /// the row (`id` at column 0, then `columns`).
    pub fn load(
        conn: &Connection,
        columns: &str,
        each: &mut dyn FnMut(usize, &rusqlite::Row<'_>) -> Result<()>,
    ) -> Result<AllRows> {
        let mut rows = AllRows::load_annotated(conn, columns, each)?;
        rows.settle(conn)?;
        Ok(rows)
    }

    /// [`AllRows::load`] up to adjudication: every row, whether it is assigned and how many
    /// finished annotations it has; the decisions, QC outcomes and locality marks are left to
    /// [`AllRows::settle`].
    pub fn load_annotated(
        conn: &Connection,
        columns: &str,
        each: &mut dyn FnMut(usize, &rusqlite::Row<'_>) -> Result<()>,
    ) -> Result<AllRows> {
        // Rows are never deleted, so the last rowid is about the number of rows (sizing the map
        // once saves rehashing it as it grows: a fifth of the time at a million rows).
        let last: Option<i64> = conn.query_row("SELECT max(rowid) FROM candidates", [], |r| r.get(0))?;
        let mut rows = AllRows { index: IdMap::default(), facts: Vec::new() };
        rows.index.reserve(last.unwrap_or(0).clamp(0, 1 << 26) as usize);
        rows.add(conn, &format!("SELECT id{columns} FROM candidates"), [], each)?;
        let facts = &mut rows.facts;
        each_row(conn, "SELECT candidate_id FROM annotations WHERE finished = 1", [], &rows.index, &mut |at, _| {
            facts[at].finished = facts[at].finished.saturating_add(1);
            Ok(())
        })?;
        each_row(conn, "SELECT candidate_id FROM assignments", [], &rows.index, &mut |at, _| {
            facts[at].assigned = true;
            Ok(())
        })?;
        Ok(rows)
    }

    /// Adds the candidates `sql` reads (`id` at column 0), as [`AllRows::load`] does.
    pub fn add(
        &mut self,
        conn: &Connection,
        sql: &str,
        params: impl rusqlite::Params,
        each: &mut dyn FnMut(usize, &rusqlite::Row<'_>) -> Result<()>,
    ) -> Result<()> {
        let mut stmt = conn.prepare(sql)?;
        let mut rows = stmt.query(params)?;
        while let Some(r) = rows.next()? {
            let at = self.facts.len();
            self.index.insert(text(r, 0)?.into(), at as u32);
            self.facts.push(RowFacts::default());
            each(at, r)?;
        }
        Ok(())
    }

    /// Reads what settles each row after annotation, afresh: its decision, QC outcome and
    /// locality mark.
    pub fn settle(&mut self, conn: &Connection) -> Result<()> {
        for f in &mut self.facts {
            (f.decision, f.qc, f.marked) = (None, None, false);
        }
        let facts = &mut self.facts;
        for (id, blocked) in qc_outcomes(conn)? {
            if let Some(&at) = self.index.get(id.as_str()) {
                facts[at as usize].qc = Some(if blocked { QcOutcome::Blocked } else { QcOutcome::Passed });
            }
        }
        each_row(conn, "SELECT candidate_id, decision FROM adjudications", [], &self.index, &mut |at, r| {
            facts[at].decision = Some(text(r, 1)?.parse().map_err(Error::Corrupt)?);
            Ok(())
        })?;
        each_row(conn, "SELECT candidate_id FROM locality_marks", [], &self.index, &mut |at, _| {
            facts[at].marked = true;
            Ok(())
        })
    }

    /// The position of row `id` (`None` for an id that is not a candidate).
    pub fn position(&self, id: &str) -> Option<usize> {
        self.index.get(id).map(|&at| at as usize)
    }
}

/// Runs `apply` on every row of `sql` (a candidate id at column 0) that is a candidate, with its
/// position. Consecutive rows of a scan are often about one candidate (its two annotations, its
/// two assignments): its position is looked up once for them.
pub(crate) fn each_row(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
    index: &IdMap<u32>,
    apply: &mut dyn FnMut(usize, &rusqlite::Row<'_>) -> Result<()>,
) -> Result<()> {
    let mut stmt = conn.prepare_cached(sql)?;
    let mut rows = stmt.query(params)?;
    let (mut last, mut at): (String, Option<u32>) = (String::new(), None);
    while let Some(r) = rows.next()? {
        let id = text(r, 0)?;
        if id != last {
            last.clear();
            last.push_str(id);
            at = index.get(id).copied();
        }
        if let Some(at) = at {
            apply(at as usize, r)?;
        }
    }
    Ok(())
}

/// The workflow state of every row, read in six whole-table scans (see [`AllRows`]).
pub struct States {
    rows: AllRows,
    states: Vec<WorkflowState>,
}

impl States {
    pub fn load(conn: &Connection) -> Result<States> {
        let rows = AllRows::load(conn, "", &mut |_, _| Ok(()))?;
        let states = rows.facts.iter().map(settle).collect();
        Ok(States { rows, states })
    }

    /// The state of row `id` (`None` for an id that is not a candidate).
    pub fn get(&self, id: &str) -> Option<WorkflowState> {
        self.rows.position(id).map(|at| self.states[at])
    }

    /// How many rows are in each state (every state present).
    pub fn counts(&self) -> std::collections::BTreeMap<WorkflowState, i64> {
        counts(&self.states)
    }
}

/// How many of `states` are in each state (every state present).
pub(crate) fn counts(states: &[WorkflowState]) -> std::collections::BTreeMap<WorkflowState, i64> {
    let mut out: std::collections::BTreeMap<WorkflowState, i64> = WorkflowState::ALL.iter().map(|s| (*s, 0)).collect();
    for s in states {
        *out.get_mut(s).expect("every state") += 1;
    }
    out
}

/// What settles an adjudicated row's state besides its decision: the QC outcomes and the
/// locality marks, read in two scans, for code that walks many adjudicated rows (the split's
/// facts, its export, `adjudicate export`).
pub(crate) struct StateRule {
    /// Every row QC has run on, in id order, with whether an error check failed.
    qc: Vec<(String, bool)>,
    /// Row id -> why the locality audit marked it nonlocal.
    pub marks: HashMap<String, String>,
}

impl StateRule {
    pub fn load(conn: &Connection) -> Result<Self> {
        let marks = conn
            .prepare("SELECT candidate_id, reason FROM locality_marks")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(StateRule { qc: qc_outcomes(conn)?, marks })
    }

    /// The rule for the rows with ids from `first` to `last` (inclusive) only: what an export
    /// that reads a large project a slice at a time needs in memory at once.
    pub fn load_between(conn: &Connection, first: &str, last: &str) -> Result<Self> {
        let marks = conn
            .prepare_cached("SELECT candidate_id, reason FROM locality_marks WHERE candidate_id BETWEEN ?1 AND ?2")?
            .query_map([first, last], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        let mut stmt = conn.prepare_cached(
            "SELECT candidate_id, blocked FROM qc_runs WHERE candidate_id BETWEEN ?1 AND ?2 ORDER BY candidate_id",
        )?;
        let qc: Vec<(String, bool)> =
            stmt.query_map([first, last], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<_>>()?;
        Ok(StateRule { qc, marks })
    }

    /// The state of adjudicated row `id` with final `decision` (see [`settle`]).
    pub fn state(&self, id: &str, decision: Decision) -> WorkflowState {
        self.state_with(id, decision, self.marks.contains_key(id))
    }

    /// The state adjudicated row `id` would have without its locality mark (the split
    /// counts a row marked before its draft in the pool it removes the row from).
    pub fn state_unmarked(&self, id: &str, decision: Decision) -> WorkflowState {
        self.state_with(id, decision, false)
    }

    fn state_with(&self, id: &str, decision: Decision, marked: bool) -> WorkflowState {
        let qc = self.qc.binary_search_by(|(k, _)| k.as_str().cmp(id)).ok().map(|i| {
            if self.qc[i].1 {
                QcOutcome::Blocked
            } else {
                QcOutcome::Passed
            }
        });
        settle(&RowFacts { decision: Some(decision), qc, marked, finished: 2, assigned: true })
    }
}

/// A table read in candidate-id order, stepped alongside the candidates' own id order (a merge:
/// no look-up per row).
struct ById<'s> {
    rows: rusqlite::Rows<'s>,
    /// The id and value of the row the cursor is on; `None` at the end.
    at: Option<(String, rusqlite::types::Value)>,
}

impl<'s> ById<'s> {
    fn new(stmt: &'s mut rusqlite::Statement<'_>) -> Result<ById<'s>> {
        let mut cursor = ById { rows: stmt.query([])?, at: None };
        cursor.step()?;
        Ok(cursor)
    }

    fn step(&mut self) -> Result<()> {
        self.at = match self.rows.next()? {
            Some(r) => Some((text(r, 0)?.to_string(), r.get(1)?)),
            None => None,
        };
        Ok(())
    }

    /// The value for `id` (ids asked for in increasing order), or `None` if the table has none.
    fn find(&mut self, id: &str) -> Result<Option<rusqlite::types::Value>> {
        while let Some((key, value)) = &self.at {
            match key.as_str().cmp(id) {
                std::cmp::Ordering::Less => self.step()?,
                std::cmp::Ordering::Equal => return Ok(Some(value.clone())),
                std::cmp::Ordering::Greater => return Ok(None),
            }
        }
        Ok(None)
    }
}

/// The candidates (by rowid, one bit each) whose workflow state is `want`: the facts the state
/// follows from ([`settle`] decides it) read from each table once, in id order,
/// beside the candidates' ids. Memory is a bit per candidate; a look-up per row and fact cost
/// four times as long at 1M rows.
pub(crate) fn rows_in_state(conn: &Connection, want: WorkflowState) -> Result<Vec<u64>> {
    use rusqlite::types::Value;
    let mut ids = conn.prepare("SELECT id, rowid FROM candidates ORDER BY id")?;
    let mut adjudications = conn.prepare("SELECT candidate_id, decision FROM adjudications ORDER BY candidate_id")?;
    let mut marks = conn.prepare("SELECT candidate_id, 1 FROM locality_marks ORDER BY candidate_id")?;
    let mut finished = conn.prepare(
        "SELECT candidate_id, count(*) FROM annotations WHERE finished = 1 GROUP BY candidate_id ORDER BY candidate_id",
    )?;
    let mut assigned = conn.prepare("SELECT DISTINCT candidate_id, 1 FROM assignments ORDER BY candidate_id")?;
    // QC's outcomes come in id order from the scan that reads them fastest.
    let qc = qc_outcomes(conn)?;
    let mut qc_at = 0;
    let (mut adjudications, mut marks, mut finished, mut assigned) =
        (ById::new(&mut adjudications)?, ById::new(&mut marks)?, ById::new(&mut finished)?, ById::new(&mut assigned)?);
    let int = |v: Option<Value>| match v {
        Some(Value::Integer(i)) => i,
        _ => 0,
    };
    let mut bits: Vec<u64> = Vec::new();
    let mut rows = ids.query([])?;
    while let Some(r) = rows.next()? {
        let id = text(r, 0)?;
        let rowid: i64 = r.get(1)?;
        let decision = match adjudications.find(id)? {
            Some(Value::Text(d)) => Some(d.parse().map_err(Error::Corrupt)?),
            _ => None,
        };
        let facts = RowFacts {
            decision,
            qc: {
                while qc.get(qc_at).is_some_and(|(k, _)| k.as_str() < id) {
                    qc_at += 1;
                }
                qc.get(qc_at).filter(|(k, _)| k == id).map(|(_, blocked)| {
                    if *blocked {
                        QcOutcome::Blocked
                    } else {
                        QcOutcome::Passed
                    }
                })
            },
            marked: marks.find(id)?.is_some(),
            finished: int(finished.find(id)?).clamp(0, 2) as u8,
            assigned: assigned.find(id)?.is_some(),
        };
        if settle(&facts) == want {
            let at = rowid.max(0) as usize;
            if bits.len() <= at / 64 {
                bits.resize(at / 64 + 1, 0);
            }
            bits[at / 64] |= 1 << (at % 64);
        }
    }
    Ok(bits)
}

// ---- the lock guard --------------------------------------------------------------------------

/// Refuses any change to row `id` when a locked split covers it, naming the latest such split.
pub fn guard(conn: &Connection, id: &str) -> Result<()> {
    let version: Option<i64> = conn
        .prepare_cached(
            "SELECT max(s.version) FROM locked_rows l JOIN splits s ON s.id = l.split_id WHERE l.candidate_id = ?1",
        )?
        .query_row([id], |r| r.get(0))?;
    match version {
        Some(version) => Err(Error::SplitLocked { id: id.to_string(), version }),
        None => Ok(()),
    }
}

/// Refuses a change to an annotator's label on row `id`: [`guard`]'s refusal when a locked split
/// covers it, and, once the row is adjudicated, a refusal saying that the adjudicator must reopen
/// it. Every pre-adjudication figure (kappa and the other coefficients, the feedback, the
/// datasheet and the manifest) reads the annotations table; refusing here keeps those labels
/// exactly as they were when the row was decided. A trigger refuses the same write in storage.
pub fn guard_labels(conn: &Connection, id: &str) -> Result<()> {
    guard(conn, id)?;
    let adjudicated: bool = conn
        .prepare_cached("SELECT EXISTS (SELECT 1 FROM adjudications WHERE candidate_id = ?1)")?
        .query_row([id], |r| r.get(0))?;
    if adjudicated {
        return Err(Error::RowAdjudicated(format!(
            "row `{id}` is adjudicated: its annotators' labels are the ones agreement counts, as they stood when \
             it was decided, and cannot change now. Ask the adjudicator to reopen it (`forcebench adjudicate reopen \
             {id} --reason ...`, or Reopen in the Adjudicate view). Nothing was changed"
        )));
    }
    Ok(())
}

/// Every frozen row with the latest locked split covering it, for code that checks many rows.
pub struct Frozen {
    by_id: HashMap<String, i64>,
}

impl Frozen {
    pub fn load(conn: &Connection) -> Result<Frozen> {
        let mut stmt = conn.prepare("SELECT l.candidate_id, max(s.version) FROM locked_rows l JOIN splits s ON s.id = l.split_id GROUP BY l.candidate_id")?;
        let by_id = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<_>>()?;
        Ok(Frozen { by_id })
    }

    pub fn contains(&self, id: &str) -> bool {
        self.by_id.contains_key(id)
    }

    /// [`guard`] from what was loaded.
    pub fn guard(&self, id: &str) -> Result<()> {
        match self.by_id.get(id) {
            Some(&version) => Err(Error::SplitLocked { id: id.to_string(), version }),
            None => Ok(()),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }
}

/// Freezes, as split `split_id` is locked, every row its export covers: its own rows and every
/// adjudicated row. Returns how many rows it covers.
pub(crate) fn freeze(conn: &Connection, split_id: i64) -> Result<u64> {
    let n = conn.execute(
        "INSERT OR IGNORE INTO locked_rows (candidate_id, split_id)
         SELECT candidate_id, ?1 FROM split_rows WHERE split_id = ?1
         UNION SELECT candidate_id, ?1 FROM adjudications",
        [split_id],
    )?;
    Ok(n as u64)
}
