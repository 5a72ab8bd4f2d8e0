//! Candidate import from CSV and JSONL (`schema/candidate.schema.json`).
//!
//! Import is all-or-nothing: the file is read and every row validated first, and only a file with
//! no problem at all is written, in one transaction. Each problem names the file, the line and the
//! field. Rows already in the project with identical content are skipped (re-importing a file is
//! a no-op); a row whose id exists with different content makes the whole import fail, listing the
//! rows and the fields that differ: stored rows are never overwritten.
//!
//! The file is read through [`crate::input`] (a regular file, within the size limits, UTF-8), and
//! JSONL lines are parsed strictly (no repeated keys, severity a number). Both formats are first
//! turned into [`RawRow`]s (line number plus field values as text), so
//! validation is written once. A new format needs only a reader producing `RawRow`s.

use rusqlite::params;
use serde::Serialize;
use std::collections::HashMap;
use std::path::Path;
use ts_rs::TS;

use crate::candidate::{self, Candidate, IMPORT_FIELDS as FIELDS, REQUIRED};
use crate::error::{Error, Result};
use crate::input::{check_identifier, field_text, field_too_long, into_nfc, parse_object, ValueKind, MAX_LINE_BYTES};
use crate::project::{now, Project};
use crate::vocab::{Axis, SEVERITIES};

pub use crate::problem::{ImportConflict, InputProblem};

mod pipeline;

/// An import's refusal as the app shows it: the error's `code` and `message`, plus each problem
/// or conflict, so that the view lists them row by row rather than parsing the message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ImportRefusal {
    pub code: String,
    pub message: String,
    pub problems: Vec<InputProblem>,
    pub conflicts: Vec<ImportConflict>,
}

impl From<Error> for ImportRefusal {
    fn from(e: Error) -> Self {
        let crate::error::ErrorPayload { code, message } = e.payload();
        let (problems, conflicts) = match e {
            Error::InvalidInput { problems, .. } => (problems, Vec::new()),
            Error::ImportConflict { conflicts, .. } => (Vec::new(), conflicts),
            _ => (Vec::new(), Vec::new()),
        };
        ImportRefusal { code, message, problems, conflicts }
    }
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ImportReport {
    pub file: String,
    pub format: InputFormat,
    pub file_sha256: String,
    #[ts(type = "number")]
    pub rows_read: u64,
    #[ts(type = "number")]
    pub inserted: u64,
    #[ts(type = "number")]
    pub unchanged: u64,
}

impl ImportReport {
    pub fn summary(&self) -> String {
        let s = |n: u64| if n == 1 { "" } else { "s" };
        let (new, same) = (self.inserted, self.unchanged);
        if new == 0 {
            format!("{}: all {} row{} already in the project; nothing changed", self.file, same, s(same))
        } else if same == 0 {
            format!("{}: imported {new} new row{}", self.file, s(new))
        } else {
            format!("{}: imported {new} new row{}; {same} already in the project unchanged", self.file, s(new))
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum InputFormat {
    Csv,
    Jsonl,
}

impl InputFormat {
    /// The format named by a file's extension: `.csv`, or `.jsonl` / `.ndjson`.
    pub fn from_path(path: &Path) -> std::result::Result<Self, String> {
        let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("csv") => Ok(InputFormat::Csv),
            Some("jsonl") | Some("ndjson") => Ok(InputFormat::Jsonl),
            Some(other) => Err(format!("unknown extension `.{other}`; candidate files must end in .csv or .jsonl")),
            None => Err("the file has no extension; candidate files must end in .csv or .jsonl".into()),
        }
    }
}

/// Progress of a long import, reported while reading: bytes parsed so far out of the total.
pub type Progress<'a> = &'a mut dyn FnMut(u64, u64);

/// One row as read from a file, before validation: values by position in the layout's fields
/// (`None` = null or absent).
pub(crate) struct RawRow {
    pub(crate) line: u64,
    pub(crate) values: Vec<Option<String>>,
    /// For a CSV record over several lines: the line each field starts on, by field index, so a
    /// problem names the field's own line rather than the record's first.
    pub(crate) field_lines: Option<Vec<u64>>,
}

/// The line a problem with `field` of a candidate row is reported on: the field's own, when
/// known.
fn field_line(line: u64, field_lines: Option<&[u64]>, field: &str) -> u64 {
    match (field_lines, field_index(field)) {
        (Some(lines), Some(i)) => lines.get(i).copied().unwrap_or(line),
        _ => line,
    }
}

/// The line each column of the CSV record starting at byte `start` (on line `line`) begins on,
/// found by walking the record's bytes as CSV quotes them (a line break inside quotes belongs to
/// the field; outside, it ends the record).
fn column_lines(bytes: &[u8], start: usize, line: u64, columns: usize) -> Vec<u64> {
    let mut out = Vec::with_capacity(columns);
    out.push(line);
    let (mut at, mut quoted) = (line, false);
    for b in bytes.iter().skip(start) {
        match b {
            b'"' => quoted = !quoted,
            b',' if !quoted => {
                if out.len() == columns {
                    break;
                }
                out.push(at);
            }
            b'\n' if quoted => at += 1,
            b'\n' => break,
            _ => {}
        }
    }
    out
}

/// What a row file holds: its fields in order, which must be filled, which hold numbers, and
/// other names a column or key may carry for a field (`(alias, field)`). Candidates and
/// contexts are read by the same readers through their own layouts.
pub(crate) struct Layout {
    pub(crate) fields: &'static [&'static str],
    pub(crate) required: &'static [&'static str],
    pub(crate) numbers: &'static [&'static str],
    pub(crate) aliases: &'static [(&'static str, &'static str)],
}

