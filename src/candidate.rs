//! Candidate rows: the unit of the benchmark (one cited passage, a calibrated claim and a raised
//! claim), their canonical content hash, and read access to the pool.
//!
//! Imported suggestion fields (span, repair, rationale, axis, severity) are pre-annotation drafts;
//! final values come only from adjudication.

use rusqlite::{OptionalExtension, Row};

use crate::db::text;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use ts_rs::TS;

use crate::error::{Error, Result};
use crate::project::Project;
use crate::vocab::{Axis, WorkflowState};

/// The candidate fields, in canonical order (the order of the CSV header and of the hash input).
pub const FIELDS: &[&str] = &[
    "id",
    "group_id",
    "source_dataset",
    "source_id",
    "context",
    "passage",
    "evidence_span",
    "calibrated_claim",
    "raised_claim",
    "repair",
    "rationale",
    "axis",
    "severity",
];

/// Every field an import reads: [`FIELDS`], then the optional fields added since, which are
/// left out of the content hash when absent (so rows hashed before keep their hash).
pub const IMPORT_FIELDS: &[&str] = &[
    "id",
    "group_id",
    "source_dataset",
    "source_id",
    "context",
    "passage",
    "evidence_span",
    "calibrated_claim",
    "raised_claim",
    "repair",
    "rationale",
    "axis",
    "severity",
    // How the candidate was made (NEI-CAP's construction family).
    "construction_family",
];

/// Fields an import must fill (non-blank); the others may be empty.
pub const REQUIRED: &[&str] =
    &["id", "group_id", "source_dataset", "context", "passage", "calibrated_claim", "raised_claim"];

/// One candidate row as imported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Candidate {
    pub id: String,
    pub group_id: String,
    pub source_dataset: String,
    /// Empty when the source gave none.
    pub source_id: String,
    pub context: String,
    pub passage: String,
    pub evidence_span: Option<String>,
    pub calibrated_claim: String,
    pub raised_claim: String,
    pub repair: Option<String>,
    pub rationale: Option<String>,
    pub axis: Option<Axis>,
    pub severity: Option<u8>,
    /// How the candidate was made (which generator, template or editor), when the file says
    ///; used to count and audit a split, never shown to an evaluator as input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub construction_family: Option<String>,
}

impl Candidate {
    /// sha256 (hex) of the canonical fields: the UTF-8 bytes of the compact JSON array of the
    /// thirteen fields in [`FIELDS`] order, absent values as `null`, severity as a number. The
    /// same bytes come from Python's `json.dumps(values, ensure_ascii=False, separators=(",", ":"))`.
    pub fn content_hash(&self) -> String {
        // Serialised whole, then hashed in one call: fed to the hasher piece by piece (a quote, a
        // run of text, a comma), the serialisation cost twice the hash itself.
        let mut bytes = Vec::with_capacity(self.canonical_len_hint());
        serde_json::to_writer(&mut bytes, &Canonical(self)).expect("serialising to memory cannot fail");
        hex::encode(Sha256::digest(&bytes))
    }

    /// About the length of the canonical form (the text fields' lengths, and room for the rest),
    /// so that serialising it seldom grows its buffer.
    fn canonical_len_hint(&self) -> usize {
        let texts = [
            &self.id,
            &self.group_id,
            &self.source_dataset,
            &self.source_id,
            &self.context,
            &self.passage,
            &self.calibrated_claim,
            &self.raised_claim,
        ];
        let optional = [&self.evidence_span, &self.repair, &self.rationale, &self.construction_family];
        texts.iter().map(|s| s.len()).sum::<usize>()
            + optional.iter().map(|s| s.as_deref().map_or(0, str::len)).sum::<usize>()
            + 128
    }

    /// Names of the fields whose values differ between two versions of a row.
    pub fn differing_fields(&self, other: &Candidate) -> Vec<&'static str> {
        let mut out = Vec::new();
        let mut check = |name: &'static str, same: bool| {
            if !same {
                out.push(name)
            }
        };
        check("group_id", self.group_id == other.group_id);
        check("source_dataset", self.source_dataset == other.source_dataset);
        check("source_id", self.source_id == other.source_id);
        check("context", self.context == other.context);
        check("passage", self.passage == other.passage);
        check("evidence_span", self.evidence_span == other.evidence_span);
        check("calibrated_claim", self.calibrated_claim == other.calibrated_claim);
        check("raised_claim", self.raised_claim == other.raised_claim);
        check("repair", self.repair == other.repair);
        check("rationale", self.rationale == other.rationale);
        check("axis", self.axis == other.axis);
        check("severity", self.severity == other.severity);
        check("construction_family", self.construction_family == other.construction_family);
        out
    }
}

