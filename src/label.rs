//! The final label of a row: what adjudication writes and quality control, the split, the
//! export and evaluation read. The types and their storage live here; how a label is decided
//! (sources, rationale, the checklist) is in [`crate::adjudicate`], and its checks in
//! [`crate::qc`].

use rusqlite::OptionalExtension;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::annotate::Field;
use crate::error::{Error, Result};
use crate::project::Project;
use crate::vocab::Decision;

/// The fields an adjudication decides, in display order.
pub const FIELDS: [Field; 8] = [
    Field::Decision,
    Field::EvidenceSpan,
    Field::CalibratedClaim,
    Field::RaisedClaim,
    Field::Axis,
    Field::Severity,
    Field::Repair,
    Field::BoundaryType,
];

/// The fields a final decision needs besides the decision itself.
pub fn needed(decision: Decision) -> &'static [Field] {
    match decision {
        Decision::AcceptForceGap => &[
            Field::EvidenceSpan,
            Field::CalibratedClaim,
            Field::RaisedClaim,
            Field::Axis,
            Field::Severity,
            Field::Repair,
        ],
        Decision::RejectNotForceGap => &[Field::BoundaryType],
        Decision::NeedsDiscussion => &[],
    }
}

/// Where a final value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// Both annotators gave this value.
    Both,
    A,
    B,
    /// The suggestion imported with the candidate, which neither annotator kept.
    Suggestion,
    /// Written by the adjudicator.
    Edited,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Both => "both",
            Source::A => "a",
            Source::B => "b",
            Source::Suggestion => "suggestion",
            Source::Edited => "edited",
        }
    }
    pub(crate) fn parse(s: &str) -> Result<Source> {
        Ok(match s {
            "both" => Source::Both,
            "a" => Source::A,
            "b" => Source::B,
            "suggestion" => Source::Suggestion,
            "edited" => Source::Edited,
            other => return Err(Error::Corrupt(format!("unknown adjudication source `{other}`"))),
        })
    }
    /// Whether a value from this source overrides both annotators.
    pub fn overrides_both(self) -> bool {
        matches!(self, Source::Suggestion | Source::Edited)
    }
}

/// The adjudicator's checklist; `None` is "not answered" (bulk confirmations leave it so).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct Checklist {
    /// The evidence span alone decides the support boundary.
    #[serde(default)]
    pub span_decisive: Option<bool>,
    /// The passage licenses the calibrated claim.
    #[serde(default)]
    pub calibrated_supported: Option<bool>,
    /// The passage does not license the raised claim.
    #[serde(default)]
    pub raised_underwarranted: Option<bool>,
    /// The raised claim moves along one dominant, local axis (guideline version 2: a minor side effect of the same shift is fine).
    #[serde(default)]
    pub one_local_axis: Option<bool>,
    /// The raised claim adds nothing unrelated.
    #[serde(default)]
    pub no_unrelated_addition: Option<bool>,
}

impl Checklist {
    /// (name, question, answer) in display order.
    pub fn items(&self) -> [(&'static str, &'static str, Option<bool>); 5] {
        [
            ("span_decisive", "the evidence span decides the support boundary", self.span_decisive),
            ("calibrated_supported", "the passage licenses the calibrated claim", self.calibrated_supported),
            ("raised_underwarranted", "the passage does not license the raised claim", self.raised_underwarranted),
            ("one_local_axis", "the raised claim moves along one dominant, local axis", self.one_local_axis),
            ("no_unrelated_addition", "the raised claim adds nothing unrelated", self.no_unrelated_addition),
        ]
    }

    /// Every promotion check answered yes: the row may be promoted into a split.
    pub fn affirmed(&self) -> bool {
        self.items().iter().all(|(_, _, answer)| *answer == Some(true))
    }

    /// The checks not answered yes, by name (empty when [`Checklist::affirmed`]).
    pub fn not_affirmed(&self) -> Vec<&'static str> {
        self.items().iter().filter(|(_, _, answer)| *answer != Some(true)).map(|(name, _, _)| *name).collect()
    }

    /// Every check answered yes (what a bulk affirmation records).
    pub fn all_yes() -> Checklist {
        Checklist {
            span_decisive: Some(true),
            calibrated_supported: Some(true),
            raised_underwarranted: Some(true),
            one_local_axis: Some(true),
            no_unrelated_addition: Some(true),
        }
    }
}

/// One final field as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct FinalField {
    pub field: Field,
    /// Stored form (a span is JSON `{text,start,end}`).
    pub value: Option<String>,
    pub source: Source,
    pub adjudicator: String,
    pub at: String,
}

/// A row's current final label.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct Adjudication {
    pub candidate_id: String,
    pub decision: Decision,
    pub rationale: Option<String>,
    pub adjudicator: String,
    pub decided_at: String,
    pub bulk_confirmed: bool,
    pub checklist: Checklist,
    pub fields: Vec<FinalField>,
}

impl Adjudication {
    pub fn value(&self, field: Field) -> Option<&str> {
        self.fields.iter().find(|f| f.field == field).and_then(|f| f.value.as_deref())
    }
    pub fn source(&self, field: Field) -> Option<Source> {
        self.fields.iter().find(|f| f.field == field).map(|f| f.source)
    }
}