/// The candidate file's layout.
pub(crate) const CANDIDATES: Layout =
    Layout { fields: FIELDS, required: REQUIRED, numbers: &["severity"], aliases: &[] };

impl Layout {
    /// The field a column or key names, directly or through an alias.
    fn field(&self, name: &str) -> Option<&'static str> {
        self.fields
            .iter()
            .copied()
            .find(|f| *f == name)
            .or_else(|| self.aliases.iter().find(|(alias, _)| *alias == name).map(|(_, f)| *f))
    }

    pub(crate) fn index(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| *f == name)
    }

    /// The problem with a second column or key for a field already read.
    fn repeated(&self, name: &str, field: &str, first: &str) -> String {
        if name == field && first == field {
            "this column appears twice in the header".into()
        } else {
            format!("`{first}` and `{name}` both name the field `{field}`; keep one of them")
        }
    }
}

fn field_index(name: &str) -> Option<usize> {
    CANDIDATES.index(name)
}

/// Collects problems against one file.
pub(crate) struct Problems {
    pub(crate) file: String,
    pub(crate) list: Vec<InputProblem>,
}

impl Problems {
    pub(crate) fn add(&mut self, line: Option<u64>, field: Option<&str>, message: impl Into<String>) {
        self.list.push(InputProblem {
            file: self.file.clone(),
            line,
            field: field.map(str::to_string),
            message: message.into(),
        });
    }
}

/// Imports the candidate file at `path` into the project.
pub fn import_file(project: &mut Project, path: &Path, progress: Progress) -> Result<ImportReport> {
    let file = path.display().to_string();
    let format = InputFormat::from_path(path).map_err(|message| Error::InvalidInput {
        file: file.clone(),
        problems: vec![InputProblem { file: file.clone(), line: None, field: None, message }],
    })?;
    let bytes = crate::input::read_bytes(path)?;
    import_bytes(project, &file, format, &bytes, progress)
}

