//! The `forcebench` command line: exit codes, stderr, and the documented `--json` outputs.

use crate::common::*;
use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

/// `forcebench` with a clean environment: no inherited project, data dir inside `home`.
fn forcebench(home: &std::path::Path) -> Command {
    let mut cmd = Command::cargo_bin("forcebench").unwrap();
    cmd.env_remove("FORCEBENCH_PROJECT").env("XDG_DATA_HOME", home.join("data")).env("HOME", home);
    cmd
}

fn json(cmd: &mut Command) -> Value {
    let out = cmd.assert().success().get_output().stdout.clone();
    serde_json::from_slice(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out)))
}

#[test]
fn init_import_status_list_show() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.forcebench");
    let p = p.to_str().unwrap();
    forcebench(dir.path())
        .args(["--project", p, "init", "--name", "Trial"])
        .assert()
        .success()
        .stdout(predicate::str::contains("created project `Trial`"));
    let file = write(dir.path(), "c.csv", csv_file(&[csv_row("a"), csv_row("b")]));
    forcebench(dir.path())
        .args(["--project", p, "import"])
        .arg(&file)
        .assert()
        .success()
        .stdout(predicate::str::contains("imported 2 new rows"));
    forcebench(dir.path())
        .args(["--project", p, "import"])
        .arg(&file)
        .assert()
        .success()
        .stdout(predicate::str::contains("nothing changed"));

    let status = json(forcebench(dir.path()).args(["--project", p, "status", "--json"]));
    assert_eq!(status["project"]["name"], "Trial");
    assert_eq!(status["candidates"], 2);
    assert_eq!(status["groups"], 2);
    let states: Vec<&str> = status["states"].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        states,
        [
            "imported",
            "assigned",
            "annotating",
            "double_annotated",
            "adjudicated",
            "accepted",
            "rejected",
            "locality_removed"
        ]
    );
    assert_eq!(status["states"]["imported"], 2);
    assert_eq!(status["by_source"]["ExpertQA"], 2);
    assert_eq!(status["by_suggested_axis"]["modality"], 2);

    let list = json(forcebench(dir.path()).args(["--project", p, "candidates", "list", "--json"]));
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["id"], "a");
    assert_eq!(list[0]["state"], "imported");
    assert_eq!(list[0]["axis"], "modality");
    assert_eq!(list[0]["severity"], 2);

    let show = json(forcebench(dir.path()).args(["--project", p, "candidates", "show", "b", "--json"]));
    assert_eq!(show["id"], "b");
    assert_eq!(show["passage"], "In a trial of adults, the drug may reduce pain, the authors said.");
    assert_eq!(show["content_sha256"].as_str().unwrap().len(), 64);
    assert_eq!(show["seq"], 2);

    forcebench(dir.path())
        .args(["--project", p, "candidates", "list", "--state", "accepted", "--json"])
        .assert()
        .success()
        .stdout(predicate::str::diff("[]\n"));
}

