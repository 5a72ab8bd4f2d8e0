//! A row's settled state: the lock holds against every write command, and a locked version
//! exports the same bytes forever (also while a newer draft exists).

use assert_cmd::Command;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Runs the real `forcebench` command on `project`.
fn fb(project: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    Command::cargo_bin("forcebench").unwrap().arg("--project").arg(project).args(args).assert()
}

fn stdout(project: &Path, args: &[&str]) -> String {
    String::from_utf8(fb(project, args).success().get_output().stdout.clone()).unwrap()
}

/// Every file of an export folder, name -> bytes: the split's own files (the evaluation release
/// beside them, in its folder, lists what is stored when it is written, and has its own test).
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_type().unwrap().is_file())
        .map(|e| {
            let e = e.unwrap();
            (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap())
        })
        .collect()
}

/// The demonstration project through lock and export (as the export-loader script builds it),
/// with one locality removal. Returns the project path and the first export.
fn locked_demo(dir: &Path) -> (PathBuf, PathBuf) {
    let p = dir.join("demo.forcebench");
    fb(&p, &["init"]).success();
    fb(&p, &["sample", "load"]).success();
    for name in ["Ana", "Ben", "Chidi", "Dana"] {
        fb(&p, &["annotators", "add", name]).success();
    }
    fb(&p, &["annotators", "add", "Eve", "--role", "adjudicator"]).success();
    fb(&p, &["assign"]).success();
    fb(&p, &["sample", "annotate"]).success();
    fb(&p, &["adjudicate", "confirm-agreements", "--adjudicator", "Eve", "--affirm"]).success();
    fb(&p, &["split", "draft", "--per-axis", "8"]).success();
    let show: serde_json::Value = serde_json::from_str(&stdout(&p, &["split", "show", "--json"])).unwrap();
    let first = show["eval_ids"][0].as_str().unwrap().to_string();
    fb(&p, &["locality", "mark", &first, "--reason", "a removed row"]).success();
    fb(&p, &["sample", "audit"]).success();
    fb(&p, &["split", "lock"]).success();
    let out = dir.join("v1");
    fb(&p, &["export", out.to_str().unwrap()]).success();
    (p, out)
}

fn query(p: &Path, sql: &str) -> Vec<String> {
    let conn = rusqlite::Connection::open(p).unwrap();
    let mut stmt = conn.prepare(sql).unwrap();
    stmt.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
}

