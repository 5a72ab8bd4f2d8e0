//! The per-row files of an export (`annotations.jsonl`, `adjudications.jsonl`, `rejected.jsonl`):
//! one line type each, serialised from the rows as read, without copying them.

use rusqlite::Connection;
use serde::Serialize;
use std::collections::HashMap;

use crate::annotate::Field;
use crate::error::{Error, Result};
use crate::label::{FinalFields, FinalTable, Source, FIELDS};
use crate::vocab::Decision;

/// Annotator id -> name.
pub(super) fn read_people(conn: &Connection) -> Result<HashMap<i64, String>> {
    Ok(conn
        .prepare("SELECT id, name FROM annotators")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?)
}

/// One independent annotation, as `annotations.jsonl` holds it, borrowed from the row read.
#[derive(Serialize)]
pub(super) struct AnnotationLine<'a> {
    id: &'a str,
    annotator: &'a str,
    decision: Option<&'a str>,
    evidence_span: Option<&'a str>,
    span_start: Option<i64>,
    span_end: Option<i64>,
    calibrated_claim: Option<&'a str>,
    raised_claim: Option<&'a str>,
    axis: Option<&'a str>,
    severity: Option<i64>,
    boundary_type: Option<&'a str>,
    repair: Option<&'a str>,
    notes: Option<&'a str>,
    seconds_spent: f64,
    /// How the suggestions were shown when the annotation was started (`prefilled`, `beside`,
    /// `hidden`); annotations started before modes existed were pre-filled.
    suggestion_mode: &'a str,
}

/// The annotations of `annotations.jsonl`, each serialised as it is read into one buffer (no
/// copy of its fields), with an index in output order.
pub(super) struct Annotations<'a> {
    text: Vec<u8>,
    /// Row id, annotator id (roster order), annotator name, and the line's bytes in `text`.
    index: Vec<(String, i64, &'a str, std::ops::Range<usize>)>,
}

impl Annotations<'_> {
    pub(super) fn write(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        self.index.iter().try_for_each(|(.., range)| w.write_all(&self.text[range.clone()]))
    }
}

/// Whether `id` is among `covered` (sorted): the rows of the slice being exported that the
/// lock froze.
pub(super) fn holds(covered: &[String], id: &str) -> bool {
    covered.binary_search_by(|c| c.as_str().cmp(id)).is_ok()
}

/// Both independent annotations of every adjudicated row among `covered` (sorted, every id from
/// `first` to `last`), in id order, annotator A first (by roster order).
pub(super) fn annotation_lines<'a>(
    conn: &Connection,
    covered: &[String],
    people: &'a HashMap<i64, String>,
    (first, last): (&str, &str),
) -> Result<Annotations<'a>> {
    let mut stmt = conn.prepare_cached(
        "SELECT candidate_id, annotator_id, decision, evidence_span, span_start, span_end, calibrated_claim,
                raised_claim, axis, severity, boundary_type, repair, notes, seconds_spent,
                (SELECT coalesce(e.suggestion_mode, 'prefilled') FROM annotation_events e
                  WHERE e.candidate_id = annotations.candidate_id AND e.annotator_id = annotations.annotator_id
                  ORDER BY e.id LIMIT 1)
         FROM annotations WHERE finished = 1 AND candidate_id BETWEEN ?1 AND ?2",
    )?;
    let mut rows = stmt.query([first, last])?;
    let mut out = Annotations { text: Vec::new(), index: Vec::new() };
    while let Some(r) = rows.next()? {
        let id = crate::db::text(r, 0)?;
        // Only the rows the lock froze (every one of them adjudicated).
        if !holds(covered, id) {
            continue;
        }
        let maybe = |i: usize| crate::db::text_or_null(r, i);
        let annotator_id: i64 = r.get(1)?;
        let annotator = people.get(&annotator_id).map_or("", String::as_str);
        let start = out.text.len();
        let line = AnnotationLine {
            id,
            annotator,
            decision: maybe(2)?,
            evidence_span: maybe(3)?,
            span_start: r.get(4)?,
            span_end: r.get(5)?,
            calibrated_claim: maybe(6)?,
            raised_claim: maybe(7)?,
            axis: maybe(8)?,
            severity: r.get(9)?,
            boundary_type: maybe(10)?,
            repair: maybe(11)?,
            notes: maybe(12)?,
            seconds_spent: r.get(13)?,
            suggestion_mode: maybe(14)?.unwrap_or("prefilled"),
        };
        serde_json::to_writer(&mut out.text, &line)
            .map_err(|e| Error::Internal(format!("annotation of `{id}`: {e}")))?;
        out.text.push(b'\n');
        out.index.push((id.to_string(), annotator_id, annotator, start..out.text.len()));
    }
    out.index.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
    Ok(out)
}

