//! The adjudication queue a page at a time: what the adjudicate view asks for on a
//! project of any size.
//!
//! Classifying a row needs both of its finished annotations. Rather than fold each row's events
//! (several queries a row), the classified queue is built from the annotations' stored fields
//! in one pass in key order, with the rows' import order, source and axis from one pass over the
//! candidates, and kept in memory in a compact form (about 40 bytes a row) until annotations or
//! assignments change. Adjudications only set a row's final decision; those that were written
//! since the queue was built are folded into it, so saving a row does not rebuild the queue.
//! Every request then filters and counts the kept rows (a few milliseconds at a million rows)
//! and answers one page.

use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use ts_rs::TS;

use super::{Category, CategoryCount, QueueFilter, QueueItem, FIELDS};
use crate::annotate::Field;
use crate::error::{Error, Result};
use crate::project::Project;
use crate::vocab::{Axis, Decision};

/// At most this many items in a page.
pub const PAGE_LIMIT_MAX: u64 = 5_000;

/// What the adjudicate view asks for: a filter and a window of its matches, in queue order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct AdjudicationQuery {
    #[serde(default)]
    pub filter: QueueFilter,
    /// Matches to skip, in queue order.
    #[ts(type = "number")]
    #[serde(default)]
    pub offset: u64,
    /// At most this many items (capped at [`PAGE_LIMIT_MAX`]).
    #[ts(type = "number")]
    pub limit: u64,
    /// Answer the page holding this row instead of the one at `offset` (when the row matches the
    /// filter): the offset becomes the multiple of `limit` at or before the row.
    #[serde(default)]
    pub around: Option<String>,
    /// Look for the next open row matching the filter after this one in queue order, then from
    /// the top (this row itself excepted), answer it as `next_open` and the page holding it. A
    /// row not in the queue (an empty id, say) looks from the top: the first open row.
    #[serde(default)]
    pub open_after: Option<String>,
}

/// The values the queue's filter menus offer, from every double-annotated row.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, TS)]
pub struct AdjudicationFacets {
    /// Source datasets, sorted.
    pub sources: Vec<String>,
    /// Annotator pairs as `NAME+NAME`, the names sorted; the pairs sorted.
    pub pairs: Vec<String>,
    /// Suggested axes present, in the vocabulary's order, then `none` if a row has no axis.
    pub axes: Vec<String>,
}

/// One page of the adjudication queue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct AdjudicationPage {
    /// Counts per category over the whole project (filters do not change them).
    #[ts(as = "BTreeMap<Category, CategoryCount>")]
    pub counts: BTreeMap<Category, CategoryCount>,
    /// Double-annotated rows in the project.
    #[ts(type = "number")]
    pub total: u64,
    /// Rows matching the filter.
    #[ts(type = "number")]
    pub matching: u64,
    /// Where the page starts among the matches.
    #[ts(type = "number")]
    pub offset: u64,
    pub items: Vec<QueueItem>,
    pub facets: AdjudicationFacets,
    /// Where the row asked for (`around`, or the next open row) is among the matches; `None`
    /// when it does not match the filter or was not asked for.
    #[ts(type = "number | null")]
    pub position: Option<u64>,
    /// The next open row after `open_after` (see [`AdjudicationQuery::open_after`]); `None` when none is
    /// left or none was asked for.
    pub next_open: Option<String>,
}

/// One double-annotated row, as kept.
#[derive(Debug, Clone, Copy)]
struct Entry {
    category: Category,
    /// Import order (the order within a category).
    seq: i64,
    /// Bit `i` set: `FIELDS[i]` is among the fields listed as differing.
    differing: u8,
    axis: Option<Axis>,
    source: u32,
    pair: u32,
    decisions: [Decision; 2],
    final_decision: Option<Decision>,
}

/// What the classification was computed from: the project, and the last assignment and
/// reassignment written (assignments are only added, or moved with a reassignment; candidates
/// never change). Annotations change only with an event: those written since are folded in.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    project_id: String,
    path: String,
    last_assignment: Option<i64>,
    last_reassignment: Option<i64>,
}

/// Many ids in one buffer: id `i` is `text[ends[i - 1]..ends[i]]`. A string per id is an
/// allocation each; at a million rows, such strings freed among others kept left the heap in
/// millions of small holes, which every later allocation of a bulk step was served from.
#[derive(Debug, Default)]
struct Ids {
    text: String,
    ends: Vec<u32>,
}

impl Ids {
    fn with_capacity(n: usize) -> Ids {
        Ids { text: String::new(), ends: Vec::with_capacity(n) }
    }

    fn push(&mut self, id: &str) {
        self.text.push_str(id);
        self.ends.push(self.text.len() as u32);
    }

    fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.text[start..self.ends[i] as usize]
    }

    fn len(&self) -> usize {
        self.ends.len()
    }
}

/// The classified queue of one project.
struct Classified {
    of: Stamp,
    /// The last annotation event folded in.
    last_annotation_event: Option<i64>,
    /// The last adjudication event folded into the final decisions.
    last_adjudication_event: Option<i64>,
    /// Entry `i`'s id.
    ids: Ids,
    /// In queue order: category, then import order.
    entries: Vec<Entry>,
    /// Entry indices in id order, to find a row by its id.
    by_id: Vec<u32>,
    sources: Vec<String>,
    names: Vec<String>,
    /// Each pair's names (indices into `names`), A first.
    pairs: Vec<[u32; 2]>,
    /// Each pair as the filter names it: `NAME+NAME`, sorted.
    pair_keys: Vec<String>,
}

/// The queues last classified, most recent last (one per open project, a few at most).
static KEPT: std::sync::Mutex<Vec<Classified>> = std::sync::Mutex::new(Vec::new());
const KEPT_MAX: usize = 2;

impl Classified {
    fn id(&self, i: usize) -> &str {
        self.ids.get(i)
    }

    fn find(&self, id: &str) -> Option<usize> {
        self.by_id.binary_search_by(|&i| self.id(i as usize).cmp(id)).ok().map(|k| self.by_id[k] as usize)
    }

    fn item(&self, i: usize) -> QueueItem {
        let e = &self.entries[i];
        let [a, b] = self.pairs[e.pair as usize];
        QueueItem {
            id: self.id(i).to_string(),
            category: e.category,
            differing: FIELDS
                .iter()
                .enumerate()
                .filter(|(k, _)| e.differing & (1 << k) != 0)
                .map(|(_, f)| *f)
                .collect(),
            source_dataset: self.sources[e.source as usize].clone(),
            suggested_axis: e.axis,
            annotator_a: self.names[a as usize].clone(),
            annotator_b: self.names[b as usize].clone(),
            decision_a: e.decisions[0],
            decision_b: e.decisions[1],
            adjudicated: e.final_decision.is_some(),
            final_decision: e.final_decision,
        }
    }

    fn facets(&self) -> AdjudicationFacets {
        let mut sources = self.sources.clone();
        sources.sort();
        let mut pairs = self.pair_keys.clone();
        pairs.sort();
        pairs.dedup();
        let mut present = [false; Axis::ALL.len() + 1];
        for e in &self.entries {
            present[e.axis.map_or(Axis::ALL.len(), |a| Axis::ALL.iter().position(|x| *x == a).expect("an axis"))] =
                true;
        }
        let axes = Axis::ALL
            .iter()
            .map(|a| a.as_str())
            .chain(["none"])
            .zip(present)
            .filter(|(_, p)| *p)
            .map(|(a, _)| a.to_string())
            .collect();
        AdjudicationFacets { sources, pairs, axes }
    }
}

/// A filter made ready to test entries against.
struct Matcher {
    axis: Option<Option<Option<Axis>>>,
    source: Option<Option<u32>>,
    pair: Option<Vec<u32>>,
    open_only: bool,
}

impl Matcher {
    fn new(q: &Classified, f: &QueueFilter) -> Matcher {
        // A value no row has matches nothing (`Some(None)`), as before.
        let axis = f.axis.as_deref().map(|a| {
            if a == "none" {
                Some(None)
            } else {
                Axis::ALL.iter().find(|x| x.as_str() == a).map(|x| Some(*x))
            }
        });
        let source = f.source.as_deref().map(|s| q.sources.iter().position(|x| x == s).map(|i| i as u32));
        let pair = f.pair.as_deref().map(|p| {
            let mut v: Vec<&str> = p.split('+').map(str::trim).collect();
            v.sort();
            let key = v.join("+");
            q.pair_keys.iter().enumerate().filter(|(_, k)| **k == key).map(|(i, _)| i as u32).collect()
        });
        Matcher { axis, source, pair, open_only: f.open_only }
    }

    fn matches(&self, e: &Entry) -> bool {
        self.axis.is_none_or(|a| a == Some(e.axis))
            && self.source.is_none_or(|s| s == Some(e.source))
            && self.pair.as_ref().is_none_or(|p| p.contains(&e.pair))
            && !(self.open_only && e.final_decision.is_some())
    }

    fn is_empty(&self) -> bool {
        self.axis.is_none() && self.source.is_none() && self.pair.is_none() && !self.open_only
    }
}

