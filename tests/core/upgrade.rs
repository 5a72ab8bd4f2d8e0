//! Safe upgrades: a project file written by an earlier schema is copied beside itself before it
//! is migrated, and everything in it survives. The fixtures in tests/fixtures/upgrade/ are real
//! files, one per earlier schema version, each written by the software of its era
//! (tests/fixtures/upgrade/make-fixtures.sh says how).

use crate::common::*;
use assert_cmd::Command;
use rusqlite::{Connection, OpenFlags};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn fixtures() -> Vec<(i64, PathBuf)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/upgrade");
    let mut found: Vec<(i64, PathBuf)> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name()?.to_str()?.to_string();
            let n = name.strip_prefix("schema")?.strip_suffix(".forcebench")?.parse().ok()?;
            Some((n, path))
        })
        .collect();
    found.sort();
    found
}

fn read_only(path: &Path) -> Connection {
    Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap()
}

/// A committed fixture, opened as a file nothing may change (`immutable=1`): SQLite then makes
/// no `-shm` or `-wal` beside it, so the tests never write into the checkout, and a read-only
/// checkout works too.
fn fixture(path: &Path) -> Connection {
    let uri = format!("file:{}?immutable=1", path.display());
    Connection::open_with_flags(uri, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI).unwrap()
}

/// Every table's columns, by name.
fn columns(conn: &Connection) -> BTreeMap<String, Vec<String>> {
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    tables
        .into_iter()
        .map(|t| {
            let cols = conn
                .prepare(&format!("SELECT name FROM pragma_table_info('{t}')"))
                .unwrap()
                .query_map([], |r| r.get(0))
                .unwrap()
                .collect::<Result<Vec<String>, _>>()
                .unwrap();
            (t, cols)
        })
        .collect()
}

/// A table's rows over the given columns, in a fixed order: (count, sha256 of every value quoted).
fn digest(conn: &Connection, table: &str, cols: &[String]) -> (usize, String) {
    let list = cols.iter().map(|c| format!("quote(\"{c}\")")).collect::<Vec<_>>().join(" || '|' || ");
    let mut rows: Vec<String> = conn
        .prepare(&format!("SELECT {list} FROM \"{table}\""))
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    rows.sort();
    let mut h = Sha256::new();
    for r in &rows {
        h.update(r.as_bytes());
        h.update(b"\n");
    }
    (rows.len(), format!("{:x}", h.finalize()))
}

fn user_version(conn: &Connection) -> i64 {
    conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap()
}

/// What the fixture holds, per table, over the columns that are still there after the upgrade.
fn contents(conn: &Connection, keep: &BTreeMap<String, Vec<String>>) -> BTreeMap<String, (usize, String)> {
    let before = columns(conn);
    before
        .iter()
        .filter_map(|(t, cols)| {
            let now = keep.get(t)?;
            // By name: a column made anew by a migration (schema 18's uid) comes last in the table.
            let mut common: Vec<String> = cols.iter().filter(|c| now.contains(c)).cloned().collect();
            common.sort();
            (!common.is_empty()).then(|| (t.clone(), digest(conn, t, &common)))
        })
        .collect()
}

#[test]
fn there_is_a_real_fixture_for_every_earlier_schema_version() {
    let have: Vec<i64> = fixtures().into_iter().map(|(n, _)| n).collect();
    let want: Vec<i64> = (1..forcebench::db::latest_version()).collect();
    assert_eq!(have, want, "add the fixture of the schema a new migration leaves behind (make-fixtures.sh)");
    for (n, path) in fixtures() {
        assert_eq!(user_version(&fixture(&path)), n, "{}", path.display());
    }
}

