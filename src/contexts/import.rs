//! Context import from CSV and JSONL (`schema/context.schema.json`), read exactly as candidate
//! files are (through [`crate::import`]'s readers and [`crate::input`]'s rules): all or nothing,
//! every problem named by file, line and field, identical rows skipped, a changed row refused.
//!
//! Cited QA and attribution resources name the same things differently, so a column (or JSONL
//! key) may carry one of the names in [`FIELD_NAMES`] instead of the field's own: one table, not
//! a loader per dataset. Two names for one field in the same file are refused.

use rusqlite::params;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::Path;

use crate::error::{Error, Result};
use crate::import::{self as rows, ImportReport, InputFormat, Layout, Problems, Progress, RawRow};
use crate::input::{check_identifier, nfc};
use crate::problem::ImportConflict;
use crate::project::Project;

/// The context fields, in canonical order (the order of the hash input).
pub const FIELDS: &[&str] = &["id", "group_id", "source_dataset", "source_id", "context", "passage"];

/// Fields a context file must fill.
pub const REQUIRED: &[&str] = &["id", "source_dataset", "source_id", "context", "passage"];

/// Other names a column or key may carry for a field, as common cited QA and attribution
/// resources name them: `(name in the file, field)`. Documented in docs/formats.md.
pub const FIELD_NAMES: &[(&str, &str)] = &[
    ("context_id", "id"),
    ("group", "group_id"),
    ("dataset", "source_dataset"),
    ("source", "source_dataset"),
    ("example_id", "source_id"),
    ("question_id", "source_id"),
    ("qid", "source_id"),
    ("question", "context"),
    ("query", "context"),
    ("answer", "context"),
    ("claim", "context"),
    ("statement", "context"),
    ("evidence", "passage"),
    ("cited_passage", "passage"),
    ("citation_text", "passage"),
    ("document", "passage"),
    ("snippet", "passage"),
];

const LAYOUT: Layout = Layout { fields: FIELDS, required: REQUIRED, numbers: &[], aliases: FIELD_NAMES };

/// One context as imported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Context {
    pub id: String,
    pub group_id: Option<String>,
    pub source_dataset: String,
    pub source_id: String,
    pub context: String,
    pub passage: String,
}

impl Context {
    /// sha256 (hex) of the compact JSON array of the six fields in [`FIELDS`] order (a missing
    /// group as `null`), as a candidate's content hash is made.
    pub fn content_hash(&self) -> String {
        let values = serde_json::json!([
            self.id,
            self.group_id,
            self.source_dataset,
            self.source_id,
            self.context,
            self.passage
        ]);
        hex::encode(Sha256::digest(values.to_string().as_bytes()))
    }

    fn differing_fields(&self, other: &Context) -> Vec<String> {
        let mut out = Vec::new();
        for (name, same) in [
            ("group_id", self.group_id == other.group_id),
            ("source_dataset", self.source_dataset == other.source_dataset),
            ("source_id", self.source_id == other.source_id),
            ("context", self.context == other.context),
            ("passage", self.passage == other.passage),
        ] {
            if !same {
                out.push(name.to_string());
            }
        }
        out
    }
}

/// Imports the context file at `path` into the project.
pub fn import_file(project: &mut Project, path: &Path, progress: Progress) -> Result<ImportReport> {
    let file = path.display().to_string();
    let format = InputFormat::from_path(path).map_err(|message| Error::InvalidInput {
        file: file.clone(),
        problems: vec![crate::problem::InputProblem {
            file: file.clone(),
            line: None,
            field: None,
            message: message.replace("candidate files", "context files"),
        }],
    })?;
    let bytes = crate::input::read_bytes(path)?;
    import_bytes(project, &file, format, &bytes, progress)
}

/// Imports contexts held in memory; `file` names them in messages and in the import record.
pub fn import_bytes(
    project: &mut Project,
    file: &str,
    format: InputFormat,
    bytes: &[u8],
    progress: Progress,
) -> Result<ImportReport> {
    crate::settings::lead_only(project.conn(), "importing contexts")?;
    let bytes = crate::input::decode(file, bytes)?.as_bytes();
    let (raw, mut problems) = rows::read_file_rows(&LAYOUT, file, format, bytes, progress)?;
    let mut first_line_of: HashMap<String, u64> = HashMap::new();
    let mut contexts = Vec::with_capacity(raw.len());
    for row in raw {
        let line = row.line;
        let Some(c) = validate(row, &mut problems) else { continue };
        if let Some(first) = first_line_of.get(&c.id) {
            problems.add(Some(line), Some("id"), format!("duplicate id `{}` (first used on line {first})", c.id));
            continue;
        }
        first_line_of.insert(c.id.clone(), line);
        contexts.push((line, c));
    }
    if !problems.list.is_empty() {
        return Err(rows::invalid(problems));
    }
    let report = ImportReport {
        file: file.to_string(),
        format,
        file_sha256: hex::encode(Sha256::digest(bytes)),
        rows_read: contexts.len() as u64,
        inserted: 0,
        unchanged: 0,
    };
    write(project, contexts, report)
}

