//! Export of a locked split to a folder: which rows each file holds and how each file is written
//! and hashed. The per-row line types are in [`super::lines`], the datasheet in
//! [`super::datasheet`], putting the folder in place in [`super::publish`], and `verify` in
//! [`super::verify`].

use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use ts_rs::TS;

use super::datasheet::{datasheet, Recorded};
use super::lines::{adjudication_lines, annotation_lines, read_people, rejected_lines, CandidateText};
use super::publish::EXPORT_FILES;
use super::{latest, read_roles, read_roles_between, Roles, ZERO_HASH};
use crate::annotate::Field;
use crate::error::{Error, Result};
use crate::label::{final_fields_between, FinalFields, FinalTable, FIELDS};
use crate::project::Project;

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

const TEXT_COLUMNS: &str =
    "id, group_id, source_dataset, context, passage, calibrated_claim, raised_claim, axis, source_id, construction_family";

fn text_of(r: &rusqlite::Row) -> rusqlite::Result<CandidateText> {
    Ok(CandidateText {
        id: r.get(0)?,
        group_id: r.get(1)?,
        source_dataset: r.get(2)?,
        context: r.get(3)?,
        passage: r.get(4)?,
        calibrated_claim: r.get(5)?,
        raised_claim: r.get(6)?,
        axis: r.get(7)?,
        source_id: r.get(8)?,
        construction_family: r.get(9)?,
    })
}

/// The texts of the candidates with ids from `first` to `last` (inclusive) that `keep` wants,
/// in id order (one range of the id index).
fn candidate_texts_between(
    conn: &Connection,
    (first, last): (&str, &str),
    keep: impl Fn(&str) -> bool,
) -> Result<Vec<CandidateText>> {
    let mut stmt =
        conn.prepare_cached(&format!("SELECT {TEXT_COLUMNS} FROM candidates WHERE id BETWEEN ?1 AND ?2 ORDER BY id"))?;
    let mut rows = stmt.query([first, last])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        if keep(crate::db::text(r, 0)?) {
            out.push(text_of(r)?);
        }
    }
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
    /// Only in splits locked with [`EXTRA_ROW_FIELDS`] (older exports stay byte for
    /// byte); `""` when the candidate has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    source_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    construction_family: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    in_eval: Option<bool>,
}

/// The row fields a split locked since gets in `eval.jsonl`, `benchmark.jsonl` and
/// `eval.csv`, after `repair`. The
/// manifest lists them under `extra_row_fields`; a split locked before has none, so its export
/// keeps the bytes it always had.
pub(super) const EXTRA_ROW_FIELDS: [&str; 2] = ["source_id", "construction_family"];

/// The columns of `eval.csv` and keys of `eval.jsonl` of an export with or without the
/// [`EXTRA_ROW_FIELDS`].
pub(super) fn eval_columns(extra: bool) -> Vec<&'static str> {
    let mut out = EVAL_COLUMNS.to_vec();
    if extra {
        out.extend(EXTRA_ROW_FIELDS);
    }
    out
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
    extra: bool,
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
            source_id: extra.then_some(c.source_id.as_str()),
            group_id: &c.group_id,
            context: &c.context,
            passage: &c.passage,
            evidence_span: crate::annotate::Span::text_of(final_value(f, Field::EvidenceSpan)),
            calibrated_claim: final_value(f, Field::CalibratedClaim),
            raised_claim: final_value(f, Field::RaisedClaim),
            repair: final_value(f, Field::Repair),
            construction_family: extra.then(|| c.construction_family.as_deref().unwrap_or_default()),
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

/// The evaluation rows of the latest split, with their final fields, in id order. Each row is
/// looked up by its id, so a small evaluation set of a large project reads little of it.
pub fn eval_rows(project: &Project) -> Result<Vec<EvalRow>> {
    let conn = project.conn();
    let (split_id, ..) = latest(conn)?.ok_or_else(|| Error::NoSplit("there is no split".into()))?;
    let roles = read_roles(conn, split_id)?;
    let mut out = Vec::new();
    for id in ids_in(&roles, |r| r.eval) {
        let finals = crate::label::final_fields_between(conn, id, id)?;
        let texts = candidate_texts_between(conn, (id, id), |_| true)?;
        out.extend(pair_lines(&texts, &finals, &[id], None, false).iter().map(EvalRow::from));
    }
    Ok(out)
}