/// Reads the rows of a decoded file through `layout`, as every row file is read: an empty file
/// is refused, a file with no data rows is a problem; the rows come back with the problems found
/// so far, for the caller's own checks to add to.
pub(crate) fn read_file_rows(
    layout: &Layout,
    file: &str,
    format: InputFormat,
    bytes: &[u8],
    progress: Progress,
) -> Result<(Vec<RawRow>, Problems)> {
    let mut problems = Problems { file: file.to_string(), list: Vec::new() };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        problems.add(None, None, "the file is empty");
        return Err(invalid(problems));
    }
    let raw = read_rows(layout, format, bytes, &mut problems, progress);
    if raw.is_empty() && problems.list.is_empty() {
        problems.add(None, None, "the file has no data rows");
    }
    Ok((raw, problems))
}

/// Imports candidates held in memory; `file` names them in messages and in the import log.
pub fn import_bytes(
    project: &mut Project,
    file: &str,
    format: InputFormat,
    bytes: &[u8],
    progress: Progress,
) -> Result<ImportReport> {
    crate::settings::lead_only(project.conn(), "importing candidates")?;
    let bytes = crate::input::decode(file, bytes)?.as_bytes();
    pipeline::import(project, file, format, bytes, progress)
}

/// Reads the rows of a file in `format` by `layout`, recording every problem.
pub(crate) fn read_rows(
    layout: &Layout,
    format: InputFormat,
    bytes: &[u8],
    problems: &mut Problems,
    progress: Progress,
) -> Vec<RawRow> {
    let mut rows = Vec::new();
    each_row(layout, format, bytes, problems, progress, &mut |row, _| rows.push(row));
    rows
}

/// What receives each row as it is read, with the problems recorded so far (to add its own).
pub(crate) type RowSink<'a> = &'a mut dyn FnMut(RawRow, &mut Problems);

/// Reads the rows of a file in `format` by `layout`, handing each to `sink` as soon as it is
/// read (so it can be checked and written while the rest is still being parsed), and recording
/// every problem.
pub(crate) fn each_row(
    layout: &Layout,
    format: InputFormat,
    bytes: &[u8],
    problems: &mut Problems,
    progress: Progress,
    sink: RowSink,
) {
    match format {
        InputFormat::Csv => read_csv(layout, bytes, problems, progress, sink),
        InputFormat::Jsonl => read_jsonl(layout, bytes, problems, progress, sink),
    }
}

pub(crate) fn invalid(problems: Problems) -> Error {
    Error::InvalidInput { file: problems.file, problems: problems.list }
}

/// The line of the file a CSV record starts on, as an editor numbers it (the header is line 1).
///
/// The csv reader's own line count is one short after a CRLF line end (it ends a record at the
/// `\r` and counts the `\n` only while reading the next one) and points at a blank line skipped
/// before a record. A record's position is the byte where its read began: its first line is the
/// one holding the first byte after any line breaks there. Records come in file order, so the
/// count moves forward only.
pub(crate) struct FileLines<'a> {
    bytes: &'a [u8],
    /// The byte `line` was counted up to.
    at: usize,
    line: u64,
}

impl<'a> FileLines<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        FileLines { bytes, at: 0, line: 1 }
    }

    /// The line the record whose read began at byte `byte` starts on.
    pub(crate) fn of_record_at(&mut self, byte: u64) -> u64 {
        let mut start = (byte as usize).min(self.bytes.len());
        while start < self.bytes.len() && matches!(self.bytes[start], b'\r' | b'\n') {
            start += 1;
        }
        if start < self.at {
            (self.at, self.line) = (0, 1);
        }
        self.line += memchr::memchr_iter(b'\n', &self.bytes[self.at..start]).count() as u64;
        self.at = start;
        self.line
    }
}

/// Reports progress every this many bytes (and at the end).
const PROGRESS_STEP: u64 = 256 * 1024;

