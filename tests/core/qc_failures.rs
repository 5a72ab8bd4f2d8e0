//! A QC run keeps what failed, and the checks it made once (schema 20): a row's run names a
//! shared list of its checks, only failed checks are rows, and every reader gets the results it
//! got when each check was a row. A file whose failures and run disagree is refused, not read as
//! passing; a project written by schema 19 reads the same after the upgrade, which leaves the
//! file smaller.

use crate::common::*;
use crate::suggestions_once::{fb, upgrade_by_opening, worked_project, written_at, ExportBefore};
use forcebench::adjudicate::{self, Category, Checklist, Choice, QueueFilter, Resolution};
use forcebench::Project;
use rusqlite::Connection;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The worked project with three more rows adjudicated after its lock, each with a checklist the
/// bulk confirmation never writes: one answered `no` (an error: the row is held back), one left
/// unanswered (five warnings), one answered in part. Returns the project and those rows.
fn checked_project(dir: &Path) -> (PathBuf, Vec<String>) {
    let p = worked_project(dir);
    let mut project = Project::open(&p).unwrap();
    let open: Vec<_> = adjudicate::queue(&project, &QueueFilter::default())
        .unwrap()
        .items
        .into_iter()
        .filter(|i| !i.adjudicated && i.category == Category::FieldDisagreement)
        .take(3)
        .collect();
    assert_eq!(open.len(), 3, "the worked project leaves field disagreements open");
    let no = Checklist { span_decisive: Some(false), ..crate::adjudicate::YES };
    let part = Checklist { one_local_axis: Some(true), ..Checklist::default() };
    for (item, checklist) in open.iter().zip([no, Checklist::default(), part]) {
        let res = Resolution {
            choices: item.differing.iter().map(|f| (*f, Choice::A)).collect(),
            rationale: None,
            checklist,
        };
        adjudicate::resolve(&mut project, &item.id, "Eve", &res).unwrap();
    }
    (p, open.into_iter().map(|i| i.id).collect())
}

