//! Shared fixtures: projects in temporary directories and small candidate files.

#![allow(dead_code)]

use forcebench::Project;
use std::path::{Path, PathBuf};

pub const HEADER: &str = "id,group_id,source_dataset,source_id,context,passage,evidence_span,calibrated_claim,raised_claim,repair,rationale,axis,severity";

/// A fresh project file in its own temporary directory (kept alive by the returned guard).
pub fn temp_project() -> (tempfile::TempDir, PathBuf, Project) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("test.forcebench");
    let project = Project::create(&path, "test").unwrap();
    (dir, path, project)
}

/// Writes `contents` to `name` inside `dir` and returns the path.
pub fn write(dir: &Path, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

/// One valid CSV data row with the given id (group `g-<id>`, axis scope, severity 2).
pub fn csv_row(id: &str) -> String {
    format!(
        "{id},g-{id},ExpertQA,src-{id},Does the drug help?,\"In a trial of adults, the drug may reduce pain, the authors said.\",may reduce pain,The drug may reduce pain in adults.,The drug reduces pain.,The drug may reduce pain in adults.,Drops the hedge.,modality,2"
    )
}

pub fn csv_file(rows: &[String]) -> String {
    let mut s = String::from(HEADER);
    s.push('\n');
    for r in rows {
        s.push_str(r);
        s.push('\n');
    }
    s
}

/// A snapshot of every table a project holds, to prove a failed step changed nothing.
pub fn dump(project: &Project) -> String {
    let conn = project.conn();
    let tables: Vec<String> = {
        let mut stmt = conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").unwrap();
        stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
    };
    let mut out = String::new();
    for table in tables {
        let mut stmt = conn.prepare(&format!("SELECT * FROM {table} ORDER BY 1, 2")).unwrap();
        let n = stmt.column_count();
        let rows = stmt
            .query_map([], |r| {
                let mut line = Vec::new();
                for i in 0..n {
                    let v: rusqlite::types::Value = r.get(i)?;
                    line.push(format!("{v:?}"));
                }
                Ok(line.join("|"))
            })
            .unwrap();
        for row in rows {
            out.push_str(&format!("{table}: {}\n", row.unwrap()));
        }
    }
    out
}

/// A project with the sample candidates, the named annotators and assignments (seed 1).
pub fn annotated_project(names: &[&str]) -> (tempfile::TempDir, PathBuf, Project) {
    let (dir, path, mut project) = temp_project();
    forcebench::sample::load_sample(&mut project).unwrap();
    for n in names {
        forcebench::roster::add(&project, n, forcebench::roster::Role::Annotator).unwrap();
    }
    forcebench::assign::assign(&mut project, 1).unwrap();
    (dir, path, project)
}
