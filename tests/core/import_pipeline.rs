//! Candidate import written while it is read (`src/import/pipeline.rs`): files long enough that
//! the writer has inserted many batches before the reader meets a problem, a conflict or a
//! crash, which must still leave the project exactly as it was; and rows written several to a
//! statement, each field in its own column and numbered in file order.

use crate::common::*;
use forcebench::candidate::Candidate;
use forcebench::import::import_file;
use forcebench::{Error, Project};
use sha2::Digest;
use std::path::{Path, PathBuf};

/// Rows far past what the reader may hold back from the writer (batches of 256, 8 in flight),
/// so a problem on the last line is met after thousands of rows were inserted.
const LONG: usize = 5_000;

fn none() -> impl FnMut(u64, u64) {
    |_, _| {}
}

/// `rows` generated candidates (ids `syn-7-0000000` on); row `i` is on line `i + 2` of its CSV.
fn generated(rows: usize) -> Vec<Candidate> {
    forcebench::sample::generate(rows, 7)
}

fn write_rows(dir: &Path, name: &str, rows: &[Candidate]) -> PathBuf {
    let path = dir.join(name);
    forcebench::sample::write_candidates(&path, rows).unwrap();
    path
}

fn count(project: &Project, sql: &str) -> i64 {
    project.conn().query_row(sql, [], |r| r.get(0)).unwrap()
}

#[test]
fn a_bad_last_line_after_thousands_of_written_rows_leaves_the_project_as_it_was() {
    let (dir, _, mut project) = temp_project();
    let seed = write(dir.path(), "seed.csv", csv_file(&[csv_row("seed-1")]));
    import_file(&mut project, &seed, &mut none()).unwrap();
    let before = dump(&project);
    let mut rows = generated(LONG);
    // Only the last row is wrong: its severity is out of range.
    rows[LONG - 1].severity = Some(7);
    let path = write_rows(dir.path(), "long.csv", &rows);
    let err = import_file(&mut project, &path, &mut none()).unwrap_err();
    match &err {
        Error::InvalidInput { problems, .. } => {
            assert_eq!(problems.len(), 1, "{problems:?}");
            assert_eq!(problems[0].line, Some(LONG as u64 + 1));
            assert_eq!(problems[0].field.as_deref(), Some("severity"));
            assert_eq!(problems[0].file, path.display().to_string());
        }
        other => panic!("expected the file's problem, got {other:?}"),
    }
    assert_eq!(dump(&project), before, "rows written before the bad line were kept");
    // And the project still takes the file once it is put right.
    rows[LONG - 1].severity = Some(2);
    let report = import_file(&mut project, &write_rows(dir.path(), "fixed.csv", &rows), &mut none()).unwrap();
    assert_eq!(report.inserted, LONG as u64);
}

#[test]
fn every_problem_in_a_long_file_is_still_reported_after_the_first() {
    let (dir, _, mut project) = temp_project();
    let mut rows = generated(LONG);
    // A repeated id early on, an empty required field in the middle, a span not in its passage
    // at the end.
    rows[10].id = rows[9].id.clone();
    rows[LONG / 2].group_id = " ".into();
    rows[LONG - 1].evidence_span = Some("words the passage never says".into());
    let path = write_rows(dir.path(), "three.csv", &rows);
    let before = dump(&project);
    let err = import_file(&mut project, &path, &mut none()).unwrap_err();
    let Error::InvalidInput { problems, .. } = &err else { panic!("{err:?}") };
    let found: Vec<(Option<u64>, Option<&str>)> = problems.iter().map(|p| (p.line, p.field.as_deref())).collect();
    assert_eq!(
        found,
        vec![
            (Some(12), Some("id")),
            (Some(LONG as u64 / 2 + 2), Some("group_id")),
            (Some(LONG as u64 + 1), Some("evidence_span"))
        ]
    );
    assert_eq!(dump(&project), before);
}

#[test]
fn a_conflict_on_the_last_row_of_a_long_file_keeps_nothing_and_lists_every_conflict() {
    let (dir, _, mut project) = temp_project();
    let rows = generated(LONG);
    // The project holds the first and the last 10 rows; the file changes a text at both ends.
    let stored: Vec<Candidate> = rows[..10].iter().chain(&rows[LONG - 10..]).cloned().collect();
    import_file(&mut project, &write_rows(dir.path(), "stored.csv", &stored), &mut none()).unwrap();
    let before = dump(&project);
    let mut changed = rows.clone();
    changed[3].context.push_str(" (changed)");
    changed[LONG - 1].context.push_str(" (changed)");
    let path = write_rows(dir.path(), "changed.csv", &changed);
    let err = import_file(&mut project, &path, &mut none()).unwrap_err();
    let Error::ImportConflict { conflicts, .. } = &err else { panic!("expected conflicts, got {err:?}") };
    let listed: Vec<(u64, Vec<String>)> = conflicts.iter().map(|c| (c.line, c.fields.clone())).collect();
    assert_eq!(listed, vec![(5, vec!["context".to_string()]), (LONG as u64 + 1, vec!["context".to_string()])]);
    assert_eq!(dump(&project), before, "new rows written before the last row's conflict were kept");
}