#[test]
fn every_earlier_schema_is_kept_as_a_copy_then_upgraded_with_every_row_intact() {
    // Before: opening migrated the file in place, with no copy of what it was.
    for (n, fixture) in fixtures() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("study.forcebench");
        std::fs::copy(&fixture, &path).unwrap();
        let original = std::fs::read(&path).unwrap();

        let out = Command::cargo_bin("forcebench")
            .unwrap()
            .args(["--project", path.to_str().unwrap(), "status"])
            .assert()
            .success();
        let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        let latest = forcebench::db::latest_version();
        let backup = dir.path().join(format!("study.forcebench.schema{n}.bak"));
        assert_eq!(
            stderr.trim(),
            format!(
                "{}: upgraded the project from schema {n} to {latest}; the file as it was is kept as {}",
                path.display(),
                backup.display()
            ),
            "schema {n}"
        );
        // The copy is the file as it was: same schema, same contents, table by table.
        let kept = read_only(&backup);
        assert_eq!(user_version(&kept), n);
        let old = self::fixture(&fixture);
        let all_old = columns(&old);
        assert_eq!(contents(&kept, &all_old), contents(&old, &all_old), "schema {n}: the copy differs from the file");
        drop(kept);

        // The upgraded file holds every row of every table it had, over every column it kept.
        let new = read_only(&path);
        assert_eq!(user_version(&new), latest);
        // Events holding only their row's suggestion are marks from schema 17 on, and uids and QC
        // results are stored compactly from 18 on: compared as the values they stand for
        // (restored on a copy as the fixture's schema stored them).
        let expanded = dir.path().join("expanded.forcebench");
        std::fs::copy(&path, &expanded).unwrap();
        let restored = Connection::open(&expanded).unwrap();
        // Schema 19 keeps one uid per start record, the first pre-fill's: the others come back
        // from the fixture, checked to be pre-fills' (the ids are the fixture's, as the events
        // went in consecutively).
        undo_schema22(&restored);
        if n < 21 {
            undo_schema21(&restored);
        }
        if n < 20 {
            undo_schema20(&restored);
        }
        if n < 19 {
            undo_schema19_with_uids(&restored, Some(&old));
        }
        if n < 18 {
            undo_schema18(&restored);
        }
        if n < 17 {
            undo_schema17(&restored);
        }
        // Over the columns both have: a column schema 18 moved (a QC result's run time, kept once
        // per row) is back in its place on the restored copy and compared too.
        let (was, is) = (contents(&old, &columns(&restored)), contents(&restored, &all_old));
        assert!(was["candidates"].0 >= 100, "schema {n}: the sample's rows are in the fixture");
        if n >= 2 {
            assert!(
                was["annotation_events"].0 > 0 && was["assignments"].0 > 0,
                "schema {n}: labels and assignments to keep"
            );
        }
        for (table, before) in &was {
            assert_eq!(is.get(table), Some(before), "schema {n}: table `{table}` changed in the upgrade");
        }
        drop(new);
        // A second opening upgrades nothing and copies nothing.
        let again = Command::cargo_bin("forcebench")
            .unwrap()
            .args(["--project", path.to_str().unwrap(), "status"])
            .assert()
            .success();
        assert!(again.get_output().stderr.is_empty(), "schema {n}");
        let baks = std::fs::read_dir(dir.path())
            .unwrap()
            .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "bak"))
            .count();
        assert_eq!(baks, 1, "schema {n}");
        assert_ne!(std::fs::read(&path).unwrap(), original);
    }
}

#[test]
fn a_crash_between_the_copy_and_the_upgrade_leaves_both_files_usable_and_no_copy_is_replaced() {
    let (n, fixture) = fixtures().pop().expect("a fixture");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("study.forcebench");
    std::fs::copy(&fixture, &path).unwrap();
    let original = std::fs::read(&path).unwrap();
    let status = Command::cargo_bin("forcebench")
        .unwrap()
        .args(["--project", path.to_str().unwrap(), "status"])
        .env("FORCEBENCH_CRASH_AT", "upgrade-after-backup")
        .output()
        .unwrap();
    assert!(!status.status.success(), "the crash point was reached");
    assert_eq!(std::fs::read(&path).unwrap(), original, "the file is untouched until the copy is safe");
    let first = dir.path().join(format!("study.forcebench.schema{n}.bak"));
    assert_eq!(user_version(&read_only(&first)), n);
    assert!(!dir.path().join(format!(".study.forcebench.schema{n}.bak.partial")).exists());
    // The next opening upgrades, under a second name: the first copy is never replaced.
    let first_bytes = std::fs::read(&first).unwrap();
    forcebench::Project::open(&path).unwrap();
    assert_eq!(std::fs::read(&first).unwrap(), first_bytes);
    assert_eq!(user_version(&read_only(&dir.path().join(format!("study.forcebench.schema{n}.2.bak")))), n);
}

/// What a project holds, from `status --json` (its path and upgrade notice left out).
fn held(out: &std::process::Output) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    serde_json::json!([v["candidates"], v["states"], v["funnel"], v["groups"]])
}

