//! An annotator's queue: its rows in their own order ([`queue`]), and a window at a time.
//!
//! The window never holds a whole queue: on a 1,000,000-row project an annotator has 500,000 rows
//! or more, and sending them all to the window took 0.38 s and 43 MiB of JSON on every change.
//! Instead the order an annotator sees their rows in is computed once per assignment change and
//! kept here ([`Order`]: each row's sort key and id, and whether it is finished, about 40 bytes a
//! row), and the view asks for the page of rows around the one it shows, the counts, and the
//! next row still open.
//!
//! Which rows are finished is kept up to date from the event log: every change to an annotation
//! is an event in `annotation_events`, whose ids only grow, so after the order is built only the
//! rows with events newer than the last one seen are looked at again.

use rusqlite::{Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::error::{Error, Result};
use crate::project::Project;
use crate::roster;
use crate::vocab::Decision;

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

/// Which window of an annotator's queue to read.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, TS)]
pub struct QueueQuery {
    pub annotator: String,
    /// Rows to skip from the start of the queue (the position of the first row returned, from 0).
    #[serde(default)]
    #[ts(type = "number")]
    pub offset: u32,
    /// At most this many rows (at most [`QUEUE_PAGE_MAX`]).
    #[serde(default)]
    #[ts(type = "number")]
    pub limit: u32,
}

/// The largest window one request returns.
pub const QUEUE_PAGE_MAX: u32 = 5_000;

/// One window of an annotator's queue with the counts the view shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct QueuePage {
    /// Rows in the whole queue.
    #[ts(type = "number")]
    pub total: u32,
    /// Rows of the whole queue the annotator has finished.
    #[ts(type = "number")]
    pub finished: u32,
    /// The query's offset, or the queue's length when it was past the end.
    #[ts(type = "number")]
    pub offset: u32,
    pub rows: Vec<QueueRow>,
}

/// A window of the annotator's queue, in their order (as [`super::queue`] gives it whole).
pub fn queue_page(project: &Project, query: &QueueQuery) -> Result<QueuePage> {
    if query.limit > QUEUE_PAGE_MAX {
        return Err(Error::InvalidArgument(format!(
            "a queue page holds at most {QUEUE_PAGE_MAX} rows; {} were asked for",
            query.limit
        )));
    }
    let conn = project.conn();
    with_order(project, &query.annotator, |order| {
        let total = order.len() as u32;
        let offset = query.offset.min(total);
        let to = offset.saturating_add(query.limit).min(total);
        let rows = (offset..to).map(|at| row_at(conn, order, at as usize)).collect::<Result<Vec<_>>>()?;
        Ok(QueuePage { total, finished: order.finished_count, offset, rows })
    })?
}

/// The first row not yet finished after `after` in the annotator's queue, going round to the
/// start (and to `after` itself last); from the start of the queue when `after` is `None` or a
/// row not in it. An `after` that names no row at all is refused (`not_found`). `None` when every
/// row is finished.
pub fn next_open(project: &Project, annotator: &str, after: Option<&str>) -> Result<Option<QueueRow>> {
    let after = after.map(crate::input::id_key).transpose()?;
    let after = after.as_deref();
    let conn = project.conn();
    // An id that names no row would quietly start from the top, as if the person had asked to.
    if let Some(id) = after {
        if crate::candidate::find_in(conn, id)?.is_none() {
            return Err(Error::CandidateNotFound(id.to_string()));
        }
    }
    with_order(project, annotator, |order| {
        let n = order.len();
        let from = match after {
            Some(id) => order.position_of(conn, id)?.map_or(0, |at| at + 1),
            None => 0,
        };
        match (0..n).map(|k| (from + k) % n).find(|&at| !order.is_finished(at)) {
            Some(at) => row_at(conn, order, at).map(Some),
            None => Ok(None),
        }
    })?
}

/// Where a row stands in an annotator's queue (from 1; 0 if it is not in it) and the queue's
/// length: a binary search in the kept order.
pub(super) fn place(project: &Project, candidate_id: &str, annotator: &str) -> Result<(u32, u32)> {
    let conn = project.conn();
    with_order(project, annotator, |order| {
        let at = order.position_of(conn, candidate_id)?;
        Ok((at.map_or(0, |at| at as u32 + 1), order.len() as u32))
    })?
}