/// A row's final labels, flat, as `adjudications.jsonl` holds it: every line has the same keys
/// (one `source_` and one `annotator_` column per field, one `checklist_` column per item).
pub(super) struct AdjudicationLine<'a> {
    id: String,
    state: &'static str,
    decision: String,
    finals: Option<&'a FinalFields>,
    /// The row's two annotators, A first.
    pair: [Option<&'a str>; 2],
    rationale: Option<String>,
    adjudicator: &'a str,
    decided_at: String,
    bulk_confirmed: bool,
    checklist: crate::adjudicate::Checklist,
}

impl Serialize for AdjudicationLine<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let slot = |i: usize| self.finals.and_then(|f| f[i].as_ref());
        let value = |f: Field| slot(FIELDS.iter().position(|x| *x == f).expect("field")).and_then(|x| x.0.as_deref());
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("id", &self.id)?;
        m.serialize_entry("state", self.state)?;
        m.serialize_entry("decision", &self.decision)?;
        m.serialize_entry("evidence_span", &value(Field::EvidenceSpan).map(crate::annotate::Span::text_of))?;
        m.serialize_entry("calibrated_claim", &value(Field::CalibratedClaim))?;
        m.serialize_entry("raised_claim", &value(Field::RaisedClaim))?;
        m.serialize_entry("axis", &value(Field::Axis))?;
        m.serialize_entry("severity", &value(Field::Severity).and_then(|s| s.parse::<i64>().ok()))?;
        m.serialize_entry("repair", &value(Field::Repair))?;
        m.serialize_entry("boundary_type", &value(Field::BoundaryType))?;
        m.serialize_entry("rationale", &self.rationale)?;
        m.serialize_entry("adjudicator", self.adjudicator)?;
        m.serialize_entry("decided_at", &self.decided_at)?;
        m.serialize_entry("bulk_confirmed", &self.bulk_confirmed)?;
        for i in 0..FIELDS.len() {
            let source = slot(i).map(|x| x.1);
            let who = match source {
                Some(Source::A) => self.pair[0],
                Some(Source::B) => self.pair[1],
                _ => None,
            };
            m.serialize_entry(SOURCE_KEYS[i], &source.map(Source::as_str))?;
            m.serialize_entry(ANNOTATOR_KEYS[i], &who)?;
        }
        for ((_, _, answer), key) in self.checklist.items().into_iter().zip(CHECKLIST_KEYS) {
            m.serialize_entry(key, &answer)?;
        }
        m.end()
    }
}

/// The `source_` and `annotator_` keys of [`FIELDS`], and the `checklist_` keys, in order.
const SOURCE_KEYS: [&str; 8] = [
    "source_decision",
    "source_evidence_span",
    "source_calibrated_claim",
    "source_raised_claim",
    "source_axis",
    "source_severity",
    "source_repair",
    "source_boundary_type",
];
const ANNOTATOR_KEYS: [&str; 8] = [
    "annotator_decision",
    "annotator_evidence_span",
    "annotator_calibrated_claim",
    "annotator_raised_claim",
    "annotator_axis",
    "annotator_severity",
    "annotator_repair",
    "annotator_boundary_type",
];
const CHECKLIST_KEYS: [&str; 5] = [
    "checklist_span_decisive",
    "checklist_calibrated_supported",
    "checklist_raised_underwarranted",
    "checklist_one_local_axis",
    "checklist_no_unrelated_addition",
];