// Broke: after `split lock` and `export`, annotate set/undo/import/session, sample annotate and
// re-adjudicating a rejected row still changed locked rows, and a re-export differed.
#[test]
fn every_write_command_is_refused_on_a_locked_row_and_the_re_export_is_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let (p, first) = locked_demo(dir.path());
    let before = files(&first);
    let eval = query(&p, "SELECT candidate_id FROM split_rows WHERE role = 'eval' ORDER BY candidate_id");
    let rejected = query(
        &p,
        "SELECT candidate_id FROM adjudications WHERE decision = 'reject_not_force_gap' ORDER BY candidate_id",
    );
    assert!(!eval.is_empty() && !rejected.is_empty());
    let annotator_of = |id: &str| {
        query(&p, &format!("SELECT a.name FROM assignments s JOIN annotators a ON a.id = s.annotator_id WHERE s.candidate_id = '{id}' AND s.slot = 1"))
            .remove(0)
    };
    let (row, who) = (eval[1].clone(), annotator_of(&eval[1]));
    let (rej, rej_who) = (rejected[0].clone(), annotator_of(&rejected[0]));
    let locked = |id: &str| format!("row `{id}` is in locked split v1, which freezes it");

    // Annotation: set, undo, import, session; on a split row and on a rejected row outside it.
    for (id, name) in [(&row, &who), (&rej, &rej_who)] {
        fb(&p, &["annotate", "set", id, "notes", "changed after the lock", "--annotator", name])
            .failure()
            .stderr(predicates::str::contains(locked(id)));
        fb(&p, &["annotate", "undo", id, "--annotator", name]).failure().stderr(predicates::str::contains(locked(id)));
    }
    let import = dir.path().join("later.jsonl");
    std::fs::write(&import, format!("{{\"id\": \"{rej}\", \"decision\": \"accept_force_gap\"}}\n")).unwrap();
    fb(&p, &["annotate", "import", import.to_str().unwrap(), "--annotator", &rej_who])
        .failure()
        .stderr(predicates::str::contains(locked(&rej)));
    let session = Command::cargo_bin("forcebench")
        .unwrap()
        .arg("--project")
        .arg(&p)
        .args(["annotate", "session", "--annotator", &who])
        .write_stdin(format!(
            "{{\"op\":\"set\",\"id\":\"{row}\",\"field\":\"decision\",\"value\":\"reject_not_force_gap\"}}\n"
        ))
        .assert()
        .success();
    let answer = String::from_utf8(session.get_output().stdout.clone()).unwrap();
    assert!(answer.contains("split_locked") && answer.contains(&locked(&row)), "session answered {answer}");
    fb(&p, &["sample", "annotate"])
        .failure()
        .stderr(predicates::str::contains("is in locked split v1, which freezes it"));

    // A packet issued after the lock marks the frozen row: the workspace refuses a
    // change to it, naming the split, instead of taking work a merge would leave out.
    let packets = dir.path().join("packets");
    let issued: serde_json::Value =
        serde_json::from_str(&stdout(&p, &["packets", "issue", "--out", packets.to_str().unwrap(), "--json"])).unwrap();
    let file = issued.as_array().unwrap().iter().find(|i| i["annotator"] == who.as_str()).unwrap()["file"]
        .as_str()
        .unwrap()
        .to_string();
    let ws = dir.path().join("ws.forcebench");
    fb(&ws, &["packets", "open", &file, "--workspace", ws.to_str().unwrap()]).success();
    fb(&ws, &["annotate", "set", &row, "notes", "annotated offline after the lock", "--annotator", &who])
        .failure()
        .stderr(predicates::str::contains(locked(&row)));
    let returned = dir.path().join("returned.json");
    fb(&ws, &["packets", "return", "--out", returned.to_str().unwrap()]).success();
    let merged: serde_json::Value =
        serde_json::from_str(&stdout(&p, &["packets", "merge", returned.to_str().unwrap(), "--json"])).unwrap();
    assert_eq!(merged[0]["new_events"], 0, "nothing of the frozen row was merged");

    // Adjudication: re-adjudicating a rejected row to accept, and a split row to reject.
    let adjudication = dir.path().join("adj.jsonl");
    std::fs::write(
        &adjudication,
        format!("{{\"id\": \"{rej}\", \"decision\": \"accept_force_gap\", \"rationale\": \"second look\"}}\n"),
    )
    .unwrap();
    fb(&p, &["adjudicate", "import", adjudication.to_str().unwrap(), "--adjudicator", "Eve"])
        .failure()
        .stderr(predicates::str::contains(locked(&rej)));
    std::fs::write(&adjudication, format!("{{\"id\": \"{row}\", \"decision\": \"reject_not_force_gap\", \"boundary_type\": \"ambiguous\", \"rationale\": \"second look\"}}\n")).unwrap();
    fb(&p, &["adjudicate", "import", adjudication.to_str().unwrap(), "--adjudicator", "Eve"])
        .failure()
        .stderr(predicates::str::contains(locked(&row)));
    fb(&p, &["adjudicate", "confirm-agreements", "--adjudicator", "Eve"]).success();
    // QC re-runs nothing on frozen rows; the locality audit cannot mark or unmark them.
    fb(&p, &["qc", "run"]).success();
    fb(&p, &["locality", "mark", &row, "--reason", "late"]).failure().stderr(predicates::str::contains(locked(&row)));
    let removed = query(&p, "SELECT candidate_id FROM locality_marks").remove(0);
    fb(&p, &["locality", "unmark", &removed]).failure().stderr(predicates::str::contains(locked(&removed)));

    // A newer draft does not hide the locked version.
    fb(&p, &["split", "draft", "--per-axis", "5", "--seed", "9"]).success();
    for (name, args) in [("again", vec![]), ("by-version", vec!["--split-version", "1"])] {
        let out = dir.path().join(name);
        let mut all = vec!["export", out.to_str().unwrap()];
        all.extend(args);
        fb(&p, &all).success();
        let after = files(&out);
        assert_eq!(after.keys().collect::<Vec<_>>(), before.keys().collect::<Vec<_>>());
        for (file, bytes) in &before {
            assert!(after[file] == *bytes, "{file} differs in the {name} export");
        }
    }
    fb(&p, &["export", dir.path().join("v2").to_str().unwrap(), "--split-version", "2"])
        .failure()
        .stderr(predicates::str::contains("split v2 is a draft; lock it before exporting"));
    fb(&p, &["export", dir.path().join("v7").to_str().unwrap(), "--split-version", "7"])
        .failure()
        .stderr(predicates::str::contains("there is no split v7"));
}