/// A row of the candidate list: what the list view and `candidates list` show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct CandidateSummary {
    pub id: String,
    pub group_id: String,
    pub source_dataset: String,
    pub state: WorkflowState,
    pub axis: Option<Axis>,
    pub severity: Option<u8>,
    pub context: String,
    pub calibrated_claim: String,
    pub raised_claim: String,
}

/// One row in full, as `candidates show` and the detail pane show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct CandidateDetail {
    #[serde(flatten)]
    #[ts(flatten)]
    pub candidate: Candidate,
    pub state: WorkflowState,
    pub content_sha256: String,
    /// Import order, from 1.
    #[ts(type = "number")]
    pub seq: i64,
    pub imported_from: String,
    pub imported_at: String,
}

pub(crate) const CANDIDATE_COLUMNS: &str = "c.id, c.group_id, c.source_dataset, c.source_id, c.context, \
     c.passage, c.evidence_span, c.calibrated_claim, c.raised_claim, c.repair, c.rationale, \
     c.axis, c.severity, c.construction_family";
/// How many columns [`CANDIDATE_COLUMNS`] names: a query's own columns follow them.
pub(crate) const CANDIDATE_COLUMN_COUNT: usize = 14;

fn parse_enum<T: std::str::FromStr<Err = String>>(idx: usize, s: String) -> rusqlite::Result<T> {
    s.parse().map_err(|e: String| rusqlite::Error::FromSqlConversionFailure(idx, rusqlite::types::Type::Text, e.into()))
}

/// Reads a [`Candidate`] from a row selected with `CANDIDATE_COLUMNS` first.
pub(crate) fn candidate_from_row(r: &Row) -> rusqlite::Result<Candidate> {
    Ok(Candidate {
        id: r.get(0)?,
        group_id: r.get(1)?,
        source_dataset: r.get(2)?,
        source_id: r.get(3)?,
        context: r.get(4)?,
        passage: r.get(5)?,
        evidence_span: r.get(6)?,
        calibrated_claim: r.get(7)?,
        raised_claim: r.get(8)?,
        repair: r.get(9)?,
        rationale: r.get(10)?,
        axis: r.get::<_, Option<String>>(11)?.map(|s| parse_enum(11, s)).transpose()?,
        severity: r.get(12)?,
        construction_family: r.get(13)?,
    })
}

