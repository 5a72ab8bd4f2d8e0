//! The hostile-input corpus: every bad file in `tests/hostile/` (and the few made here: a line
//! over 1 MiB, a FIFO, `/dev/zero`, a directory, a 257 MiB file) run through the real
//! `forcebench` command against a project with a locked split. Each test asserts the whole
//! stderr, exit code 1, and that the project file's bytes are the same before and after (sha256;
//! a command that only reads leaves the file as it was, so the bytes are a fair witness).
//!
//! Each command runs with a time limit and an address-space limit, so a reader that regresses to
//! blocking on a FIFO or reading `/dev/zero` without bound fails the test instead of hanging or
//! exhausting the machine.

use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// A project with a locked split (rows r0000..r0010; ana and ben annotators, eve adjudicator),
/// built once and copied for each test.
fn template() -> &'static Path {
    static TEMPLATE: OnceLock<PathBuf> = OnceLock::new();
    TEMPLATE.get_or_init(|| {
        // Under the target's scratch folder (a static temporary folder would never be removed).
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("hostile-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut p = crate::split::project_from(&dir, "h.forcebench", &[("scope", 6), ("numeric", 4)], 1, 1);
        forcebench::split::draft(&mut p, &forcebench::split::SplitParams::new(Default::default(), Some(3), Some(1)))
            .unwrap();
        forcebench::split::lock(&mut p).unwrap();
        drop(p);
        dir.join("h.forcebench")
    })
}

/// A copy of the template project in its own folder, which is also where commands run.
struct Case {
    dir: tempfile::TempDir,
}

impl Case {
    fn new() -> Case {
        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(template(), dir.path().join("p.forcebench")).unwrap();
        Case { dir }
    }

    fn project(&self) -> PathBuf {
        self.dir.path().join("p.forcebench")
    }

    /// Copies `tests/hostile/NAME` into the case folder, so messages name it as `NAME`.
    fn corpus(&self, name: &str) -> &str {
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile").join(name);
        std::fs::copy(&from, self.dir.path().join(name)).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
        // Leaked so the caller can put the name straight into an argument list.
        Box::leak(name.to_string().into_boxed_str())
    }

    fn project_sha256(&self) -> String {
        hex::encode(Sha256::digest(std::fs::read(self.project()).unwrap()))
    }

