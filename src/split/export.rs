//! Export of a locked split to a folder: which rows each file holds, and how each file is written (`verify` is in [`super::verify`], putting the folder in place in [`super::publish`]).

use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;
use ts_rs::TS;

use super::{latest, read_roles, AxisTable, LeftOut, Roles, SplitParams, StageCounts, ZERO_HASH};
use crate::annotate::Field;
use crate::error::{Error, Result};
use crate::label::{FinalFields, FinalTable, Source, FIELDS};
use crate::project::Project;
use crate::vocab::Decision;

/// The rows of an export with their final fields.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct EvalRow {
    pub id: String,
    pub axis: String,
    pub severity: i64,
    pub source_dataset: String,
    pub group_id: String,
    pub context: String,
    pub passage: String,
    pub evidence_span: String,
    pub calibrated_claim: String,
    pub raised_claim: String,
    pub repair: String,
}

/// Every candidate's text an export needs, in id order.
struct CandidateText {
    id: String,
    group_id: String,
    source_dataset: String,
    context: String,
    passage: String,
    calibrated_claim: String,
    raised_claim: String,
    axis: Option<String>,
}

fn candidate_texts(conn: &Connection) -> Result<Vec<CandidateText>> {
    let mut stmt = conn.prepare(
        "SELECT id, group_id, source_dataset, context, passage, calibrated_claim, raised_claim, axis FROM candidates",
    )?;
    let mut out: Vec<CandidateText> = stmt
        .query_map([], |r| {
            Ok(CandidateText {
                id: r.get(0)?,
                group_id: r.get(1)?,
                source_dataset: r.get(2)?,
                context: r.get(3)?,
                passage: r.get(4)?,
                calibrated_claim: r.get(5)?,
                raised_claim: r.get(6)?,
                axis: r.get(7)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    out.sort_unstable_by(|a, b| a.id.cmp(&b.id));
    Ok(out)
}

/// One exported pair, borrowed from what was read: the keys of `eval.jsonl`, plus `in_eval` in
/// `benchmark.jsonl`.
#[derive(Serialize)]
struct PairLine<'a> {
    id: &'a str,
    axis: &'a str,
    severity: i64,
    source_dataset: &'a str,
    group_id: &'a str,
    context: &'a str,
    passage: &'a str,
    evidence_span: std::borrow::Cow<'a, str>,
    calibrated_claim: &'a str,
    raised_claim: &'a str,
    repair: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    in_eval: Option<bool>,
}

/// The final value of `field` in `finals`, as text ("" when there is none).
fn final_value(finals: Option<&FinalFields>, field: Field) -> &str {
    let i = FIELDS.iter().position(|x| *x == field).expect("adjudicated field");
    finals.and_then(|v| v[i].as_ref()).and_then(|x| x.0.as_deref()).unwrap_or_default()
}

/// The pairs among `ids` (sorted) with their final fields; `in_eval` set for benchmark lines.
fn pair_lines<'a>(
    texts: &'a [CandidateText],
    finals: &'a FinalTable,
    ids: &[&str],
    eval: Option<&BTreeSet<&str>>,
) -> Vec<PairLine<'a>> {
    let mut out = Vec::with_capacity(ids.len());
    let mut at = 0;
    for id in ids {
        // Both lists are in id order: walk the candidates forward.
        while at < texts.len() && texts[at].id.as_str() < *id {
            at += 1;
        }
        let Some(c) = texts.get(at).filter(|c| c.id == *id) else { continue };
        let f = finals.get(id);
        out.push(PairLine {
            id: &c.id,
            axis: final_value(f, Field::Axis),
            severity: final_value(f, Field::Severity).parse().unwrap_or(0),
            source_dataset: &c.source_dataset,
            group_id: &c.group_id,
            context: &c.context,
            passage: &c.passage,
            evidence_span: crate::annotate::Span::text_of(final_value(f, Field::EvidenceSpan)),
            calibrated_claim: final_value(f, Field::CalibratedClaim),
            raised_claim: final_value(f, Field::RaisedClaim),
            repair: final_value(f, Field::Repair),
            in_eval: eval.map(|e| e.contains(*id)),
        });
    }
    out
}

impl From<&PairLine<'_>> for EvalRow {
    fn from(l: &PairLine<'_>) -> Self {
        EvalRow {
            id: l.id.into(),
            axis: l.axis.into(),
            severity: l.severity,
            source_dataset: l.source_dataset.into(),
            group_id: l.group_id.into(),
            context: l.context.into(),
            passage: l.passage.into(),
            evidence_span: l.evidence_span.to_string(),
            calibrated_claim: l.calibrated_claim.into(),
            raised_claim: l.raised_claim.into(),
            repair: l.repair.into(),
        }
    }
}