fn stamp(project: &Project) -> Result<Stamp> {
    let conn = project.conn();
    let max = |sql: &str| -> Result<Option<i64>> { Ok(conn.prepare_cached(sql)?.query_row([], |r| r.get(0))?) };
    Ok(Stamp {
        project_id: project.info().id.clone(),
        path: project.info().path.clone(),
        last_assignment: max("SELECT max(rowid) FROM assignments")?,
        last_reassignment: max("SELECT max(id) FROM reassignments")?,
    })
}

fn last_annotation_event(conn: &Connection) -> Result<Option<i64>> {
    Ok(Some(crate::annotate::last_event_id(conn)?).filter(|&id| id > 0))
}

fn last_adjudication_event(conn: &Connection) -> Result<Option<i64>> {
    Ok(conn.prepare_cached("SELECT max(id) FROM adjudication_events")?.query_row([], |r| r.get(0))?)
}

fn decision(v: Option<String>) -> Result<Option<Decision>> {
    v.map(|d| d.parse().map_err(Error::Corrupt)).transpose()
}

/// One finished annotation as the queue compares it: its annotator, its decision and a hash of
/// each stored field of `FIELDS[1..]` (a span is its text and offsets). Two annotations' fields
/// differ when their hashes do (64 bits: a chance of 2^-64 for two different values to hash the
/// same).
#[derive(Debug, Clone, Copy)]
struct Half {
    annotator: i64,
    decision: Decision,
    fields: [u64; 7],
}

/// What is known of a row while the annotations are read.
enum Slot {
    One(Half),
    Two {
        annotators: [i64; 2],
        entry: Entry,
    },
    /// A reassigned row: every finished annotation, sorted out with the row's assignments.
    Reassigned(Vec<Half>),
}

/// Columns of the annotations query per field of `FIELDS[1..]` (the span is three).
const COLUMNS: [&[usize]; 7] = [&[3, 4, 5], &[6], &[7], &[8], &[9], &[10], &[11]];

fn hash_columns(r: &rusqlite::Row, columns: &[usize]) -> rusqlite::Result<u64> {
    use rusqlite::types::ValueRef;
    use std::hash::Hasher;
    let mut h = std::hash::DefaultHasher::new();
    for &c in columns {
        match r.get_ref(c)? {
            ValueRef::Null => h.write_u8(0),
            ValueRef::Integer(i) => {
                h.write_u8(1);
                h.write_i64(i);
            }
            ValueRef::Real(x) => {
                h.write_u8(2);
                h.write_u64(x.to_bits());
            }
            ValueRef::Text(t) => {
                h.write_u8(3);
                h.write_usize(t.len());
                h.write(t);
            }
            ValueRef::Blob(b) => {
                h.write_u8(4);
                h.write_usize(b.len());
                h.write(b);
            }
        }
    }
    Ok(h.finish())
}

/// A finished annotation read by [`ANNOTATION_COLUMNS`].
fn half_of(r: &rusqlite::Row) -> Result<Half> {
    let decision = crate::db::text_or_null(r, 2)?.ok_or_else(|| {
        Error::Corrupt(format!(
            "row `{}` has a finished annotation without a decision",
            crate::db::text(r, 0).unwrap_or("?")
        ))
    })?;
    let mut fields = [0u64; 7];
    for (k, columns) in COLUMNS.iter().enumerate() {
        fields[k] = hash_columns(r, columns)?;
    }
    Ok(Half { annotator: r.get(1)?, decision: decision.parse().map_err(Error::Corrupt)?, fields })
}

/// The columns [`half_of`] reads (`n` is the annotations table).
const ANNOTATION_COLUMNS: &str =
    "n.candidate_id, n.annotator_id, n.decision, n.evidence_span, n.span_start, n.span_end,
    n.calibrated_claim, n.raised_claim, n.axis, n.severity, n.repair, n.boundary_type";

/// A row's entry from its two annotations, A (the annotator added first) and B.
fn pair(x: Half, y: Half) -> ([i64; 2], Entry) {
    let (a, b) = if x.annotator < y.annotator { (x, y) } else { (y, x) };
    let all: Vec<Field> = FIELDS[1..]
        .iter()
        .zip(a.fields.iter().zip(b.fields))
        .filter(|(_, (p, q))| **p != *q)
        .map(|(f, _)| *f)
        .collect();
    let (category, differing) = super::categorize(a.decision, b.decision, all);
    let mut bits = 0u8;
    for f in differing {
        bits |= 1 << FIELDS.iter().position(|x| *x == f).expect("an adjudicated field");
    }
    let entry = Entry {
        category,
        differing: bits,
        axis: None,
        source: 0,
        pair: 0,
        seq: 0,
        decisions: [a.decision, b.decision],
        final_decision: None,
    };
    ([a.annotator, b.annotator], entry)
}

