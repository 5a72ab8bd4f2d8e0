//! Candidate rows: the unit of the benchmark (one cited passage, a calibrated claim and a raised
//! claim), their canonical content hash, and read access to the pool.
//!
//! Imported suggestion fields (span, repair, rationale, axis, severity) are pre-annotation drafts;
//! final values come only from adjudication.

use rusqlite::{OptionalExtension, Row};
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
}

impl Candidate {
    /// sha256 (hex) of the canonical fields: the UTF-8 bytes of the compact JSON array of the
    /// thirteen fields in [`FIELDS`] order, absent values as `null`, severity as a number. The
    /// same bytes come from Python's `json.dumps(values, ensure_ascii=False, separators=(",", ":"))`.
    pub fn content_hash(&self) -> String {
        let mut hasher = HashWriter(Sha256::new());
        serde_json::to_writer(&mut hasher, &Canonical(self)).expect("hashing cannot fail");
        hex::encode(hasher.0.finalize())
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

const CANDIDATE_COLUMNS: &str = "c.id, c.group_id, c.source_dataset, c.source_id, c.context, \
     c.passage, c.evidence_span, c.calibrated_claim, c.raised_claim, c.repair, c.rationale, \
     c.axis, c.severity";

fn parse_enum<T: std::str::FromStr<Err = String>>(idx: usize, s: String) -> rusqlite::Result<T> {
    s.parse().map_err(|e: String| rusqlite::Error::FromSqlConversionFailure(idx, rusqlite::types::Type::Text, e.into()))
}

/// Reads a [`Candidate`] from a row selected with `CANDIDATE_COLUMNS` first.
fn candidate_from_row(r: &Row) -> rusqlite::Result<Candidate> {
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

/// One candidate in full; `Error::CandidateNotFound` if the id is unknown.
pub fn get(project: &Project, id: &str) -> Result<CandidateDetail> {
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
                content_sha256: r.get(13)?,
                seq: r.get(14)?,
                imported_from: r.get(15)?,
                imported_at: r.get(16)?,
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
    let sql = format!("SELECT {CANDIDATE_COLUMNS} FROM candidates c WHERE c.id = ?1");
    Ok(conn.prepare_cached(&sql)?.query_row([id], candidate_from_row).optional()?)
}

/// Feeds serialised bytes into a hasher.
struct HashWriter(Sha256);

impl std::io::Write for HashWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
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
        seq.end()
    }
}