// A malformed command line carries a code like every other error (exit 2, clap's words after
// it); help and version are not errors.
#[test]
fn a_malformed_command_line_is_an_error_with_the_usage_code() {
    let dir = tempfile::tempdir().unwrap();
    for args in [&["status", "--no-such-flag"][..], &["annotate", "import"], &["judge", "run", "--concurrency", "x"]] {
        let out = forcebench(dir.path()).args(args).output().unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with("error [usage]: "), "{args:?}: {err}");
        assert!(err.contains("try '--help'"), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    forcebench(dir.path()).arg("--help").assert().success().stdout(predicate::str::contains("Usage: forcebench"));
    forcebench(dir.path()).arg("--version").assert().success().stderr("");
}

#[test]
fn errors_go_to_stderr_with_nonzero_exit() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.forcebench");
    let p = p.to_str().unwrap();
    forcebench(dir.path())
        .args(["--project", p, "status"])
        .assert()
        .failure()
        .stdout("")
        .stderr(predicate::str::contains("no project at").and(predicate::str::contains("init")));
    forcebench(dir.path()).args(["--project", p, "init"]).assert().success();
    forcebench(dir.path())
        .args(["--project", p, "init"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("already exists"));
    let bad = write(dir.path(), "bad.csv", csv_file(&[csv_row("a").replace(",modality,", ",vibes,")]));
    forcebench(dir.path())
        .args(["--project", p, "import"])
        .arg(&bad)
        .assert()
        .failure()
        .stdout("")
        .stderr(predicate::str::contains("bad.csv:2: field `axis`: unknown axis `vibes`"));
    forcebench(dir.path())
        .args(["--project", p, "candidates", "show", "zzz"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("no candidate with id `zzz`"));
    forcebench(dir.path())
        .args(["--project", p, "candidates", "list", "--state", "done"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("--state: `done` is not one of imported"));
    let text = write(dir.path(), "notes.txt", "hello there, not a db ".repeat(8));
    forcebench(dir.path())
        .args(["--project"])
        .arg(&text)
        .arg("status")
        .assert()
        .failure()
        .stderr(predicate::str::contains("not a ForceBench project"));
}

#[test]
fn default_project_is_created_in_the_data_directory_on_first_use() {
    let dir = tempfile::tempdir().unwrap();
    let status = json(forcebench(dir.path()).args(["status", "--json"]));
    let expected = dir.path().join("data/forcebench/default.forcebench");
    assert!(expected.exists());
    assert_eq!(status["project"]["path"], expected.to_str().unwrap());
    assert_eq!(status["candidates"], 0);
    // The same project is found again.
    let again = json(forcebench(dir.path()).args(["status", "--json"]));
    assert_eq!(again["project"]["id"], status["project"]["id"]);
}

#[test]
fn environment_variable_names_the_project() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("env.forcebench");
    forcebench(dir.path()).arg("--project").arg(&p).arg("init").assert().success();
    let status = json(forcebench(dir.path()).env("FORCEBENCH_PROJECT", &p).args(["status", "--json"]));
    assert_eq!(status["project"]["name"], "env");
    assert!(!dir.path().join("data/forcebench/default.forcebench").exists());
}

#[test]
fn sample_generate_and_load() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("syn.jsonl");
    forcebench(dir.path())
        .args(["sample", "generate", "--rows", "50", "--seed", "9", "--out"])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("wrote 50 synthetic rows"));
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 50);
    let p = dir.path().join("p.forcebench");
    forcebench(dir.path()).arg("--project").arg(&p).arg("init").assert().success();
    forcebench(dir.path())
        .arg("--project")
        .arg(&p)
        .args(["sample", "load"])
        .assert()
        .success()
        .stdout(predicate::str::contains("imported"));
}