// The storage refuses a change to a frozen row even from a path that did not ask the guard:
// a direct write is turned into the `split_locked` error, and a locked split cannot be edited.
#[test]
fn the_storage_itself_refuses_changes_to_frozen_rows() {
    let dir = tempfile::tempdir().unwrap();
    let (p, _) = locked_demo(dir.path());
    let project = forcebench::Project::open(&p).unwrap();
    let conn = project.conn();
    let row =
        query(&p, "SELECT candidate_id FROM split_rows WHERE role = 'eval' ORDER BY candidate_id LIMIT 1").remove(0);
    for sql in [
        format!("UPDATE annotations SET notes = 'x' WHERE candidate_id = '{row}'"),
        format!("UPDATE adjudications SET rationale = 'x' WHERE candidate_id = '{row}'"),
        format!("DELETE FROM adjudication_fields WHERE candidate_id = '{row}'"),
        format!("DELETE FROM qc_runs WHERE candidate_id = '{row}'"),
        format!("UPDATE qc_runs SET blocked = 1 - blocked, failed = failed + 1 WHERE candidate_id = '{row}'"),
        format!("DELETE FROM assignments WHERE candidate_id = '{row}'"),
        "UPDATE splits SET params_json = '{}' WHERE version = 1".to_string(),
        "DELETE FROM split_rows WHERE split_id = 1".to_string(),
        "DELETE FROM locked_rows".to_string(),
    ] {
        let err: forcebench::Error = conn.execute(&sql, []).unwrap_err().into();
        assert_eq!(err.code(), "split_locked", "{sql}: {err}");
    }
    let err = forcebench::annotate::set_field(
        &mut forcebench::Project::open(&p).unwrap(),
        &row,
        &query(&p, &format!("SELECT a.name FROM assignments s JOIN annotators a ON a.id = s.annotator_id WHERE s.candidate_id = '{row}' LIMIT 1"))[0],
        forcebench::annotate::Field::Notes,
        Some("late"),
    )
    .unwrap_err();
    assert_eq!(err.payload().code, "split_locked");
}

// Time spent on a frozen row is not recorded (it is exported as locked) and does not fail, so
// the view's timer can report as it leaves such a row.
#[test]
fn time_on_a_frozen_row_is_not_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let (p, _) = locked_demo(dir.path());
    let row =
        query(&p, "SELECT candidate_id FROM split_rows WHERE role = 'eval' ORDER BY candidate_id LIMIT 1").remove(0);
    let who = query(&p, &format!("SELECT a.name FROM assignments s JOIN annotators a ON a.id = s.annotator_id WHERE s.candidate_id = '{row}' LIMIT 1")).remove(0);
    let seconds = |p: &Path| {
        query(p, &format!("SELECT CAST(sum(seconds_spent) AS TEXT) FROM annotations WHERE candidate_id = '{row}'"))
    };
    let before = seconds(&p);
    let mut project = forcebench::Project::open(&p).unwrap();
    forcebench::annotate::add_time(&mut project, &row, &who, 12.5).unwrap();
    assert_eq!(seconds(&p), before);
}

// ---- Packets that survive a lock (item 3) ----