fn read_csv(layout: &Layout, bytes: &[u8], problems: &mut Problems, progress: Progress, sink: RowSink) {
    let total = bytes.len() as u64;
    let mut reader = csv::ReaderBuilder::new().has_headers(true).flexible(false).from_reader(bytes);
    let headers = match reader.headers() {
        Ok(h) => h.clone(),
        Err(e) => {
            problems.add(Some(1), None, format!("cannot read the header row: {e}"));
            return;
        }
    };
    // Map each column to a known field; unknown and repeated columns are errors (a typo in a
    // header would otherwise silently drop a whole column).
    let mut columns: Vec<Option<&'static str>> = Vec::with_capacity(headers.len());
    let mut named: Vec<&str> = Vec::with_capacity(headers.len());
    for name in headers.iter() {
        let name = name.trim();
        match layout.field(name) {
            Some(f) if columns.contains(&Some(f)) => {
                let first = named[columns.iter().position(|c| *c == Some(f)).expect("seen")];
                problems.add(Some(1), Some(f), layout.repeated(name, f, first));
                columns.push(None);
            }
            Some(f) => columns.push(Some(f)),
            None => {
                problems.add(
                    Some(1),
                    Some(name),
                    format!("unknown column; the columns are {}", layout.fields.join(", ")),
                );
                columns.push(None);
            }
        }
        named.push(name);
    }
    for required in layout.required {
        if !columns.contains(&Some(*required)) {
            problems.add(Some(1), Some(required), "required column is missing from the header");
        }
    }
    if !problems.list.is_empty() {
        return;
    }

    let mut record = csv::StringRecord::new();
    let mut next_report = PROGRESS_STEP;
    let mut lines = FileLines::new(bytes);
    loop {
        let line = lines.of_record_at(reader.position().byte());
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                match e.kind() {
                    csv::ErrorKind::UnequalLengths { pos, expected_len, len } => problems.add(
                        Some(pos.as_ref().map_or(line, |p| lines.of_record_at(p.byte()))),
                        None,
                        format!("this row has {len} fields but the header has {expected_len}"),
                    ),
                    _ => {
                        problems.add(Some(line), None, format!("cannot read this row: {e}"));
                        if matches!(e.kind(), csv::ErrorKind::Io(_)) {
                            break;
                        }
                    }
                }
                continue;
            }
        }
        let line = record.position().map_or(line, |p| lines.of_record_at(p.byte()));
        // A record over several lines (a field holds a line break): where each field starts.
        let field_lines = record.iter().any(|v| v.contains('\n')).then(|| {
            let start = record.position().map_or(0, |p| p.byte() as usize);
            let mut start = start.min(bytes.len());
            while start < bytes.len() && matches!(bytes[start], b'\r' | b'\n') {
                start += 1;
            }
            let mut by_field = vec![line; layout.fields.len()];
            for (field, at) in columns.iter().zip(column_lines(bytes, start, line, columns.len())) {
                let field = field.expect("unknown columns were rejected above");
                by_field[layout.index(field).expect("known field")] = at;
            }
            by_field
        });
        let mut values: Vec<Option<String>> = vec![None; layout.fields.len()];
        for (field, value) in columns.iter().zip(record.iter()) {
            let field = field.expect("unknown columns were rejected above");
            let i = layout.index(field).expect("known field");
            if value.len() > MAX_LINE_BYTES {
                // Kept, so the row is not also reported as missing this field.
                let at = field_lines.as_ref().map_or(line, |l| l[i]);
                problems.add(Some(at), Some(field), field_too_long(value.len()));
            }
            values[i] = Some(value.to_string());
        }
        sink(RawRow { line, values, field_lines }, problems);
        let done = reader.position().byte();
        if done >= next_report {
            progress(done, total);
            next_report = done + PROGRESS_STEP;
        }
    }
    progress(total, total);
}