pub(crate) fn load_in(conn: &rusqlite::Connection, id: &str) -> Result<Option<Adjudication>> {
    let head = conn
        .prepare_cached(
            "SELECT j.decision, j.rationale, a.name, j.decided_at, j.bulk_confirmed, j.span_decisive,
                    j.calibrated_supported, j.raised_underwarranted, j.one_local_axis, j.no_unrelated_addition
             FROM adjudications j JOIN annotators a ON a.id = j.adjudicator_id WHERE j.candidate_id = ?1",
        )?
        .query_row([id], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, Option<String>>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, bool>(4)?,
                Checklist {
                    span_decisive: r.get(5)?,
                    calibrated_supported: r.get(6)?,
                    raised_underwarranted: r.get(7)?,
                    one_local_axis: r.get(8)?,
                    no_unrelated_addition: r.get(9)?,
                },
            ))
        })
        .optional()?;
    let Some((decision, rationale, adjudicator, decided_at, bulk_confirmed, checklist)) = head else {
        return Ok(None);
    };
    let mut stmt = conn.prepare_cached(
        "SELECT f.field, f.value, f.source, a.name, f.at FROM adjudication_fields f
         JOIN annotators a ON a.id = f.adjudicator_id WHERE f.candidate_id = ?1",
    )?;
    let mut fields = Vec::new();
    for row in stmt.query_map([id], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?, r.get::<_, String>(2)?, r.get(3)?, r.get(4)?))
    })? {
        let (field, value, source, adjudicator, at) = row?;
        fields.push(FinalField {
            field: field.parse().map_err(Error::Corrupt)?,
            value,
            source: Source::parse(&source)?,
            adjudicator,
            at,
        });
    }
    fields.sort_by_key(|f| FIELDS.iter().position(|x| *x == f.field));
    Ok(Some(Adjudication {
        candidate_id: id.to_string(),
        decision: decision.parse().map_err(Error::Corrupt)?,
        rationale,
        adjudicator,
        decided_at,
        bulk_confirmed,
        checklist,
        fields,
    }))
}

/// The current final label of a row, if adjudicated.
pub fn get(project: &Project, id: &str) -> Result<Option<Adjudication>> {
    let id: &str = &crate::input::id_key(id)?;
    load_in(project.conn(), id)
}

/// Final fields of one row: value and source per field, in [`FIELDS`] order.
pub type FinalFields = [Option<(Option<String>, Source)>; 8];

/// Every final field of every adjudicated row, in id order.
#[derive(Debug, Default)]
pub(crate) struct FinalTable {
    rows: Vec<(String, FinalFields)>,
}

impl FinalTable {
    fn position(&self, id: &str) -> Option<usize> {
        self.rows.binary_search_by(|(k, _)| k.as_str().cmp(id)).ok()
    }
    pub fn get(&self, id: &str) -> Option<&FinalFields> {
        self.position(id).map(|i| &self.rows[i].1)
    }
    /// Moves a row's fields out (leaving it empty).
    pub fn take(&mut self, id: &str) -> Option<FinalFields> {
        self.position(id).map(|i| std::mem::take(&mut self.rows[i].1))
    }
}

/// Every final field of every row, read in one scan of the table in key order (it is stored by
/// row id, then field), so each row's fields arrive together and rows arrive sorted: no map to
/// build (a 100,000-row project has 650,000 final fields).
pub(crate) fn all_final_fields(conn: &rusqlite::Connection) -> Result<FinalTable> {
    final_fields_of(
        conn,
        "SELECT candidate_id, field, value, source FROM adjudication_fields ORDER BY candidate_id, field",
        [],
    )
}

/// The final fields of the rows with ids from `first` to `last` (inclusive), one range of the
/// table's key: an export reads a large project a slice at a time.
pub(crate) fn final_fields_between(conn: &rusqlite::Connection, first: &str, last: &str) -> Result<FinalTable> {
    final_fields_of(
        conn,
        "SELECT candidate_id, field, value, source FROM adjudication_fields
         WHERE candidate_id BETWEEN ?1 AND ?2 ORDER BY candidate_id, field",
        [first, last],
    )
}

fn final_fields_of(conn: &rusqlite::Connection, sql: &str, params: impl rusqlite::Params) -> Result<FinalTable> {
    let mut table = FinalTable::default();
    let mut stmt = conn.prepare_cached(sql)?;
    let mut rows = stmt.query(params)?;
    while let Some(r) = rows.next()? {
        let field = crate::db::text(r, 1)?;
        let Some(i) = FIELDS.iter().position(|f| f.as_str() == field) else { continue };
        let source = Source::parse(crate::db::text(r, 3)?)?;
        let id = crate::db::text(r, 0)?;
        if table.rows.last().is_none_or(|(last, _)| last != id) {
            table.rows.push((id.to_string(), FinalFields::default()));
        }
        table.rows.last_mut().expect("pushed").1[i] = Some((r.get(2)?, source));
    }
    Ok(table)
}