// Broke: packets issued, then the split locked (the lock said nothing of the packets out); Ben
// labelled three rows, one of them frozen, and the merge refused the whole return, even after he
// undid his change on the frozen row, so his valid rows were lost.
#[test]
fn a_return_that_touches_a_frozen_row_merges_every_other_row_and_lists_the_frozen_one() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("demo.forcebench");
    fb(&p, &["init"]).success();
    fb(&p, &["sample", "load"]).success();
    for name in ["Ana", "Ben", "Chidi", "Dana"] {
        fb(&p, &["annotators", "add", name]).success();
    }
    fb(&p, &["annotators", "add", "Eve", "--role", "adjudicator"]).success();
    fb(&p, &["assign"]).success();
    fb(&p, &["sample", "annotate"]).success();
    fb(&p, &["adjudicate", "confirm-agreements", "--adjudicator", "Eve", "--affirm"]).success();
    fb(&p, &["split", "draft", "--per-axis", "8"]).success();
    // Packets go out before the lock.
    let packets = dir.path().join("packets");
    let issued: serde_json::Value =
        serde_json::from_str(&stdout(&p, &["packets", "issue", "--out", packets.to_str().unwrap(), "--json"])).unwrap();
    let ben = issued.as_array().unwrap().iter().find(|i| i["annotator"] == "Ben").unwrap();
    let file = ben["file"].as_str().unwrap().to_string();
    let ben_rows = query(
        &p,
        "SELECT r.candidate_id FROM packet_rows r JOIN packets k ON k.id = r.packet_id JOIN annotators a ON a.id = k.annotator_id
         WHERE a.name = 'Ben' ORDER BY r.candidate_id",
    );
    let adjudicated: Vec<String> = query(&p, "SELECT candidate_id FROM adjudications");
    let frozen_row = ben_rows.iter().find(|id| adjudicated.contains(id)).unwrap().clone();
    let open_rows: Vec<String> = ben_rows.iter().filter(|id| !adjudicated.contains(id)).take(2).cloned().collect();
    assert_eq!(open_rows.len(), 2, "Ben has rows no lock freezes");

    // The lock names the packets out and what of them it freezes.
    fb(&p, &["sample", "audit"]).success();
    let lock = stdout(&p, &["split", "lock"]);
    let n_frozen: i64 = rusqlite::Connection::open(&p)
        .unwrap()
        .query_row(
            "SELECT count(*) FROM packet_rows r JOIN packets k ON k.id = r.packet_id JOIN annotators a ON a.id = k.annotator_id
             WHERE a.name = 'Ben' AND r.candidate_id IN (SELECT candidate_id FROM locked_rows)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(lock.contains("packets out with rows this lock froze"), "{lock}");
    assert!(
        lock.contains(&format!(
            "Ben packet {} (issued {}): {n_frozen} of its {} rows frozen; 0 returns merged so far",
            &ben["packet_id"].as_str().unwrap()[..8],
            query(
                &p,
                "SELECT issued_at FROM packets k JOIN annotators a ON a.id = k.annotator_id WHERE a.name = 'Ben'"
            )[0],
            ben_rows.len()
        )),
        "{lock}"
    );

    // Ben labels two open rows and the frozen one, and also changes and undoes a note on it.
    let ws = dir.path().join("ben.forcebench");
    fb(&ws, &["packets", "open", &file, "--workspace", ws.to_str().unwrap()]).success();
    for id in &open_rows {
        fb(&ws, &["annotate", "set", id, "notes", "labelled in the packet", "--annotator", "Ben"]).success();
    }
    fb(&ws, &["annotate", "set", &frozen_row, "notes", "changed offline", "--annotator", "Ben"]).success();
    fb(&ws, &["annotate", "set", &frozen_row, "axis", "numeric", "--annotator", "Ben"]).success();
    fb(&ws, &["annotate", "undo", &frozen_row, "--annotator", "Ben"]).success();
    let returned = dir.path().join("ben-returned.json");
    fb(&ws, &["packets", "return", "--out", returned.to_str().unwrap()]).success();
    let notes_before = query(&p, &format!("SELECT coalesce(notes, '') FROM annotations a JOIN annotators n ON n.id = a.annotator_id WHERE a.candidate_id = '{frozen_row}' AND n.name = 'Ben'"));

    // The same merge into a copy of the project, for its JSON report.
    let copy = dir.path().join("copy.forcebench");
    std::fs::copy(&p, &copy).unwrap();
    let report: serde_json::Value =
        serde_json::from_str(&stdout(&copy, &["packets", "merge", returned.to_str().unwrap(), "--json"])).unwrap();
    assert_eq!(report[0]["merged"], true);
    let left = report[0]["frozen_rows"].as_array().unwrap();
    assert_eq!(left.len(), 1, "{report}");
    assert_eq!(left[0]["id"], frozen_row.as_str());
    assert_eq!(left[0]["reason"], "the row is in locked split v1, which freezes its labels");
    assert!(left[0]["events"].as_u64().unwrap() >= 3, "the note, the axis and its undo: {}", left[0]);
    let out = stdout(&p, &["packets", "merge", returned.to_str().unwrap()]);
    assert!(out.contains(": merged ") && out.contains(" rows from Ben"), "the open rows are merged: {out}");
    assert!(out.contains("1 row left out (frozen by a locked split"), "{out}");
    assert!(
        out.contains(&format!("  {frozen_row}: "))
            && out.contains(" changes left out: the row is in locked split v1, which freezes its labels"),
        "{out}"
    );
    for id in &open_rows {
        assert_eq!(
            query(&p, &format!("SELECT coalesce(notes, '') FROM annotations a JOIN annotators n ON n.id = a.annotator_id WHERE a.candidate_id = '{id}' AND n.name = 'Ben'")),
            vec!["labelled in the packet".to_string()]
        );
    }
    assert_eq!(
        query(&p, &format!("SELECT coalesce(notes, '') FROM annotations a JOIN annotators n ON n.id = a.annotator_id WHERE a.candidate_id = '{frozen_row}' AND n.name = 'Ben'")),
        notes_before,
        "the frozen row is unchanged (all or nothing within it)"
    );
    let again: serde_json::Value =
        serde_json::from_str(&stdout(&p, &["packets", "merge", returned.to_str().unwrap(), "--json"])).unwrap();
    assert_eq!(again[0]["merged"], false, "the same file again merges nothing new");

    // Any other refusal still refuses the whole return: a doctored return merges nothing.
    let mut doctored: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&returned).unwrap()).unwrap();
    doctored["annotator"] = "Chidi".into();
    let bad = dir.path().join("doctored.json");
    std::fs::write(&bad, serde_json::to_string(&doctored).unwrap()).unwrap();
    fb(&p, &["packets", "merge", bad.to_str().unwrap()])
        .failure()
        .stderr(predicates::str::contains("nothing was merged"));

    // A packet issued after the lock carries the mark, and its workspace refuses the frozen row.
    let later = dir.path().join("later");
    let reissued: serde_json::Value =
        serde_json::from_str(&stdout(&p, &["packets", "issue", "--out", later.to_str().unwrap(), "--json"])).unwrap();
    let file = reissued.as_array().unwrap().iter().find(|i| i["annotator"] == "Ben").unwrap()["file"]
        .as_str()
        .unwrap()
        .to_string();
    let packet: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let marked: Vec<&str> = packet["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["locked_split"] == 1)
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(marked.len() as i64, n_frozen);
    assert!(marked.contains(&frozen_row.as_str()) && !marked.contains(&open_rows[0].as_str()));
    let ws2 = dir.path().join("ben2.forcebench");
    fb(&ws2, &["packets", "open", &file, "--workspace", ws2.to_str().unwrap()]).success();
    fb(&ws2, &["annotate", "set", &frozen_row, "notes", "x", "--annotator", "Ben"])
        .failure()
        .stderr(predicates::str::contains(format!("row `{frozen_row}` is in locked split v1, which freezes it")));
    fb(&ws2, &["annotate", "set", &open_rows[0], "notes", "y", "--annotator", "Ben"]).success();
    // The annotate view knows it before anything is typed.
    let opened = forcebench::Project::open(&ws2).unwrap();
    assert_eq!(forcebench::annotate::row_view(&opened, &frozen_row, "Ben").unwrap().locked_split, Some(1));
    assert_eq!(forcebench::annotate::row_view(&opened, &open_rows[0], "Ben").unwrap().locked_split, None);
}