/// The ids of a split's rows in a role, leaving out locality-removed rows, in id order.
fn ids_in(roles: &[(String, Roles)], keep: impl Fn(&Roles) -> bool) -> Vec<&str> {
    roles.iter().filter(|(_, r)| r.removed.is_none() && keep(r)).map(|(id, _)| id.as_str()).collect()
}

/// The evaluation rows of the latest split, with their final fields, in id order.
pub fn eval_rows(project: &Project) -> Result<Vec<EvalRow>> {
    let conn = project.conn();
    let (split_id, ..) = latest(conn)?.ok_or_else(|| Error::NoSplit("there is no split".into()))?;
    let roles = read_roles(conn, split_id)?;
    let ids = ids_in(&roles, |r| r.eval);
    let finals = crate::adjudicate::all_final_fields(conn)?;
    let texts = candidate_texts(conn)?;
    Ok(pair_lines(&texts, &finals, &ids, None).iter().map(EvalRow::from).collect())
}

/// Writes `eval.csv`: the columns of `eval.jsonl`, every text cell made inert for spreadsheets
/// ([`crate::output::inert_cell`]; `eval.jsonl` keeps the exact text).
fn eval_csv(w: &mut dyn std::io::Write, eval: &[PairLine<'_>]) -> std::io::Result<()> {
    use crate::output::inert_cell;
    let mut c = csv::WriterBuilder::new().has_headers(false).from_writer(w);
    c.write_record(EVAL_COLUMNS).map_err(std::io::Error::other)?;
    for l in eval {
        let severity = l.severity.to_string();
        let cells = [
            l.id,
            l.axis,
            severity.as_str(),
            l.source_dataset,
            l.group_id,
            l.context,
            l.passage,
            l.evidence_span.as_ref(),
            l.calibrated_claim,
            l.raised_claim,
            l.repair,
        ];
        c.write_record(cells.map(inert_cell).iter().map(|x| x.as_bytes())).map_err(std::io::Error::other)?;
    }
    c.flush()
}

/// Writes one JSON line per row, each serialised into a reused buffer first so the writer sees
/// one write per line rather than one per key and punctuation mark.
fn jsonl<T: Serialize>(w: &mut dyn std::io::Write, rows: impl IntoIterator<Item = T>) -> std::io::Result<()> {
    let mut line: Vec<u8> = Vec::new();
    for r in rows {
        line.clear();
        serde_json::to_writer(&mut line, &r)?;
        line.push(b'\n');
        w.write_all(&line)?;
    }
    Ok(())
}

/// Gives a closure the signature [`write_file`] expects (for any lifetime of the writer).
fn filler<F: FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>>(f: F) -> F {
    f
}

/// Hashes what passes on to a file. Used behind a buffer, so it hashes and writes large chunks.
struct HashingWriter {
    file: std::fs::File,
    hash: Sha256,
}

impl std::io::Write for HashingWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// Writes `name` in `dir` (the export's fresh staging folder) by streaming `fill` into it,
/// synced to disk; returns the sha256 of what was written. The file is created exclusively:
/// nothing planted under its name is ever followed or overwritten.
fn write_file(
    dir: &Path,
    name: &str,
    fill: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<String> {
    use std::io::Write;
    let path = dir.join(name);
    let io = |e: std::io::Error| Error::io(&path, e);
    let file = std::fs::OpenOptions::new().write(true).create_new(true).open(&path).map_err(io)?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, HashingWriter { file, hash: Sha256::new() });
    fill(&mut w).map_err(io)?;
    w.flush().map_err(io)?;
    let HashingWriter { file, hash } = w.into_inner().map_err(|e| io(e.into_error()))?;
    file.sync_all().map_err(io)?;
    crate::crashpoint::hit(&format!("export:file:{name}"));
    Ok(hex::encode(hash.finalize()))
}

pub(super) fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The columns of `eval.csv`, the keys of `eval.jsonl`.
pub(super) const EVAL_COLUMNS: [&str; 11] = [
    "id",
    "axis",
    "severity",
    "source_dataset",
    "group_id",
    "context",
    "passage",
    "evidence_span",
    "calibrated_claim",
    "raised_claim",
    "repair",
];

/// The files an export writes, in writing order.
pub const EXPORT_FILES: [&str; 9] = [
    "eval.jsonl",
    "eval.csv",
    "benchmark.jsonl",
    "annotations.jsonl",
    "adjudications.jsonl",
    "rejected.jsonl",
    "locality_removed.jsonl",
    "DATASHEET.md",
    "manifest.json",
];

/// The canonical content of a split: parameters and the ids on every side, as compact JSON.
/// Its sha256 names the split's content whatever the times in the manifest.
pub(super) fn canonical_content(
    params: &serde_json::Value,
    benchmark_sha256: &str,
    eval_ids: &[String],
    capped: &[String],
    removed: &[String],
) -> Vec<u8> {
    let value = serde_json::json!({
        "params": params,
        "benchmark_sha256": benchmark_sha256,
        "eval_ids": eval_ids,
        "capped_ids": capped,
        "locality_removed_ids": removed,
    });
    serde_json::to_vec(&value).expect("canonical content")
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ExportReport {
    pub dir: String,
    #[ts(type = "number")]
    pub version: i64,
    /// File name -> sha256.
    pub files: BTreeMap<String, String>,
    pub content_sha256: String,
}

/// What the lock recorded of a split, read back from its stored manifest: an export writes the
/// datasheet and the removal list from it rather than recomputing them.
#[derive(Deserialize)]
struct Recorded {
    split: RecordedSplit,
    params: SplitParams,
    counts: StageCounts,
    per_axis: Vec<AxisTable>,
    by_source: BTreeMap<String, RecordedSource>,
    capped: Vec<LeftOut>,
    locality_removed: Vec<LeftOut>,
}

#[derive(Deserialize)]
struct RecordedSplit {
    version: i64,
    locked_at: Option<String>,
}

#[derive(Deserialize)]
struct RecordedSource {
    retained: u64,
    eval: u64,
}

/// Exports the latest locked split into `dir`: a new folder, an empty one, or an earlier export's
/// (which it replaces; a folder holding anything else is refused). `progress(done, total)` is
/// called after each file.
///
/// The files are written into a fresh sibling folder and put in place with one atomic step
/// (see [`super::publish`]): a failed or killed export leaves the earlier export whole at `dir`.
///
/// Each table is read once, in a whole-table scan, on the calling thread; each file is
/// serialised, hashed and written on a thread of its own as soon as its rows are read, so
/// reading and writing overlap.
pub fn export(project: &Project, dir: &Path, progress: &mut dyn FnMut(usize, usize)) -> Result<ExportReport> {
    export_version(project, dir, None, progress)
}

/// Exports locked split `version` (the latest locked one when `None`), also while a newer
/// draft exists. A locked version's export is the same, byte for byte, every time: it holds
/// only the rows its lock froze (see [`crate::rowstate`]), as they were locked.
pub fn export_version(
    project: &Project,
    dir: &Path,
    version: Option<i64>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<ExportReport> {
    let staging = super::publish::Staging::prepare(dir)?;
    match write_export(project, staging.path(), version, progress) {
        Ok(report) => {
            staging.publish()?;
            Ok(ExportReport { dir: dir.display().to_string(), ..report })
        }
        Err(e) => {
            staging.discard();
            Err(e)
        }
    }
}

/// The id and version of locked split `version`, or of the latest locked split.
fn locked_split(conn: &Connection, version: Option<i64>) -> Result<(i64, i64)> {
    use rusqlite::OptionalExtension;
    match version {
        Some(v) => {
            let found: Option<(i64, String)> = conn
                .query_row("SELECT id, status FROM splits WHERE version = ?1", [v], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?;
            match found {
                None => Err(Error::NoSplit(format!("there is no split v{v}"))),
                Some((_, status)) if status != "locked" => Err(Error::NoLockedSplit(format!(
                    "split v{v} is a draft; lock it before exporting (`forcebench split lock`)"
                ))),
                Some((id, _)) => Ok((id, v)),
            }
        }
        None => {
            let found: Option<(i64, i64)> = conn
                .query_row(
                    "SELECT id, version FROM splits WHERE status = 'locked' ORDER BY version DESC LIMIT 1",
                    [],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()?;
            found.ok_or_else(|| match latest(conn) {
                Ok(Some((_, v, ..))) => Error::NoLockedSplit(format!(
                    "split v{v} is a draft; lock it before exporting (`forcebench split lock`)"
                )),
                _ => Error::NoLockedSplit("there is no split to export; draft and lock one first".into()),
            })
        }
    }
}

/// Writes every file of the export into `dir` (the staging folder).
fn write_export(
    project: &Project,
    dir: &Path,
    version: Option<i64>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<ExportReport> {
    let conn = project.conn();
    let (split_id, version) = locked_split(conn, version)?;
    let covered: HashSet<String> = crate::rowstate::covered(conn, split_id)?.into_iter().collect();
    let stored: serde_json::Value = conn
        .query_row("SELECT manifest_json FROM splits WHERE id = ?1", [split_id], |r| r.get::<_, Option<String>>(0))?
        .and_then(|m| serde_json::from_str(&m).ok())
        .ok_or_else(|| Error::Corrupt(format!("split v{version} has no manifest")))?;
    let recorded: Recorded = serde_json::from_value(stored.clone())
        .map_err(|e| Error::Corrupt(format!("split v{version}: its stored manifest cannot be read: {e}")))?;
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;

    let roles = read_roles(conn, split_id)?;
    let eval_ids = ids_in(&roles, |r| r.eval);
    let retained_ids = ids_in(&roles, |r| r.retained);
    let eval_set: BTreeSet<&str> = eval_ids.iter().copied().collect();
    let finals = crate::adjudicate::all_final_fields(conn)?;
    let texts = candidate_texts(conn)?;
    let eval = pair_lines(&texts, &finals, &eval_ids, None);
    let retained = pair_lines(&texts, &finals, &retained_ids, Some(&eval_set));

    let total = EXPORT_FILES.len();
    let mut files: BTreeMap<String, String> = BTreeMap::new();
    // Progress as each writer finishes (it signals even if it fails or panics), reported from
    // this thread between reads and while waiting at the end.
    let (finished_tx, finished_rx) = std::sync::mpsc::channel::<()>();
    struct Signal(std::sync::mpsc::Sender<()>);
    impl Drop for Signal {
        fn drop(&mut self) {
            let _ = self.0.send(());
        }
    }
    let mut finished = 0;
    // Reports the writers finished since the last call (with `wait`, waits for one first);
    // returns how many have finished in all.
    let mut report = |wait: bool| -> usize {
        if wait && finished_rx.recv().is_ok() {
            finished += 1;
            progress(finished, total);
        }
        while finished_rx.try_recv().is_ok() {
            finished += 1;
            progress(finished, total);
        }
        finished
    };
    // Read inside the scope (while the pairs are written) but kept beyond it, so that the
    // writers can borrow them.
    let (people_cell, annotations_cell) = (std::sync::OnceLock::new(), std::sync::OnceLock::new());
    let mut written: Vec<(&str, Result<String>)> = std::thread::scope(|scope| -> Result<_> {
        let mut writers = Vec::new();
        macro_rules! spawn {
            ($name:expr, $fill:expr) => {{
                let fill = filler($fill);
                let signal = Signal(finished_tx.clone());
                writers.push((
                    $name,
                    scope.spawn(move || {
                        let _signal = signal;
                        write_file(dir, $name, fill)
                    }),
                ))
            }};
        }
        spawn!("benchmark.jsonl", |w| jsonl(w, &retained));
        spawn!("eval.jsonl", |w| jsonl(w, &eval));
        spawn!("eval.csv", |w| eval_csv(w, &eval));
        // Read on this thread while the pairs are written.
        let people = people_cell.get_or_init(|| read_people(conn));
        let people = people.as_ref().map_err(|e| Error::Corrupt(e.to_string()))?;
        report(false);
        let annotations = annotations_cell.get_or_init(|| annotation_lines(conn, &covered, people));
        let annotations = annotations.as_ref().map_err(|e| Error::Corrupt(e.to_string()))?;
        report(false);
        let adjudications = adjudication_lines(conn, &covered, &finals, annotations, people)?;
        spawn!("annotations.jsonl", move |w| annotations.write(w));
        spawn!("adjudications.jsonl", move |w| jsonl(w, &adjudications));
        report(false);
        let rejected = rejected_lines(conn, &covered, &texts)?;
        spawn!("rejected.jsonl", move |w| jsonl(w, &rejected));
        spawn!("locality_removed.jsonl", |w| jsonl(w, &recorded.locality_removed));
        let mut all = report(false);
        while all < writers.len() {
            all = report(true);
        }
        Ok(writers
            .into_iter()
            .map(|(name, h)| {
                (
                    name,
                    h.join().unwrap_or_else(|_| {
                        Err(Error::io(dir.join(name), std::io::Error::other("its writer stopped unexpectedly")))
                    }),
                )
            })
            .collect())
    })?;
    // In the files' order; the first failure, if any, is the export's error.
    for name in EXPORT_FILES {
        if let Some(at) = written.iter().position(|(n, _)| *n == name) {
            let (_, result) = written.swap_remove(at);
            files.insert(name.to_string(), result?);
        }
    }
    let mut done = |name: &str, hash: String, files: &mut BTreeMap<String, String>| {
        files.insert(name.to_string(), hash);
        progress(files.len(), total);
    };

    let capped: Vec<String> = recorded.capped.iter().map(|c| c.id.clone()).collect();
    let removed: Vec<String> = recorded.locality_removed.iter().map(|c| c.id.clone()).collect();
    let eval_id_list: Vec<String> = eval_ids.iter().map(|id| id.to_string()).collect();
    let content_sha256 =
        sha256_hex(&canonical_content(&stored["params"], &files["benchmark.jsonl"], &eval_id_list, &capped, &removed));
    let sheet = datasheet(&recorded, &stored, &content_sha256);
    done("DATASHEET.md", write_file(dir, "DATASHEET.md", |w| w.write_all(sheet.as_bytes()))?, &mut files);

    let mut manifest = stored.clone();
    manifest["content_sha256"] = content_sha256.clone().into();
    manifest["files"] = serde_json::to_value(&files).expect("files");
    manifest["manifest_sha256"] = ZERO_HASH.into();
    let text = serde_json::to_string_pretty(&manifest).expect("manifest") + "\n";
    let own = sha256_hex(text.as_bytes());
    let text =
        text.replacen(&format!("\"manifest_sha256\": \"{ZERO_HASH}\""), &format!("\"manifest_sha256\": \"{own}\""), 1);
    done("manifest.json", write_file(dir, "manifest.json", |w| w.write_all(text.as_bytes()))?, &mut files);
    Ok(ExportReport { dir: dir.display().to_string(), version, files, content_sha256 })
}

/// Annotator id -> name.
fn read_people(conn: &Connection) -> Result<HashMap<i64, String>> {
    Ok(conn
        .prepare("SELECT id, name FROM annotators")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?)
}

/// One independent annotation, as `annotations.jsonl` holds it, borrowed from the row read.
#[derive(Serialize)]
struct AnnotationLine<'a> {
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
struct Annotations<'a> {
    text: Vec<u8>,
    /// Row id, annotator id (roster order), annotator name, and the line's bytes in `text`.
    index: Vec<(String, i64, &'a str, std::ops::Range<usize>)>,
}

impl Annotations<'_> {
    fn write(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        self.index.iter().try_for_each(|(.., range)| w.write_all(&self.text[range.clone()]))
    }
}

/// Both independent annotations of every adjudicated row the split covers, in id order,
/// annotator A first (by roster order).
fn annotation_lines<'a>(
    conn: &Connection,
    covered: &HashSet<String>,
    people: &'a HashMap<i64, String>,
) -> Result<Annotations<'a>> {
    let mut stmt = conn.prepare(
        "SELECT candidate_id, annotator_id, decision, evidence_span, span_start, span_end, calibrated_claim,
                raised_claim, axis, severity, boundary_type, repair, notes, seconds_spent,
                (SELECT coalesce(e.suggestion_mode, 'prefilled') FROM annotation_events e
                  WHERE e.candidate_id = annotations.candidate_id AND e.annotator_id = annotations.annotator_id
                  ORDER BY e.id LIMIT 1)
         FROM annotations WHERE finished = 1",
    )?;
    let mut rows = stmt.query([])?;
    let mut out = Annotations { text: Vec::new(), index: Vec::new() };
    while let Some(r) = rows.next()? {
        let id = crate::db::text(r, 0)?;
        // Only the rows the lock froze (every one of them adjudicated).
        if !covered.contains(id) {
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
struct AdjudicationLine<'a> {
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

/// Every adjudicated row's final labels, in id order. `annotations` (in id order, A first)
/// names each row's annotators.
fn adjudication_lines<'a>(
    conn: &Connection,
    covered: &HashSet<String>,
    finals: &'a FinalTable,
    annotations: &'a Annotations<'a>,
    people: &'a HashMap<i64, String>,
) -> Result<Vec<AdjudicationLine<'a>>> {
    let rule = crate::rowstate::StateRule::load(conn)?;
    let mut stmt = conn.prepare(
        "SELECT candidate_id, decision, rationale, adjudicator_id, decided_at, bulk_confirmed,
                span_decisive, calibrated_supported, raised_underwarranted, one_local_axis, no_unrelated_addition
         FROM adjudications",
    )?;
    let mut out: Vec<AdjudicationLine> = stmt
        .query_map([], |r| {
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
    out.retain(|line| covered.contains(&line.id));
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
struct RejectedLine<'a> {
    id: &'a str,
    boundary_type: Option<String>,
    rationale: Option<String>,
    source_dataset: &'a str,
    passage: &'a str,
    suggested_calibrated_claim: &'a str,
    suggested_raised_claim: &'a str,
    suggested_axis: Option<&'a str>,
}

/// Every rejected row with its boundary type and rationale, in id order.
fn rejected_lines<'a>(
    conn: &Connection,
    covered: &HashSet<String>,
    texts: &'a [CandidateText],
) -> Result<Vec<RejectedLine<'a>>> {
    let mut stmt = conn.prepare(
        "SELECT candidate_id, boundary_type, rationale FROM adjudications WHERE decision = 'reject_not_force_gap'",
    )?;
    let mut found: Vec<(String, Option<String>, Option<String>)> =
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect::<rusqlite::Result<_>>()?;
    found.retain(|(id, ..)| covered.contains(id));
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

fn fmt_num(v: &serde_json::Value) -> String {
    v.as_f64().map_or("undefined".into(), |x| format!("{x:.3}"))
}

/// The datasheet, written from the split's own numbers.
fn datasheet(s: &Recorded, manifest: &serde_json::Value, content_sha256: &str) -> String {
    let c = &s.counts;
    let a = &manifest["agreement_at_lock"];
    let mut out = String::new();
    let name = manifest["project"]["name"].as_str().unwrap_or("");
    out.push_str(&format!("# Datasheet: {name}, evaluation split v{}\n\n", s.split.version));
    out.push_str(&format!(
        "Written by forcebench {} (commit {}) from the locked split (locked {}). Content sha256 `{content_sha256}`.\n\n",
        crate::software::VERSION,
        crate::software::COMMIT,
        s.split.locked_at.as_deref().unwrap_or("")
    ));
    out.push_str("## What it is\n\nContrastive citation-warrant pairs. Each row has a cited passage, a calibrated claim that the passage licenses and a minimally stronger raised claim that it does not, tagged with one force axis (relation, modality, scope, temporal, numeric) and a severity (1 subtle, 2 clear, 3 high-impact). `eval.jsonl` / `eval.csv` hold the evaluation set; `benchmark.jsonl` the whole retained pool (`in_eval` marks the evaluation rows).\n\n");
    out.push_str("`eval.csv` is meant for spreadsheets: a cell beginning with `=`, `+`, `-`, `@`, a tab, a carriage return or a single quote has a single quote put in front of it, so that a spreadsheet shows it as text instead of running it as a formula. The JSONL files hold the exact text; read those for anything but viewing.\n\n");
    out.push_str("## How it was made\n\nEvery candidate was annotated independently by two annotators on blinded packets; an adjudicator resolved every disagreement and confirmed agreements; rows adjudicated as a force gap that passed quality control were accepted; a locality audit removed rows whose raised claim changes more than force. Over-represented axes were capped, and the evaluation set was drawn per axis, stratified by source dataset, with a stable hash for ties.\n\n");
    out.push_str(&format!(
        "Agreement on the pre-adjudication decisions of {} double-annotated rows: Cohen's kappa {} (95% CI {}), percent agreement {}, Krippendorff's alpha {}.\n\n",
        a["n_items"], fmt_num(&a["cohen_kappa"]),
        a["kappa_ci95"].as_array().map_or("undefined".into(), |v| format!("{} to {}", fmt_num(&v[0]), fmt_num(&v[1]))),
        fmt_num(&a["percent_agreement"]), fmt_num(&a["krippendorff_alpha"])
    ));
    out.push_str("## Counts at every stage\n\n| stage | rows |\n|---|---|\n");
    for (stage, n) in [
        ("candidates", c.candidates),
        ("double-annotated", c.double_annotated),
        ("adjudicated", c.adjudicated),
        ("rejected", c.rejected),
        ("accepted", c.accepted),
        ("capped (surplus on over-represented axes)", c.capped),
        ("selected for evaluation", c.selected),
        ("removed by the locality audit", c.locality_removed),
        ("retained", c.retained),
        ("evaluation", c.eval),
    ] {
        out.push_str(&format!("| {stage} | {n} |\n"));
    }
    out.push_str("\n## Per axis\n\n| axis | accepted | capped | locality-removed | retained | evaluation | eval sev 1 / 2 / 3 |\n|---|---|---|---|---|---|---|\n");
    for t in &s.per_axis {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} / {} / {} |\n",
            t.axis,
            t.accepted,
            t.capped,
            t.locality_removed,
            t.retained,
            t.eval,
            t.eval_severity[0],
            t.eval_severity[1],
            t.eval_severity[2]
        ));
    }
    out.push_str("\n## Per source dataset\n\n| source | retained | evaluation |\n|---|---|---|\n");
    for (source, RecordedSource { retained: r, eval: e }) in &s.by_source {
        out.push_str(&format!("| {source} | {r} | {e} |\n"));
    }
    out.push_str(&format!(
        "\n## Parameters\n\nCaps {}; {} evaluation rows per axis; seed {}; strata: axis, then {}.\n\n",
        if s.params.caps.is_empty() {
            "none".to_string()
        } else {
            s.params.caps.iter().map(|(a, n)| format!("{a}={n}")).collect::<Vec<_>>().join(", ")
        },
        s.params.per_axis,
        s.params.seed,
        s.params.strata.join(", ")
    ));
    if !s.locality_removed.is_empty() {
        out.push_str("## Removed by the locality audit\n\n");
        for r in &s.locality_removed {
            out.push_str(&format!("- `{}` ({}): {}\n", r.id, r.axis, r.reason));
        }
        out.push('\n');
    }
    out.push_str("## Intended use and limits\n\nFor measuring whether citation evaluators notice when a claim is stronger than its cited passage allows: score both claims of each pair and report the monotonicity violation rate and force sensitivity. The set is small and English-only; its passages come from the source datasets named above and inherit their topics and errors; one axis per row is a simplification, since real overclaims can move on several. The labels reflect two annotators and one adjudicator following the project's guideline. It is not training data for claim verification and says nothing about whether a passage is true.\n");
    out
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
