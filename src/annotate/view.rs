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
}

/// The annotate view's data for one row of one annotator's queue.
pub fn row_view(project: &Project, candidate_id: &str, annotator: &str) -> Result<AnnotateRow> {
    let c = candidate::find_in(project.conn(), candidate_id)?
        .ok_or_else(|| Error::CandidateNotFound(candidate_id.into()))?;
    let annotation = get(project, candidate_id, annotator)?;
    let (position, total) = place_in_queue(project, candidate_id, annotator)?;
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
    })
}

/// What an annotator's order was computed from: the project, the annotator, where the project
/// is opened (a lead's shuffle or a workspace's packet order) and the last assignment and
/// reassignment written (assignments are only ever added, or moved with a reassignment).
#[derive(Debug, Clone, PartialEq, Eq)]
struct OrderOf {
    project_id: String,
    path: String,
    annotator: i64,
    lead: bool,
    last_assignment: Option<i64>,
    last_reassignment: Option<i64>,
}

/// An annotator's queue as the sorted sort keys of its rows: a row's position is where its key
/// falls (16 bytes a row; the ids themselves are not kept).
struct Order {
    of: OrderOf,
    keys: Vec<u128>,
}

/// The orders last computed, most recent last (one per annotator being annotated, a few at most).
static ORDERS: std::sync::Mutex<Vec<Order>> = std::sync::Mutex::new(Vec::new());
const ORDERS_KEPT: usize = 4;

/// A row's sort key: the first 16 bytes of its shuffle key (the lead's order), or its import
/// order (a workspace's).
fn lead_key(seed: u64, id: &str) -> u128 {
    u128::from_be_bytes(crate::assign::stable_key(seed, id)[..16].try_into().unwrap())
}

/// Where a row stands in an annotator's queue (from 1; 0 if it is not in it) and the queue's
/// length, without reading the queue on every row: the order's keys are computed once per
/// assignment change and kept, and a row's position is a binary search.
fn place_in_queue(project: &Project, candidate_id: &str, annotator: &str) -> Result<(u32, u32)> {
    let conn = project.conn();
    // By name alone: `roster::require` also counts the person's assignments, a scan of every
    // assignment (tens of milliseconds at 1M rows) on every row view.
    let found: Option<(i64, String)> = conn
        .prepare_cached("SELECT id, name FROM annotators WHERE name = ?1")?
        .query_row([annotator.trim()], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let (who_id, who_name) = match found {
        Some(who) => who,
        None => {
            let who = roster::require(project, annotator)?; // not on the roster: says who is
            (who.id, who.name)
        }
    };
    let lead = crate::settings::place(conn)? == crate::settings::Place::Lead;
    let of = OrderOf {
        project_id: project.info().id.clone(),
        path: project.info().path.clone(),
        annotator: who_id,
        lead,
        last_assignment: conn.prepare_cached("SELECT max(rowid) FROM assignments")?.query_row([], |r| r.get(0))?,
        last_reassignment: conn.prepare_cached("SELECT max(id) FROM reassignments")?.query_row([], |r| r.get(0))?,
    };
    let seed = crate::assign::annotator_seed(&of.project_id, &who_name);
    let key = if lead {
        Some(lead_key(seed, candidate_id))
    } else {
        conn.prepare_cached("SELECT seq FROM candidates WHERE id = ?1")?
            .query_row([candidate_id], |r| r.get::<_, i64>(0))
            .optional()?
            .map(|seq| seq as u128)
    };
    let mut orders = ORDERS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let at = match orders.iter().position(|o| o.of == of) {
        Some(at) => at,
        None => {
            let mut keys: Vec<u128> = Vec::new();
            if lead {
                let mut stmt = conn.prepare("SELECT candidate_id FROM assignments WHERE annotator_id = ?1")?;
                let mut rows = stmt.query([who_id])?;
                while let Some(r) = rows.next()? {
                    keys.push(lead_key(seed, crate::db::text(r, 0)?));
                }
            } else {
                let mut stmt = conn.prepare(
                    "SELECT c.seq FROM assignments s JOIN candidates c ON c.id = s.candidate_id
                     WHERE s.annotator_id = ?1",
                )?;
                let mut rows = stmt.query([who_id])?;
                while let Some(r) = rows.next()? {
                    keys.push(r.get::<_, i64>(0)? as u128);
                }
            }
            keys.sort_unstable();
            if orders.len() >= ORDERS_KEPT {
                orders.remove(0);
            }
            orders.push(Order { of, keys });
            orders.len() - 1
        }
    };
    let keys = &orders[at].keys;
    let position = key.and_then(|k| keys.binary_search(&k).ok()).map_or(0, |i| i as u32 + 1);
    Ok((position, keys.len() as u32))
}
