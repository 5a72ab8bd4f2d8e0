//! The hostile probe's third round, each through the real `forcebench` command: counts bounded
//! before they size memory, flags given twice or naming nothing refused, lead steps refused in a
//! workspace, notes of invisible characters taken for no note, writes stopped by a file size limit
//! that leave nothing behind, the seal over what an export is written from, and damage in the
//! words every damage refusal uses.

use super::*;

#[test]
fn a_count_past_the_largest_allowed_is_refused_before_it_sizes_memory() {
    // Before: `--bootstrap 4294967295` aborted with "memory allocation of 34359738360 bytes
    // failed" and a backtrace (evaluate, evaluate panel, evaluate paired, agreement), and
    // `sample generate --rows 1000000000000` the same way.
    let c = Case::new();
    let too_many = "--bootstrap 4294967295 is more replicates than ForceBench runs: at most 100000 (the default is \
                    1000; 0 skips the intervals). Nothing was computed";
    for args in [
        vec!["evaluate", "--bootstrap", "4294967295"],
        vec!["evaluate", "panel", "A", "B", "--bootstrap", "4294967295"],
        vec!["evaluate", "paired", "A", "B", "--bootstrap", "4294967295"],
        vec!["agreement", "--bootstrap", "4294967295"],
    ] {
        c.refused_code(&args, "invalid_argument", too_many, &[]);
    }
    // The largest allowed is taken.
    let (code, out, err) = c.run(&["agreement", "--bootstrap", "100000"]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    c.refused_code(
        &["sample", "generate", "--rows", "1000000000000", "--out", "big.csv"],
        "invalid_argument",
        "--rows 1000000000000 is not a number of rows ForceBench generates: from 1 to 200000 (a larger file would \
         be over the size an import reads). Nothing was written",
        &["big.csv"],
    );
    c.refused_code(
        &["sample", "generate", "--rows", "0", "--out", "none.csv"],
        "invalid_argument",
        "--rows 0 is not a number of rows ForceBench generates: from 1 to 200000 (a larger file would be over the \
         size an import reads). Nothing was written",
        &["none.csv"],
    );
    c.refused_code(
        &["sample", "annotate", "--rows", "0"],
        "invalid_argument",
        "--rows 0 simulates nothing: give the number of rows to simulate, at least 1. Nothing was changed",
        &[],
    );
}

#[test]
fn the_largest_synthetic_file_is_one_an_import_reads() {
    // The bound on `sample generate --rows` is there so its file can be imported: 200,000 rows
    // must stay under the 256 MiB an input file may hold, in either format. Measured on 2,000
    // rows (the rows' lengths do not grow with their number).
    let c = Case::new();
    for out in ["g.csv", "g.jsonl"] {
        let (code, _, err) = c.run(&["sample", "generate", "--rows", "2000", "--out", out]);
        assert_eq!((code, err.as_str()), (0, ""));
        let per_row = std::fs::metadata(c.path(out)).unwrap().len() as f64 / 2000.0;
        assert!(per_row * 200_000.0 * 1.2 < forcebench::input::MAX_FILE_BYTES as f64, "{out}: {per_row} bytes a row");
    }
}

#[test]
fn an_axis_capped_twice_is_refused() {
    // Before: `--cap relation=3 --cap relation=9` drafted with the last cap, silently.
    let c = Case::new();
    c.refused_code(
        &["split", "draft", "--cap", "relation=3", "--cap", "relation=9"],
        "invalid_argument",
        "--cap relation is given twice (relation=3 and relation=9): give each axis one cap. Nothing was changed",
        &[],
    );
}

#[test]
fn a_filter_value_that_can_never_match_is_refused_with_what_it_takes() {
    // Before: `adjudicate queue --axis gravity` and `--pair nobody+ghost` listed an empty queue,
    // which reads as "nothing to adjudicate", and `annotate next --after nope` started from the
    // top as if no row had been named.
    let c = Case::new();
    c.refused_code(
        &["adjudicate", "queue", "--axis", "gravity"],
        "invalid_argument",
        "--axis `gravity` is not an axis; the axes are relation, modality, scope, temporal, numeric, none",
        &[],
    );
    c.refused_code(
        &["adjudicate", "queue", "--source", "nowhere"],
        "invalid_argument",
        "--source `nowhere` is the source of no row; the project's sources are AttributedQA, ExpertQA, GaRAGe, LFQA, \
         Stanford-GenSearch",
        &[],
    );
    c.refused_code(
        &["adjudicate", "queue", "--pair", "nobody+ghost"],
        "invalid_argument",
        "--pair `nobody+ghost` names `nobody` and `ghost` not on the roster; the queue's pairs are ana+ben",
        &[],
    );
    c.refused_code(
        &["adjudicate", "queue", "--pair", "ana+nobody"],
        "invalid_argument",
        "--pair `ana+nobody` names `nobody` not on the roster; the queue's pairs are ana+ben",
        &[],
    );
    c.refused_code(
        &["adjudicate", "queue", "--pair", "ana"],
        "invalid_argument",
        "--pair `ana` is not two names joined by `+`; the queue's pairs are ana+ben",
        &[],
    );
    c.refused_code(
        &["annotate", "next", "--annotator", "ana", "--after", "nope"],
        "not_found",
        "no candidate with id `nope`",
        &[],
    );
    // What the filters take still works, in either order of the pair.
    for args in [
        vec!["adjudicate", "queue", "--axis", "scope"],
        vec!["adjudicate", "queue", "--axis", "none"],
        vec!["adjudicate", "queue", "--pair", "ben+ana"],
        vec!["annotate", "next", "--annotator", "ana", "--after", "r0000"],
    ] {
        let (code, _, err) = c.run(&args);
        assert_eq!((code, err.as_str()), (0, ""), "{args:?}");
    }
}

#[test]
fn simulated_annotations_are_refused_in_an_annotators_workspace() {
    // Before: `sample annotate --rows 5` inside Ana's workspace simulated five annotations there,
    // which her return then carried to the lead as her work.
    let c = packet_case();
    let (code, _, err) = c.run(&["packets", "open", "ana.packet.json", "--workspace", "ws.forcebench"]);
    assert_eq!((code, err.as_str()), (0, ""));
    let w = Case::of(&c.path("ws.forcebench"));
    w.refused_code(
        &["sample", "annotate", "--rows", "5"],
        "lead_only",
        "this is an annotator's workspace, made from a packet: simulating annotations (a demonstration) is the \
         lead's step, done in the lead's project. Nothing was changed",
        &[],
    );
    // The other sample steps: `load` imports (refused as import is), `generate` only writes a
    // file of synthetic rows and touches no project.
    let (code, _, err) = w.run(&["sample", "generate", "--rows", "3", "--out", "g.csv"]);
    assert_eq!((code, err.as_str()), (0, ""));
}

#[test]
fn a_note_of_only_invisible_characters_is_no_note() {
    // Before: a needs-discussion annotation whose note was U+200B, U+200D or U+FEFF alone
    // counted as finished, though every reader sees an empty note.
    let c = packet_case();
    for invisible in ["\u{200B}", "\u{200D}", "\u{FEFF}", " \u{200B}\u{FEFF} "] {
        for args in [
            vec!["annotate", "set", "fb-0001", "notes", invisible, "--annotator", "ana"],
            vec!["annotate", "set", "fb-0001", "decision", "needs_discussion", "--annotator", "ana"],
        ] {
            let (code, _, err) = c.run(&args);
            assert_eq!((code, err.as_str()), (0, ""), "{args:?}");
        }
        let (code, out, err) = c.run(&["annotate", "show", "fb-0001", "--annotator", "ana", "--json"]);
        assert_eq!((code, err.as_str()), (0, ""));
        let shown: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(shown["finished"], false, "{invisible:?}");
        assert_eq!(shown["problems"], serde_json::json!(["needs discussion needs a note saying what to discuss"]));
    }
    // A visible note finishes it.
    let (code, _, err) = c.run(&["annotate", "set", "fb-0001", "notes", "\u{200B}why?", "--annotator", "ana"]);
    assert_eq!((code, err.as_str()), (0, ""));
    let (_, out, _) = c.run(&["annotate", "show", "fb-0001", "--annotator", "ana", "--json"]);
    assert_eq!(serde_json::from_str::<serde_json::Value>(&out).unwrap()["finished"], true);
}

/// A locked project whose export is large enough that a file size limit can stop its largest
/// files while SQLite's own files beside the project (its 32 KiB `-shm` index) stay under it:
/// 130 accepted rows, built once and copied for each test.
fn large_locked() -> &'static Path {
    static TEMPLATE: OnceLock<PathBuf> = OnceLock::new();
    TEMPLATE.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("hostile-large-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut p = crate::split::project_from(&dir, "l.forcebench", &[("scope", 70), ("numeric", 60)], 10, 1);
        forcebench::split::draft(&mut p, &forcebench::split::SplitParams::new(Default::default(), Some(20), Some(1)))
            .unwrap();
        forcebench::split::lock(&mut p).unwrap();
        drop(p);
        dir.join("l.forcebench")
    })
}