/// A queue row as it stands now (read from the annotation, not from the kept state).
fn row_at(conn: &Connection, order: &Order, at: usize) -> Result<QueueRow> {
    let id = order.id(at);
    let found: Option<(Option<String>, bool)> = conn
        .prepare_cached("SELECT decision, finished FROM annotations WHERE candidate_id = ?1 AND annotator_id = ?2")?
        .query_row(rusqlite::params![id, order.of.annotator], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let decision = match found.as_ref().and_then(|f| f.0.as_deref()) {
        Some(d) => Some(d.parse::<Decision>().map_err(Error::Corrupt)?),
        None => None,
    };
    Ok(QueueRow {
        id: id.to_string(),
        position: at as u32 + 1,
        decision,
        finished: found.as_ref().is_some_and(|f| f.1),
        started: found.is_some(),
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

/// An annotator's queue: its rows' sort keys in order, their ids in the same order (one string,
/// cut at `ends`), and which are finished as of event `events_seen`.
struct Order {
    of: OrderOf,
    seed: u64,
    keys: Vec<u128>,
    ids: String,
    ends: Vec<usize>,
    finished: Vec<u64>,
    finished_count: u32,
    events_seen: i64,
}

impl Order {
    fn len(&self) -> usize {
        self.keys.len()
    }

    fn id(&self, at: usize) -> &str {
        let start = if at == 0 { 0 } else { self.ends[at - 1] };
        &self.ids[start..self.ends[at]]
    }

    fn is_finished(&self, at: usize) -> bool {
        self.finished[at / 64] & (1 << (at % 64)) != 0
    }

    fn set_finished(&mut self, at: usize, finished: bool) {
        if self.is_finished(at) != finished {
            self.finished[at / 64] ^= 1 << (at % 64);
            if finished {
                self.finished_count += 1;
            } else {
                self.finished_count -= 1;
            }
        }
    }

    /// A row's sort key: the first 16 bytes of its shuffle key (the lead's order), or its import
    /// order (a workspace's, which keeps the packet's order); `None` for an unknown row.
    fn key_of(&self, conn: &Connection, id: &str) -> Result<Option<u128>> {
        if self.of.lead {
            return Ok(Some(lead_key(self.seed, id)));
        }
        Ok(conn
            .prepare_cached("SELECT seq FROM candidates WHERE id = ?1")?
            .query_row([id], |r| r.get::<_, i64>(0))
            .optional()?
            .map(|seq| seq as u128))
    }

    /// Where a row is in the order (from 0), if it is in it.
    fn position_of(&self, conn: &Connection, id: &str) -> Result<Option<usize>> {
        let Some(key) = self.key_of(conn, id)? else { return Ok(None) };
        Ok(self.keys.binary_search(&key).ok().filter(|&at| self.id(at) == id))
    }
}

fn lead_key(seed: u64, id: &str) -> u128 {
    u128::from_be_bytes(crate::assign::stable_key(seed, id)[..16].try_into().unwrap())
}

/// The orders last used, most recent last (one per annotator being annotated, a few at most).
static ORDERS: std::sync::Mutex<Vec<Order>> = std::sync::Mutex::new(Vec::new());
const ORDERS_KEPT: usize = 4;

/// Runs `f` on the annotator's order, built if the assignments changed since it was last built
/// and brought up to date with the events written since it was last used.
fn with_order<T>(project: &Project, annotator: &str, f: impl FnOnce(&Order) -> T) -> Result<T> {
    let annotator: &str = &crate::input::name_key(annotator)?;
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
    let of = OrderOf {
        project_id: project.info().id.clone(),
        path: project.info().path.clone(),
        annotator: who_id,
        lead: crate::settings::place(conn)? == crate::settings::Place::Lead,
        last_assignment: conn.prepare_cached("SELECT max(rowid) FROM assignments")?.query_row([], |r| r.get(0))?,
        last_reassignment: conn.prepare_cached("SELECT max(id) FROM reassignments")?.query_row([], |r| r.get(0))?,
    };
    let last_event = super::last_event_id(conn)?;
    let mut orders = ORDERS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let kept = orders.iter().position(|o| o.of == of);
    let at = match kept {
        // Events are only ever added: a smaller last id means the file is not the one the order
        // was built from.
        Some(at) if orders[at].events_seen <= last_event => at,
        _ => {
            // An order of this annotator built before the assignments changed is of no more use.
            orders
                .retain(|o| (&o.of.project_id, &o.of.path, o.of.annotator) != (&of.project_id, &of.path, of.annotator));
            let seed = crate::assign::annotator_seed(&of.project_id, &who_name);
            let order = build(conn, of, seed, last_event)?;
            if orders.len() >= ORDERS_KEPT {
                orders.remove(0);
            }
            orders.push(order);
            orders.len() - 1
        }
    };
    let order = &mut orders[at];
    if order.events_seen < last_event {
        catch_up(conn, order, last_event)?;
    }
    // The order used last goes last, so the least recently used is dropped first.
    let order = orders.remove(at);
    orders.push(order);
    Ok(f(orders.last().expect("just pushed")))
}

/// Reads an annotator's rows, their keys and whether each is finished, and sorts them. The last
/// event id is read before the rows: an event written in between is looked at again later.
fn build(conn: &Connection, of: OrderOf, seed: u64, events_seen: i64) -> Result<Order> {
    let mut keys: Vec<u128> = Vec::new();
    let mut ids = String::new();
    let mut ends: Vec<usize> = Vec::new();
    let mut done: Vec<bool> = Vec::new();
    // Two passes in table order rather than a look-up in `annotations` per assigned row: on a
    // 1M-row project (a file several times the memory map) the look-ups took 3.6 s, the two
    // scans about 1.2 s.
    let finished: std::collections::HashSet<String> = conn
        .prepare("SELECT candidate_id FROM annotations WHERE annotator_id = ?1 AND finished = 1")?
        .query_map([of.annotator], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let sql = if of.lead {
        "SELECT candidate_id, 0 FROM assignments WHERE annotator_id = ?1"
    } else {
        "SELECT s.candidate_id, c.seq FROM assignments s JOIN candidates c ON c.id = s.candidate_id
         WHERE s.annotator_id = ?1"
    };
    let mut stmt = conn.prepare(sql)?;
    let mut rows = stmt.query([of.annotator])?;
    while let Some(r) = rows.next()? {
        let id = crate::db::text(r, 0)?;
        keys.push(if of.lead { lead_key(seed, id) } else { r.get::<_, i64>(1)? as u128 });
        done.push(finished.contains(id));
        ids.push_str(id);
        ends.push(ids.len());
    }
    drop(finished);
    // Sorted through a permutation: the ids stay in one string rather than one allocation each.
    let mut by: Vec<u32> = (0..keys.len() as u32).collect();
    by.sort_unstable_by_key(|&i| keys[i as usize]);
    let mut order = Order {
        of,
        seed,
        keys: Vec::with_capacity(by.len()),
        ids: String::with_capacity(ids.len()),
        ends: Vec::with_capacity(by.len()),
        finished: vec![0; by.len().div_ceil(64)],
        finished_count: 0,
        events_seen,
    };
    for (at, &i) in by.iter().enumerate() {
        let i = i as usize;
        let start = if i == 0 { 0 } else { ends[i - 1] };
        order.keys.push(keys[i]);
        order.ids.push_str(&ids[start..ends[i]]);
        order.ends.push(order.ids.len());
        order.set_finished(at, done[i]);
    }
    Ok(order)
}

/// Looks again at the rows this annotator has events on after `events_seen` (the rows changed
/// since, however they changed).
fn catch_up(conn: &Connection, order: &mut Order, last_event: i64) -> Result<()> {
    for id in super::rows_with_events(conn, order.events_seen, last_event, Some(order.of.annotator))? {
        let Some(at) = order.position_of(conn, &id)? else { continue };
        let finished: bool = conn
            .prepare_cached("SELECT finished FROM annotations WHERE candidate_id = ?1 AND annotator_id = ?2")?
            .query_row(rusqlite::params![id, order.of.annotator], |r| r.get(0))
            .optional()?
            .unwrap_or(false);
        order.set_finished(at, finished);
    }
    order.events_seen = last_event;
    Ok(())
}