/// Reads and classifies every double-annotated row, each table in one plain scan (in storage
/// order: a scan in key order looks every row up in the table, ten times slower): the finished
/// annotations, paired by row as they come; the candidates for import order, source and axis;
/// the final decisions. Only a reassigned row can have a finished annotation of someone no longer
/// assigned to it; those rows are sorted out with their assignments.
fn classify_all(conn: &Connection, of: Stamp) -> Result<Classified> {
    let last_annotation_event = last_annotation_event(conn)?;
    let last_adjudication_event = last_adjudication_event(conn)?;
    let reassigned: std::collections::HashSet<String> = conn
        .prepare("SELECT DISTINCT candidate_id FROM reassignments")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut rows: std::collections::HashMap<Box<str>, Slot> = std::collections::HashMap::new();
    {
        let mut stmt = conn.prepare(&format!("SELECT {ANNOTATION_COLUMNS} FROM annotations n WHERE n.finished = 1"))?;
        let mut cursor = stmt.query([])?;
        while let Some(r) = cursor.next()? {
            let id = crate::db::text(r, 0)?;
            let half = half_of(r)?;
            match rows.get_mut(id) {
                None if reassigned.contains(id) => {
                    rows.insert(id.into(), Slot::Reassigned(vec![half]));
                }
                None => {
                    rows.insert(id.into(), Slot::One(half));
                }
                Some(Slot::Reassigned(halves)) => halves.push(half),
                Some(slot @ Slot::One(_)) => {
                    let Slot::One(first) = *slot else { unreachable!() };
                    let (annotators, entry) = pair(first, half);
                    *slot = Slot::Two { annotators, entry };
                }
                Some(Slot::Two { .. }) => {
                    return Err(Error::Corrupt(format!(
                        "row `{id}` has more than two finished annotations and was never reassigned"
                    )))
                }
            }
        }
    }
    // Reassigned rows: the finished annotations of the annotators assigned now.
    let mut assigned = conn.prepare("SELECT annotator_id FROM assignments WHERE candidate_id = ?1")?;
    for (id, slot) in rows.iter_mut() {
        if let Slot::Reassigned(halves) = slot {
            let now: Vec<i64> = assigned.query_map([&**id], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
            let kept: Vec<Half> = halves.iter().filter(|h| now.contains(&h.annotator)).copied().collect();
            *slot = match kept[..] {
                [x, y] => {
                    let (annotators, entry) = pair(x, y);
                    Slot::Two { annotators, entry }
                }
                _ => Slot::Reassigned(Vec::new()),
            };
        }
    }
    drop(assigned);

    let names_by_id: BTreeMap<i64, String> = conn
        .prepare("SELECT id, name FROM annotators")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut names: Vec<String> = Vec::new();
    let mut name_at: BTreeMap<i64, u32> = BTreeMap::new();
    let mut pairs: Vec<[u32; 2]> = Vec::new();
    let mut pair_at: BTreeMap<[u32; 2], u32> = BTreeMap::new();
    let mut sources: Vec<String> = Vec::new();
    let mut source_at: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    // (import order, id, entry) of every double-annotated row.
    let mut keyed: Vec<(i64, Box<str>, Entry)> = Vec::new();
    {
        let mut stmt = conn.prepare("SELECT id, seq, source_dataset, axis FROM candidates")?;
        let mut cursor = stmt.query([])?;
        while let Some(r) = cursor.next()? {
            let id = crate::db::text(r, 0)?;
            let Some((id, slot)) = rows.remove_entry(id) else { continue };
            let Slot::Two { annotators, mut entry } = slot else { continue };
            let mut name = |w: i64| -> Result<u32> {
                if let Some(i) = name_at.get(&w) {
                    return Ok(*i);
                }
                let n = names_by_id.get(&w).ok_or_else(|| Error::Corrupt(format!("no annotator with id {w}")))?;
                names.push(n.clone());
                name_at.insert(w, names.len() as u32 - 1);
                Ok(names.len() as u32 - 1)
            };
            let pair_names = [name(annotators[0])?, name(annotators[1])?];
            entry.pair = *pair_at.entry(pair_names).or_insert_with(|| {
                pairs.push(pair_names);
                pairs.len() as u32 - 1
            });
            let source_name = crate::db::text(r, 2)?;
            entry.source = match source_at.get(source_name) {
                Some(i) => *i,
                None => {
                    sources.push(source_name.to_string());
                    source_at.insert(source_name.to_string(), sources.len() as u32 - 1);
                    sources.len() as u32 - 1
                }
            };
            entry.axis =
                crate::db::text_or_null(r, 3)?.map(|a| a.parse::<Axis>().map_err(Error::Corrupt)).transpose()?;
            entry.seq = r.get(1)?;
            keyed.push((entry.seq, id, entry));
        }
    }
    if let Some((id, _)) = rows.iter().find(|(_, slot)| matches!(slot, Slot::Two { .. })) {
        return Err(Error::CandidateNotFound(id.to_string()));
    }
    drop(rows);
    keyed.sort_unstable_by_key(|(seq, _, e)| (e.category, *seq));
    let mut ids = Ids::with_capacity(keyed.len());
    let mut entries = Vec::with_capacity(keyed.len());
    for (_, id, e) in keyed {
        ids.push(&id);
        entries.push(e);
    }
    let pair_keys = pairs
        .iter()
        .map(|[a, b]| {
            let mut v = [names[*a as usize].as_str(), names[*b as usize].as_str()];
            v.sort();
            v.join("+")
        })
        .collect();
    let mut q = Classified {
        of,
        last_annotation_event,
        last_adjudication_event,
        ids,
        entries,
        by_id: Vec::new(),
        sources,
        names,
        pairs,
        pair_keys,
    };
    let mut by_id: Vec<u32> = (0..q.entries.len() as u32).collect();
    by_id.sort_unstable_by(|&x, &y| q.id(x as usize).cmp(q.id(y as usize)));
    q.by_id = by_id;
    read_final_decisions(conn, &mut q)?;
    Ok(q)
}

/// Every row's final decision, from one scan of the adjudications.
fn read_final_decisions(conn: &Connection, q: &mut Classified) -> Result<()> {
    for e in &mut q.entries {
        e.final_decision = None;
    }
    let mut stmt = conn.prepare("SELECT candidate_id, decision FROM adjudications")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        if let Some(i) = q.find(crate::db::text(r, 0)?) {
            q.entries[i].final_decision = Some(crate::db::text(r, 1)?.parse().map_err(Error::Corrupt)?);
        }
    }
    Ok(())
}

