//! Feedback to annotators: once rows are adjudicated, each annotator sees their rows where the
//! final label differs from theirs, field by field, with the adjudicator's rationale and the
//! guideline version it was decided under, and a short summary (agreement with the final label
//! per field and per axis, time per row). Blinding holds after adjudication too: a feedback
//! never carries the other annotator's labels or name, nor where a final value came from (which
//! would tell whether the other annotator gave it); the other annotator's name is taken out of
//! the rationale.
//!
//! `forcebench feedback --annotator NAME` shows one annotator's feedback in the lead's project;
//! `forcebench feedback issue --out DIR` writes one file per annotator (`FORMAT`), which the
//! annotator's app opens in its Feedback view.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use ts_rs::TS;

use crate::annotate::Field;
use crate::error::{Error, Result};
use crate::project::{now, Project};

/// The `format` of a feedback file.
pub const FORMAT: &str = "forcebench-feedback";
pub const FORMAT_VERSION: u32 = 1;

/// One field of one row where the final label differs from the annotator's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct FeedbackRow {
    pub id: String,
    pub field: String,
    /// The annotator's value (a span as its text).
    pub yours: Option<String>,
    /// The final value.
    #[serde(rename = "final")]
    #[ts(rename = "final")]
    pub final_value: Option<String>,
    /// The adjudicator's rationale for the row (the other annotator's name taken out).
    pub rationale: Option<String>,
    /// The guideline version the row was adjudicated under.
    pub guideline_version: String,
}

/// What a row was about, so the feedback reads on its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RowText {
    pub context: String,
    pub passage: String,
    pub calibrated_claim: String,
    pub raised_claim: String,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Tally {
    #[ts(type = "number")]
    pub agree: u64,
    #[ts(type = "number")]
    pub total: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Summary {
    #[ts(type = "number")]
    pub adjudicated_rows: u64,
    #[ts(type = "number")]
    pub differing_rows: u64,
    /// Field -> how often the annotator's value was the final one (over the rows whose final
    /// decision uses the field, and the decision on every row).
    pub per_field: BTreeMap<String, Tally>,
    /// Final axis -> how often the annotator's whole label matched the final one on that axis's
    /// accepted rows.
    pub per_axis: BTreeMap<String, Tally>,
    /// Mean seconds the annotator spent on an adjudicated row, over the rows with time recorded
    /// in the app (`None` when every label was imported from a file).
    pub seconds_per_row: Option<f64>,
}

/// One annotator's feedback.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Feedback {
    pub format: String,
    pub format_version: u32,
    pub project: String,
    pub annotator: String,
    pub written_at: String,
    /// The guideline version in force when the feedback was written.
    pub guideline_version: String,
    pub summary: Summary,
    pub rows: Vec<FeedbackRow>,
    pub row_text: BTreeMap<String, RowText>,
}

/// The fields compared, in display order (notes are the annotator's own).
const COMPARED: [Field; 8] = crate::label::FIELDS;

/// A stored value as people read it: a span as its text.
fn readable(field: Field, value: Option<String>) -> Option<String> {
    match (field, value) {
        (Field::EvidenceSpan, Some(v)) => Some(crate::annotate::Span::text_of(&v).to_string()),
        (_, v) => v.filter(|v| !v.trim().is_empty()),
    }
}

/// `text` with every whole-word occurrence of `name` replaced by "the other annotator".
fn without_name(text: &str, name: &str) -> String {
    if name.trim().is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(name) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + name.len()..].chars().next();
        let whole = !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric);
        out.push_str(&rest[..at]);
        out.push_str(if whole { "the other annotator" } else { name });
        rest = &rest[at + name.len()..];
    }
    out.push_str(rest);
    out
}