fn read_jsonl(layout: &Layout, bytes: &[u8], problems: &mut Problems, progress: Progress, sink: RowSink) {
    let total = bytes.len() as u64;
    let mut offset = 0u64;
    let mut next_report = PROGRESS_STEP;
    for (index, raw_line) in bytes.split(|b| *b == b'\n').enumerate() {
        let line = index as u64 + 1;
        offset += raw_line.len() as u64 + 1;
        if offset >= next_report {
            progress(offset.min(total), total);
            next_report = offset + PROGRESS_STEP;
        }
        let text = std::str::from_utf8(raw_line).expect("decode checked the whole file");
        let text = text.strip_suffix('\r').unwrap_or(text);
        if text.trim().is_empty() {
            continue;
        }
        let object = match parse_object(text) {
            Ok(map) => map,
            Err(p) => {
                problems.add(Some(line), p.field.as_deref(), p.message);
                continue;
            }
        };
        let mut values: Vec<Option<String>> = vec![None; layout.fields.len()];
        let mut named: Vec<(&'static str, String)> = Vec::new();
        for (key, value) in object {
            let Some(field) = layout.field(&key) else {
                problems.add(
                    Some(line),
                    Some(&key),
                    format!("unknown field; the fields are {}", layout.fields.join(", ")),
                );
                continue;
            };
            if let Some((_, first)) = named.iter().find(|(f, _)| *f == field) {
                problems.add(Some(line), Some(field), layout.repeated(&key, field, first));
                continue;
            }
            named.push((field, key.clone()));
            let kind = if layout.numbers.contains(&field) { ValueKind::WholeNumber } else { ValueKind::Text };
            match field_text(kind, value) {
                Ok(text) => values[layout.index(field).expect("known field")] = text,
                Err(message) => problems.add(Some(line), Some(field), message),
            }
        }
        sink(RawRow { line, values, field_lines: None }, problems);
    }
    progress(total, total);
}

/// Validates every row; returns the valid candidates with their lines, and records problems.
pub(crate) fn validate_all(raw: Vec<RawRow>, problems: &mut Problems) -> Vec<(u64, Candidate)> {
    let mut first_line_of: HashMap<String, u64> = HashMap::with_capacity(raw.len());
    let mut rows = Vec::with_capacity(raw.len());
    for row in raw {
        let line = row.line;
        if let Some(candidate) = validate(row, problems) {
            if let Some(first) = first_line_of.get(&candidate.id) {
                problems.add(
                    Some(line),
                    Some("id"),
                    format!("duplicate id `{}` (first used on line {first})", candidate.id),
                );
                continue;
            }
            first_line_of.insert(candidate.id.clone(), line);
            rows.push((line, candidate));
        }
    }
    rows
}

/// Validates one row. Identifier-like fields are trimmed; text fields are kept exactly as given
/// (but a value of only white space counts as empty).
fn validate(mut row: RawRow, problems: &mut Problems) -> Option<Candidate> {
    let (first, field_lines) = (row.line, row.field_lines.take());
    let at = |field: &str| Some(field_line(first, field_lines.as_deref(), field));
    let before = problems.list.len();
    let mut take = |name: &'static str, trim: bool| -> Option<String> {
        let value = row.values[field_index(name).expect("known field")].take()?;
        let trimmed = value.trim();
        if trimmed.is_empty() {
            None
        } else if trim && trimmed.len() != value.len() {
            Some(trimmed.to_string())
        } else {
            Some(value)
        }
    };
    let id = take("id", true);
    let group_id = take("group_id", true);
    let source_dataset = take("source_dataset", true);
    let source_id = take("source_id", true);
    let context = take("context", false);
    let passage = take("passage", false);
    let evidence_span = take("evidence_span", false);
    let calibrated_claim = take("calibrated_claim", false);
    let raised_claim = take("raised_claim", false);
    let repair = take("repair", false);
    let rationale = take("rationale", false);
    let axis = take("axis", true);
    let severity = take("severity", true);
    let construction_family = take("construction_family", true);

    let mut required = |name: &str, value: Option<String>| -> String {
        if value.is_none() {
            problems.add(at(name), Some(name), "required field is missing or empty");
        }
        value.unwrap_or_default()
    };
    let id = required("id", id);
    let group_id = required("group_id", group_id);
    let source_dataset = required("source_dataset", source_dataset);
    let context = required("context", context);
    let passage = required("passage", passage);
    let calibrated_claim = required("calibrated_claim", calibrated_claim);
    let raised_claim = required("raised_claim", raised_claim);
    // Identifiers in one Unicode form: `café` composed or decomposed is one id.
    let (id, group_id, source_dataset) = (into_nfc(id), into_nfc(group_id), into_nfc(source_dataset));
    let source_id = source_id.map(into_nfc);
    for (name, value) in [("id", &id), ("group_id", &group_id), ("source_dataset", &source_dataset)]
        .into_iter()
        .chain(source_id.as_ref().map(|v| ("source_id", v)))
        .chain(construction_family.as_ref().map(|v| ("construction_family", v)))
    {
        if let Err(message) = check_identifier(name, value) {
            problems.add(at(name), Some(name), message);
        }
    }

    let axis = axis.and_then(|a| match a.parse::<Axis>() {
        Ok(axis) => Some(axis),
        Err(_) => {
            problems.add(at("axis"), Some("axis"), format!("unknown axis `{a}`; expected {}", Axis::expected()));
            None
        }
    });
    let severity = severity.and_then(|s| match s.parse::<i64>() {
        Ok(n) if SEVERITIES.contains(&n) => Some(n as u8),
        Ok(n) => {
            problems.add(at("severity"), Some("severity"), format!("severity {n} is outside 1-3"));
            None
        }
        Err(_) => {
            problems.add(at("severity"), Some("severity"), format!("severity `{s}` is not a whole number 1-3"));
            None
        }
    });
    if let Some(span) = &evidence_span {
        if !passage.is_empty() && !passage.contains(span.as_str()) {
            problems.add(at("evidence_span"), Some("evidence_span"), span_mismatch(span, &passage));
        }
    }
    if problems.list.len() > before {
        return None;
    }
    Some(Candidate {
        id,
        group_id,
        source_dataset,
        source_id: source_id.unwrap_or_default(),
        context,
        passage,
        evidence_span,
        calibrated_claim,
        raised_claim,
        repair,
        rationale,
        axis,
        severity,
        construction_family,
    })
}