/// The final labels of every adjudicated row among `covered` (sorted, every id from `first` to
/// `last`), in id order. `annotations` (in id order, A first) names each row's annotators.
pub(super) fn adjudication_lines<'a>(
    conn: &Connection,
    covered: &[String],
    finals: &'a FinalTable,
    annotations: &'a Annotations<'a>,
    people: &'a HashMap<i64, String>,
    (first, last): (&str, &str),
) -> Result<Vec<AdjudicationLine<'a>>> {
    let rule = crate::rowstate::StateRule::load_between(conn, first, last)?;
    let mut stmt = conn.prepare_cached(
        "SELECT candidate_id, decision, rationale, adjudicator_id, decided_at, bulk_confirmed,
                span_decisive, calibrated_supported, raised_underwarranted, one_local_axis, no_unrelated_addition
         FROM adjudications WHERE candidate_id BETWEEN ?1 AND ?2",
    )?;
    let mut out: Vec<AdjudicationLine> = stmt
        .query_map([first, last], |r| {
            let id: String = r.get(0)?;
            let decision: String = r.get(1)?;
            let parsed: Decision = decision.parse().map_err(|e: String| {
                rusqlite::Error::FromSqlConversionFailure(1, rusqlite::types::Type::Text, e.into())
            })?;
            let state = rule.state(&id, parsed).as_str();
            Ok(AdjudicationLine {
                state,
                finals: finals.get(&id),
                pair: [None, None],
                decision,
                rationale: r.get(2)?,
                adjudicator: people.get(&r.get::<_, i64>(3)?).map_or("", String::as_str),
                decided_at: r.get(4)?,
                bulk_confirmed: r.get(5)?,
                checklist: crate::adjudicate::Checklist {
                    span_decisive: r.get(6)?,
                    calibrated_supported: r.get(7)?,
                    raised_underwarranted: r.get(8)?,
                    one_local_axis: r.get(9)?,
                    no_unrelated_addition: r.get(10)?,
                },
                id,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    out.retain(|line| holds(covered, &line.id));
    out.sort_unstable_by(|a, b| a.id.cmp(&b.id));
    // Both lists in id order: walk the annotations forward.
    let index = &annotations.index;
    let mut at = 0;
    for line in &mut out {
        while at < index.len() && index[at].0 < line.id {
            at += 1;
        }
        let mut k = 0;
        while at + k < index.len() && index[at + k].0 == line.id && k < 2 {
            line.pair[k] = Some(index[at + k].2);
            k += 1;
        }
    }
    Ok(out)
}

/// A rejected row, as `rejected.jsonl` holds it.
#[derive(Serialize)]
pub(super) struct RejectedLine<'a> {
    id: &'a str,
    boundary_type: Option<String>,
    rationale: Option<String>,
    source_dataset: &'a str,
    passage: &'a str,
    suggested_calibrated_claim: &'a str,
    suggested_raised_claim: &'a str,
    suggested_axis: Option<&'a str>,
}

/// Every rejected row among `covered` (sorted, every id from `first` to `last`) with its
/// boundary type and rationale, in id order.
pub(super) fn rejected_lines<'a>(
    conn: &Connection,
    covered: &[String],
    texts: &'a [CandidateText],
    (first, last): (&str, &str),
) -> Result<Vec<RejectedLine<'a>>> {
    let mut stmt = conn.prepare_cached(
        "SELECT candidate_id, boundary_type, rationale FROM adjudications
         WHERE decision = 'reject_not_force_gap' AND candidate_id BETWEEN ?1 AND ?2",
    )?;
    let mut found: Vec<(String, Option<String>, Option<String>)> =
        stmt.query_map([first, last], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect::<rusqlite::Result<_>>()?;
    found.retain(|(id, ..)| holds(covered, id));
    found.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let mut out = Vec::with_capacity(found.len());
    let mut at = 0;
    for (id, boundary_type, rationale) in found {
        while at < texts.len() && texts[at].id < id {
            at += 1;
        }
        let Some(c) = texts.get(at).filter(|c| c.id == id) else { continue };
        out.push(RejectedLine {
            id: &c.id,
            boundary_type,
            rationale,
            source_dataset: &c.source_dataset,
            passage: &c.passage,
            suggested_calibrated_claim: &c.calibrated_claim,
            suggested_raised_claim: &c.raised_claim,
            suggested_axis: c.axis.as_deref(),
        });
    }
    Ok(out)
}

/// Every candidate's text an export needs, in id order.
pub(super) struct CandidateText {
    pub(super) id: String,
    pub(super) group_id: String,
    pub(super) source_dataset: String,
    pub(super) context: String,
    pub(super) passage: String,
    pub(super) calibrated_claim: String,
    pub(super) raised_claim: String,
    pub(super) axis: Option<String>,
    pub(super) source_id: String,
    pub(super) construction_family: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spelled-out keys of `adjudications.jsonl` follow the fields and checklist items they
    /// name, in order (the exported files' columns depend on it).
    #[test]
    fn adjudication_keys_follow_the_fields_and_checklist() {
        for (i, f) in FIELDS.iter().enumerate() {
            assert_eq!(SOURCE_KEYS[i], format!("source_{}", f.as_str()));
            assert_eq!(ANNOTATOR_KEYS[i], format!("annotator_{}", f.as_str()));
        }
        let items = crate::adjudicate::Checklist::default().items();
        assert_eq!(CHECKLIST_KEYS.len(), items.len());
        for ((name, ..), key) in items.iter().zip(CHECKLIST_KEYS) {
            assert_eq!(key, format!("checklist_{name}"));
        }
    }
}
