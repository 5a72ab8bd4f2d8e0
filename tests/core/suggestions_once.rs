//! A row's suggestions are stored once, in the row: the events that only record them (an
//! annotator's `prefill` on starting a row, a `confirm` of a suggestion) carry a mark instead of
//! the values, and every reader gets the values back as they were written. Projects written
//! before (schema 16) are compacted on upgrade and read the same afterwards.

use crate::common::suggestion_as_16 as suggestion;
use crate::common::*;
use assert_cmd::Command;
use forcebench::annotate::{self, Field};
use forcebench::Project;
use rusqlite::{params, Connection};
use std::collections::BTreeMap;
use std::path::Path;

pub(crate) fn fb(project: &Path, args: &[&str]) -> String {
    let mut all = vec!["--project", project.to_str().unwrap()];
    all.extend_from_slice(args);
    let out = Command::cargo_bin("forcebench").unwrap().args(&all).assert().success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

pub(crate) fn fb_bare(args: &[&str]) -> String {
    let out = Command::cargo_bin("forcebench").unwrap().args(args).assert().success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

/// Rewrites a schema-17 project as schema 16 stored it, and says 16, so that opening it runs
/// migration 17 on it.
fn as_schema16(path: &Path) {
    let conn = Connection::open(path).unwrap();
    let marked: i64 =
        conn.query_row("SELECT count(*) FROM annotation_events WHERE from_suggestion = 1", [], |r| r.get(0)).unwrap();
    assert!(marked > 0, "the project has events holding only the row's suggestion");
    drop(conn);
    rewind(path, 16);
}

/// Everything a reader of the annotation trail gets: agreement, uptake, every history, and the
/// annotations as a packet re-issue and a workspace return would carry them (their folds).
pub(crate) fn answers(path: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    out.insert("agreement".into(), fb(path, &["agreement", "--json", "--bootstrap", "0"]));
    let project = Project::open(path).unwrap();
    out.insert(
        "uptake".into(),
        serde_json::to_string(&forcebench::contexts::uptake::uptake(&project).unwrap()).unwrap(),
    );
    let pairs: Vec<(String, String)> = project
        .conn()
        .prepare(
            "SELECT s.candidate_id, a.name FROM assignments s JOIN annotators a ON a.id = s.annotator_id ORDER BY 1, 2",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    for (id, who) in pairs {
        let history = annotate::history(&project, &id, &who).unwrap();
        if history.is_empty() {
            continue;
        }
        out.insert(format!("history {id} {who}"), trail(&history));
        out.insert(format!("annotation {id} {who}"), format!("{:?}", annotate::get(&project, &id, &who).unwrap()));
    }
    out
}

/// A project taken through the workflow with every kind of event: a packet worked offline
/// (imported, edited, undone) and merged, edits, undos and confirmations in the app, imports, an
/// adjudication, a locked split.
pub(crate) fn worked_project(dir: &Path) -> std::path::PathBuf {
    let p = dir.join("study.forcebench");
    fb(&p, &["init", "--name", "suggestions once"]);
    fb(&p, &["sample", "load"]);
    fb(&p, &["annotators", "add", "Ana"]);
    fb(&p, &["annotators", "add", "Ben"]);
    fb(&p, &["annotators", "add", "Eve", "--role", "adjudicator"]);
    fb(&p, &["assign", "--seed", "1"]);
    let labels = |project: &Project, who: &str, file: &Path| {
        let mut text = String::new();
        for (i, q) in annotate::queue(project, who).unwrap().iter().enumerate() {
            let line = if i % 6 == 1 {
                serde_json::json!({"id": q.id, "decision": "reject_not_force_gap", "boundary_type": "ambiguous"})
            } else if i % 6 == 2 {
                serde_json::json!({"id": q.id, "decision": "accept_force_gap", "severity": 3, "repair": "Say it as the passage does."})
            } else {
                serde_json::json!({"id": q.id, "decision": "accept_force_gap"})
            };
            text.push_str(&format!("{line}\n"));
        }
        std::fs::write(file, text).unwrap();
    };
    // Ana offline: a few rows edited and undone in the workspace's app, the rest imported.
    let packets = dir.join("packets");
    fb(&p, &["packets", "issue", "--out", packets.to_str().unwrap()]);
    let issued = std::fs::read_dir(&packets)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|f| f.to_string_lossy().contains("Ana") && f.extension().is_some_and(|x| x == "json"))
        .unwrap();
    let ws = dir.join("ana.forcebench");
    fb_bare(&["packets", "open", issued.to_str().unwrap(), "--workspace", ws.to_str().unwrap()]);
    {
        let mut w = Project::open(&ws).unwrap();
        let rows: Vec<String> = annotate::queue(&w, "Ana").unwrap().into_iter().map(|q| q.id).take(3).collect();
        annotate::set_field(&mut w, &rows[0], "Ana", Field::Axis, Some("numeric")).unwrap();
        annotate::undo(&mut w, &rows[0], "Ana").unwrap();
        annotate::confirm(&mut w, &rows[1], "Ana").unwrap();
        annotate::undo(&mut w, &rows[1], "Ana").unwrap();
        annotate::set_field(&mut w, &rows[2], "Ana", Field::Repair, None).unwrap();
        labels(&w, "Ana", &dir.join("ana.jsonl"));
    }
    fb(&ws, &["annotate", "import", dir.join("ana.jsonl").to_str().unwrap(), "--annotator", "Ana"]);
    let returned = dir.join("ana-returned.json");
    fb(&ws, &["packets", "return", "--out", returned.to_str().unwrap()]);
    fb(&p, &["packets", "merge", returned.to_str().unwrap()]);
    // Ben in the lead's project: a changed span, an undone confirmation, a cleared repair.
    {
        let mut project = Project::open(&p).unwrap();
        let rows: Vec<String> = annotate::queue(&project, "Ben").unwrap().into_iter().map(|q| q.id).take(3).collect();
        let passage: String =
            project.conn().query_row("SELECT passage FROM candidates WHERE id = ?1", [&rows[0]], |r| r.get(0)).unwrap();
        let word = passage.split_whitespace().next().unwrap().to_string();
        annotate::set_field(&mut project, &rows[0], "Ben", Field::EvidenceSpan, Some(&word)).unwrap();
        annotate::confirm(&mut project, &rows[1], "Ben").unwrap();
        annotate::undo(&mut project, &rows[1], "Ben").unwrap();
        annotate::confirm(&mut project, &rows[1], "Ben").unwrap();
        annotate::set_field(&mut project, &rows[2], "Ben", Field::Repair, None).unwrap();
        labels(&project, "Ben", &dir.join("ben.jsonl"));
    }
    fb(&p, &["annotate", "import", dir.join("ben.jsonl").to_str().unwrap(), "--annotator", "Ben"]);
    fb(&p, &["adjudicate", "confirm-agreements", "--adjudicator", "Eve", "--affirm"]);
    fb(&p, &["qc", "run"]);
    fb(&p, &["split", "draft", "--per-axis", "4"]);
    fb(&p, &["split", "lock", "--allow-unreviewed"]);
    p
}

/// What an upgrade must leave as it was: the project's export, file by file, and what `verify`
/// answers on it.
pub(crate) struct ExportBefore {
    files: BTreeMap<String, Vec<u8>>,
    verify: String,
}

impl ExportBefore {
    /// Exports the project into `dir/export-before` and verifies it.
    pub(crate) fn take(path: &Path, dir: &Path) -> ExportBefore {
        let out = dir.join("export-before");
        let files = export_files(path, &out);
        ExportBefore { files, verify: fb_bare(&["verify", out.to_str().unwrap()]) }
    }

    /// Exports the project again (into `dir/export-after`): the same files, each with the same
    /// bytes but those `varies` names (a file that records when it was written), and the same
    /// answer from `verify`.
    pub(crate) fn assert_same(&self, path: &Path, dir: &Path, varies: impl Fn(&str) -> bool) {
        let out = dir.join("export-after");
        let after = export_files(path, &out);
        assert_eq!(after.keys().collect::<Vec<_>>(), self.files.keys().collect::<Vec<_>>());
        for (name, bytes) in &self.files {
            if !varies(name) {
                assert!(after[name] == *bytes, "{name} is not the same after the upgrade");
            }
        }
        assert_eq!(fb_bare(&["verify", out.to_str().unwrap()]), self.verify);
    }
}

/// The export's files that record when they were written (schema 18 on), compared by what they
/// say elsewhere.
pub(crate) fn written_at(name: &str) -> bool {
    name == "manifest.json" || name.ends_with("/manifest.json") || name == "DATASHEET.md"
}

/// Opens the project as a user would (`status`), which upgrades it from schema `from`, checks the
/// upgrade says so, and gives the file's size before and after.
pub(crate) fn upgrade_by_opening(path: &Path, from: i64) -> (u64, u64) {
    let before = std::fs::metadata(path).unwrap().len();
    let out = Command::cargo_bin("forcebench")
        .unwrap()
        .args(["--project", path.to_str().unwrap(), "status"])
        .assert()
        .success();
    let said = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(said.contains(&format!("from schema {from} to {}", forcebench::db::latest_version())), "{said}");
    (before, std::fs::metadata(path).unwrap().len())
}

pub(crate) fn export_files(path: &Path, out: &Path) -> BTreeMap<String, Vec<u8>> {
    fb(path, &["export", out.to_str().unwrap()]);
    let mut files = BTreeMap::new();
    for e in std::fs::read_dir(out).unwrap() {
        let f = e.unwrap().path();
        if f.is_file() {
            files.insert(f.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&f).unwrap());
        }
    }
    files
}

#[test]
fn events_that_only_record_the_rows_suggestions_store_no_copy_of_them() {
    // Before: every prefill and confirmation wrote the claims, span, axis, severity and repair
    // out again, once per annotator per row.
    let dir = tempfile::tempdir().unwrap();
    let p = worked_project(dir.path());
    let conn = Connection::open(&p).unwrap();
    let (copies, marked, prefills): (i64, i64, i64) = conn
        .query_row(
            "SELECT count(*) FILTER (WHERE origin IN ('prefill', 'confirm') AND from_suggestion IS NULL
                        AND (new_value IS NOT NULL OR old_value IS NOT NULL)),
                    count(*) FILTER (WHERE from_suggestion = 1),
                    count(*) FILTER (WHERE origin = 'prefill')
             FROM annotation_events",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert!(prefills > 100, "rows were started ({prefills} prefill events)");
    assert!(marked >= prefills, "every prefill and the confirmations are marks ({marked})");
    assert_eq!(copies, 0, "no prefill or confirmation repeats the row's suggestion");
    let stored: i64 = conn
        .query_row("SELECT count(*) FROM annotation_events WHERE from_suggestion = 1 AND (old_value IS NOT NULL OR new_value IS NOT NULL)", [], |r| r.get(0))
        .unwrap();
    assert_eq!(stored, 0);
}

#[test]
fn a_schema_16_project_reads_the_same_after_the_upgrade_compacts_it() {
    let dir = tempfile::tempdir().unwrap();
    let p = worked_project(dir.path());
    let before = answers(&p);
    let export = ExportBefore::take(&p, dir.path());

    // The same project as schema 16 stored it: every history is the table's own values, as
    // schema 16 read them, and they are what this build read from the marks.
    as_schema16(&p);
    {
        let raw = Connection::open(&p).unwrap();
        let mut compared = 0;
        for key in before.keys().filter(|k| k.starts_with("history ")) {
            let mut parts = key.split(' ').skip(1);
            let (id, who) = (parts.next().unwrap(), parts.next().unwrap());
            let events: Vec<annotate::AnnotationEvent> = raw
                .prepare(
                    "SELECT e.id, e.candidate_id, e.field, e.old_value, e.new_value, e.at, e.origin, e.undoes
                     FROM annotation_events e JOIN annotators a ON a.id = e.annotator_id
                     WHERE e.candidate_id = ?1 AND a.name = ?2 ORDER BY e.id",
                )
                .unwrap()
                .query_map(params![id, who], |r| {
                    Ok(annotate::AnnotationEvent {
                        id: r.get(0)?,
                        candidate_id: r.get(1)?,
                        annotator: who.to_string(),
                        field: r.get(2)?,
                        old_value: r.get(3)?,
                        new_value: r.get(4)?,
                        at: r.get(5)?,
                        origin: r.get(6)?,
                        undoes: r.get(7)?,
                    })
                })
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            assert_eq!(&trail(&events), &before[key], "{key}: schema 16's values");
            compared += 1;
        }
        assert!(compared > 100, "histories compared: {compared}");
    }

    // Opening upgrades it (migration 17 compacts the events) and every answer is the same.
    let project = Project::open(&p).unwrap();
    let marked: i64 = project
        .conn()
        .query_row("SELECT count(*) FROM annotation_events WHERE from_suggestion = 1", [], |r| r.get(0))
        .unwrap();
    assert!(marked > 100, "the upgrade compacted the events ({marked})");
    drop(project);
    let after = answers(&p);
    assert_eq!(before.len(), after.len());
    for (key, was) in &before {
        assert_eq!(after.get(key), Some(was), "{key} changed in the upgrade");
    }
    export.assert_same(&p, dir.path(), |_| false);
}

#[test]
fn a_suggestion_that_is_hard_to_restate_reads_back_exactly() {
    // Spans with quotes, backslashes, a line break, a tab, non-ASCII text and a second occurrence
    // in the passage (a span matched in another case first); a repair of spaces only (never
    // pre-filled); no axis or severity.
    let (dir, path, mut project) = temp_project();
    let rows = [
        ("q1", "He said \"\"it may\"\" help \\ maybe; it may help.", "it may", "scope", "2", "Keep \"\"may\"\"."),
        ("q2", "Über die Studie: 5–10 % weniger, laut 研究 ✓.", "5–10 % weniger", "numeric", "3", "Gib die Spanne an."),
        ("q3", "Line one\nline two\twith a tab, line two again.", "line two\twith", "", "", "   "),
        ("q4", "It may work, and it may work again.", "it may work", "modality", "1", ""),
    ];
    let mut csv = String::from(HEADER);
    csv.push('\n');
    for (id, passage, span, axis, severity, repair) in rows {
        csv.push_str(&format!(
            "{id},g-{id},ExpertQA,src-{id},Does it help?,\"{passage}\",\"{span}\",The claim may hold.,The claim holds.,\"{repair}\",Why.,{axis},{severity}\n"
        ));
    }
    let file = write(dir.path(), "hard.csv", csv);
    forcebench::import::import_file(&mut project, &file, &mut |_, _| {}).unwrap();
    forcebench::roster::add(&project, "ana", forcebench::roster::Role::Annotator).unwrap();
    forcebench::roster::add(&project, "ben", forcebench::roster::Role::Annotator).unwrap();
    forcebench::assign::assign(&mut project, 1).unwrap();
    for (id, ..) in rows {
        // Starting the row records what was shown; confirming records each suggestion confirmed.
        annotate::set_field(&mut project, id, "ana", Field::Notes, Some("n")).unwrap();
        annotate::confirm(&mut project, id, "ana").unwrap();
        let history = annotate::history(&project, id, "ana").unwrap();
        for e in history.iter().filter(|e| e.origin == "prefill" || e.origin == "confirm") {
            let want = suggestion(project.conn(), id, &e.field);
            assert_eq!(e.new_value, want, "{id} {} {}", e.origin, e.field);
            let old = if e.origin == "confirm" { want.clone() } else { None };
            assert_eq!(e.old_value, old, "{id} {} {}", e.origin, e.field);
        }
        // The annotation folded from the marks is the one shown before any change.
        let a = annotate::get(&project, id, "ana").unwrap();
        let (passage, span, claim): (String, Option<String>, String) = project
            .conn()
            .query_row("SELECT passage, evidence_span, calibrated_claim FROM candidates WHERE id = ?1", [id], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .unwrap();
        assert_eq!(a.calibrated_claim.as_deref(), Some(claim.as_str()), "{id}");
        assert_eq!(
            a.evidence_span.as_ref().map(|s| s.text.clone()),
            span.filter(|t| passage.contains(t.as_str())),
            "{id}"
        );
    }
    let _ = path;
}