/// Every row's QC results as `qc::results` reads them, and every row's workflow state.
pub(crate) fn qc_answers(path: &Path) -> BTreeMap<String, String> {
    let conn = Connection::open(path).unwrap();
    let ids: Vec<String> = conn
        .prepare("SELECT id FROM candidates ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut out = BTreeMap::new();
    for id in ids {
        let results = forcebench::qc::results(&conn, &id).unwrap();
        let state = forcebench::rowstate::state(&conn, &id).unwrap();
        out.insert(id, format!("{state:?} {results:?}"));
    }
    out
}

#[test]
fn a_run_stores_its_failures_and_names_a_list_of_its_checks_kept_once() {
    // Before: a row per check (fifteen for an accepted row), nearly all of them passed.
    let dir = tempfile::tempdir().unwrap();
    let (p, rows) = checked_project(dir.path());
    let conn = Connection::open(&p).unwrap();
    let count = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap();
    let runs = count("SELECT count(*) FROM qc_runs");
    assert!(runs > 20, "rows with a QC run: {runs}");
    assert_eq!(count("SELECT count(*) FROM sqlite_master WHERE name = 'qc_results'"), 0);
    // One list per distinct set of checks: the bulk confirmation's, and one per checklist answered
    // another way (no, unanswered, in part) or a row without both claims: a handful, not a row each.
    let lists = count("SELECT count(*) FROM qc_check_lists");
    assert!((2..=5).contains(&lists), "{lists} lists for {runs} runs");
    // Only failed checks are rows, and each run counts them.
    assert_eq!(
        count("SELECT count(*) FROM qc_failures"),
        count("SELECT sum(failed) FROM qc_runs"),
        "a run counts the failures stored under it"
    );
    // Read back: the fifteen checks of an accepted row in the order they run (qc.rs's table),
    // spelled out here, with what failed.
    let results = forcebench::qc::results(&conn, &rows[0]).unwrap();
    let names: Vec<&str> = results.iter().map(|r| r.check.as_str()).collect();
    assert_eq!(
        names,
        [
            "span_present",
            "span_verbatim",
            "claims_differ",
            "axis_valid",
            "severity_valid",
            "repair_present",
            "checklist_span_decisive",
            "checklist_calibrated_supported",
            "checklist_raised_underwarranted",
            "checklist_one_local_axis",
            "checklist_no_unrelated_addition",
            "locality_new_entities",
            "locality_new_numbers",
            "locality_changed_dates",
            "locality_large_rewrite"
        ]
    );
    let failed = |id: &str| -> Vec<(String, String)> {
        forcebench::qc::results(&conn, id)
            .unwrap()
            .into_iter()
            .filter(|r| !r.passed && !r.check.starts_with("locality_"))
            .map(|r| (r.check, format!("{:?}", r.severity)))
            .collect()
    };
    assert_eq!(failed(&rows[0]), [("checklist_span_decisive".to_string(), "Error".to_string())]);
    assert_eq!(failed(&rows[1]).len(), 5, "every question unanswered: {:?}", failed(&rows[1]));
    assert!(failed(&rows[1]).iter().all(|f| f.1 == "Warning"));
    assert_eq!(failed(&rows[2]).len(), 4, "one question of five answered");
    // A passed check carries no detail; a failed one says what failed.
    assert!(results.iter().all(|r| r.passed == r.detail.is_none()));
    // The row with an error is held back; the others are not held back by their warnings.
    use forcebench::vocab::WorkflowState;
    let state = |id: &str| forcebench::rowstate::state(&conn, id).unwrap().unwrap();
    assert_eq!(state(&rows[0]), WorkflowState::Adjudicated);
    assert_eq!(state(&rows[1]), WorkflowState::Accepted);
    let report = fb(&p, &["qc", "run"]);
    assert!(report.contains(&rows[0]), "{report}");
    // Running QC again makes the same lists: none is added.
    assert_eq!(count("SELECT count(*) FROM qc_check_lists"), lists);
}

#[test]
fn a_failure_taken_out_or_moved_is_refused_not_read_as_a_pass() {
    let dir = tempfile::tempdir().unwrap();
    let (p, rows) = checked_project(dir.path());
    let row = &rows[1];
    let damage = [
        // A warning's row taken out: the run still counts five.
        (row, format!("DELETE FROM qc_failures WHERE candidate_id = '{row}' AND check_name = 'checklist_one_local_axis'")),
        // A failure moved to a place of the list that names another check.
        (row, format!("UPDATE qc_failures SET ord = 1 WHERE candidate_id = '{row}' AND check_name = 'checklist_one_local_axis'")),
        // A row with warnings only said to be held back, and a row with an error said not to be.
        (row, format!("UPDATE qc_runs SET blocked = 1 WHERE candidate_id = '{row}'")),
        (&rows[0], format!("UPDATE qc_runs SET blocked = 0 WHERE candidate_id = '{}'", rows[0])),
    ];
    for (i, (row, sql)) in damage.iter().enumerate() {
        let copy = dir.path().join(format!("damaged-{i}.forcebench"));
        std::fs::copy(&p, &copy).unwrap();
        Connection::open(&copy).unwrap().execute_batch(sql).unwrap();
        let conn = Connection::open(&copy).unwrap();
        let err = forcebench::qc::results(&conn, row).unwrap_err();
        assert_eq!(err.code(), "corrupt_project", "{sql}: {err}");
        assert!(err.to_string().contains(row.as_str()), "names the row: {err}");
    }
    // A failed error check under a run that does not hold the row back is refused on writing.
    let conn = Connection::open(&p).unwrap();
    let err = conn
        .execute(
            "INSERT INTO qc_failures (candidate_id, check_name, severity, detail, ord)
             VALUES (?1, 'span_present', 'error', 'forged', 1)",
            [row],
        )
        .unwrap_err();
    assert!(err.to_string().contains("holds its row back"), "{err}");
    // A list shared by runs cannot be changed or taken away.
    for sql in ["UPDATE qc_check_lists SET checks = '[]'", "DELETE FROM qc_check_lists"] {
        let err = conn.execute(sql, []).unwrap_err();
        assert!(err.to_string().contains("append-only"), "{sql}: {err}");
    }
    // A frozen row's run and failures stay as they were locked.
    let locked: String = conn
        .query_row("SELECT min(candidate_id) FROM locked_rows JOIN qc_failures USING (candidate_id)", [], |r| r.get(0))
        .unwrap();
    for sql in [
        "DELETE FROM qc_failures WHERE candidate_id = ?1",
        "UPDATE qc_failures SET detail = 'x' WHERE candidate_id = ?1",
        "UPDATE qc_runs SET failed = 0 WHERE candidate_id = ?1",
    ] {
        let err = conn.execute(sql, [&locked]).unwrap_err();
        assert!(err.to_string().contains("split_locked"), "{sql}: {err}");
    }
}

#[test]
fn a_schema_19_project_reads_the_same_after_the_upgrade_and_is_smaller() {
    let dir = tempfile::tempdir().unwrap();
    let (p, _) = checked_project(dir.path());
    let before = qc_answers(&p);
    let audit_before = fb(&p, &["locality", "list", "--json"]);
    let status_before = fb(&p, &["status", "--json"]);
    let export = ExportBefore::take(&p, dir.path());

    rewind(&p, 19);
    let (results_19, passed_19): (i64, i64) = Connection::open(&p)
        .unwrap()
        .query_row("SELECT count(*), sum(passed) FROM qc_results", [], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    assert!(
        passed_19 * 10 > results_19 * 9,
        "schema 19 kept a row per check, mostly passed: {passed_19} of {results_19}"
    );
    let (size_19, size_20) = upgrade_by_opening(&p, 19);
    assert!(size_20 < size_19, "the upgrade leaves the file smaller: {size_19} -> {size_20} bytes");
    let failures: i64 =
        Connection::open(&p).unwrap().query_row("SELECT count(*) FROM qc_failures", [], |r| r.get(0)).unwrap();
    assert_eq!(failures, results_19 - passed_19, "every failed check is kept, and only those");

    assert_eq!(qc_answers(&p), before, "QC results and row states read the same");
    assert_eq!(fb(&p, &["locality", "list", "--json"]), audit_before);
    assert_eq!(fb(&p, &["status", "--json"]), status_before);
    export.assert_same(&p, dir.path(), written_at);
}