    /// Runs `forcebench --project p.forcebench ARGS` in the case folder with at most 20 s and
    /// 2 GB of address space; returns (exit code, stdout, stderr), or panics if it had to be
    /// killed.
    fn run(&self, args: &[&str]) -> (i32, String, String) {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 2000000; exec \"$0\" \"$@\"")
            .arg(env!("CARGO_BIN_EXE_forcebench"))
            .arg("--project")
            .arg("p.forcebench")
            .args(args)
            .current_dir(self.dir.path())
            .env_remove("FORCEBENCH_PROJECT")
            .env("HOME", self.dir.path())
            .env("XDG_DATA_HOME", self.dir.path().join("data"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > Duration::from_secs(20) {
                child.kill().unwrap();
                child.wait().unwrap();
                panic!("`forcebench {}` was still running after 20 s and was killed", args.join(" "));
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let (mut out, mut err) = (String::new(), String::new());
        child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
        child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
        (status.code().unwrap_or(-1), out, err)
    }

    /// Runs a command that must be refused: exit 1, nothing on stdout, exactly `stderr` (without
    /// the `error: ` prefix and final newline), and the project file unchanged.
    fn refused(&self, args: &[&str], stderr: &str) {
        let before = self.project_sha256();
        let (code, out, err) = self.run(args);
        assert_eq!(err, format!("error: {stderr}\n"), "stderr of `forcebench {}`", args.join(" "));
        assert_eq!((code, out.as_str()), (1, ""), "`forcebench {}` must fail with nothing on stdout", args.join(" "));
        assert_eq!(self.project_sha256(), before, "`forcebench {}` changed the project file", args.join(" "));
    }
}

/// The usual tail of an import refused for problems in the file.
fn problems(file: &str, lines: &[&str]) -> String {
    let n = lines.len();
    let mut out = format!("{file}: {n} problem{} found; nothing was imported", if n == 1 { "" } else { "s" });
    for l in lines {
        out.push_str(&format!("\n  {file}{l}"));
    }
    out
}

const FIELDS: &str = "id, group_id, source_dataset, source_id, context, passage, evidence_span, calibrated_claim, raised_claim, repair, rationale, axis, severity, construction_family";
const NOT_UTF8: &str = "is not valid UTF-8; the file is in another encoding (perhaps Latin-1 or Windows-1252): save it as UTF-8 and import again";

// ---- Encodings ----

#[test]
fn a_utf16_candidate_file_is_named_as_utf16_in_one_line() {
    // Before: one "unknown column ` g r o u p _ i d `"-style line per column.
    let c = Case::new();
    let f = c.corpus("candidates-utf16le-bom.csv");
    c.refused(&["import", f], "candidates-utf16le-bom.csv is UTF-16; save it as UTF-8 and import again");
}

#[test]
fn a_utf16_file_without_a_byte_order_mark_is_still_recognised() {
    // Before: the NUL-interleaved header was read as unknown columns.
    let c = Case::new();
    let f = c.corpus("candidates-utf16be.csv");
    c.refused(&["import", f], "candidates-utf16be.csv is UTF-16; save it as UTF-8 and import again");
}

#[test]
fn a_utf32_jsonl_file_is_named_as_utf32() {
    // Before: "invalid UTF-8" or "not valid JSON" on the line.
    let c = Case::new();
    let f = c.corpus("candidates-utf32le.jsonl");
    c.refused(&["import", f], "candidates-utf32le.jsonl is UTF-32; save it as UTF-8 and import again");
}

#[test]
fn a_latin1_file_is_one_problem_naming_line_and_byte_without_a_false_missing_field() {
    // Before: the byte problem plus "required field is missing or empty" for the same field.
    let c = Case::new();
    let f = c.corpus("candidates-latin1.csv");
    c.refused(&["import", f], &problems(f, &[&format!(":2: byte 44 of this line {NOT_UTF8}")]));
}

#[test]
fn a_file_with_nul_bytes_is_not_taken_for_text() {
    // Before: the NUL was stored inside the context.
    let c = Case::new();
    let f = c.corpus("candidates-nul.csv");
    c.refused(&["import", f], &problems(f, &[":2: byte 36 of this line is a NUL byte; this is not a text file"]));
}

#[test]
fn a_utf16_agreement_table_is_named_as_utf16() {
    // Before: "the header must name the columns item, annotator and label".
    let c = Case::new();
    let f = c.corpus("labels-utf16.csv");
    c.refused(&["agreement", "--from-csv", f], "labels-utf16.csv is UTF-16; save it as UTF-8 and import again");
}

// ---- Strict JSON ----

#[test]
fn a_repeated_key_in_a_candidate_line_is_refused() {
    // Before: the last `severity` won silently.
    let c = Case::new();
    let f = c.corpus("candidates-duplicate-key.jsonl");
    c.refused(
        &["import", f],
        &problems(f, &[":1: field `severity`: this key appears twice in one object; give each key once"]),
    );
}

#[test]
fn a_severity_written_as_a_string_is_refused_in_candidates() {
    // Before: "2" was read as 2.
    let c = Case::new();
    let f = c.corpus("candidates-severity-string.jsonl");
    c.refused(
        &["import", f],
        &problems(
            f,
            &[":1: field `severity`: expected a number, found the string \"2\"; write numbers without quotes"],
        ),
    );
}

#[test]
fn a_severity_written_as_a_string_is_refused_in_annotations() {
    // Before: "2" was read as 2.
    let c = Case::new();
    let f = c.corpus("annotations-severity-string.jsonl");
    c.refused(
        &["annotate", "import", f, "--annotator", "ana"],
        &problems(
            f,
            &[":1: field `severity`: expected a number, found the string \"2\"; write numbers without quotes"],
        ),
    );
}

#[test]
fn a_span_offset_written_as_a_string_is_refused() {
    // Before: the object was taken for plain span text: "not a verbatim substring of the passage".
    let c = Case::new();
    let f = c.corpus("annotations-span-offset-string.jsonl");
    c.refused(
        &["annotate", "import", f, "--annotator", "ana"],
        &problems(f, &[":1: field `evidence_span`: the span's `start`: expected a number, found the string \"40\"; write numbers without quotes"]),
    );
}

#[test]
fn a_repeated_key_in_an_annotation_line_is_refused() {
    // Before: the row was imported as rejected, the last `decision`.
    let c = Case::new();
    let f = c.corpus("annotations-duplicate-key.jsonl");
    c.refused(
        &["annotate", "import", f, "--annotator", "ana"],
        &problems(f, &[":1: field `decision`: this key appears twice in one object; give each key once"]),
    );
}

#[test]
fn a_number_for_a_text_field_is_refused_in_annotations() {
    // Before: the note was stored as the text "3".
    let c = Case::new();
    let f = c.corpus("annotations-notes-number.jsonl");
    c.refused(
        &["annotate", "import", f, "--annotator", "ana"],
        &problems(f, &[":1: field `notes`: expected a string, found a number"]),
    );
}

#[test]
fn a_severity_written_as_a_string_is_refused_in_adjudications() {
    // Before: "3" was read as 3.
    let c = Case::new();
    let f = c.corpus("adjudications-severity-string.jsonl");
    c.refused(
        &["adjudicate", "import", f, "--adjudicator", "eve"],
        &problems(
            f,
            &[":1: field `severity`: expected a number, found the string \"3\"; write numbers without quotes"],
        ),
    );
}

#[test]
fn a_repeated_key_in_an_adjudication_line_is_refused() {
    // Before: the last rationale won silently.
    let c = Case::new();
    let f = c.corpus("adjudications-duplicate-key.jsonl");
    c.refused(
        &["adjudicate", "import", f, "--adjudicator", "eve"],
        &problems(f, &[":1: field `rationale`: this key appears twice in one object; give each key once"]),
    );
}

#[test]
fn a_score_written_as_a_string_is_refused() {
    // Before: "0.9" was scored as 0.9.
    let c = Case::new();
    let f = c.corpus("scores-score-string.jsonl");
    c.refused(
        &["evaluate", "--scores", f, "--name", "judge"],
        &problems(f, &[":1: field `score`: expected a number, found the string \"0.9\"; write numbers without quotes"]),
    );
}

#[test]
fn a_repeated_label_in_a_label_map_is_refused() {
    // Before: `yes` silently scored 0, the last value.
    let c = Case::new();
    let scores = c.corpus("scores-score-string.jsonl");
    let map = c.corpus("labelmap-duplicate.json");
    c.refused(
        &["evaluate", "--scores", scores, "--name", "judge", "--map", map],
        &problems(map, &[": label `yes` appears twice; give each label once"]),
    );
}

// ---- Identifiers ----

#[test]
fn a_candidate_id_with_a_right_to_left_override_is_refused_and_shown_escaped() {
    // Before: `ab\u{202E}c` was imported and displayed as `abc` reversed.
    let c = Case::new();
    let f = c.corpus("candidates-id-rlo.csv");
    c.refused(
        &["import", f],
        &problems(f, &[
            ":3: field `id`: id `ab\\u{202E}c` contains U+202E RIGHT-TO-LEFT OVERRIDE, an invisible or direction-changing character",
            ":3: field `source_id`: source_id `src-ab\\u{202E}c` contains U+202E RIGHT-TO-LEFT OVERRIDE, an invisible or direction-changing character",
        ]),
    );
}

#[test]
fn a_group_id_with_a_zero_width_space_is_refused() {
    // Before: `g\u{200B}new` became a group of its own that looks like `gnew`.
    let c = Case::new();
    let f = c.corpus("candidates-group-zwsp.jsonl");
    c.refused(
        &["import", f],
        &problems(f, &[":1: field `group_id`: group_id `g\\u{200B}new` contains U+200B ZERO WIDTH SPACE, an invisible or direction-changing character"]),
    );
}

#[test]
fn an_annotation_id_with_a_right_to_left_override_is_named_as_such() {
    // Before: "no candidate with id `r00\u{202E}00`", printed so that it looks like an id that exists.
    let c = Case::new();
    let f = c.corpus("annotations-id-rlo.jsonl");
    c.refused(
        &["annotate", "import", f, "--annotator", "ana"],
        &problems(f, &[":1: field `id`: id `r00\\u{202E}00` contains U+202E RIGHT-TO-LEFT OVERRIDE, an invisible or direction-changing character"]),
    );
}

#[test]
fn a_roster_name_with_a_zero_width_space_is_refused() {
    // Before: `ana\u{200B}` joined the roster beside `ana`.
    let c = Case::new();
    c.refused(
        &["annotators", "add", "ana\u{200B}"],
        "name `ana\\u{200B}` contains U+200B ZERO WIDTH SPACE, an invisible or direction-changing character",
    );
}

#[test]
fn an_evaluator_name_with_a_control_character_is_refused() {
    // Before: stored as an evaluator whose name prints as `judge` followed by a bell.
    let c = Case::new();
    let f = c.corpus("scores-score-string.jsonl");
    c.refused(
        &["evaluate", "--scores", f, "--name", "judge\u{7}"],
        "evaluator name `judge\\u{0007}` contains U+0007, a control character",
    );
}

#[test]
fn an_agreement_annotator_wrapped_in_isolates_is_refused() {
    // Before: `\u{2066}A\u{2069}` counted as a second annotator who prints as `A`.
    let c = Case::new();
    let f = c.corpus("labels-annotator-bidi.csv");
    c.refused(
        &["agreement", "--from-csv", f],
        &problems(f, &[":3: field `annotator`: annotator `\\u{2066}A\\u{2069}` contains U+2066 LEFT-TO-RIGHT ISOLATE, an invisible or direction-changing character"]),
    );
}

// ---- Evaluator files and agreement columns ----

#[test]
fn an_empty_scores_file_stores_no_evaluator() {
    // Before: stored as an evaluator with every pair missing, MVR 1.0.
    let c = Case::new();
    let f = c.corpus("scores-empty.jsonl");
    c.refused(
        &["evaluate", "--scores", f, "--name", "judge"],
        "scores-empty.jsonl has no output lines; an evaluator needs at least one, so nothing was stored",
    );
}

#[test]
fn an_empty_judge_response_file_stores_no_evaluator() {
    // Before: stored as a judge with every pair missing, MVR 1.0.
    let c = Case::new();
    let f = c.corpus("judge-empty.jsonl");
    c.refused(
        &["judge", "import", f, "--name", "judge"],
        "judge-empty.jsonl has no response lines; an evaluator needs at least one, so nothing was stored",
    );
}

#[test]
fn an_unknown_agreement_column_is_named_with_the_known_ones() {
    // Before: the `labeller` column was ignored silently.
    let c = Case::new();
    let f = c.corpus("labels-unknown-column.csv");
    c.refused(
        &["agreement", "--from-csv", f],
        &problems(f, &[":1: field `labeller`: unknown column; the columns are item, annotator and label"]),
    );
}

// ---- Files that are not regular files, or too big ----

#[test]
fn a_fifo_is_refused_at_once_instead_of_hanging_import() {
    // Before: `import` blocked forever opening the FIFO (here: killed after 20 s).
    let c = Case::new();
    let fifo = c.dir.path().join("pipe.csv");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    c.refused(
        &["import", "pipe.csv"],
        "pipe.csv is a named pipe (FIFO), not a regular file; ForceBench reads input only from regular files",
    );
    c.refused(
        &["annotate", "import", "pipe.csv", "--annotator", "ana"],
        "pipe.csv is a named pipe (FIFO), not a regular file; ForceBench reads input only from regular files",
    );
}

#[test]
fn dev_zero_is_refused_instead_of_read_until_memory_runs_out() {
    // Before: read until the address-space limit killed the process.
    let c = Case::new();
    c.refused(
        &["evaluate", "--scores", "/dev/zero", "--name", "z"],
        "/dev/zero is a character device, not a regular file; ForceBench reads input only from regular files",
    );
}

#[test]
fn a_directory_is_refused_as_not_a_regular_file() {
    // Before: "Is a directory (os error 21)" from the operating system.
    let c = Case::new();
    std::fs::create_dir(c.dir.path().join("folder.jsonl")).unwrap();
    c.refused(
        &["judge", "import", "folder.jsonl", "--name", "j"],
        "folder.jsonl is a directory, not a regular file; ForceBench reads input only from regular files",
    );
}

#[test]
fn a_file_over_256_mib_is_refused_before_it_is_read() {
    // Before: the whole file was read into memory. The file is sparse: no disk is used.
    let c = Case::new();
    let big = std::fs::File::create(c.dir.path().join("big.csv")).unwrap();
    big.set_len(257 * 1024 * 1024).unwrap();
    c.refused(
        &["import", "big.csv"],
        "big.csv is 257.0 MiB, more than 256.0 MiB (the limit for one input file); split it into smaller files",
    );
}

#[test]
fn a_line_over_1_mib_is_refused_with_its_number() {
    // Before: any line length was read.
    let c = Case::new();
    let long = format!("{{\"id\":\"r0000\",\"notes\":\"{}\"}}\n", "x".repeat(1024 * 1024));
    std::fs::write(c.dir.path().join("long.jsonl"), format!("{{\"id\":\"r0001\"}}\n{long}")).unwrap();
    c.refused(
        &["annotate", "import", "long.jsonl", "--annotator", "ana"],
        &problems("long.jsonl", &[":2: this line is 1.0 MiB, more than 1.0 MiB (the limit for one line)"]),
    );
}

#[test]
fn a_csv_field_over_1_mib_is_refused_even_when_each_of_its_lines_is_shorter() {
    // Before: any field length was read.
    let c = Case::new();
    let passage = format!("may reduce pain {}", format!("{}\n", "x".repeat(512 * 1024)).repeat(3));
    let row = format!("new-1,g,S,,ctx,\"{passage}\",may reduce pain,calibrated,raised,,,,");
    std::fs::write(c.dir.path().join("wide.csv"), format!("{}\n{row}\n", crate::common::HEADER)).unwrap();
    c.refused(
        &["import", "wide.csv"],
        &problems(
            "wide.csv",
            &[":2: field `passage`: this field is 1.5 MiB, more than 1.0 MiB (the limit for one field)"],
        ),
    );
}

// ---- Classic cases, already handled: the corpus keeps them so ----

#[test]
fn a_missing_required_column_is_named() {
    let c = Case::new();
    let f = c.corpus("candidates-missing-column.csv");
    c.refused(&["import", f], &problems(f, &[":1: field `raised_claim`: required column is missing from the header"]));
}

#[test]
fn an_unknown_candidate_column_is_named_with_the_known_ones() {
    let c = Case::new();
    let f = c.corpus("candidates-unknown-column.csv");
    c.refused(
        &["import", f],
        &problems(
            f,
            &[
                &format!(":1: field `groupid`: unknown column; the columns are {FIELDS}"),
                ":1: field `group_id`: required column is missing from the header",
            ],
        ),
    );
}

#[test]
fn an_unknown_axis_is_named_with_the_five_axes() {
    let c = Case::new();
    let f = c.corpus("candidates-bad-axis.csv");
    c.refused(
        &["import", f],
        &problems(
            f,
            &[":2: field `axis`: unknown axis `vibes`; expected relation, modality, scope, temporal or numeric"],
        ),
    );
}

#[test]
fn a_duplicate_id_within_a_file_names_both_lines() {
    let c = Case::new();
    let f = c.corpus("candidates-duplicate-id.csv");
    c.refused(&["import", f], &problems(f, &[":4: field `id`: duplicate id `new-1` (first used on line 2)"]));
}

#[test]
fn a_ragged_row_is_named() {
    let c = Case::new();
    let f = c.corpus("candidates-ragged.csv");
    c.refused(&["import", f], &problems(f, &[":3: this row has 3 fields but the header has 13"]));
}

#[test]
fn a_line_that_is_not_an_object_is_named() {
    let c = Case::new();
    let f = c.corpus("candidates-not-object.jsonl");
    c.refused(&["import", f], &problems(f, &[":2: each line must be one JSON object"]));
}

#[test]
fn an_empty_candidate_file_is_refused() {
    let c = Case::new();
    let f = c.corpus("candidates-empty.csv");
    c.refused(&["import", f], &problems(f, &[": the file is empty"]));
}

#[test]
fn a_changed_row_on_reimport_is_refused_and_the_stored_row_kept() {
    let c = Case::new();
    let f = c.corpus("candidates-changed-row.csv");
    c.refused(
        &["import", f],
        "candidates-changed-row.csv: 1 row already in the project with different content; nothing was imported \
         (existing rows are never overwritten; give changed rows new ids)\n  candidates-changed-row.csv:2: id `r0000` differs in raised_claim",
    );
}

// ---- annotate session ----

#[test]
fn a_session_answers_every_bad_line_and_goes_on() {
    // Before: an invalid UTF-8 line ended the session with no answer to later requests, a
    // numeric severity was refused, and a line of any length was read.
    use std::io::{BufRead, BufReader, Write};
    // A project with no split: the session's changes are real saves, not refusals of a lock.
    let (_dir, path, project) = crate::common::annotated_project(&["ana", "ben"]);
    let id = forcebench::annotate::queue(&project, "ana").unwrap()[0].id.clone();
    drop(project);
    let mut child = Command::new(env!("CARGO_BIN_EXE_forcebench"))
        .arg("--project")
        .arg(&path)
        .args(["annotate", "session", "--annotator", "ana"])
        .env_remove("FORCEBENCH_PROJECT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut input: Vec<u8> = Vec::new();
    input.extend_from_slice(b"{\"op\":\"get\",\"id\":\"caf\xE9\"}\n");
    input.extend_from_slice(b"this is not json\n");
    input.extend_from_slice(format!("{{\"op\":\"delete\",\"id\":\"{id}\"}}\n").as_bytes());
    input.extend_from_slice(
        format!("{{\"op\":\"set\",\"id\":\"{id}\",\"field\":\"colour\",\"value\":\"red\"}}\n").as_bytes(),
    );
    input.extend_from_slice(
        format!("{{\"op\":\"set\",\"id\":\"{id}\",\"field\":\"severity\",\"value\":3}}\n").as_bytes(),
    );
    input.extend_from_slice(format!("{{\"op\":\"set\",\"id\":\"{id}\",\"field\":\"notes\",\"value\":3}}\n").as_bytes());
    input.extend_from_slice(
        format!("{{\"op\":\"set\",\"id\":\"{id}\",\"field\":\"notes\",\"value\":\"{}\"}}\n", "x".repeat(1 << 20))
            .as_bytes(),
    );
    input.extend_from_slice(format!("{{\"op\":\"get\",\"id\":\"{id}\"}}\n").as_bytes());
    // Written from a thread: the answers must be read meanwhile, or both pipes could fill.
    let writer = std::thread::spawn(move || stdin.write_all(&input).unwrap());
    let answers: Vec<serde_json::Value> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
        .collect();
    writer.join().unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(answers.len(), 8, "one answer per request: {answers:?}");
    let refused = |i: usize| {
        (answers[i]["ok"].clone(), answers[i]["code"].clone(), answers[i]["message"].as_str().unwrap().to_string())
    };
    assert_eq!(
        refused(0),
        (false.into(), "invalid_argument".into(), "byte 22 of this request is not valid UTF-8".into())
    );
    assert_eq!(
        refused(1),
        (false.into(), "invalid_argument".into(), "not a request (expected ident at line 1 column 2); send {\"op\":\"set\"|\"confirm\"|\"undo\"|\"get\",\"id\":…}".into())
    );
    assert_eq!(
        refused(2),
        (false.into(), "invalid_argument".into(), "unknown op `delete` (set, confirm, undo, get)".into())
    );
    assert_eq!(
        refused(3),
        (
            false.into(),
            "invalid_argument".into(),
            "`colour` is not an annotation field (decision, evidence_span, calibrated_claim, raised_claim, axis, severity, boundary_type, repair, notes)".into()
        )
    );
    assert_eq!(answers[4]["ok"], true, "a numeric severity is accepted: {}", answers[4]);
    assert_eq!(answers[4]["annotation"]["severity"], 3);
    assert_eq!(
        refused(5),
        (false.into(), "invalid_argument".into(), "field `notes`: expected a string, found a number".into())
    );
    assert_eq!(
        refused(6),
        (false.into(), "invalid_argument".into(), "this request is longer than 1 MiB, the limit for one line".into())
    );
    assert_eq!((answers[7]["ok"].clone(), answers[7]["annotation"]["severity"].clone()), (true.into(), 3.into()));
}