/// Explains a span that is not in the passage, with a hint when it nearly is.
fn span_mismatch(span: &str, passage: &str) -> String {
    let base = "suggested span is not a verbatim substring of the passage";
    let fold = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    if fold(passage).contains(&fold(span)) {
        format!("{base} (it matches only if case and spacing are ignored; copy it exactly)")
    } else {
        base.to_string()
    }
}

/// The validated rows not in the project yet, with their content hashes; rows already there
/// with the same content are counted as unchanged, and a row whose id is there with other
/// content refuses the whole write (every such row is listed).
pub(crate) fn new_rows(
    project: &Project,
    rows: Vec<(u64, Candidate)>,
    mut report: ImportReport,
) -> Result<(Vec<(Candidate, String)>, ImportReport)> {
    let mut conflicts = Vec::new();
    let mut new_rows = Vec::with_capacity(rows.len());
    let pool_is_empty: bool =
        project.conn().query_row("SELECT NOT EXISTS (SELECT 1 FROM candidates)", [], |r| r.get(0))?;
    if pool_is_empty {
        new_rows = rows
            .into_iter()
            .map(|(_, row)| {
                let hash = row.content_hash();
                (row, hash)
            })
            .collect();
    } else {
        let mut existing = project.conn().prepare("SELECT content_sha256 FROM candidates WHERE id = ?1")?;
        for (line, row) in rows {
            let hash = row.content_hash();
            let stored: Option<String> =
                existing.query_row([&row.id], |r| r.get(0)).map(Some).or_else(|e| match e {
                    rusqlite::Error::QueryReturnedNoRows => Ok(None),
                    e => Err(e),
                })?;
            match stored {
                None => new_rows.push((row, hash)),
                Some(s) if s == hash => report.unchanged += 1,
                Some(_) => {
                    let old = candidate::find(project, &row.id)?.expect("row with this id exists");
                    let fields = old.differing_fields(&row).into_iter().map(String::from).collect();
                    conflicts.push(ImportConflict { id: row.id, line, fields });
                }
            }
        }
    }
    if !conflicts.is_empty() {
        return Err(Error::ImportConflict { file: report.file, conflicts });
    }
    Ok((new_rows, report))
}