/// Every entry of the case folder but the project (and what `keep` names), sorted.
fn left_in(c: &Case, keep: &[&str]) -> Vec<String> {
    let mut left: Vec<String> = std::fs::read_dir(c.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "p.forcebench" && !keep.contains(&n.as_str()))
        .collect();
    left.sort();
    left
}

/// The sizes of the files a command writes into folder `out`, from a run with no limit on a copy.
fn sizes_of(c: &Case, args: &[&str], out: &str) -> Vec<u64> {
    let copy = Case::of(&c.project());
    let (code, _, err) = copy.run(args);
    assert_eq!((code, err.as_str()), (0, ""), "{args:?}");
    std::fs::read_dir(copy.path(out)).unwrap().map(|e| e.unwrap().metadata().unwrap().len()).collect()
}

const TOO_LARGE: &str = ": the file would be larger than this process may write (its file size limit)";

#[test]
fn a_write_past_the_file_size_limit_fails_in_words_and_leaves_nothing_behind() {
    // Before: under `ulimit -f`, `export` and `feedback issue` were killed by SIGXFSZ (exit 153)
    // and left `.DIR.<hex>.forcebench-export` behind; with the signal ignored by the shell,
    // `feedback issue` said "error [database]: disk I/O error".
    let c = Case::of(large_locked());
    // 48 KiB: over what the project's own files need, under the largest file of the export.
    let blocks = 96;
    let args = ["export", "out"];
    let sizes = sizes_of(&c, &args, "out");
    assert!(sizes.iter().any(|s| *s > blocks * 512), "{sizes:?} must have a file over the limit");
    let project = c.project_sha256();
    let (code, stdout, err) = run_in_shell(&c, &format!("ulimit -f {blocks}"), &args);
    let file = err.strip_prefix("error [io]: out/").and_then(|e| e.strip_suffix(&format!("{TOO_LARGE}\n")));
    assert!(
        (code, stdout.as_str()) == (1, "") && file.is_some_and(|f| forcebench::split::EXPORT_FILES.contains(&f)),
        "exit {code}, stdout {stdout:?}, stderr {err:?}"
    );
    assert_eq!(left_in(&c, &[]), Vec::<String>::new(), "the export left files behind");
    assert_eq!(c.project_sha256(), project, "the export changed the project");

    // The plots (a report folder of several files) are written all or none.
    let (code, _, err) = c.run(&["baselines", "run"]);
    assert_eq!((code, err.as_str()), (0, ""));
    let project = c.project_sha256();
    let (code, _, err) = run_in_shell(&c, &format!("ulimit -f {blocks}"), &["evaluate", "--plots", "plots"]);
    assert_eq!((code, err.as_str()), (1, &*format!("error [io]: plots/mvr_fs.png{TOO_LARGE}\n")));
    assert_eq!(left_in(&c, &[]), Vec::<String>::new(), "the plots left files behind");
    assert_eq!(c.project_sha256(), project, "the plots changed the project");

    // 8 KiB: the feedback files (1 KiB each) fit, the project's own files do not; the step is
    // refused naming the project, and the files it had written are removed.
    let (code, stdout, err) = run_in_shell(&c, "ulimit -f 16", &["feedback", "issue", "--out", "out"]);
    assert_eq!(
        (code, stdout.as_str(), err.as_str()),
        (1, "", &*format!("error [io]: p.forcebench{TOO_LARGE}; nothing was saved, and the project is as it was\n"))
    );
    // (SQLite's own `-wal` and `-shm` files may stay: the next opening reads or removes them.)
    assert_eq!(
        left_in(&c, &["p.forcebench-wal", "p.forcebench-shm"]),
        Vec::<String>::new(),
        "feedback issue left files behind"
    );
    assert_eq!(c.project_sha256(), project, "feedback issue changed the project");
}