#[test]
fn adjudicate_qc_locality_and_the_funnel_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.forcebench");
    let p = p.to_str().unwrap();
    let run = |args: &[&str]| {
        let mut cmd = forcebench(dir.path());
        cmd.args(["--project", p]).args(args);
        cmd
    };
    run(&["init"]).assert().success();
    let file = write(dir.path(), "c.csv", csv_file(&[csv_row("a"), csv_row("b"), csv_row("c")]));
    run(&["import", file.to_str().unwrap()]).assert().success();
    for (name, role) in [("ana", "annotator"), ("ben", "annotator"), ("eve", "adjudicator")] {
        run(&["annotators", "add", name, "--role", role]).assert().success();
    }
    run(&["assign"]).assert().success();
    let accept =
        |id: &str, axis: &str| format!("{{\"id\":\"{id}\",\"decision\":\"accept_force_gap\",\"axis\":\"{axis}\"}}\n");
    let ana = write(dir.path(), "ana.jsonl", [accept("a", "modality"), accept("b", "modality")].concat());
    let ben = write(dir.path(), "ben.jsonl", [accept("a", "modality"), accept("b", "numeric")].concat());
    run(&["annotate", "import", ana.to_str().unwrap(), "--annotator", "ana"]).assert().success();
    run(&["annotate", "import", ben.to_str().unwrap(), "--annotator", "ben"]).assert().success();

    let queue = json(&mut run(&["adjudicate", "queue", "--json"]));
    let items = queue["items"].as_array().unwrap();
    assert_eq!((items[0]["id"].as_str(), items[0]["category"].as_str()), (Some("b"), Some("field_disagreement")));
    assert_eq!(items[0]["differing"], serde_json::json!(["axis"]));
    assert_eq!((items[1]["id"].as_str(), items[1]["category"].as_str()), (Some("a"), Some("full_agreement")));
    assert_eq!(queue["counts"]["full_agreement"]["open"], 1);

    // Row c is not double-annotated: the whole file is refused and nothing written.
    let adj = write(
        dir.path(),
        "adj.jsonl",
        "{\"id\":\"b\",\"axis\":\"numeric\"}\n{\"id\":\"c\",\"decision\":\"accept_force_gap\"}\n",
    );
    run(&["adjudicate", "import", adj.to_str().unwrap(), "--adjudicator", "eve"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("adj.jsonl:2: field `id`: row `c` is not double-annotated"));
    assert_eq!(json(&mut run(&["status", "--json"]))["funnel"]["adjudicated"], 0);

    let yes = r#""checklist":{"span_decisive":true,"calibrated_supported":true,"raised_underwarranted":true,"one_local_axis":true,"no_unrelated_addition":true}"#;
    let adj = write(dir.path(), "adj2.jsonl", format!("{{\"id\":\"b\",\"axis\":\"numeric\",{yes}}}\n"));
    run(&["adjudicate", "import", adj.to_str().unwrap(), "--adjudicator", "eve"])
        .assert()
        .success()
        .stdout(predicate::str::contains("adjudicated 1 rows"));
    run(&["adjudicate", "confirm-agreements", "--adjudicator", "eve"])
        .assert()
        .success()
        .stdout(predicate::str::contains("confirmed 1 full agreements"));
    let qc = json(&mut run(&["qc", "run", "--json"]));
    assert_eq!(
        (qc["rows_checked"].as_u64(), qc["passed"].as_u64(), qc["blocked"].as_u64()),
        (Some(2), Some(2), Some(0))
    );
    let unanswered: Vec<&str> = qc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["failed"].as_array().unwrap().iter().any(|c| c["check"] == "checklist_span_decisive"))
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(unanswered, ["a"], "the bulk-confirmed row has an unanswered checklist");

    run(&["locality", "mark", "b", "--reason", " "])
        .assert()
        .failure()
        .stderr(predicate::str::contains("marking row `b` nonlocal needs a reason"));
    run(&["locality", "mark", "b", "--reason", "adds a population"])
        .assert()
        .success()
        .stdout(predicate::str::contains("marked b nonlocal (eve)"));

    let status = json(&mut run(&["status", "--json"]));
    let f = &status["funnel"];
    assert_eq!(
        (f["candidates"].as_i64(), f["double_annotated"].as_i64(), f["adjudicated"].as_i64()),
        (Some(3), Some(2), Some(2))
    );
    assert_eq!(
        (f["accepted"].as_i64(), f["locality_removed"].as_i64(), f["rejected"].as_i64()),
        (Some(1), Some(1), Some(0))
    );
    assert_eq!(f["by_axis"]["numeric"]["locality_removed"], 1);
    assert_eq!(f["by_axis"]["modality"]["accepted"], 1);
    assert_eq!(f["retained"], Value::Null);

    let out = dir.path().join("final.jsonl");
    run(&["adjudicate", "export", "--out", out.to_str().unwrap()]).assert().success();
    let lines: Vec<Value> =
        std::fs::read_to_string(&out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    assert_eq!((lines[1]["id"].as_str(), lines[1]["state"].as_str()), (Some("b"), Some("locality_removed")));
    assert_eq!(lines[1]["sources"]["axis"], "b");
    assert_eq!(lines[1]["annotators"]["axis"], "ben");
    assert_eq!(lines[0]["bulk_confirmed"], true);
}