#[test]
fn new_rows_among_known_ones_are_numbered_in_file_order_and_counted() {
    let (dir, _, mut project) = temp_project();
    let rows = generated(2_000);
    // Every third row is in the project already, imported on its own first.
    let known: Vec<Candidate> = rows.iter().step_by(3).cloned().collect();
    import_file(&mut project, &write_rows(dir.path(), "known.csv", &known), &mut none()).unwrap();
    let all = write_rows(dir.path(), "all.csv", &rows);
    let report = import_file(&mut project, &all, &mut none()).unwrap();
    let known_rows = known.len() as u64;
    assert_eq!((report.rows_read, report.inserted, report.unchanged), (2_000, 2_000 - known_rows, known_rows));
    // The new rows follow the known ones, in the order the file gives them.
    let ids: Vec<String> = {
        let mut stmt = project.conn().prepare("SELECT id FROM candidates ORDER BY seq").unwrap();
        stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
    };
    let mut expected: Vec<String> = known.iter().map(|c| c.id.clone()).collect();
    expected.extend(rows.iter().enumerate().filter(|(i, _)| i % 3 != 0).map(|(_, c)| c.id.clone()));
    assert_eq!(ids, expected);
    assert_eq!(count(&project, "SELECT max(seq) - min(seq) + 1 FROM candidates"), 2_000, "seq has gaps");
    // The import's record carries the figures written at its end.
    let recorded: (i64, i64, i64, String) = project
        .conn()
        .query_row(
            "SELECT rows_read, rows_inserted, rows_unchanged, file_sha256 FROM imports ORDER BY id DESC LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    assert_eq!((recorded.0, recorded.1, recorded.2), (2_000, 2_000 - known_rows as i64, known_rows as i64));
    assert_eq!(recorded.3, report.file_sha256);
    // The digest (taken on a thread of its own for a file this size) is the file's, byte for byte.
    let bytes = std::fs::read(&all).unwrap();
    assert!(bytes.len() > 1 << 20, "the file is small enough to be read on one thread");
    assert_eq!(recorded.3, hex::encode(sha2::Sha256::digest(&bytes)));
}

#[test]
fn rows_written_several_to_a_statement_keep_each_value_in_its_own_column() {
    // 100 rows (four statements, the last one short), every field of every row different.
    let (dir, _, mut project) = temp_project();
    let mut csv = String::from(HEADER);
    csv.push('\n');
    let row = |i: usize| {
        vec![
            format!("r{i:03}"),
            format!("g{i}"),
            format!("set{i}"),
            format!("src{i}"),
            format!("context {i}"),
            format!("passage {i} holds span{i} here"),
            if i.is_multiple_of(5) { String::new() } else { format!("span{i}") },
            format!("calibrated {i}"),
            format!("raised {i}"),
            if i.is_multiple_of(7) { String::new() } else { format!("repair {i}") },
            format!("rationale {i}"),
            ["scope", "modality", "numeric"][i % 3].to_string(),
            if i.is_multiple_of(4) { String::new() } else { (1 + i % 3).to_string() },
        ]
    };
    for i in 0..100 {
        csv.push_str(&row(i).join(","));
        csv.push('\n');
    }
    let path = write(dir.path(), "hundred.csv", csv);
    import_file(&mut project, &path, &mut none()).unwrap();
    let mut stmt = project
        .conn()
        .prepare(
            "SELECT id, group_id, source_dataset, source_id, context, passage, coalesce(evidence_span, ''),
                    calibrated_claim, raised_claim, coalesce(repair, ''), rationale, coalesce(axis, ''),
                    coalesce(CAST(severity AS TEXT), ''), seq FROM candidates ORDER BY seq",
        )
        .unwrap();
    let stored: Vec<(Vec<String>, i64)> = stmt
        .query_map([], |r| Ok(((0..13).map(|i| r.get(i).unwrap()).collect(), r.get(13)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(stored.len(), 100);
    for (i, (values, seq)) in stored.iter().enumerate() {
        assert_eq!(values, &row(i), "row {i}");
        assert_eq!(*seq, i as i64 + 1);
    }
}

#[test]
fn an_import_killed_before_its_commit_leaves_the_project_as_before() {
    // Old code: there was no such instant to stop at; the import committed.
    let (dir, path, project) = temp_project();
    let seed = write(dir.path(), "seed.csv", csv_file(&[csv_row("seed-1")]));
    let csv = write_rows(dir.path(), "long.csv", &generated(LONG));
    let import = |file: &Path| {
        let mut cmd = assert_cmd::Command::cargo_bin("forcebench").unwrap();
        cmd.env_remove("FORCEBENCH_PROJECT").arg("--project").arg(&path).arg("import").arg(file);
        cmd
    };
    import(&seed).assert().success();
    let before = dump(&project);
    for point in ["import-rows-written", "import-before-commit"] {
        import(&csv).env(forcebench::crashpoint::ENV, point).assert().failure();
        let reopened = Project::open(&path).unwrap();
        assert_eq!(dump(&reopened), before, "an import killed at {point} changed the project");
    }
    import(&csv).assert().success();
    assert_eq!(count(&project, "SELECT count(*) FROM candidates"), LONG as i64 + 1);
}
