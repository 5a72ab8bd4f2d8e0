//! Annotations read from a JSONL file (`schema/annotation.schema.json`), all or nothing.

use serde::Serialize;
use std::path::Path;
use ts_rs::TS;

use super::*;
use crate::candidate;
use crate::error::{Error, Result};
use crate::import::InputProblem;
use crate::project::Project;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct AnnotationImportReport {
    pub file: String,
    pub annotator: String,
    #[ts(type = "number")]
    pub rows: u64,
    #[ts(type = "number")]
    pub changed_fields: u64,
}

/// Sets annotations from a JSONL file (`schema/annotation.schema.json`), one object per row, for
/// one annotator. Keys left out keep their current (or pre-filled) value, confirming a pre-filled
/// suggestion; `null` clears. Every row must end up finished (valid for its decision). All or
/// nothing.
pub fn import_jsonl(project: &mut Project, path: &Path, annotator: &str) -> Result<AnnotationImportReport> {
    let annotator: &str = &crate::input::name_key(annotator)?;
    project.bulk(|project| import_jsonl_in(project, path, annotator))
}

fn import_jsonl_in(project: &mut Project, path: &Path, annotator: &str) -> Result<AnnotationImportReport> {
    let (file, text) = crate::input::read_text(path)?;
    let who = roster::require(project, annotator)?;
    type Row = (u64, String, Vec<(Field, Option<String>)>); // line, id, changes
    let mut parsed: Vec<Row> = Vec::new();
    let mut seen = std::collections::HashMap::new();
    let mut found = Vec::new();
    // Each line is kept as its id and changes as it is parsed: a file of a million rows held as
    // JSON trees took hundreds of MiB more.
    let mut problems = crate::input::jsonl_each(&file, &text, |line, map| {
        let mut problem = |field: Option<&str>, message: String| {
            found.push(InputProblem { file: file.clone(), line: Some(line), field: field.map(String::from), message })
        };
        let Some(id) = map.get("id").and_then(|v| v.as_str()).map(crate::input::nfc) else {
            problem(Some("id"), "required field is missing or not a string".into());
            return;
        };
        if let Err(message) = crate::input::check_identifier("id", &id) {
            problem(Some("id"), message);
            return;
        }
        if let Some(first) = seen.insert(id.clone(), line) {
            problem(Some("id"), format!("duplicate id `{id}` (first used on line {first})"));
            return;
        }
        let mut fields = Vec::new();
        for (key, value) in map {
            if key == "id" {
                continue;
            }
            let field: Field = match key.parse() {
                Ok(f) => f,
                Err(e) => {
                    problem(Some(&key), e);
                    continue;
                }
            };
            let value = match crate::input::field_text(field.value_kind(), value) {
                Ok(v) => v,
                Err(message) => {
                    problem(Some(&key), message);
                    continue;
                }
            };
            fields.push((field, value));
        }
        parsed.push((line, id, fields));
    });
    drop(text);
    drop(seen);
    problems.extend(found);
    if !problems.is_empty() {
        problems.sort_by_key(|p| p.line);
        return Err(Error::InvalidInput { file, problems });
    }
    let tx = project.conn_mut().transaction()?;
    let batch = batch::Batch::new(&tx)?;
    let mut changed = 0u64;
    let mut rows_problems = Vec::new();
    for (line, id, fields) in &parsed {
        let Some(c) = candidate::find_in(&tx, id)? else {
            rows_problems.push(InputProblem {
                file: file.clone(),
                line: Some(*line),
                field: Some("id".into()),
                message: format!("no candidate with id `{id}`"),
            });
            continue;
        };
        let current = match batch::import_row(&tx, &batch, &c, &who.name, fields) {
            Ok((a, n)) => {
                changed += n;
                a
            }
            Err((field, e)) => {
                rows_problems.push(InputProblem {
                    file: file.clone(),
                    line: Some(*line),
                    field: field.map(|f| f.as_str().into()),
                    message: e.to_string(),
                });
                continue;
            }
        };
        if !current.finished {
            rows_problems.push(InputProblem {
                file: file.clone(),
                line: Some(*line),
                field: None,
                message: format!("row `{id}` is not complete: {}", current.problems.join("; ")),
            });
        }
    }
    if !rows_problems.is_empty() {
        return Err(Error::InvalidInput { file, problems: rows_problems });
    }
    tx.commit()?;
    Ok(AnnotationImportReport { file, annotator: who.name, rows: parsed.len() as u64, changed_fields: changed })
}