/// Validates one row: identifiers trimmed, NFC and free of invisible characters; text kept as
/// given (a value of only white space counts as empty).
fn validate(mut row: RawRow, problems: &mut Problems) -> Option<Context> {
    let line = Some(row.line);
    let before = problems.list.len();
    let mut take = |name: &str, trim: bool| -> Option<String> {
        let value = row.values[LAYOUT.index(name).expect("known field")].take()?;
        if value.trim().is_empty() {
            None
        } else if trim {
            Some(nfc(value.trim()))
        } else {
            Some(value)
        }
    };
    let values = [
        take("id", true),
        take("group_id", true),
        take("source_dataset", true),
        take("source_id", true),
        take("context", false),
        take("passage", false),
    ];
    for (name, value) in FIELDS.iter().zip(&values) {
        match value {
            None if REQUIRED.contains(name) => problems.add(line, Some(name), "required field is missing or empty"),
            Some(v) if *name != "context" && *name != "passage" => {
                if let Err(message) = check_identifier(name, v) {
                    problems.add(line, Some(name), message);
                }
            }
            _ => {}
        }
    }
    if problems.list.len() > before {
        return None;
    }
    let [id, group_id, source_dataset, source_id, context, passage] = values;
    Some(Context {
        id: id.expect("required"),
        group_id,
        source_dataset: source_dataset.expect("required"),
        source_id: source_id.expect("required"),
        context: context.expect("required"),
        passage: passage.expect("required"),
    })
}

/// Reads the stored context with this id. The statement is prepared once per connection: an
/// import asks it for every row of the file.
fn stored(conn: &rusqlite::Connection, id: &str) -> Result<Option<(String, Context)>> {
    use rusqlite::OptionalExtension;
    Ok(conn
        .prepare_cached(
            "SELECT content_sha256, id, group_id, source_dataset, source_id, context, passage FROM contexts WHERE id = ?1",
        )?
        .query_row(
            [id],
            |r| {
                Ok((
                    r.get(0)?,
                    Context {
                        id: r.get(1)?,
                        group_id: r.get(2)?,
                        source_dataset: r.get(3)?,
                        source_id: r.get(4)?,
                        context: r.get(5)?,
                        passage: r.get(6)?,
                    },
                ))
            },
        )
        .optional()?)
}

/// Writes the new contexts in one transaction, or nothing if any id is taken by other content.
fn write(project: &mut Project, contexts: Vec<(u64, Context)>, mut report: ImportReport) -> Result<ImportReport> {
    let mut conflicts = Vec::new();
    let mut new = Vec::new();
    for (line, c) in contexts {
        let hash = c.content_hash();
        match stored(project.conn(), &c.id)? {
            None => new.push((c, hash)),
            Some((h, _)) if h == hash => report.unchanged += 1,
            Some((_, old)) => {
                conflicts.push(ImportConflict { id: c.id.clone(), line, fields: old.differing_fields(&c) })
            }
        }
    }
    if !conflicts.is_empty() {
        return Err(Error::ImportConflict { file: report.file, conflicts });
    }
    if new.is_empty() {
        return Ok(report);
    }
    let tx = project.conn_mut().transaction()?;
    let (import_id, first_seq) = rows::record_import(&tx, "context_imports", "contexts", &report, new.len())?;
    {
        let mut insert = tx.prepare(
            "INSERT INTO contexts (id, seq, group_id, source_dataset, source_id, context, passage, content_sha256, import_id)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?;
        for (offset, (c, hash)) in new.iter().enumerate() {
            insert.execute(params![
                c.id,
                first_seq + offset as i64,
                c.group_id,
                c.source_dataset,
                c.source_id,
                c.context,
                c.passage,
                hash,
                import_id
            ])?;
        }
    }
    tx.commit()?;
    report.inserted = new.len() as u64;
    Ok(report)
}