/// Before, `--out` replaced any file without asking, the project file itself included.
#[test]
fn out_replaces_a_file_only_with_force_and_never_a_project() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("p.forcebench");
    let run = |args: &[&str]| {
        let mut cmd = forcebench(dir.path());
        cmd.arg("--project").arg(&project).args(args);
        cmd
    };
    run(&["init"]).assert().success();
    let file = write(dir.path(), "c.csv", csv_file(&[csv_row("a"), csv_row("b")]));
    run(&["import", file.to_str().unwrap()]).assert().success();
    let tables = || dump(&forcebench::Project::open(&project).unwrap());
    let before = tables();

    let existing = write(dir.path(), "labels.jsonl", "keep me\n");
    for args in [
        vec!["adjudicate", "export", "--out", existing.to_str().unwrap()],
        vec!["sample", "generate", "--rows", "3", "--out", existing.to_str().unwrap()],
    ] {
        run(&args).assert().failure().stderr(format!(
            "error [output_exists]: {} already exists; nothing was written (choose another name, or add --force to replace it)\n",
            existing.display()
        ));
        assert_eq!(std::fs::read_to_string(&existing).unwrap(), "keep me\n", "{args:?}");
    }
    run(&["adjudicate", "export", "--out", existing.to_str().unwrap(), "--force"]).assert().success();
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "", "no row is adjudicated");

    let wal = dir.path().join("p.forcebench-wal");
    for target in [&project, &wal] {
        for args in [
            vec!["adjudicate", "export", "--force", "--out", target.to_str().unwrap()],
            vec!["sample", "generate", "--rows", "3", "--force", "--out", target.to_str().unwrap()],
        ] {
            run(&args).assert().failure().stderr(format!(
                "error [output_is_project]: {} is a ForceBench project; nothing was written (an output never replaces a project, even with --force)\n",
                target.display()
            ));
        }
    }
    assert_eq!(tables(), before);
    // A pipe is never replaced by the rename (nor opened, which would wait forever).
    let fifo = dir.path().join("fifo.jsonl");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    run(&["adjudicate", "export", "--force", "--out", fifo.to_str().unwrap()])
        .timeout(std::time::Duration::from_secs(20))
        .assert()
        .failure()
        .stderr(format!(
            "error [bad_output_path]: {} is not a regular file (a device or a pipe); name a file to write (nothing was written)\n",
            fifo.display()
        ));
    // The judge's templates: all checked before any is written.
    let templates = dir.path().join("templates");
    run(&["judge", "templates", "--out", templates.to_str().unwrap()]).assert().success();
    let first = std::fs::read_dir(&templates).unwrap().count();
    std::fs::write(templates.join("generic.txt"), "edited").unwrap();
    run(&["judge", "templates", "--out", templates.to_str().unwrap()])
        .assert()
        .failure()
        .stderr(predicate::str::contains("already exists; nothing was written"));
    assert_eq!(std::fs::read_to_string(templates.join("generic.txt")).unwrap(), "edited");
    run(&["judge", "templates", "--out", templates.to_str().unwrap(), "--force"]).assert().success();
    assert_ne!(std::fs::read_to_string(templates.join("generic.txt")).unwrap(), "edited");
    assert_eq!(std::fs::read_dir(&templates).unwrap().count(), first);
    let leftovers: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("forcebench-tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// Before, `--out F.jsonl` wrote through `F.tmp`, a fixed name: a symlink planted there made it
/// overwrite a file anywhere. A symlink at the target itself is replaced, never written through.
#[test]
fn out_never_writes_through_a_planted_symlink() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let project = dir.path().join("p.forcebench");
    let run = |args: &[&str]| {
        let mut cmd = forcebench(dir.path());
        cmd.arg("--project").arg(&project).args(args);
        cmd
    };
    run(&["init"]).assert().success();
    let victim = write(outside.path(), "victim.txt", "precious");
    std::os::unix::fs::symlink(&victim, dir.path().join("labels.tmp")).unwrap();
    let out = dir.path().join("labels.jsonl");
    run(&["adjudicate", "export", "--out", out.to_str().unwrap()]).assert().success();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    assert!(std::fs::symlink_metadata(&out).unwrap().is_file());

    for (target, args) in [
        ("linked.jsonl", vec!["adjudicate", "export", "--force", "--out"]),
        ("linked.csv", vec!["sample", "generate", "--rows", "3", "--force", "--out"]),
    ] {
        let link = dir.path().join(target);
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        run(&args).arg(&link).assert().success();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious", "{target}");
        assert!(std::fs::symlink_metadata(&link).unwrap().is_file(), "{target}: the link itself is replaced");
    }
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 1);
}

#[test]
fn the_annotate_queue_a_window_at_a_time_and_the_next_open_row() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.forcebench");
    let p = p.to_str().unwrap();
    let run = |args: &[&str]| {
        let mut cmd = forcebench(dir.path());
        cmd.args(["--project", p]).args(args);
        cmd
    };
    run(&["init"]).assert().success();
    run(&["sample", "load"]).assert().success();
    for name in ["Ana", "Ben"] {
        run(&["annotators", "add", name]).assert().success();
    }
    run(&["assign"]).assert().success();
    run(&["sample", "annotate", "--rows", "40"]).assert().success();
    let whole = json(&mut run(&["annotate", "queue", "--annotator", "Ana", "--json"]));
    let whole = whole.as_array().unwrap();
    let window =
        json(&mut run(&["annotate", "queue", "--annotator", "Ana", "--offset", "2", "--limit", "3", "--json"]));
    assert_eq!(window["total"].as_u64(), Some(whole.len() as u64));
    assert_eq!(window["offset"], 2);
    assert_eq!(window["rows"].as_array().unwrap(), &whole[2..5]);
    let first_open = whole.iter().find(|q| q["finished"] == false).unwrap();
    let next = json(&mut run(&["annotate", "next", "--annotator", "Ana", "--json"]));
    assert_eq!(next["id"], first_open["id"]);
    // After the last row it goes round to the start.
    let last = whole.last().unwrap()["id"].as_str().unwrap();
    let after_last = json(&mut run(&["annotate", "next", "--annotator", "Ana", "--after", last, "--json"]));
    let open_from_top = whole.iter().find(|q| q["finished"] == false && q["id"] != last).unwrap();
    assert_eq!(after_last["id"], open_from_top["id"]);
    run(&["annotate", "queue", "--annotator", "Ana", "--limit", "5001"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("at most 5000 rows"));
    run(&["annotate", "queue", "--annotator", "Ana", "--limit", "2"])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!("of {} rows finished", whole.len())));
}