/// One adjudicated row of an annotator, as [`for_annotator`] reads it.
struct Adjudicated {
    id: String,
    version: String,
    rationale: Option<String>,
    /// The other annotator's name (kept out of the rationale shown).
    other: Option<String>,
    /// The final decision.
    decision: String,
    seconds: f64,
    /// The annotator's values in [`crate::label::FIELDS`] order.
    mine: [Option<String>; 8],
}

/// The feedback of the annotator `name` on every adjudicated row they annotated.
pub fn for_annotator(project: &Project, name: &str) -> Result<Feedback> {
    let who = crate::roster::require(project, name)?;
    let conn = project.conn();
    // Each adjudicated row with this annotator's finished annotation as stored (the fold of its
    // events, kept up to date on every change) and the final decision: one statement, and the
    // final fields in one scan, instead of folding every row's events and reading every label
    // one at a time (two thirds of `agreement`'s time on a large project).
    let mut stmt = conn.prepare(
        "SELECT s.candidate_id, coalesce(j.guideline_version, '1'), j.rationale,
                (SELECT a.name FROM assignments o JOIN annotators a ON a.id = o.annotator_id
                  WHERE o.candidate_id = s.candidate_id AND o.annotator_id <> s.annotator_id LIMIT 1),
                j.decision, n.seconds_spent, n.decision, n.evidence_span, n.calibrated_claim, n.raised_claim,
                n.axis, n.severity, n.boundary_type, n.repair
         FROM assignments s
         JOIN adjudications j ON j.candidate_id = s.candidate_id
         JOIN annotations n ON n.candidate_id = s.candidate_id AND n.annotator_id = s.annotator_id AND n.finished = 1
         JOIN candidates c ON c.id = s.candidate_id
         WHERE s.annotator_id = ?1 ORDER BY c.seq",
    )?;
    let adjudicated: Vec<Adjudicated> = stmt
        .query_map([who.id], |r| {
            let text = |i: usize| r.get::<_, Option<String>>(i);
            Ok(Adjudicated {
                id: r.get(0)?,
                version: r.get(1)?,
                rationale: r.get(2)?,
                other: r.get(3)?,
                decision: r.get(4)?,
                seconds: r.get(5)?,
                // In `crate::label::FIELDS` order, as people read them (a span as its text).
                mine: [
                    text(6)?,
                    text(7)?,
                    text(8)?,
                    text(9)?,
                    text(10)?,
                    r.get::<_, Option<i64>>(11)?.map(|s| s.to_string()),
                    text(13)?,
                    text(12)?,
                ],
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    let finals = crate::label::all_final_fields(conn)?;
    let mut summary = Summary {
        adjudicated_rows: adjudicated.len() as u64,
        differing_rows: 0,
        per_field: BTreeMap::new(),
        per_axis: BTreeMap::new(),
        seconds_per_row: None,
    };
    let mut rows = Vec::new();
    let mut row_text = BTreeMap::new();
    // Time recorded in the app only (labels imported from a file carry none).
    let (mut seconds, mut timed) = (0.0, 0u64);
    for Adjudicated { id, version, rationale, other, decision, seconds: spent, mine } in &adjudicated {
        if *spent > 0.0 {
            seconds += spent;
            timed += 1;
        }
        let decision: crate::vocab::Decision = decision.parse().map_err(Error::Corrupt)?;
        let row_finals = finals.get(id);
        let final_value = |i: usize| row_finals.and_then(|f| f[i].as_ref()).and_then(|x| x.0.clone());
        let needed = crate::label::needed(decision);
        let rationale = rationale.as_deref().map(|r| other.as_deref().map_or(r.to_string(), |o| without_name(r, o)));
        let mut differs = false;
        for (i, field) in COMPARED.into_iter().enumerate() {
            if field != Field::Decision && !needed.contains(&field) {
                continue;
            }
            // The stored span is its text already (the final one is stored as JSON).
            let yours = match field {
                Field::EvidenceSpan => mine[i].clone(),
                _ => readable(field, mine[i].clone()),
            };
            let last = readable(field, final_value(i));
            let tally = summary.per_field.entry(field.as_str().to_string()).or_default();
            tally.total += 1;
            if yours == last {
                tally.agree += 1;
                continue;
            }
            differs = true;
            rows.push(FeedbackRow {
                id: id.clone(),
                field: field.as_str().to_string(),
                yours,
                final_value: last,
                rationale: rationale.clone(),
                guideline_version: version.clone(),
            });
        }
        let axis_at = COMPARED.iter().position(|f| *f == Field::Axis).expect("axis is compared");
        if let Some(axis) = final_value(axis_at).filter(|_| decision == crate::vocab::Decision::AcceptForceGap) {
            let tally = summary.per_axis.entry(axis.to_string()).or_default();
            tally.total += 1;
            tally.agree += u64::from(!differs);
        }
        if differs {
            summary.differing_rows += 1;
            let c = crate::candidate::find_in(conn, id)?.ok_or_else(|| Error::CandidateNotFound(id.clone()))?;
            row_text.insert(
                id.clone(),
                RowText {
                    context: c.context,
                    passage: c.passage,
                    calibrated_claim: c.calibrated_claim,
                    raised_claim: c.raised_claim,
                },
            );
        }
    }
    if timed > 0 {
        summary.seconds_per_row = Some(seconds / timed as f64);
    }
    Ok(Feedback {
        format: FORMAT.into(),
        format_version: FORMAT_VERSION,
        project: project.info().name.clone(),
        annotator: who.name,
        written_at: now(),
        guideline_version: crate::guideline::current_label(conn)?,
        summary,
        rows,
        row_text,
    })
}

/// One feedback file written by [`issue`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct IssuedFeedback {
    pub annotator: String,
    pub file: String,
    #[ts(type = "number")]
    pub adjudicated_rows: u64,
    #[ts(type = "number")]
    pub differing_rows: u64,
}

/// Writes `<annotator>.feedback.json` into `dir` for every annotator with adjudicated rows.
/// Every file is checked before any is written; an existing one is replaced only with `force`.
pub fn issue(project: &Project, dir: &Path, force: bool) -> Result<Vec<IssuedFeedback>> {
    let mut all = Vec::new();
    for person in crate::roster::list(project)?.into_iter().filter(|p| p.role == crate::roster::Role::Annotator) {
        let f = for_annotator(project, &person.name)?;
        if f.summary.adjudicated_rows == 0 {
            continue;
        }
        let safe: String =
            person.name.chars().map(|c| if c.is_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
        let path = dir.join(format!("{safe}.feedback.json"));
        crate::output::check_target(&path, force)?;
        all.push((path, f));
    }
    if all.is_empty() {
        return Err(Error::WrongRowState("no annotator has adjudicated rows yet: adjudicate first".into()));
    }
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut out = Vec::new();
    for (path, f) in all {
        let text = serde_json::to_string_pretty(&f).map_err(|e| Error::Internal(e.to_string()))? + "\n";
        crate::output::write_file(&path, text.as_bytes(), force)?;
        out.push(IssuedFeedback {
            annotator: f.annotator,
            file: path.display().to_string(),
            adjudicated_rows: f.summary.adjudicated_rows,
            differing_rows: f.summary.differing_rows,
        });
    }
    Ok(out)
}

/// Reads a feedback file (the annotator's app opens it); refuses anything else in one line.
pub fn read(path: &Path) -> Result<Feedback> {
    let (file, text) = crate::input::read_text(path)?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| Error::UnreadableInput { file: file.clone(), message: format!("is not a feedback file: {e}") })?;
    if value.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
        return Err(Error::UnreadableInput {
            file,
            message: "is not a ForceBench feedback file (write one with `forcebench feedback issue`)".into(),
        });
    }
    serde_json::from_value(value).map_err(|e| Error::UnreadableInput { file, message: format!("is damaged: {e}") })
}
