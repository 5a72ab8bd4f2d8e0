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
        .prepare_cached("SELECT max(passed = 0 AND severity = 'error') FROM qc_results WHERE candidate_id = ?1")?
        .query_row([id], |r| r.get(0))?;
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

/// Every row QC has run on, in id order, with whether an error check failed.
///
/// A plain scan of the table, folded here: QC writes a row's checks together, so they mostly
/// arrive side by side. Grouping in SQL walked the key index and looked up every check's row in
/// the table (0.4-0.8 s for the 1.3 million checks of 100,000 rows; the scan takes 0.17 s).
pub(crate) fn qc_outcomes(conn: &Connection) -> Result<Vec<(String, bool)>> {
    let mut stmt = conn.prepare("SELECT candidate_id, passed = 0 AND severity = 'error' FROM qc_results")?;
    let mut rows = stmt.query([])?;
    let mut qc: Vec<(String, bool)> = Vec::new();
    while let Some(r) = rows.next()? {
        let (id, failed) = (text(r, 0)?, r.get::<_, bool>(1)?);
        match qc.last_mut() {
            Some((last, blocked)) if last == id => *blocked |= failed,
            _ => qc.push((id.to_string(), failed)),
        }
    }
    // A row whose checks were written apart appears more than once: fold those too.
    qc.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    qc.dedup_by(|later, kept| {
        let same = later.0 == kept.0;
        if same {
            kept.1 |= later.1;
        }
        same
    });
    Ok(qc)
}

/// The workflow state of every row, read in six whole-table scans (a per-row lookup costs
/// seconds on a large project; the scans cost tens of milliseconds).
pub struct States {
    by_id: HashMap<String, WorkflowState>,
}

impl States {
    pub fn load(conn: &Connection) -> Result<States> {
        let mut facts: HashMap<String, RowFacts> = HashMap::new();
        {
            let mut stmt = conn.prepare("SELECT id FROM candidates")?;
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                facts.insert(text(r, 0)?.to_string(), RowFacts::default());
            }
        }
        for (id, blocked) in qc_outcomes(conn)? {
            if let Some(f) = facts.get_mut(&id) {
                f.qc = Some(if blocked { QcOutcome::Blocked } else { QcOutcome::Passed });
            }
        }
        let mut each =
            |sql: &str, apply: &mut dyn FnMut(&mut RowFacts, &rusqlite::Row<'_>) -> Result<()>| -> Result<()> {
                let mut stmt = conn.prepare(sql)?;
                let mut rows = stmt.query([])?;
                while let Some(r) = rows.next()? {
                    if let Some(f) = facts.get_mut(text(r, 0)?) {
                        apply(f, r)?;
                    }
                }
                Ok(())
            };
        each("SELECT candidate_id, decision FROM adjudications", &mut |f, r| {
            f.decision = Some(text(r, 1)?.parse().map_err(Error::Corrupt)?);
            Ok(())
        })?;
        each("SELECT candidate_id FROM locality_marks", &mut |f, _| {
            f.marked = true;
            Ok(())
        })?;
        each("SELECT candidate_id FROM annotations WHERE finished = 1", &mut |f, _| {
            f.finished = f.finished.saturating_add(1);
            Ok(())
        })?;
        each("SELECT DISTINCT candidate_id FROM assignments", &mut |f, _| {
            f.assigned = true;
            Ok(())
        })?;
        Ok(States { by_id: facts.into_iter().map(|(id, f)| (id, settle(&f))).collect() })
    }

    /// The state of row `id` (`None` for an id that is not a candidate).
    pub fn get(&self, id: &str) -> Option<WorkflowState> {
        self.by_id.get(id).copied()
    }

    /// How many rows are in each state (every state present).
    pub fn counts(&self) -> std::collections::BTreeMap<WorkflowState, i64> {
        let mut out: std::collections::BTreeMap<WorkflowState, i64> =
            WorkflowState::ALL.iter().map(|s| (*s, 0)).collect();
        for s in self.by_id.values() {
            *out.get_mut(s).expect("every state") += 1;
        }
        out
    }
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
            "SELECT candidate_id, max(passed = 0 AND severity = 'error') FROM qc_results
             WHERE candidate_id BETWEEN ?1 AND ?2 GROUP BY candidate_id ORDER BY candidate_id",
        )?;
        let qc: Vec<(String, bool)> =
            stmt.query_map([first, last], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<_>>()?;
        Ok(StateRule { qc, marks })
    }

    /// The state of adjudicated row `id` with final `decision` (see [`settle`]).
    pub fn state(&self, id: &str, decision: Decision) -> WorkflowState {
        let qc = self.qc.binary_search_by(|(k, _)| k.as_str().cmp(id)).ok().map(|i| {
            if self.qc[i].1 {
                QcOutcome::Blocked
            } else {
                QcOutcome::Passed
            }
        });
        settle(&RowFacts {
            decision: Some(decision),
            qc,
            marked: self.marks.contains_key(id),
            finished: 2,
            assigned: true,
        })
    }
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