/// More annotation events than this since the queue was built: it is built again (an import,
/// a merged packet), rather than each changed row read on its own.
const ANNOTATION_EVENTS_FOLDED_MAX: i64 = 20_000;

/// Folds the annotations changed since the queue was built (or last brought up to date) into it:
/// each row named by a newer annotation event is read and classified again, and the queue's
/// order, ids and id index are merged anew (linear in the queue). `false` when there are too
/// many changes to fold, and the queue should be built again.
fn fold_annotations(conn: &Connection, q: &mut Classified) -> Result<bool> {
    let last = last_annotation_event(conn)?;
    if last == q.last_annotation_event {
        return Ok(true);
    }
    let since = q.last_annotation_event.unwrap_or(0);
    // Fewer events than before: not the file the queue was read from (a copy put back).
    if last < q.last_annotation_event {
        return Ok(false);
    }
    let newer: i64 = conn
        .prepare_cached("SELECT count(*) FROM annotation_events WHERE id > ?1")?
        .query_row([since], |r| r.get(0))?;
    if newer > ANNOTATION_EVENTS_FOLDED_MAX {
        return Ok(false);
    }
    let changed = crate::annotate::rows_with_events(conn, since, last.unwrap_or(0), None)?;
    // Each changed row as it is now: its entry, or none when it is not double-annotated.
    let mut halves = conn.prepare_cached(&format!(
        "SELECT {ANNOTATION_COLUMNS} FROM annotations n
         JOIN assignments s ON s.candidate_id = n.candidate_id AND s.annotator_id = n.annotator_id
         WHERE n.candidate_id = ?1 AND n.finished = 1"
    ))?;
    let mut candidate = conn.prepare_cached("SELECT seq, source_dataset, axis FROM candidates WHERE id = ?1")?;
    let mut adjudication = conn.prepare_cached("SELECT decision FROM adjudications WHERE candidate_id = ?1")?;
    let names_by_id: BTreeMap<i64, String> = conn
        .prepare_cached("SELECT id, name FROM annotators")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut added: Vec<(String, Entry)> = Vec::new();
    for id in &changed {
        let found: Vec<Half> =
            halves.query_map([id], |r| Ok(half_of(r)))?.collect::<rusqlite::Result<Result<_>>>()??;
        let [x, y] = found[..] else { continue };
        let (annotators, mut entry) = pair(x, y);
        let (seq, source, axis): (i64, String, Option<String>) =
            candidate.query_row([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        entry.seq = seq;
        entry.axis = axis.map(|a| a.parse::<Axis>().map_err(Error::Corrupt)).transpose()?;
        entry.source = q.source_index(&source);
        let mut name = |w: i64| -> Result<u32> {
            let n = names_by_id.get(&w).ok_or_else(|| Error::Corrupt(format!("no annotator with id {w}")))?;
            Ok(q.name_index(n))
        };
        let pair_names = [name(annotators[0])?, name(annotators[1])?];
        entry.pair = q.pair_index(pair_names);
        let decision: Option<String> =
            rusqlite::OptionalExtension::optional(adjudication.query_row([id], |r| r.get(0)))?;
        entry.final_decision = decision.map(|d| d.parse().map_err(Error::Corrupt)).transpose()?;
        added.push((id.clone(), entry));
    }
    q.replace(&changed, added);
    q.last_annotation_event = last;
    Ok(true)
}

impl Classified {
    fn source_index(&mut self, source: &str) -> u32 {
        match self.sources.iter().position(|s| s == source) {
            Some(i) => i as u32,
            None => {
                self.sources.push(source.to_string());
                self.sources.len() as u32 - 1
            }
        }
    }

    fn name_index(&mut self, name: &str) -> u32 {
        match self.names.iter().position(|s| s == name) {
            Some(i) => i as u32,
            None => {
                self.names.push(name.to_string());
                self.names.len() as u32 - 1
            }
        }
    }

    fn pair_index(&mut self, pair: [u32; 2]) -> u32 {
        match self.pairs.iter().position(|p| *p == pair) {
            Some(i) => i as u32,
            None => {
                self.pairs.push(pair);
                let mut v = [self.names[pair[0] as usize].as_str(), self.names[pair[1] as usize].as_str()];
                v.sort();
                self.pair_keys.push(v.join("+"));
                self.pairs.len() as u32 - 1
            }
        }
    }

    /// Takes the rows `gone` (sorted ids) out of the queue and puts `added` in, each where its
    /// category and import order place it: one merge of the kept order with the added rows.
    fn replace(&mut self, gone: &[String], mut added: Vec<(String, Entry)>) {
        let mut removed = vec![false; self.entries.len()];
        for id in gone {
            if let Some(i) = self.find(id) {
                removed[i] = true;
            }
        }
        added.sort_by_key(|(_, e)| (e.category, e.seq));
        let n = self.entries.len() - removed.iter().filter(|r| **r).count() + added.len();
        let (mut ids, mut entries) = (Ids::with_capacity(n), Vec::with_capacity(n));
        // Where each kept old entry went, and where each added one went.
        let mut moved = vec![u32::MAX; self.entries.len()];
        let mut placed = vec![0u32; added.len()];
        let (mut i, mut k) = (0usize, 0usize);
        loop {
            while i < self.entries.len() && removed[i] {
                i += 1;
            }
            let take_old = match (i < self.entries.len(), k < added.len()) {
                (false, false) => break,
                (true, false) => true,
                (false, true) => false,
                (true, true) => {
                    let (o, a) = (&self.entries[i], &added[k].1);
                    (o.category, o.seq) <= (a.category, a.seq)
                }
            };
            if take_old {
                ids.push(self.id(i));
                moved[i] = entries.len() as u32;
                entries.push(self.entries[i]);
                i += 1;
            } else {
                ids.push(&added[k].0);
                placed[k] = entries.len() as u32;
                entries.push(added[k].1);
                k += 1;
            }
        }
        // The id index: the kept ids in their order, merged with the added ones sorted by id.
        let mut by_added: Vec<usize> = (0..added.len()).collect();
        by_added.sort_by(|x, y| added[*x].0.cmp(&added[*y].0));
        let kept: Vec<(u32, usize)> =
            self.by_id.iter().filter(|&&i| !removed[i as usize]).map(|&i| (moved[i as usize], i as usize)).collect();
        let mut by_id = Vec::with_capacity(n);
        let (mut a, mut b) = (0usize, 0usize);
        while a < kept.len() || b < by_added.len() {
            let take_kept =
                b >= by_added.len() || (a < kept.len() && self.id(kept[a].1) < added[by_added[b]].0.as_str());
            if take_kept {
                by_id.push(kept[a].0);
                a += 1;
            } else {
                by_id.push(placed[by_added[b]]);
                b += 1;
            }
        }
        (self.ids, self.entries, self.by_id) = (ids, entries, by_id);
    }
}

/// Folds the adjudications written since the queue was built (or last brought up to date) into
/// its final decisions: the rows named by the newer adjudication events, or every adjudication
/// when there are many of them.
fn catch_up(conn: &Connection, q: &mut Classified) -> Result<()> {
    let last = last_adjudication_event(conn)?;
    if last == q.last_adjudication_event {
        return Ok(());
    }
    let since = q.last_adjudication_event.unwrap_or(0);
    let newer: i64 = conn
        .prepare_cached("SELECT count(*) FROM adjudication_events WHERE id > ?1")?
        .query_row([since], |r| r.get(0))?;
    if newer as usize > 1_000 + q.entries.len() / 16 || last < q.last_adjudication_event {
        read_final_decisions(conn, q)?;
    } else {
        // By the key's range, deduplicated here (DISTINCT would walk the whole row index instead).
        let mut ids: Vec<String> = conn
            .prepare_cached("SELECT candidate_id FROM adjudication_events WHERE id > ?1")?
            .query_map([since], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        ids.sort();
        ids.dedup();
        let mut one = conn.prepare_cached("SELECT decision FROM adjudications WHERE candidate_id = ?1")?;
        for id in ids {
            if let Some(i) = q.find(&id) {
                let d: Option<String> =
                    rusqlite::OptionalExtension::optional(one.query_row([&id], |r| r.get(0)))?.flatten();
                q.entries[i].final_decision = decision(d)?;
            }
        }
    }
    q.last_adjudication_event = last;
    Ok(())
}

/// Runs `f` on the project's classified queue, built or brought up to date as needed. Inside a
/// transaction (whose writes may yet be rolled back) the queue is built for the call alone.
fn with_classified<T>(project: &Project, f: impl FnOnce(&Classified) -> Result<T>) -> Result<T> {
    let conn = project.conn();
    let of = stamp(project)?;
    if !conn.is_autocommit() {
        return f(&classify_all(conn, of)?);
    }
    let mut kept = KEPT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let at = match kept.iter().position(|q| q.of == of) {
        Some(at) => match fold_annotations(conn, &mut kept[at]).and_then(|folded| {
            if folded {
                catch_up(conn, &mut kept[at])?;
            }
            Ok(folded)
        }) {
            Ok(true) => at,
            Ok(false) => {
                kept[at] = classify_all(conn, of)?;
                at
            }
            Err(e) => {
                kept.remove(at);
                return Err(e);
            }
        },
        None => {
            kept.retain(|q| q.of.project_id != of.project_id || q.of.path != of.path);
            let q = classify_all(conn, of)?;
            if kept.len() >= KEPT_MAX {
                kept.remove(0);
            }
            kept.push(q);
            kept.len() - 1
        }
    };
    f(&kept[at])
}

/// One page of the adjudication queue (see [`AdjudicationQuery`]): the counts per category over the
/// whole project, how many rows match the filter, the filter menus' values, and the page's
/// items in queue order (decision disagreements, needs discussion, field disagreements, full
/// agreements; import order within each).
pub fn page(project: &Project, query: &AdjudicationQuery) -> Result<AdjudicationPage> {
    with_classified(project, |q| Ok(page_of(q, query)))
}

/// Refuses a filter value that can never match: an axis outside the vocabulary, a source no row
/// has, or a pair that is not two names on the roster. Either one silently gave an empty queue, which reads as "nothing
/// to adjudicate" when the filter was mistyped. The words list what the filter takes.
fn check_filter(project: &Project, f: &QueueFilter) -> Result<()> {
    if let Some(axis) = f.axis.as_deref() {
        if axis != "none" && !Axis::ALL.iter().any(|a| a.as_str() == axis) {
            let known: Vec<&str> = Axis::ALL.iter().map(|a| a.as_str()).chain(["none"]).collect();
            return Err(Error::InvalidArgument(format!(
                "--axis `{}` is not an axis; the axes are {}",
                crate::input::escaped(axis),
                known.join(", ")
            )));
        }
    }
    if let Some(source) = f.source.as_deref() {
        let known: Vec<String> = project
            .conn()
            .prepare_cached("SELECT DISTINCT source_dataset FROM candidates ORDER BY source_dataset")?
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        if !known.iter().any(|k| k == source) {
            return Err(Error::InvalidArgument(format!(
                "--source `{}` is the source of no row; the project's sources are {}",
                crate::input::escaped(source),
                known.join(", ")
            )));
        }
    }
    if let Some(pair) = f.pair.as_deref() {
        let names: Vec<&str> = pair.split('+').map(str::trim).collect();
        let unknown: Vec<String> = names
            .iter()
            .filter(|n| !n.is_empty())
            .map(|n| Ok((n, crate::roster::find(project, n)?.is_none())))
            .collect::<Result<Vec<_>>>()?
            .into_iter()
            .filter(|(_, missing)| *missing)
            .map(|(n, _)| format!("`{}`", crate::input::escaped(n)))
            .collect();
        if names.len() != 2 || names.iter().any(|n| n.is_empty()) || !unknown.is_empty() {
            let why = if unknown.is_empty() {
                "is not two names joined by `+`".to_string()
            } else {
                format!("names {} not on the roster", unknown.join(" and "))
            };
            let pairs = with_classified(project, |q| Ok(q.facets().pairs))?;
            let known = if pairs.is_empty() {
                "the queue has no pairs yet".to_string()
            } else {
                format!("the queue's pairs are {}", pairs.join(", "))
            };
            return Err(Error::InvalidArgument(format!("--pair `{}` {why}; {known}", crate::input::escaped(pair))));
        }
    }
    Ok(())
}

fn page_of(q: &Classified, query: &AdjudicationQuery) -> AdjudicationPage {
    let limit = query.limit.min(PAGE_LIMIT_MAX);
    let m = Matcher::new(q, &query.filter);
    let mut counts: BTreeMap<Category, CategoryCount> =
        Category::ALL.iter().map(|c| (*c, CategoryCount::default())).collect();
    for e in &q.entries {
        let c = counts.get_mut(&e.category).expect("every category counted");
        c.total += 1;
        c.open += u64::from(e.final_decision.is_none());
    }
    // The row the page should hold: the next open one after `open_after`, or `around`.
    let mut next_open = None;
    let target: Option<usize> = if let Some(after) = &query.open_after {
        let from = q.find(after);
        let n = q.entries.len();
        let start = from.map_or(0, |i| i + 1);
        next_open = (0..n)
            .map(|k| (start + k) % n)
            .find(|&i| Some(i) != from && q.entries[i].final_decision.is_none() && m.matches(&q.entries[i]));
        next_open
    } else {
        query.around.as_deref().and_then(|id| q.find(id)).filter(|&i| m.matches(&q.entries[i]))
    };
    let (matching, position) = if m.is_empty() {
        (q.entries.len() as u64, target.map(|i| i as u64))
    } else {
        let mut matching = 0u64;
        let mut position = None;
        for (i, e) in q.entries.iter().enumerate() {
            if m.matches(e) {
                if Some(i) == target {
                    position = Some(matching);
                }
                matching += 1;
            }
        }
        (matching, position)
    };
    let offset = match (position, limit) {
        (Some(p), l) if l > 0 => p / l * l,
        _ => query.offset,
    };
    let items: Vec<QueueItem> = if m.is_empty() {
        let from = (offset.min(q.entries.len() as u64)) as usize;
        let to = (from + limit as usize).min(q.entries.len());
        (from..to).map(|i| q.item(i)).collect()
    } else {
        q.entries
            .iter()
            .enumerate()
            .filter(|(_, e)| m.matches(e))
            .skip(offset.min(usize::MAX as u64) as usize)
            .take(limit as usize)
            .map(|(i, _)| q.item(i))
            .collect()
    };
    AdjudicationPage {
        counts,
        total: q.entries.len() as u64,
        matching,
        offset,
        items,
        facets: q.facets(),
        position,
        next_open: next_open.map(|i| q.id(i).to_string()),
    }
}

/// The open full agreements in queue order, each with the decision both annotators gave: what a
/// bulk confirmation writes. Their ids are copied into one buffer ([`Ids`]) rather than built as
/// queue items whose other strings would be freed around them.
pub(super) fn open_agreements(project: &Project) -> Result<OpenAgreements> {
    with_classified(project, |q| {
        let mut open = OpenAgreements::default();
        for (i, e) in q.entries.iter().enumerate() {
            if e.category == Category::FullAgreement && e.final_decision.is_none() {
                open.ids.push(q.id(i));
                open.decisions.push(e.decisions[0]);
            }
        }
        Ok(open)
    })
}

/// See [`open_agreements`].
#[derive(Debug, Default)]
pub(super) struct OpenAgreements {
    ids: Ids,
    decisions: Vec<Decision>,
}

impl OpenAgreements {
    pub(super) fn len(&self) -> usize {
        self.ids.len()
    }

    /// Each row's id and shared decision, in queue order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (&str, Decision)> + '_ {
        self.decisions.iter().enumerate().map(|(i, &d)| (self.ids.get(i), d))
    }
}

/// Every item of the queue matching `filter`, with the counts (see [`super::queue`]).
pub(super) fn whole(
    project: &Project,
    filter: &QueueFilter,
) -> Result<(BTreeMap<Category, CategoryCount>, Vec<QueueItem>)> {
    check_filter(project, filter)?;
    with_classified(project, |q| {
        let query = AdjudicationQuery { filter: filter.clone(), offset: 0, limit: 0, around: None, open_after: None };
        let counts = page_of(q, &query).counts;
        let m = Matcher::new(q, filter);
        let items = q.entries.iter().enumerate().filter(|(_, e)| m.matches(e)).map(|(i, _)| q.item(i)).collect();
        Ok((counts, items))
    })
}