/// Writes the record of one file's import into `imports_table` (`imports` for candidates,
/// `context_imports` for contexts) and gives its id and the first free `seq` of `rows_table`,
/// which numbers the new rows in file order after every row already there.
pub(crate) fn record_import(
    tx: &rusqlite::Transaction,
    imports_table: &'static str,
    rows_table: &'static str,
    report: &ImportReport,
    inserted: usize,
) -> Result<(i64, i64)> {
    tx.execute(
        &format!(
            "INSERT INTO {imports_table} (file_name, file_sha256, imported_at, rows_read, rows_inserted, rows_unchanged)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
        ),
        params![
            report.file,
            report.file_sha256,
            now(),
            report.rows_read as i64,
            inserted as i64,
            report.unchanged as i64
        ],
    )?;
    let import_id = tx.last_insert_rowid();
    let first_seq: i64 =
        tx.query_row(&format!("SELECT coalesce(max(seq), 0) + 1 FROM {rows_table}"), [], |r| r.get(0))?;
    Ok((import_id, first_seq))
}

/// Inserts new candidate rows (from [`new_rows`]) and the import record naming where they came
/// from, inside the caller's transaction.
pub(crate) fn insert_rows(
    tx: &rusqlite::Transaction,
    new_rows: &[(Candidate, String)],
    mut report: ImportReport,
) -> Result<ImportReport> {
    let (import_id, first_seq) = record_import(tx, "imports", "candidates", &report, new_rows.len())?;
    insert_candidates(tx, import_id, first_seq, new_rows)?;
    report.inserted = new_rows.len() as u64;
    Ok(report)
}

/// Inserts candidate rows with their content hashes, numbered in order from `first_seq` and
/// recorded as brought by import `import_id`, one prepared statement reused for every row.
///
/// Several rows to one `INSERT ... VALUES (...), (...)` statement were measured and not kept:
/// SQLite runs such a statement as a co-routine that copies every value once more, which cost
/// more (0.1 s of CPU more over 100,000 rows) than the per-statement journal and start it saved.
pub(crate) fn insert_candidates(
    conn: &rusqlite::Connection,
    import_id: i64,
    first_seq: i64,
    rows: &[(Candidate, String)],
) -> Result<()> {
    let mut insert = conn.prepare_cached(
        "INSERT INTO candidates (id, seq, group_id, source_dataset, source_id, context, passage,
             evidence_span, calibrated_claim, raised_claim, repair, rationale, axis, severity,
             content_sha256, import_id, construction_family)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
    )?;
    for (offset, (c, hash)) in rows.iter().enumerate() {
        insert.execute(params![
            c.id,
            first_seq + offset as i64,
            c.group_id,
            c.source_dataset,
            c.source_id,
            c.context,
            c.passage,
            c.evidence_span,
            c.calibrated_claim,
            c.raised_claim,
            c.repair,
            c.rationale,
            c.axis.map(Axis::as_str),
            c.severity,
            hash,
            import_id,
            c.construction_family,
        ])?;
    }
    Ok(())
}

pub use crate::input::{jsonl_objects, JsonLine};