/// Runs `forcebench --project p.forcebench ARGS` in the case folder through `sh`, after `setup`
/// (a `ulimit`), with the shell's default for SIGXFSZ (which kills): the command must ignore the
/// signal itself.
fn run_in_shell(c: &Case, setup: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("{setup}; exec \"$0\" --project p.forcebench \"$@\""))
        .arg(env!("CARGO_BIN_EXE_forcebench"))
        .args(args)
        .current_dir(c.dir.path())
        .env_remove("FORCEBENCH_PROJECT")
        .env("HOME", c.dir.path())
        .env("XDG_DATA_HOME", c.dir.path().join("data"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

/// A case whose project is the upgrade fixture of schema `n` (a real file of that era).
fn fixture_case(n: i64) -> Case {
    Case::of(&Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/upgrade/schema{n}.forcebench")))
}

fn set_user_version(c: &Case, v: i64) {
    rusqlite::Connection::open(c.project()).unwrap().pragma_update(None, "user_version", v).unwrap();
    assert!(!c.path("p.forcebench-wal").exists());
}

#[test]
fn a_schema_version_that_does_not_match_the_tables_is_refused_as_damage() {
    // Before: a schema-6 file edited to claim 13 was "upgraded" to 14 with the tables of
    // versions 7 to 13 missing; a schema-13 file claiming 6 failed with a raw
    // "rusqlite_migration error while executing query ...".
    let c = fixture_case(6);
    set_user_version(&c, 13);
    c.refused_code(
        &["status"],
        "damaged_project",
        "p.forcebench is damaged (its schema version says 13, but its tables are not those of version 13: it lacks \
         `guideline_versions`, `judge_requests`, `judge_runs`, `split_seals`; the version was edited or the file \
         changed outside ForceBench); ForceBench cannot read it, and changed nothing. Restore it from \
         your own backup",
        &[],
    );
    assert_eq!(left_in(&c, &[]), Vec::<String>::new(), "no copy, no lock file");

    let c = fixture_case(13);
    set_user_version(&c, 6);
    let (code, out, err) = c.run_with(&["status"], true);
    assert!(
        (code, out.as_str()) == (1, "")
            && err.starts_with(
                "error [damaged_project]: p.forcebench is damaged (its schema version says 6, but its tables are not \
                 those of version 6: it holds `guideline_versions`"
            )
            && err.ends_with("changed nothing. Restore it from your own backup\n"),
        "exit {code}, stderr {err:?}"
    );
    assert_eq!(left_in(&c, &[]), Vec::<String>::new(), "no copy, no lock file");
}

#[test]
fn a_migration_that_meets_a_table_it_does_not_expect_is_refused_as_damage() {
    // Before: "error [migration]: schema migration failed: rusqlite_migration error while
    // executing query ...", SQLite's words for a file whose tables were changed by hand.
    let c = fixture_case(12);
    let conn = rusqlite::Connection::open(c.project()).unwrap();
    conn.execute_batch("ALTER TABLE candidates ADD COLUMN construction_family TEXT").unwrap();
    drop(conn);
    let before = c.project_sha256();
    let (code, out, err) = c.run_with(&["status"], true);
    assert!(
        (code, out.as_str()) == (1, "")
            && err.starts_with(
                "error [damaged_project]: p.forcebench is damaged (its tables are not those of schema version 12, \
                 the version it claims: duplicate column name: construction_family"
            )
            && err.ends_with(
                "ForceBench cannot read it, and changed nothing. The copies kept beside it before upgrades \
                 (p.forcebench.schema12.bak) are the way back: copy the latest over it, or restore it from your own \
                 backup\n"
            ),
        "exit {code}, stderr {err:?}"
    );
    assert_eq!(c.project_sha256(), before, "the failed upgrade changed nothing");
    assert_eq!(left_in(&c, &["p.forcebench.schema12.bak"]), Vec::<String>::new(), "no lock file");
}

#[test]
fn an_upgrade_with_no_room_for_its_copy_says_so_and_leaves_nothing_behind() {
    // Before: "database or disk is full", with `.p.forcebench.schema13.bak.partial` and
    // `.p.forcebench.upgrade-lock` left beside the project.
    let c = fixture_case(13);
    let before = c.project_sha256();
    // 128 KiB: SQLite's own files fit, the 750 KiB copy does not.
    let (code, out, err) = run_in_shell(&c, "ulimit -f 256", &["status"]);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            1,
            "",
            &*format!(
                "error [io]: p.forcebench.schema13.bak{TOO_LARGE}; the copy kept before an upgrade could not be \
                 written, so p.forcebench was not upgraded and is as it was; make room for a copy of it beside it (or \
                 a file size limit that allows it) and open it again\n"
            )
        )
    );
    assert_eq!(left_in(&c, &[]), Vec::<String>::new(), "no partial copy, no lock file");
    assert_eq!(c.project_sha256(), before);
    // With room, the same file upgrades.
    let (code, _, err) = c.run(&["status"]);
    assert!(code == 0 && err.contains("upgraded the project from schema 13"), "{err}");
}

#[test]
fn a_stored_text_that_is_not_utf8_is_named_as_damage() {
    // Before: "error [database]: database error: invalid utf-8 sequence of 1 bytes from index 2
    // at index 0", with no file named and no way back.
    let c = packet_case();
    let conn = rusqlite::Connection::open(c.project()).unwrap();
    conn.execute("UPDATE candidates SET passage = CAST(x'4142FF43' AS TEXT) WHERE id = 'fb-0001'", []).unwrap();
    drop(conn);
    let damaged = "p.forcebench is damaged (a stored text is not valid UTF-8: invalid utf-8 sequence of 1 bytes from \
                   index 2); ForceBench cannot read it, and changed nothing. Restore it from your own backup";
    c.refused_code(&["candidates", "show", "fb-0001"], "damaged_project", damaged, &[]);
}

#[test]
fn a_guideline_with_a_line_over_1_mib_or_no_visible_text_is_not_published() {
    // Before: refused as "nothing was imported" (a guideline is published, not imported), and a
    // guideline of only U+200B was published as a version no one could read.
    let c = Case::new();
    std::fs::write(c.path("long.md"), format!("# Guideline\n{}\n", "a".repeat(3 << 19))).unwrap();
    c.refused_code(
        &["guideline", "publish", "long.md", "--version", "9"],
        "invalid_input",
        "long.md:2: this line is 1.5 MiB, more than 1.0 MiB (the limit for one line); nothing was published",
        &[],
    );
    std::fs::write(c.path("blank.md"), "\u{200B}\n\u{FEFF}\u{200D}\n").unwrap();
    c.refused_code(
        &["guideline", "publish", "blank.md", "--version", "9"],
        "invalid_argument",
        "blank.md: the guideline is empty",
        &[],
    );
}

/// Runs `sql` on the case's project with every trigger dropped first (as a person editing the
/// file with another tool can).
fn edit_without_triggers(c: &Case, sql: &str) {
    let conn = rusqlite::Connection::open(c.project()).unwrap();
    let triggers: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    for t in triggers {
        conn.execute_batch(&format!("DROP TRIGGER \"{t}\"")).unwrap();
    }
    conn.execute_batch(sql).unwrap();
    // As ForceBench leaves its files, so that opening one changes no byte of it.
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
}

const RESTORE: &str = "Nothing was written (an earlier export in the folder is as it was); restore the project from \
                       a backup (the `.bak` copies beside it) to export this version again";

#[test]
fn the_seal_covers_the_stored_manifest_the_datasheet_is_written_from() {
    // Before: with the triggers dropped, an edit of `splits.manifest_json` (the project name,
    // the lock date, the counts the datasheet states) changed the exported manifest.json and
    // DATASHEET.md, and `export` passed.
    for edit in [
        "UPDATE splits SET manifest_json = replace(manifest_json, '\"name\":\"split test\"', '\"name\":\"Forged\"')",
        "UPDATE splits SET manifest_json = replace(manifest_json, '\"locked_at\":\"20', '\"locked_at\":\"19')",
    ] {
        let c = Case::new();
        edit_without_triggers(&c, edit);
        let conn = rusqlite::Connection::open(c.project()).unwrap();
        let stored: String = conn.query_row("SELECT manifest_json FROM splits", [], |r| r.get(0)).unwrap();
        assert!(stored.contains("\"Forged\"") || stored.contains("\"locked_at\":\"19"), "{edit}: the edit took");
        drop(conn);
        c.refused_code(
            &["export", "out"],
            "seal_broken",
            &format!(
                "split v1: this export would differ from the one sealed when the split was locked (the stored \
                 manifest that manifest.json and DATASHEET.md are written from: the project name, the lock date, \
                 the counts, the agreement at lock); the project was changed outside ForceBench since the lock. \
                 {RESTORE}"
            ),
            &["out"],
        );
        assert_eq!(left_in(&c, &[]), Vec::<String>::new(), "{edit}: nothing written");
    }
}

#[test]
fn a_seal_removed_in_storage_is_refused_never_made_again() {
    // Before: with the seal row deleted and a frozen passage edited, the next export sealed the
    // split again as it stood, edit included, and passed.
    let c = Case::new();
    edit_without_triggers(
        &c,
        "DELETE FROM split_seals; UPDATE candidates SET passage = passage || ' (edited)' WHERE id = 'r0000'",
    );
    c.refused_code(
        &["export", "out"],
        "seal_broken",
        "split v1 has no seal, though it was sealed when it was locked: the seal was removed outside ForceBench, and \
         sealing the split again as it stands now would vouch for whatever was changed. Nothing was written; \
         restore the project from a backup (the `.bak` copies beside it) to export this version again",
        &["out"],
    );
    let conn = rusqlite::Connection::open(c.project()).unwrap();
    let seals: i64 = conn.query_row("SELECT count(*) FROM split_seals", [], |r| r.get(0)).unwrap();
    assert_eq!(seals, 0, "no seal was made");
}

#[test]
fn a_retry_wait_past_a_minute_is_refused_before_anything_is_sent() {
    // Before: `--retry-wait-ms 18446744073709551615` overflowed the clock at the first retry and
    // ended the run with a panic.
    let c = Case::new();
    c.refused_code(
        &[
            "judge",
            "run",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
            "--template",
            "generic",
            "--name",
            "j",
            "--retry-wait-ms",
            "18446744073709551615",
        ],
        "invalid_argument",
        "--retry-wait-ms 18446744073709551615 is longer than ForceBench waits before a retry: at most 60000 (a \
         minute; the waits double from it up to a minute). Nothing was sent",
        &[],
    );
}

#[test]
fn a_synthetic_file_stopped_by_the_file_size_limit_is_named_in_the_io_words() {
    // Before: killed by SIGXFSZ; with the signal ignored, the CSV writer's error read
    // "g.csv: File too large (os error 27)" instead of the words every other write uses.
    let c = Case::new();
    for out in ["g.csv", "g.jsonl"] {
        let (code, stdout, err) =
            run_in_shell(&c, "ulimit -f 64", &["sample", "generate", "--rows", "1000", "--out", out]);
        assert_eq!((code, stdout.as_str(), err), (1, "", format!("error [io]: {out}{TOO_LARGE}\n")));
        assert_eq!(left_in(&c, &[]), Vec::<String>::new(), "{out}: the temporary file is removed");
    }
}
