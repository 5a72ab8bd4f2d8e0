//! Feedback to annotators: once rows are adjudicated, each annotator sees their rows where the
//! final label differs from theirs, field by field, with the adjudicator's rationale and the
//! guideline version it was decided under, and a short summary (agreement with the final label
//! per field and per axis, time per row). Blinding holds after adjudication too: a feedback
//! never carries the other annotator's labels or name, nor where a final value came from (which
//! would tell whether the other annotator gave it); the names of the row's other annotators are
//! taken out of the rationale, however they are written there ([`without_names`]).
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

/// One character of a text folded for matching names: the lower case of its letters, accents
/// dropped, and `_`, `-`, `.` and every kind of space all read as `_`; with the byte range of the
/// character of the text it came from.
struct Folded {
    c: char,
    start: usize,
    end: usize,
}

/// Whether `c` is a combining mark that only adds an accent (the blocks of combining diacritics).
fn is_accent(c: char) -> bool {
    matches!(c as u32, 0x0300..=0x036F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F)
}

/// `text` folded for matching names (see [`Folded`]).
fn fold(text: &str) -> Vec<Folded> {
    let nfd = icu_normalizer::DecomposingNormalizerBorrowed::new_nfd();
    let mut out = Vec::with_capacity(text.len());
    let mut buf = [0u8; 4];
    for (start, c) in text.char_indices() {
        let end = start + c.len_utf8();
        for d in nfd.normalize(c.encode_utf8(&mut buf)).chars().filter(|d| !is_accent(*d)) {
            if d == '_' || d == '-' || d == '.' || d.is_whitespace() {
                out.push(Folded { c: '_', start, end });
            } else {
                out.extend(d.to_lowercase().map(|l| Folded { c: l, start, end }));
            }
        }
    }
    out
}

/// Whether `c` continues a word (so a name found beside it is part of a longer word).
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || is_accent(c)
}

/// `text` with every whole-word mention of one of `names` replaced by "the other annotator":
/// in any letter case, with or without accents, and with `_`, `-`, `.` or a space written for one
/// another inside the name (`Ann_A`, `ANN-A`, `ann a` for `ann_a`; `Jose` for `José`). Punctuation
/// around a mention stays ("per the other annotator.").
pub fn without_names(text: &str, names: &[String]) -> String {
    let folded = fold(text);
    // Byte ranges of the text to replace, in order, none overlapping.
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    let mut patterns: Vec<Vec<char>> = names
        .iter()
        .map(|n| fold(n.trim()).into_iter().map(|f| f.c).collect::<Vec<char>>())
        .filter(|p: &Vec<char>| p.iter().any(|c| *c != '_'))
        .collect();
    // The longest first, so `ann_a` wins over `ann` where both match.
    patterns.sort_by_key(|p| std::cmp::Reverse(p.len()));
    let mut i = 0;
    while i < folded.len() {
        let found = patterns.iter().find_map(|p| {
            let end = i + p.len();
            if end > folded.len() || folded[i..end].iter().map(|f| f.c).ne(p.iter().copied()) {
                return None;
            }
            let (start_byte, mut end_byte) = (folded[i].start, folded[end - 1].end);
            // A match starts and ends on whole characters of the text.
            if (i > 0 && folded[i - 1].start == start_byte)
                || folded.get(end).is_some_and(|f| f.start == folded[end - 1].start)
            {
                return None;
            }
            // Accents written as separate marks after the name belong to it.
            let rest = &text[end_byte..];
            end_byte += rest.chars().take_while(|c| is_accent(*c)).map(char::len_utf8).sum::<usize>();
            let before = text[..start_byte].chars().next_back();
            let after = text[end_byte..].chars().next();
            (!before.is_some_and(is_word) && !after.is_some_and(is_word)).then_some((end, (start_byte, end_byte)))
        });
        match found {
            Some((next, cut)) => {
                cuts.push(cut);
                i = next;
                while i < folded.len() && folded[i].start < cut.1 {
                    i += 1;
                }
            }
            None => i += 1,
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (start, end) in cuts {
        out.push_str(&text[at..start]);
        out.push_str("the other annotator");
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

/// One adjudicated row of an annotator, as [`for_annotator`] reads it.
struct Adjudicated {
    id: String,
    version: String,
    rationale: Option<String>,
    /// The names of the row's other annotators (kept out of the rationale shown).
    others: Vec<String>,
    /// The final decision.
    decision: String,
    seconds: f64,
    /// The annotator's values in [`crate::label::FIELDS`] order.
    mine: [Option<String>; 8],
}

/// The feedback of the annotator `name` on every adjudicated row they annotated.
pub fn for_annotator(project: &Project, name: &str) -> Result<Feedback> {
    let name: &str = &crate::input::name_key(name)?;
    let who = crate::roster::require(project, name)?;
    let conn = project.conn();
    // Each adjudicated row with this annotator's finished annotation as stored (the fold of its
    // events, kept up to date on every change) and the final decision: one statement, and the
    // final fields in one scan, instead of folding every row's events and reading every label
    // one at a time (two thirds of `agreement`'s time on a large project).
    let mut stmt = conn.prepare(
        "SELECT s.candidate_id, coalesce(j.guideline_version, '1'), j.rationale,
                (SELECT group_concat(a.name, char(31)) FROM annotators a
                  WHERE a.id <> s.annotator_id
                    AND a.id IN (SELECT o.annotator_id FROM assignments o WHERE o.candidate_id = s.candidate_id
                                 UNION SELECT o.annotator_id FROM annotations o WHERE o.candidate_id = s.candidate_id)),
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
                others: r
                    .get::<_, Option<String>>(3)?
                    .map(|all| all.split('\u{1F}').map(String::from).collect())
                    .unwrap_or_default(),
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
    for Adjudicated { id, version, rationale, others, decision, seconds: spent, mine } in &adjudicated {
        if *spent > 0.0 {
            seconds += spent;
            timed += 1;
        }
        let decision: crate::vocab::Decision = decision.parse().map_err(Error::Corrupt)?;
        let row_finals = finals.get(id);
        let final_value = |i: usize| row_finals.and_then(|f| f[i].as_ref()).and_then(|x| x.0.clone());
        let needed = crate::label::needed(decision);
        let rationale = rationale.as_deref().map(|r| without_names(r, others));
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
    crate::settings::lead_only(project.conn(), "issuing feedback files")?;
    crate::output::check_out_folder(dir)?;
    let mut all = Vec::new();
    for person in crate::roster::list(project)?.into_iter().filter(|p| p.role == crate::roster::Role::Annotator) {
        let f = for_annotator(project, &person.name)?;
        if f.summary.adjudicated_rows == 0 {
            continue;
        }
        let path = dir.join(format!("{}.feedback.json", crate::output::name_for_file(&person.name)));
        crate::output::check_target(&path, force)?;
        all.push((path, f));
    }
    if all.is_empty() {
        return Err(Error::WrongRowState("no annotator has adjudicated rows yet: adjudicate first".into()));
    }
    let mut files = Vec::new();
    let mut out = Vec::new();
    for (path, f) in all {
        let text = serde_json::to_string_pretty(&f).map_err(|e| Error::Internal(e.to_string()))? + "\n";
        files.push((path.clone(), text.into_bytes()));
        out.push(IssuedFeedback {
            annotator: f.annotator,
            file: path.display().to_string(),
            adjudicated_rows: f.summary.adjudicated_rows,
            differing_rows: f.summary.differing_rows,
        });
    }
    // All the files or none: a set stopped half way would send some annotators theirs.
    crate::output::write_files(dir, &files, force)?;
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