fn status_json(path: &Path, env: Option<(&str, &str)>) -> std::process::Output {
    let mut cmd = Command::cargo_bin("forcebench").unwrap();
    cmd.args(["--project", path.to_str().unwrap(), "status", "--json"]);
    if let Some((k, v)) = env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

#[test]
fn a_kill_after_the_upgrade_and_before_compacting_leaves_the_upgraded_project_whole() {
    let (n, fixture) = fixtures().pop().expect("a fixture");
    let dir = tempfile::tempdir().unwrap();
    let (plain, killed) = (dir.path().join("plain.forcebench"), dir.path().join("killed.forcebench"));
    std::fs::copy(&fixture, &plain).unwrap();
    std::fs::copy(&fixture, &killed).unwrap();
    let expected = status_json(&plain, None);
    assert!(expected.status.success());
    let crashed = status_json(&killed, Some(("FORCEBENCH_CRASH_AT", "upgrade-before-compact")));
    assert!(!crashed.status.success(), "the crash point was reached");
    // The migration had committed: the next opening finds the latest schema and upgrades nothing.
    assert_eq!(user_version(&read_only(&killed)), forcebench::db::latest_version());
    let after = status_json(&killed, None);
    assert!(after.status.success());
    assert_eq!(held(&after), held(&expected));
    assert!(!String::from_utf8_lossy(&after.stderr).contains("upgraded"), "no second upgrade");
    assert!(dir.path().join(format!("killed.forcebench.schema{n}.bak")).exists());
}

#[test]
fn a_compaction_sqlite_refuses_after_the_upgrade_is_said_and_the_project_opens() {
    // Before: the open failed although the upgrade had committed, so the notice naming the
    // backup copy was never printed. The newest fixture whose upgrade compacts (an upgrade
    // from 21 on frees nothing to compact).
    let (n, fixture) = fixtures().into_iter().rfind(|(n, _)| *n < 21).expect("a fixture");
    let dir = tempfile::tempdir().unwrap();
    let (plain, full) = (dir.path().join("plain.forcebench"), dir.path().join("full.forcebench"));
    std::fs::copy(&fixture, &plain).unwrap();
    std::fs::copy(&fixture, &full).unwrap();
    let expected = status_json(&plain, None);
    let out = status_json(&full, Some(("FORCEBENCH_FAIL_AT", "upgrade-compact")));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(held(&out), held(&expected));
    assert!(err.contains(&format!("full.forcebench.schema{n}.bak")), "{err}");
    assert!(err.contains("could not be compacted (database or disk is full)"), "{err}");
    assert!(!String::from_utf8_lossy(&expected.stderr).contains("could not be compacted"));
    assert_eq!(user_version(&read_only(&full)), forcebench::db::latest_version());
}

#[test]
fn a_file_from_a_newer_schema_is_refused_naming_both_versions_and_nothing_is_copied() {
    let (dir, path, project) = temp_project();
    drop(project);
    let latest = forcebench::db::latest_version();
    Connection::open(&path).unwrap().pragma_update(None, "user_version", latest + 1).unwrap();
    let Err(err) = forcebench::Project::open(&path) else { panic!("refused") };
    assert_eq!(err.code(), "newer_version");
    let words = err.to_string();
    assert!(
        words.contains(&format!("schema version {}", latest + 1)) && words.contains(&format!("up to {latest}")),
        "{words}"
    );
    assert!(std::fs::read_dir(dir.path()).unwrap().all(|e| !e.unwrap().file_name().to_string_lossy().contains(".bak")));
}

/// The export files whose bytes a newer build may write differently, and why; every other file
/// of a locked split's export must come out of the upgraded project byte for byte as its own era
/// wrote it.
const CHANGED_SINCE: &[(&str, &str)] = &[
    ("manifest.json", "records the build that wrote it (version and commit)"),
    ("evaluation/manifest.json", "records when it was written and the build that wrote it (schema 18 on)"),
    ("DATASHEET.md", "names the build that wrote it"),
    ("annotations.jsonl", "each line gained `suggestion_mode` (schema 8)"),
    ("eval.csv", "cells a spreadsheet would run as formulas are quoted (since schema 6)"),
];

fn sha256_lines(text: &str) -> BTreeMap<String, String> {
    text.lines().filter_map(|l| l.split_once("  ")).map(|(h, f)| (f.to_string(), h.to_string())).collect()
}

#[test]
fn a_locked_split_exports_from_the_upgraded_file_as_its_own_era_exported_it() {
    let mut checked = 0;
    for (n, fixture) in fixtures() {
        let Ok(recorded) = std::fs::read_to_string(fixture.with_extension("export.sha256")) else { continue };
        let recorded = sha256_lines(&recorded);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("study.forcebench");
        std::fs::copy(&fixture, &path).unwrap();
        let out = dir.path().join("export");
        Command::cargo_bin("forcebench")
            .unwrap()
            .args(["--project", path.to_str().unwrap(), "export", out.to_str().unwrap()])
            .assert()
            .success();
        let mut same = 0;
        for (file, hash) in &recorded {
            let now = format!("{:x}", Sha256::digest(std::fs::read(out.join(file)).unwrap()));
            if CHANGED_SINCE.iter().any(|(f, _)| f == file) {
                continue;
            }
            assert_eq!(&now, hash, "schema {n}: {file} is not what the era's own export wrote");
            same += 1;
        }
        assert!(same >= 5, "schema {n}: eval.jsonl, benchmark.jsonl, adjudications, rejected and locality-removed rows compared ({same})");
        checked += 1;
    }
    assert!(checked >= 4, "fixtures with a locked split and its export: {checked}");
}