/// Writes rows of `eval.csv` (its header is [`EVAL_COLUMNS`]): the columns of `eval.jsonl`,
/// every text cell made inert for spreadsheets ([`crate::output::inert_cell`]; `eval.jsonl` keeps
/// the exact text).
fn eval_csv(w: &mut dyn std::io::Write, header: bool, eval: &[PairLine<'_>], extra: bool) -> std::io::Result<()> {
    use crate::output::inert_cell;
    let mut c = csv::WriterBuilder::new().has_headers(false).from_writer(w);
    if header {
        c.write_record(eval_columns(extra)).map_err(std::io::Error::other)?;
    }
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
        if extra {
            // The extra fields in their places (see [`eval_columns`]).
            let mut cells: Vec<&str> = cells.to_vec();
            cells.push(l.source_id.unwrap_or_default());
            cells.push(l.construction_family.unwrap_or_default());
            let cells: Vec<String> = cells.into_iter().map(|x| inert_cell(x).into_owned()).collect();
            c.write_record(cells.iter().map(|x| x.as_bytes())).map_err(std::io::Error::other)?;
            continue;
        }
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

/// Hashes what passes on to a file. Used behind a buffer, so it hashes and writes large chunks.
struct HashingWriter<W> {
    file: W,
    hash: Sha256,
}

impl<W: std::io::Write> std::io::Write for HashingWriter<W> {
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
/// nothing planted under its name is ever followed or overwritten. With no `dir`, nothing is
/// written: only the hash is computed (the seal a lock records, [`super::seal`]).
fn write_file(
    dir: Option<&Path>,
    name: &str,
    fill: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<String> {
    use std::io::Write;
    let Some(dir) = dir else {
        let mut w =
            std::io::BufWriter::with_capacity(1 << 20, HashingWriter { file: std::io::sink(), hash: Sha256::new() });
        let io = |e: std::io::Error| Error::Internal(format!("hashing {name} of the export: {e}"));
        fill(&mut w).map_err(io)?;
        let HashingWriter { hash, .. } = w.into_inner().map_err(|e| io(e.into_error()))?;
        return Ok(hex::encode(hash.finalize()));
    };
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
    export_in_slices(project, dir, version, SLICE_ROWS, progress)
}

/// [`export_version`] reading `slice_rows` frozen rows at a time (tests check that the files do
/// not depend on it).
#[doc(hidden)]
pub fn export_in_slices(
    project: &Project,
    dir: &Path,
    version: Option<i64>,
    slice_rows: usize,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<ExportReport> {
    staged_export(project, dir, version, slice_rows, progress, &mut |_, _| Ok(()))
}

/// [`export_version`], with `also(folder, version)` writing more into the new export's folder
/// once the split's files are written and checked, before that folder is put in place: what it
/// writes is published in the same one step as the split's files (a kill at any instant leaves
/// the earlier export whole or the new one with it), and if it fails nothing is published.
pub fn export_with(
    project: &Project,
    dir: &Path,
    version: Option<i64>,
    progress: &mut dyn FnMut(usize, usize),
    also: &mut dyn FnMut(&Path, i64) -> Result<()>,
) -> Result<ExportReport> {
    staged_export(project, dir, version, SLICE_ROWS, progress, also)
}

fn staged_export(
    project: &Project,
    dir: &Path,
    version: Option<i64>,
    slice_rows: usize,
    progress: &mut dyn FnMut(usize, usize),
    also: &mut dyn FnMut(&Path, i64) -> Result<()>,
) -> Result<ExportReport> {
    let staging = super::publish::Staging::prepare(dir)?;
    let written = write_export(project.conn(), Some(staging.path()), version, slice_rows.max(1), progress)
        .and_then(|report| also(staging.path(), report.version).map(|()| report));
    match written {
        Ok(report) => {
            staging.publish()?;
            super::seal::seal_if_unsealed(project.conn(), report.version, &report.files, &report.content_sha256);
            Ok(ExportReport { dir: dir.display().to_string(), ..report })
        }
        Err(e) => {
            let stage = staging.path().to_path_buf();
            staging.discard();
            // Said of the file in the folder asked for: the staging folder's name is nothing a
            // person chose, and it is gone.
            Err(match e {
                Error::Io { path, source } if path.starts_with(&stage) => {
                    Error::io(dir.join(path.strip_prefix(&stage).expect("under the stage")), source)
                }
                other => other,
            })
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

/// Rows of the lock's frozen set read at a time: an export holds a few such slices in memory,
/// whatever the size of the project.
const SLICE_ROWS: usize = 4096;

/// Slices each file's writer may have waiting; the reader waits while a writer is this far behind.
const QUEUED_SLICES: usize = 4;

/// The files written from the rows, slice by slice, in the order [`export_slice`] fills them.
const STREAMED: [&str; 6] =
    ["benchmark.jsonl", "eval.jsonl", "eval.csv", "annotations.jsonl", "adjudications.jsonl", "rejected.jsonl"];

/// What one slice adds to each of the [`STREAMED`] files, and its pairs counted: the pair files'
/// rows (serialised by their writers, so the reading thread is not the only one busy) and the
/// other files' bytes.
struct Slice {
    pairs: std::sync::Arc<PairSlice>,
    bytes: [Vec<u8>; 3],
}

/// The rows of one slice that `benchmark.jsonl`, `eval.jsonl` and `eval.csv` hold.
struct PairSlice {
    texts: Vec<CandidateText>,
    finals: FinalTable,
    /// The slice's evaluation and retained ids that have a candidate, in id order.
    eval: Vec<String>,
    retained: Vec<String>,
    /// Whether `eval.csv` starts here (its header first).
    header: bool,
    /// The split was locked with the [`EXTRA_ROW_FIELDS`].
    extra: bool,
}

impl PairSlice {
    /// Writes this slice's part of pair file `file` (0 `benchmark.jsonl`, 1 `eval.jsonl`, 2
    /// `eval.csv`).
    fn write(&self, file: usize, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        let eval: Vec<&str> = self.eval.iter().map(String::as_str).collect();
        if file == 0 {
            let retained: Vec<&str> = self.retained.iter().map(String::as_str).collect();
            let in_eval: BTreeSet<&str> = eval.iter().copied().collect();
            return jsonl(w, pair_lines(&self.texts, &self.finals, &retained, Some(&in_eval), self.extra));
        }
        let lines = pair_lines(&self.texts, &self.finals, &eval, None, self.extra);
        if file == 1 {
            jsonl(w, &lines)
        } else {
            eval_csv(w, self.header, &lines, self.extra)
        }
    }
}

/// What a writer of a [`STREAMED`] file receives for one slice.
enum Part {
    Pairs(std::sync::Arc<PairSlice>),
    Bytes(Vec<u8>),
}

/// Reads the rows with ids from the first to the last of `covered` (sorted frozen ids) and
/// serialises their lines: every file is in id order, so the slices, in order, make the files.
fn export_slice(
    conn: &Connection,
    split_id: i64,
    covered: &[String],
    people: &HashMap<i64, String>,
    header: bool,
    extra: bool,
) -> Result<Slice> {
    let range = (covered[0].as_str(), covered[covered.len() - 1].as_str());
    let roles = read_roles_between(conn, split_id, range.0, range.1)?;
    let in_split = |id: &str| roles.binary_search_by(|(k, _)| k.as_str().cmp(id)).is_ok();
    let texts = candidate_texts_between(conn, range, |id| in_split(id) || super::lines::holds(covered, id))?;
    let finals = final_fields_between(conn, range.0, range.1)?;
    let mut bytes: [Vec<u8>; 3] = Default::default();
    {
        let annotations = annotation_lines(conn, covered, people, range)?;
        let adjudications = adjudication_lines(conn, covered, &finals, &annotations, people, range)?;
        let rejected = rejected_lines(conn, covered, &texts, range)?;
        let io = |e: std::io::Error| Error::Internal(format!("serialising the export: {e}"));
        annotations.write(&mut bytes[0]).map_err(io)?;
        jsonl(&mut bytes[1], &adjudications).map_err(io)?;
        jsonl(&mut bytes[2], &rejected).map_err(io)?;
    }
    // A pair is written when its candidate is there (as `pair_lines` does).
    let present = |id: &&str| texts.binary_search_by(|t| t.id.as_str().cmp(id)).is_ok();
    let eval = ids_in(&roles, |r| r.eval).into_iter().filter(present).map(String::from).collect();
    let retained = ids_in(&roles, |r| r.retained).into_iter().filter(present).map(String::from).collect();
    let pairs = std::sync::Arc::new(PairSlice { texts, finals, eval, retained, header, extra });
    Ok(Slice { pairs, bytes })
}

/// The file hashes and content hash of locked split `version`'s export, computed without writing
/// anything (the seal its lock records).
pub(super) fn export_hashes(conn: &Connection, version: i64) -> Result<ExportReport> {
    write_export(conn, None, Some(version), SLICE_ROWS, &mut |_, _| {})
}

/// Writes every file of the export into `dir` (the staging folder; with `None`, only hashes).
///
/// The frozen rows are read in slices of [`SLICE_ROWS`] ids on this thread (each table by a
/// range of its key), and each slice's lines go to one writer thread per file, which hashes and
/// writes them while the next slice is read. Memory holds a few slices, not the project.
fn write_export(
    conn: &Connection,
    dir: Option<&Path>,
    version: Option<i64>,
    slice_rows: usize,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<ExportReport> {
    let (split_id, version) = locked_split(conn, version)?;
    let stored: serde_json::Value = conn
        .query_row("SELECT manifest_json FROM splits WHERE id = ?1", [split_id], |r| r.get::<_, Option<String>>(0))?
        .and_then(|m| serde_json::from_str(&m).ok())
        .ok_or_else(|| Error::Corrupt(format!("split v{version} has no manifest")))?;
    let recorded: Recorded = serde_json::from_value(stored.clone())
        .map_err(|e| Error::Corrupt(format!("split v{version}: its stored manifest cannot be read: {e}")))?;
    if let Some(dir) = dir {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    let people = read_people(conn)?;
    // Only a split locked with the extra row fields exports them.
    let extra = stored["extra_row_fields"].as_array().is_some_and(|a| !a.is_empty());

    let total = EXPORT_FILES.len();
    let mut files: BTreeMap<String, String> = BTreeMap::new();
    // Progress as each writer finishes (it signals even if it fails or panics), reported from
    // this thread between slices and while waiting at the end.
    let (finished_tx, finished_rx) = std::sync::mpsc::channel::<()>();
    struct Signal(std::sync::mpsc::Sender<()>);
    impl Drop for Signal {
        fn drop(&mut self) {
            let _ = self.0.send(());
        }
    }
    let mut finished = 0;
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
    let mut eval_ids: Vec<String> = Vec::new();
    let mut retained = 0u64;
    let (read, mut written): (Result<()>, Vec<(&str, Result<String>)>) = std::thread::scope(|scope| {
        let mut writers = Vec::new();
        let mut senders = Vec::new();
        for (file, name) in STREAMED.into_iter().enumerate() {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Part>(QUEUED_SLICES);
            let signal = Signal(finished_tx.clone());
            let writer = scope.spawn(move || {
                let _signal = signal;
                write_file(dir, name, |w| {
                    rx.into_iter().try_for_each(|part| match part {
                        Part::Pairs(pairs) => pairs.write(file, w),
                        Part::Bytes(bytes) => w.write_all(&bytes),
                    })
                })
            });
            writers.push((name, writer));
            senders.push(tx);
        }
        let signal = Signal(finished_tx.clone());
        let removed = &recorded.locality_removed;
        writers.push((
            "locality_removed.jsonl",
            scope.spawn(move || {
                let _signal = signal;
                write_file(dir, "locality_removed.jsonl", |w| jsonl(w, removed))
            }),
        ));
        let read = (|| -> Result<()> {
            let mut stmt =
                conn.prepare("SELECT candidate_id FROM locked_rows WHERE split_id = ?1 ORDER BY candidate_id")?;
            let mut ids = stmt.query([split_id])?;
            let mut covered: Vec<String> = Vec::with_capacity(slice_rows);
            let mut header = true;
            loop {
                let end = match ids.next()? {
                    Some(r) => {
                        covered.push(r.get(0)?);
                        false
                    }
                    None => true,
                };
                if covered.len() == slice_rows || (end && (!covered.is_empty() || header)) {
                    let slice = if covered.is_empty() {
                        // No frozen row at all: the files are written empty (eval.csv its header).
                        let pairs = PairSlice {
                            texts: Vec::new(),
                            finals: FinalTable::default(),
                            eval: Vec::new(),
                            retained: Vec::new(),
                            header,
                            extra,
                        };
                        Slice { pairs: std::sync::Arc::new(pairs), bytes: Default::default() }
                    } else {
                        export_slice(conn, split_id, &covered, &people, header, extra)?
                    };
                    header = false;
                    eval_ids.extend(slice.pairs.eval.iter().cloned());
                    retained += slice.pairs.retained.len() as u64;
                    let parts = [0, 1, 2]
                        .map(|_| Part::Pairs(slice.pairs.clone()))
                        .into_iter()
                        .chain(slice.bytes.map(Part::Bytes));
                    for (tx, part) in senders.iter().zip(parts) {
                        // A writer that stopped (a full disk) has said why; stop reading.
                        if tx.send(part).is_err() {
                            return Ok(());
                        }
                    }
                    covered.clear();
                    report(false);
                }
                if end {
                    return Ok(());
                }
            }
        })();
        drop(senders);
        let mut all = report(false);
        while all < writers.len() {
            all = report(true);
        }
        let written = writers
            .into_iter()
            .map(|(name, h)| {
                let result = h.join().unwrap_or_else(|_| {
                    Err(Error::io(
                        dir.unwrap_or(Path::new("")).join(name),
                        std::io::Error::other("its writer stopped unexpectedly"),
                    ))
                });
                (name, result)
            })
            .collect();
        (read, written)
    });
    read?;
    // In the files' order; the first failure, if any, is the export's error.
    for name in EXPORT_FILES {
        if let Some(at) = written.iter().position(|(n, _)| *n == name) {
            let (_, result) = written.swap_remove(at);
            files.insert(name.to_string(), result?);
        }
    }
    // Every pair the lock counted was written: the frozen rows hold the split's rows.
    if (eval_ids.len() as u64, retained) != (recorded.counts.eval, recorded.counts.retained) {
        return Err(Error::Corrupt(format!(
            "split v{version}: the lock counted {} evaluation and {} retained rows, but {} and {retained} are frozen",
            recorded.counts.eval,
            recorded.counts.retained,
            eval_ids.len()
        )));
    }
    let mut done = |name: &str, hash: String, files: &mut BTreeMap<String, String>| {
        files.insert(name.to_string(), hash);
        progress(files.len(), total);
    };

    let capped: Vec<String> = recorded.capped.iter().map(|c| c.id.clone()).collect();
    let removed: Vec<String> = recorded.locality_removed.iter().map(|c| c.id.clone()).collect();
    let content_sha256 =
        sha256_hex(&canonical_content(&stored["params"], &files["benchmark.jsonl"], &eval_ids, &capped, &removed));
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
    // The export must be the one its lock sealed, or it is not published. (Hashes alone are
    // computed by the lock itself, before its seal exists.)
    if dir.is_some() {
        super::seal::check(conn, split_id, version, &stored, &files, &content_sha256)?;
    }
    Ok(ExportReport { dir: dir.unwrap_or(Path::new("")).display().to_string(), version, files, content_sha256 })
}