/// Every candidate in import order with its workflow state.
pub fn list(project: &Project) -> Result<Vec<CandidateSummary>> {
    let states = crate::rowstate::States::load(project.conn())?;
    let mut stmt = project.conn().prepare(
        "SELECT c.id, c.group_id, c.source_dataset, c.axis, c.severity, c.context, \
                c.calibrated_claim, c.raised_claim
         FROM candidates c
         ORDER BY c.seq",
    )?;
    let rows = stmt.query_map([], |r| {
        let id: String = r.get(0)?;
        Ok(CandidateSummary {
            state: states.get(&id).unwrap_or(WorkflowState::Imported),
            id,
            group_id: r.get(1)?,
            source_dataset: r.get(2)?,
            axis: r.get::<_, Option<String>>(3)?.map(|s| parse_enum(3, s)).transpose()?,
            severity: r.get(4)?,
            context: r.get(5)?,
            calibrated_claim: r.get(6)?,
            raised_claim: r.get(7)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// What the candidate list asks for: a filter and a window of its matches, in import order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CandidateQuery {
    /// Every whitespace-separated word must occur, case-insensitively, in the id, group, source,
    /// axis, context or either claim. Empty: no text filter.
    #[serde(default)]
    pub text: String,
    /// Only rows in this workflow state; `None`: every state.
    #[serde(default)]
    pub state: Option<WorkflowState>,
    /// Matches to skip, in import order.
    #[serde(default)]
    #[ts(type = "number")]
    pub offset: u64,
    /// At most this many rows (capped at [`PAGE_LIMIT_MAX`]).
    #[serde(default)]
    #[ts(type = "number")]
    pub limit: u64,
}

/// The largest page one request returns.
pub const PAGE_LIMIT_MAX: u64 = 5_000;

/// One window of the candidate list with the counts the view shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct CandidatePage {
    /// Every candidate in the project.
    #[ts(type = "number")]
    pub total: u64,
    /// Candidates matching the query's filters.
    #[ts(type = "number")]
    pub matching: u64,
    /// The query's offset (the position of `rows[0]` among the matches, from 0).
    #[ts(type = "number")]
    pub offset: u64,
    /// The matches from `offset`, at most `limit` of them, in import order.
    pub rows: Vec<CandidateSummary>,
}

/// The words of a text filter, lower-cased (empty when there is no text filter).
fn filter_words(text: &str) -> Vec<String> {
    text.to_lowercase().split_whitespace().map(str::to_string).collect()
}

/// Whether every word occurs in one of the row's searchable fields (joined by newlines, as the
/// list always searched them, so a word cannot span two fields).
fn text_matches(words: &[String], fields: [&str; 7], haystack: &mut String) -> bool {
    if words.is_empty() {
        return true;
    }
    haystack.clear();
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            haystack.push('\n');
        }
        haystack.push_str(f);
    }
    let lower = haystack.to_lowercase();
    words.iter().all(|w| lower.contains(w.as_str()))
}

fn has_bit(bits: &[u64], rowid: i64) -> bool {
    let at = rowid.max(0) as usize;
    bits.get(at / 64).is_some_and(|w| w & (1 << (at % 64)) != 0)
}

/// One page of the candidate list: the matches of `query` from its offset, in import order,
/// with how many candidates there are and how many match. Memory does not grow with the project
/// beyond a bit per candidate: without a filter the page is read by its position in import
/// order; a state filter reads each table once in id order, a text filter every row once in
/// import order, and only the page's rows are kept.
pub fn page(project: &Project, query: &CandidateQuery) -> Result<CandidatePage> {
    let conn = project.conn();
    let limit = query.limit.min(PAGE_LIMIT_MAX);
    let offset = query.offset.min(i64::MAX as u64);
    let words = filter_words(&query.text);
    let total: u64 = conn.query_row("SELECT count(*) FROM candidates", [], |r| r.get::<_, i64>(0))? as u64;
    let summary = |r: &Row, state: WorkflowState| -> rusqlite::Result<CandidateSummary> {
        Ok(CandidateSummary {
            id: r.get(0)?,
            group_id: r.get(1)?,
            source_dataset: r.get(2)?,
            state,
            axis: r.get::<_, Option<String>>(3)?.map(|s| parse_enum(3, s)).transpose()?,
            severity: r.get(4)?,
            context: r.get(5)?,
            calibrated_claim: r.get(6)?,
            raised_claim: r.get(7)?,
        })
    };
    const SUMMARY: &str = "SELECT c.id, c.group_id, c.source_dataset, c.axis, c.severity, c.context, \
                c.calibrated_claim, c.raised_claim, c.rowid FROM candidates c";
    let state_of = |id: &str| -> Result<WorkflowState> {
        Ok(crate::rowstate::state(conn, id)?.unwrap_or(WorkflowState::Imported))
    };
    if words.is_empty() && query.state.is_none() {
        let mut stmt = conn.prepare(&format!("{SUMMARY} ORDER BY c.seq LIMIT ?1 OFFSET ?2"))?;
        let mut cursor = stmt.query([limit as i64, offset as i64])?;
        let mut rows = Vec::new();
        while let Some(r) = cursor.next()? {
            rows.push(summary(r, state_of(text(r, 0)?)?)?);
        }
        return Ok(CandidatePage { total, matching: total, offset: query.offset, rows });
    }
    let in_state = query.state.map(|want| crate::rowstate::rows_in_state(conn, want)).transpose()?;
    let mut matching = 0u64;
    let mut rows = Vec::new();
    if words.is_empty() {
        // A state alone: the rows in import order from the seq index, the page's read in full.
        let mut order = conn.prepare("SELECT rowid FROM candidates ORDER BY seq")?;
        let mut one = conn.prepare(&format!("{SUMMARY} WHERE c.rowid = ?1"))?;
        let mut cursor = order.query([])?;
        let bits = in_state.as_deref().unwrap_or_default();
        while let Some(r) = cursor.next()? {
            let rowid: i64 = r.get(0)?;
            if !has_bit(bits, rowid) {
                continue;
            }
            if matching >= query.offset && (rows.len() as u64) < limit {
                let want = query.state.expect("a state filter");
                rows.push(one.query_row([rowid], |r| summary(r, want))?);
            }
            matching += 1;
        }
        return Ok(CandidatePage { total, matching, offset: query.offset, rows });
    }
    // Text (and perhaps a state): every row looked at once, in import order.
    let mut stmt = conn.prepare(&format!("{SUMMARY} ORDER BY c.seq"))?;
    let mut cursor = stmt.query([])?;
    let mut haystack = String::new();
    while let Some(r) = cursor.next()? {
        if let Some(bits) = &in_state {
            if !has_bit(bits, r.get(8)?) {
                continue;
            }
        }
        let axis = crate::db::text_or_null(r, 3)?.unwrap_or("");
        if !text_matches(
            &words,
            [text(r, 0)?, text(r, 1)?, text(r, 2)?, axis, text(r, 5)?, text(r, 6)?, text(r, 7)?],
            &mut haystack,
        ) {
            continue;
        }
        if matching >= query.offset && (rows.len() as u64) < limit {
            let state = match query.state {
                Some(want) => want,
                None => state_of(text(r, 0)?)?,
            };
            rows.push(summary(r, state)?);
        }
        matching += 1;
    }
    Ok(CandidatePage { total, matching, offset: query.offset, rows })
}

/// One candidate in full; `Error::CandidateNotFound` if the id is unknown.
pub fn get(project: &Project, id: &str) -> Result<CandidateDetail> {
    let id: &str = &crate::input::id_key(id)?;
    let sql = format!(
        "SELECT {CANDIDATE_COLUMNS}, c.content_sha256, c.seq, i.file_name, i.imported_at
         FROM candidates c
         JOIN imports i ON i.id = c.import_id
         WHERE c.id = ?1"
    );
    let state = crate::rowstate::state(project.conn(), id)?.unwrap_or(WorkflowState::Imported);
    project
        .conn()
        .query_row(&sql, [id], |r| {
            Ok(CandidateDetail {
                candidate: candidate_from_row(r)?,
                state,
                content_sha256: r.get(CANDIDATE_COLUMN_COUNT)?,
                seq: r.get(CANDIDATE_COLUMN_COUNT + 1)?,
                imported_from: r.get(CANDIDATE_COLUMN_COUNT + 2)?,
                imported_at: r.get(CANDIDATE_COLUMN_COUNT + 3)?,
            })
        })
        .optional()?
        .ok_or_else(|| Error::CandidateNotFound(id.to_string()))
}

/// The stored version of a row, if its id exists (used to explain import conflicts).
pub(crate) fn find(project: &Project, id: &str) -> Result<Option<Candidate>> {
    find_in(project.conn(), id)
}

/// [`find`] on any connection or open transaction.
pub(crate) fn find_in(conn: &rusqlite::Connection, id: &str) -> Result<Option<Candidate>> {
    // Made once: a bulk step looks up a row at a time.
    static SQL: std::sync::LazyLock<String> =
        std::sync::LazyLock::new(|| format!("SELECT {CANDIDATE_COLUMNS} FROM candidates c WHERE c.id = ?1"));
    Ok(conn.prepare_cached(&SQL)?.query_row([id], candidate_from_row).optional()?)
}

/// [`find_in`] with the row's stored content hash, read in the same look-up.
pub(crate) fn find_with_hash_in(conn: &rusqlite::Connection, id: &str) -> Result<Option<(Candidate, String)>> {
    let sql = format!("SELECT {CANDIDATE_COLUMNS}, c.content_sha256 FROM candidates c WHERE c.id = ?1");
    let row = |r: &Row| Ok((candidate_from_row(r)?, r.get(CANDIDATE_COLUMN_COUNT)?));
    Ok(conn.prepare_cached(&sql)?.query_row([id], row).optional()?)
}

/// The canonical fields as one JSON array, in [`FIELDS`] order.
struct Canonical<'a>(&'a Candidate);

impl serde::Serialize for Canonical<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let c = self.0;
        let mut seq = s.serialize_seq(Some(FIELDS.len()))?;
        for text in [&c.id, &c.group_id, &c.source_dataset, &c.source_id, &c.context, &c.passage] {
            seq.serialize_element(text)?;
        }
        seq.serialize_element(&c.evidence_span)?;
        seq.serialize_element(&c.calibrated_claim)?;
        seq.serialize_element(&c.raised_claim)?;
        seq.serialize_element(&c.repair)?;
        seq.serialize_element(&c.rationale)?;
        seq.serialize_element(&c.axis.map(Axis::as_str))?;
        seq.serialize_element(&c.severity)?;
        // Added later than the other fields: only when present, so a row without it keeps its earlier hash.
        if let Some(family) = &c.construction_family {
            seq.serialize_element(family)?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_column_count_is_the_columns_named() {
        assert_eq!(super::CANDIDATE_COLUMNS.split(',').count(), super::CANDIDATE_COLUMN_COUNT);
    }
}
