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

mod late;
mod third;

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

    /// A case whose project is a copy of `project` (an unlocked one, for the packet cases).
    fn of(project: &Path) -> Case {
        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(project, dir.path().join("p.forcebench")).unwrap();
        Case { dir }
    }

    /// The path of `name` in the case folder.
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
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
        self.run_with(args, false)
    }

    /// [`Case::run`], with `FORCEBENCH_ERROR_CODE=1` when `codes` (errors carry their code either
    /// way; the variable is kept working, harmlessly, for scripts that set it).
    fn run_with(&self, args: &[&str], codes: bool) -> (i32, String, String) {
        let mut all = vec!["--project", "p.forcebench"];
        all.extend_from_slice(args);
        self.run_args(&all, codes)
    }

    /// Runs `forcebench ARGS` (no `--project` added) as [`Case::run_with`] does.
    fn run_args(&self, args: &[&str], codes: bool) -> (i32, String, String) {
        let mut command = Command::new("sh");
        if codes {
            command.env("FORCEBENCH_ERROR_CODE", "1");
        }
        let mut child = command
            .arg("-c")
            .arg("ulimit -v 2000000; exec \"$0\" \"$@\"")
            .arg(env!("CARGO_BIN_EXE_forcebench"))
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

    /// Runs a command that must be refused: exit 1, nothing on stdout, exactly
    /// `error [CODE]: STDERR` on stderr, and the project file unchanged.
    fn refused(&self, args: &[&str], code: &str, stderr: &str) {
        let before = self.project_sha256();
        let (status, out, err) = self.run(args);
        assert_eq!(err, format!("error [{code}]: {stderr}\n"), "stderr of `forcebench {}`", args.join(" "));
        assert_eq!((status, out.as_str()), (1, ""), "`forcebench {}` must fail with nothing on stdout", args.join(" "));
        assert_eq!(self.project_sha256(), before, "`forcebench {}` changed the project file", args.join(" "));
    }
}

impl Case {
    /// [`Case::refused`], run with `FORCEBENCH_ERROR_CODE=1` (which still changes nothing), and
    /// also asserting that every file in the case folder named in `untouched` is as it was (or
    /// still absent).
    fn refused_code(&self, args: &[&str], code: &str, stderr: &str, untouched: &[&str]) {
        let before = self.project_sha256();
        let others: Vec<Option<Vec<u8>>> = untouched.iter().map(|f| std::fs::read(self.path(f)).ok()).collect();
        let (status, out, err) = self.run_with(args, true);
        assert_eq!(err, format!("error [{code}]: {stderr}\n"), "stderr of `forcebench {}`", args.join(" "));
        assert_eq!((status, out.as_str()), (1, ""), "`forcebench {}` must fail with nothing on stdout", args.join(" "));
        assert_eq!(self.project_sha256(), before, "`forcebench {}` changed the project file", args.join(" "));
        for (f, was) in untouched.iter().zip(others) {
            assert_eq!(std::fs::read(self.path(f)).ok(), was, "`forcebench {}` changed {f}", args.join(" "));
        }
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
    c.refused(
        &["import", f],
        "invalid_input",
        "candidates-utf16le-bom.csv is UTF-16; save it as UTF-8 and import again",
    );
}

#[test]
fn a_utf16_file_without_a_byte_order_mark_is_still_recognised() {
    // Before: the NUL-interleaved header was read as unknown columns.
    let c = Case::new();
    let f = c.corpus("candidates-utf16be.csv");
    c.refused(&["import", f], "invalid_input", "candidates-utf16be.csv is UTF-16; save it as UTF-8 and import again");
}

#[test]
fn a_utf32_jsonl_file_is_named_as_utf32() {
    // Before: "invalid UTF-8" or "not valid JSON" on the line.
    let c = Case::new();
    let f = c.corpus("candidates-utf32le.jsonl");
    c.refused(&["import", f], "invalid_input", "candidates-utf32le.jsonl is UTF-32; save it as UTF-8 and import again");
}

#[test]
fn a_latin1_file_is_one_problem_naming_line_and_byte_without_a_false_missing_field() {
    // Before: the byte problem plus "required field is missing or empty" for the same field.
    let c = Case::new();
    let f = c.corpus("candidates-latin1.csv");
    c.refused(&["import", f], "invalid_input", &problems(f, &[&format!(":2: byte 44 of this line {NOT_UTF8}")]));
}

#[test]
fn a_file_with_nul_bytes_is_not_taken_for_text() {
    // Before: the NUL was stored inside the context.
    let c = Case::new();
    let f = c.corpus("candidates-nul.csv");
    c.refused(
        &["import", f],
        "invalid_input",
        &problems(f, &[":2: byte 36 of this line is a NUL byte; this is not a text file"]),
    );
}

#[test]
fn a_utf16_agreement_table_is_named_as_utf16() {
    // Before: "the header must name the columns item, annotator and label".
    let c = Case::new();
    let f = c.corpus("labels-utf16.csv");
    c.refused(
        &["agreement", "--from-csv", f],
        "invalid_input",
        "labels-utf16.csv is UTF-16; save it as UTF-8 and import again",
    );
}

// ---- Strict JSON ----

#[test]
fn a_repeated_key_in_a_candidate_line_is_refused() {
    // Before: the last `severity` won silently.
    let c = Case::new();
    let f = c.corpus("candidates-duplicate-key.jsonl");
    c.refused(
        &["import", f],
        "invalid_input",
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
        "invalid_input",
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
        "invalid_input",
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
        &["annotate", "import", f, "--annotator", "ana"], "invalid_input",
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
        "invalid_input",
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
        "invalid_input",
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
        "invalid_input",
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
        "invalid_input",
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
        "invalid_input",
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
        "invalid_input",
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
        &["import", f], "invalid_input",
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
        &["import", f], "invalid_input",
        &problems(f, &[":1: field `group_id`: group_id `g\\u{200B}new` contains U+200B ZERO WIDTH SPACE, an invisible or direction-changing character"]),
    );
}

#[test]
fn an_annotation_id_with_a_right_to_left_override_is_named_as_such() {
    // Before: "no candidate with id `r00\u{202E}00`", printed so that it looks like an id that exists.
    let c = Case::new();
    let f = c.corpus("annotations-id-rlo.jsonl");
    c.refused(
        &["annotate", "import", f, "--annotator", "ana"], "invalid_input",
        &problems(f, &[":1: field `id`: id `r00\\u{202E}00` contains U+202E RIGHT-TO-LEFT OVERRIDE, an invisible or direction-changing character"]),
    );
}

#[test]
fn a_roster_name_with_a_zero_width_space_is_refused() {
    // Before: `ana\u{200B}` joined the roster beside `ana`.
    let c = Case::new();
    c.refused(
        &["annotators", "add", "ana\u{200B}"],
        "invalid_argument",
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
        "invalid_argument",
        "evaluator name `judge\\u{0007}` contains U+0007, a control character",
    );
}

#[test]
fn an_agreement_annotator_wrapped_in_isolates_is_refused() {
    // Before: `\u{2066}A\u{2069}` counted as a second annotator who prints as `A`.
    let c = Case::new();
    let f = c.corpus("labels-annotator-bidi.csv");
    c.refused(
        &["agreement", "--from-csv", f], "invalid_input",
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
        "invalid_input",
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
        "invalid_input",
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
        "invalid_input",
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
        "invalid_input",
        "pipe.csv is a named pipe (FIFO), not a regular file; ForceBench reads input only from regular files",
    );
    c.refused(
        &["annotate", "import", "pipe.csv", "--annotator", "ana"],
        "invalid_input",
        "pipe.csv is a named pipe (FIFO), not a regular file; ForceBench reads input only from regular files",
    );
}

#[test]
fn dev_zero_is_refused_instead_of_read_until_memory_runs_out() {
    // Before: read until the address-space limit killed the process.
    let c = Case::new();
    c.refused(
        &["evaluate", "--scores", "/dev/zero", "--name", "z"],
        "invalid_input",
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
        "invalid_input",
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
        "invalid_input",
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
        "invalid_input",
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
        "invalid_input",
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
    c.refused(
        &["import", f],
        "invalid_input",
        &problems(f, &[":1: field `raised_claim`: required column is missing from the header"]),
    );
}

#[test]
fn an_unknown_candidate_column_is_named_with_the_known_ones() {
    let c = Case::new();
    let f = c.corpus("candidates-unknown-column.csv");
    c.refused(
        &["import", f],
        "invalid_input",
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
        "invalid_input",
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
    c.refused(
        &["import", f],
        "invalid_input",
        &problems(f, &[":4: field `id`: duplicate id `new-1` (first used on line 2)"]),
    );
}

#[test]
fn a_ragged_row_is_named() {
    let c = Case::new();
    let f = c.corpus("candidates-ragged.csv");
    c.refused(&["import", f], "invalid_input", &problems(f, &[":3: this row has 3 fields but the header has 13"]));
}

#[test]
fn a_line_that_is_not_an_object_is_named() {
    let c = Case::new();
    let f = c.corpus("candidates-not-object.jsonl");
    c.refused(&["import", f], "invalid_input", &problems(f, &[":2: each line must be one JSON object"]));
}

#[test]
fn an_empty_candidate_file_is_refused() {
    let c = Case::new();
    let f = c.corpus("candidates-empty.csv");
    c.refused(&["import", f], "invalid_input", &problems(f, &[": the file is empty"]));
}

#[test]
fn a_changed_row_on_reimport_is_refused_and_the_stored_row_kept() {
    let c = Case::new();
    let f = c.corpus("candidates-changed-row.csv");
    c.refused(
        &["import", f], "import_conflict",
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

// ---- Packets: read as strictly as every other input ----

/// What the packet cases start from (built once): a project with packets issued to ana and ben;
/// ana's packet opened, two rows labelled and returned; ben's packet opened, one row labelled
/// and returned.
struct PacketTemplate {
    _dir: tempfile::TempDir,
    project: PathBuf,
    issued: PathBuf,
    returned: PathBuf,
    key: Vec<u8>,
    ben_returned: PathBuf,
    ben_key: Vec<u8>,
}

fn packet_template() -> &'static PacketTemplate {
    static TEMPLATE: OnceLock<PacketTemplate> = OnceLock::new();
    TEMPLATE.get_or_init(|| {
        let (dir, project, mut p) = crate::common::annotated_project(&["ana", "ben"]);
        let list = crate::packets::issue(&mut p, dir.path(), forcebench::packets::Blinding::Standard);
        let key_of = |f: &Path| hex::decode(forcebench::packets::read(f).unwrap().secret.unwrap()).unwrap();
        let issued = crate::packets::packet_for(&list, "ana");
        let returned = crate::packets::annotate_and_return(dir.path(), &issued, 2, "h");
        let ben = crate::packets::packet_for(&list, "ben");
        let ben_returned = crate::packets::annotate_and_return(dir.path(), &ben, 1, "b");
        drop(p);
        PacketTemplate {
            key: key_of(&issued),
            ben_key: key_of(&ben),
            _dir: dir,
            project,
            issued,
            returned,
            ben_returned,
        }
    })
}

/// A case on a copy of the packet template, with ana's issued packet as `ana.packet.json` and
/// her return as `ret.json` in its folder.
fn packet_case() -> Case {
    let t = packet_template();
    let c = Case::of(&t.project);
    std::fs::copy(&t.issued, c.path("ana.packet.json")).unwrap();
    std::fs::copy(&t.returned, c.path("ret.json")).unwrap();
    c
}

const NOT_REGULAR: &str = "not a regular file; ForceBench reads input only from regular files";

#[test]
fn dev_zero_offered_as_a_packet_is_refused_at_once() {
    // Before: `packets open /dev/zero` grew to the address-space limit; `packets merge` ran on.
    let c = packet_case();
    c.refused_code(
        &["packets", "open", "/dev/zero", "--workspace", "w.forcebench"],
        "invalid_input",
        &format!("/dev/zero is a character device, {NOT_REGULAR}"),
        &["w.forcebench"],
    );
    c.refused_code(
        &["packets", "merge", "/dev/zero"],
        "invalid_input",
        &format!("/dev/zero is a character device, {NOT_REGULAR}"),
        &[],
    );
}

#[test]
fn a_named_pipe_offered_as_a_packet_is_refused_instead_of_waited_on() {
    // Before: both commands blocked forever opening the FIFO (here: killed after 20 s).
    let c = packet_case();
    assert!(Command::new("mkfifo").arg(c.path("pipe.json")).status().unwrap().success());
    c.refused_code(
        &["packets", "open", "pipe.json", "--workspace", "w.forcebench"],
        "invalid_input",
        &format!("pipe.json is a named pipe (FIFO), {NOT_REGULAR}"),
        &["w.forcebench"],
    );
    c.refused_code(
        &["packets", "merge", "ret.json", "pipe.json"],
        "invalid_input",
        &format!("pipe.json is a named pipe (FIFO), {NOT_REGULAR}"),
        &[],
    );
}

#[test]
fn a_packet_over_256_mib_is_refused_before_it_is_read() {
    // Before: the whole file was read into memory. The file is sparse: no disk is used.
    let c = packet_case();
    std::fs::File::create(c.path("big.json")).unwrap().set_len(300 * 1024 * 1024).unwrap();
    let why = "big.json is not a ForceBench packet: it is 300 MiB, more than the 256 MiB a packet may hold \
               (ForceBench reads no larger input file); nothing was imported";
    c.refused_code(&["packets", "merge", "big.json"], "not_a_packet", why, &[]);
    c.refused_code(
        &["packets", "open", "big.json", "--workspace", "w.forcebench"],
        "not_a_packet",
        why,
        &["w.forcebench"],
    );
}

/// The 1-based number of the line of `text` holding `needle` (its `nth` occurrence, from 0).
fn line_of(text: &str, needle: &str, nth: usize) -> usize {
    text.lines().enumerate().filter(|(_, l)| l.contains(needle)).nth(nth).unwrap().0 + 1
}

fn twice(file: &str, line: usize, key: &str) -> String {
    format!(
        "{file}: 1 problem found; nothing was imported\n  {file}:{line}: field `{key}`: this key appears twice in one object; give each key once"
    )
}

#[test]
fn a_return_with_a_key_twice_is_refused_even_when_its_mac_covers_the_last_value() {
    // Before: merged, the last `new_value` winning (the HMAC was checked over the parsed tree,
    // which keeps the last value: a return whose text shows one note merged another).
    let c = packet_case();
    let key = &packet_template().key;
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(c.path("ret.json")).unwrap()).unwrap();
    let events = v["rows"][0]["events"].as_array_mut().unwrap();
    let note = events.iter_mut().find(|e| e["field"] == "notes").unwrap();
    note["new_value"] = "SECOND VALUE".into();
    v["mac"] = forcebench::packets::mac_of(&v, key).into();
    let text = serde_json::to_string_pretty(&v).unwrap();
    let shown = text.lines().find(|l| l.contains("\"new_value\": \"SECOND VALUE\"")).unwrap();
    let first = shown.trim_end_matches(',').replace("SECOND VALUE", "h note");
    let text = text.replacen(shown, &format!("{first},\n{shown}"), 1);
    std::fs::write(c.path("dup.json"), &text).unwrap();
    let line = line_of(&text, "SECOND VALUE", 0);
    c.refused_code(&["packets", "merge", "dup.json"], "invalid_input", &twice("dup.json", line, "new_value"), &[]);
}

#[test]
fn an_issued_packet_with_an_escaped_second_annotator_key_is_refused() {
    // Before: `"\u0061nnotator"` is `annotator` once decoded; the tree kept one of them, the
    // checksum matched and the workspace was made.
    let c = packet_case();
    let text = std::fs::read_to_string(c.path("ana.packet.json")).unwrap();
    let text =
        text.replacen("  \"annotator\": \"ana\",\n", "  \"annotator\": \"ana\",\n  \"\\u0061nnotator\": \"ana\",\n", 1);
    std::fs::write(c.path("esc.json"), &text).unwrap();
    let line = line_of(&text, "\\u0061nnotator", 0);
    c.refused_code(
        &["packets", "open", "esc.json", "--workspace", "w.forcebench"],
        "invalid_input",
        &twice("esc.json", line, "annotator"),
        &["w.forcebench"],
    );
}

#[test]
fn a_return_with_a_second_rows_key_is_refused() {
    // Before: the tree kept the second `rows`; a return could carry one set of rows in view and
    // merge another.
    let c = packet_case();
    // A return is one line of compact JSON; laid out over lines (the HMAC covers the values, not
    // the layout) so the refusal can name the second key's line.
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(c.path("ret.json")).unwrap()).unwrap();
    let text = serde_json::to_string_pretty(&v).unwrap();
    let text = text.replacen("  \"rows\": [", "  \"rows\": [],\n  \"rows\": [", 1);
    std::fs::write(c.path("rows.json"), &text).unwrap();
    let line = line_of(&text, "\"rows\"", 1);
    c.refused_code(&["packets", "merge", "rows.json"], "invalid_input", &twice("rows.json", line, "rows"), &[]);
}

#[test]
fn a_return_with_a_utf8_byte_order_mark_is_read() {
    // Before: "it is not a JSON file". An editor may add the mark; the HMAC covers the values.
    let c = packet_case();
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend(std::fs::read(c.path("ret.json")).unwrap());
    std::fs::write(c.path("bom.json"), bytes).unwrap();
    let (code, out, err) = c.run(&["packets", "merge", "bom.json"]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert!(out.starts_with("bom.json: merged "), "{out}");
}

// ---- Feedback blinding: the other annotator's name, however it is written ----

#[test]
fn a_rationale_naming_the_other_annotator_in_another_case_or_spelling_is_blinded() {
    // Before: only the exact-case name was replaced: "BEN was right", "per ann-a" and
    // "I agree with ANN_A." reached the other annotator's feedback as written.
    use forcebench::adjudicate::{Checklist, Choice, Resolution};
    use forcebench::annotate::Field;
    let (dir, path, mut p) = crate::common::annotated_project(&["Ann_A", "ben"]);
    forcebench::roster::add(&p, "Eve", forcebench::roster::Role::Adjudicator).unwrap();
    let ids: Vec<String> = forcebench::candidate::list(&p).unwrap().into_iter().take(4).map(|c| c.id).collect();
    let lines = |severity: u8| {
        ids.iter()
            .map(|id| format!("{{\"id\":\"{id}\",\"decision\":\"accept_force_gap\",\"severity\":{severity}}}\n"))
            .collect::<String>()
    };
    let a = crate::common::write(dir.path(), "a.jsonl", lines(1));
    let b = crate::common::write(dir.path(), "b.jsonl", lines(3));
    forcebench::annotate::import_jsonl(&mut p, &a, "Ann_A").unwrap();
    forcebench::annotate::import_jsonl(&mut p, &b, "ben").unwrap();
    let yes = Checklist {
        span_decisive: Some(true),
        calibrated_supported: Some(true),
        raised_underwarranted: Some(true),
        one_local_axis: Some(true),
        no_unrelated_addition: Some(true),
    };
    // Each rationale, and what each annotator must read of it when the final is not theirs:
    // the other's name is replaced however it is written; their own name and words that only
    // begin like a name stay.
    let rationales = [
        (
            "BEN was right, not Ann_A: the claim is high-impact.",
            "the other annotator was right, not Ann_A: the claim is high-impact.",
            "BEN was right, not the other annotator: the claim is high-impact.",
        ),
        (
            "Ben's severity, per ann-a's note (ANN A agreed).",
            "the other annotator's severity, per ann-a's note (ANN A agreed).",
            "Ben's severity, per the other annotator's note (the other annotator agreed).",
        ),
        (
            "I agree with ANN_A. ben.",
            "I agree with ANN_A. the other annotator.",
            "I agree with the other annotator. ben.",
        ),
        (
            "Benign wording; ann_ab, Ann_A2 and bench are other people.",
            "Benign wording; ann_ab, Ann_A2 and bench are other people.",
            "Benign wording; ann_ab, Ann_A2 and bench are other people.",
        ),
    ];
    for (id, (why, ..)) in ids.iter().zip(rationales) {
        let r = Resolution {
            choices: vec![(Field::Decision, Choice::A), (Field::Severity, Choice::A)],
            rationale: Some(why.into()),
            checklist: yes,
        };
        forcebench::adjudicate::resolve(&mut p, id, "Eve", &r).unwrap();
    }
    drop(p);
    let c = Case::of(&path);
    let (code, _, err) = c.run(&["feedback", "issue", "--out", "fb"]);
    assert_eq!((code, err.as_str()), (0, ""));
    let read = |who: &str| forcebench::feedback::read(&c.path(&format!("fb/{who}.feedback.json"))).unwrap();
    let (ann, ben) = (read("Ann_A"), read("ben"));
    for (id, (_, for_ann, for_ben)) in ids.iter().zip(rationales) {
        // The severities differ on every row, so exactly one of the two sees it.
        let shown = |f: &forcebench::feedback::Feedback| {
            f.rows.iter().find(|r| r.id == *id && r.field == "severity").map(|r| r.rationale.clone().unwrap())
        };
        match (shown(&ann), shown(&ben)) {
            (Some(text), None) => assert_eq!(text, for_ann, "Ann_A's feedback on {id}"),
            (None, Some(text)) => assert_eq!(text, for_ben, "ben's feedback on {id}"),
            other => panic!("row {id} should differ for exactly one annotator: {other:?}"),
        }
    }
}

// ---- The lock sealed in storage ----

/// Runs `sql` on the case's project with another tool's connection (as `sqlite3` would).
fn by_hand(c: &Case, sql: &str) -> rusqlite::Result<usize> {
    let conn = rusqlite::Connection::open(c.project()).unwrap();
    conn.execute_batch(sql).map(|_| conn.changes() as usize)
}

/// A frozen row of the case's locked split, and a rejected one (frozen too).
fn frozen_rows(c: &Case) -> (String, String) {
    let conn = rusqlite::Connection::open(c.project()).unwrap();
    let pick = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, String>(0)).unwrap();
    (
        pick("SELECT candidate_id FROM split_rows WHERE role = 'eval' ORDER BY candidate_id LIMIT 1"),
        pick(
            "SELECT candidate_id FROM adjudications WHERE decision <> 'accept_force_gap' ORDER BY candidate_id LIMIT 1",
        ),
    )
}

const FROZEN_TEXT: &str = "split_locked: a locked split holds this row; its text cannot change";

#[test]
fn the_storage_refuses_a_change_to_a_frozen_rows_text_context_or_group() {
    // Before: `UPDATE candidates SET passage = passage || ' X'` on a frozen row changed a
    // re-export of the locked version (and `verify` passed the new export).
    let c = Case::new();
    let (eval, rejected) = frozen_rows(&c);
    let before = c.project_sha256();
    for sql in [
        format!("UPDATE candidates SET passage = passage || ' X' WHERE id = '{eval}'"),
        format!("UPDATE candidates SET raised_claim = 'changed' WHERE id = '{rejected}'"),
        format!("UPDATE candidates SET context = context || '?' WHERE id = '{rejected}'"),
        format!("UPDATE candidates SET group_id = 'elsewhere' WHERE id = '{eval}'"),
        format!("UPDATE candidates SET construction_family = 'forged' WHERE id = '{eval}'"),
        format!("DELETE FROM candidates WHERE id = '{eval}'"),
    ] {
        let err = by_hand(&c, &sql).unwrap_err().to_string();
        assert_eq!(err, FROZEN_TEXT, "{sql}");
    }
    assert_eq!(c.project_sha256(), before);
    // Writing the same text again is no change, and is allowed.
    by_hand(&c, &format!("UPDATE candidates SET passage = passage WHERE id = '{eval}'")).unwrap();
}

#[test]
fn the_storage_refuses_renaming_a_person_whose_labels_a_frozen_row_carries() {
    // Before: renaming an annotator changed `annotations.jsonl` and `adjudications.jsonl` of a
    // re-export of the locked version.
    let c = Case::new();
    let before = c.project_sha256();
    for who in ["ana", "eve"] {
        let err = by_hand(&c, &format!("UPDATE annotators SET name = '{who}2' WHERE name = '{who}'")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "split_locked: a locked split carries this person's labels; their name cannot change",
            "{who}"
        );
    }
    assert_eq!(c.project_sha256(), before);
}

#[test]
fn an_export_that_would_differ_from_the_lock_seal_is_refused_and_the_earlier_export_kept() {
    // Before: with the guards out of the way, a changed passage and a renamed annotator went
    // into a re-export of the locked version, and `verify` passed it.
    let c = Case::new();
    let (code, _, err) = c.run(&["export", "out"]);
    assert_eq!((code, err.as_str()), (0, ""));
    let earlier: Vec<(String, Vec<u8>)> = forcebench::split::EXPORT_FILES
        .iter()
        .map(|f| (f.to_string(), std::fs::read(c.path(&format!("out/{f}"))).unwrap()))
        .collect();
    let (eval, _) = frozen_rows(&c);
    // A tool that drops the guards first (a hostile or careless edit of the file).
    by_hand(
        &c,
        &format!(
            "DROP TRIGGER candidates_locked_update; DROP TRIGGER annotators_locked_rename;
             UPDATE candidates SET passage = passage || ' X' WHERE id = '{eval}';"
        ),
    )
    .unwrap();
    let advice = "the project was changed outside ForceBench since the lock. Nothing was written (an earlier export \
                  in the folder is as it was); restore the project from a backup (the `.bak` copies beside it) to \
                  export this version again";
    c.refused_code(
        &["export", "out"],
        "seal_broken",
        &format!(
            "split v1: this export would differ from the one sealed when the split was locked (eval.jsonl, \
             eval.csv, benchmark.jsonl); {advice}"
        ),
        &[],
    );
    by_hand(
        &c,
        &format!("UPDATE candidates SET passage = substr(passage, 1, length(passage) - 2) WHERE id = '{eval}'"),
    )
    .unwrap();
    by_hand(&c, "UPDATE annotators SET name = 'ana2' WHERE name = 'ana'").unwrap();
    c.refused_code(
        &["export", "out", "--split-version", "1"],
        "seal_broken",
        &format!(
            "split v1: this export would differ from the one sealed when the split was locked (annotations.jsonl); \
             {advice}"
        ),
        &[],
    );
    for (f, bytes) in earlier {
        assert_eq!(std::fs::read(c.path(&format!("out/{f}"))).unwrap(), bytes, "out/{f} changed");
    }
    // Put back as it was, the project exports again, byte for byte the sealed export.
    by_hand(&c, "UPDATE annotators SET name = 'ana' WHERE name = 'ana2'").unwrap();
    let (code, _, err) = c.run(&["export", "again"]);
    assert_eq!((code, err.as_str()), (0, ""));
    for f in forcebench::split::EXPORT_FILES {
        assert_eq!(
            std::fs::read(c.path(&format!("again/{f}"))).unwrap(),
            std::fs::read(c.path(&format!("out/{f}"))).unwrap(),
            "{f}"
        );
    }
}

// ---- Two people's edits in one label ----

#[test]
fn a_return_changing_a_row_the_lead_edited_for_its_annotator_while_it_was_out_is_refused() {
    // Before: the lead's `annotate set ROW repair ... --annotator ana` and Ana's return (which
    // decides the same row) merged into one label Ana never had: her decision, the lead's repair.
    let c = packet_case();
    let ret: serde_json::Value = serde_json::from_slice(&std::fs::read(c.path("ret.json")).unwrap()).unwrap();
    let row = ret["rows"].as_array().unwrap().iter().find(|r| r["events"].as_array().is_some_and(|e| !e.is_empty()));
    let row = row.unwrap()["id"].as_str().unwrap().to_string();
    // Ana's return, without the suggested repair her workspace recorded (as a workspace whose
    // suggestions are hidden returns it): it sets the row's decision, boundary type and notes;
    // the lead sets its repair.
    forged(&c, "ret.json", |v| {
        for r in v["rows"].as_array_mut().unwrap() {
            if let Some(events) = r.get_mut("events").and_then(|e| e.as_array_mut()) {
                events.retain(|e| e["field"] != "repair");
            }
        }
    });
    let ret: serde_json::Value = serde_json::from_slice(&std::fs::read(c.path("ret.json")).unwrap()).unwrap();
    let (code, _, err) = c.run(&["annotate", "set", &row, "repair", "the lead's repair", "--annotator", "ana"]);
    assert_eq!((code, err.as_str()), (0, ""));
    let at: String = rusqlite::Connection::open(c.project())
        .unwrap()
        .query_row("SELECT max(at) FROM annotation_events WHERE candidate_id = ?1", [&row], |r| r.get(0))
        .unwrap();
    c.refused_code(
        &["packets", "merge", "ret.json"],
        "invalid_input",
        &format!(
            "ret.json: 1 problem found; nothing was imported\n  ret.json: project edit check failed: ana's label on \
             row `{row}` was changed in this project (by `annotate set` or in the app, last at {at}) after packet `{}` was issued, \
             and this return (workspace {}) changes it too; merging both would make a label neither had. Undo the \
             project's change (`forcebench annotate undo {row} --annotator ana`) and merge again, or keep the \
             project's label and leave this return unmerged; nothing was merged",
            ret["packet_id"].as_str().unwrap(),
            ret["workspace_id"].as_str().unwrap()
        ),
        &[],
    );
    // Undone in the project, the return merges, and the label is Ana's alone.
    let (code, _, err) = c.run(&["annotate", "undo", &row, "--annotator", "ana"]);
    assert_eq!((code, err.as_str()), (0, ""));
    let (code, out, err) = c.run(&["packets", "merge", "ret.json"]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    let (_, shown, _) = c.run(&["annotate", "show", &row, "--annotator", "ana", "--json"]);
    let shown: serde_json::Value = serde_json::from_str(&shown).unwrap();
    assert_eq!((shown["notes"].as_str(), shown["decision"].as_str()), (Some("h note"), Some("reject_not_force_gap")));
    assert_ne!(shown["repair"].as_str(), Some("the lead's repair"));
}

// ---- Lookalike ids and names ----

#[test]
fn an_id_composed_and_the_same_id_decomposed_are_one_id() {
    // Before: `café` (NFC) and `cafe\u{301}` (NFD) were imported as two rows that print alike.
    let c = Case::new();
    let f = c.corpus("candidates-nfc-nfd.jsonl");
    c.refused_code(
        &["import", f],
        "invalid_input",
        &problems(f, &[":2: field `id`: duplicate id `caf\u{e9}` (first used on line 1)"]),
        &[],
    );
}

#[test]
fn ids_with_spaces_that_look_like_the_plain_space_are_refused() {
    // Before: `x<NBSP>1` was imported beside `x 1`, and U+2800 and U+3000 were taken in ids.
    let c = Case::new();
    let f = c.corpus("candidates-space-like.csv");
    let space = "a space that looks like a plain space (only U+0020 may appear)";
    c.refused_code(
        &["import", f],
        "invalid_input",
        &problems(
            f,
            &[
                &format!(":2: field `id`: id `x\\u{{00A0}}1` contains U+00A0 NO-BREAK SPACE, {space}"),
                &format!(":2: field `source_id`: source_id `src-x\\u{{00A0}}1` contains U+00A0 NO-BREAK SPACE, {space}"),
                &format!(":3: field `id`: id `x\\u{{2800}}1` contains U+2800 BRAILLE PATTERN BLANK, {space}"),
                &format!(":3: field `group_id`: group_id `g\\u{{3000}}new` contains U+3000 IDEOGRAPHIC SPACE, {space}"),
                &format!(":3: field `source_id`: source_id `src-x\\u{{2800}}1` contains U+2800 BRAILLE PATTERN BLANK, {space}"),
            ],
        ),
        &[],
    );
}

#[test]
fn a_name_added_composed_cannot_be_added_again_decomposed() {
    // Before: `annotators add José` worked twice, once per Unicode form.
    let c = Case::new();
    let (code, _, err) = c.run(&["annotators", "add", "Jos\u{e9}"]);
    assert_eq!((code, err.as_str()), (0, ""));
    c.refused_code(&["annotators", "add", "Jose\u{301}"], "already_done", "`Jos\u{e9}` is already on the roster", &[]);
    c.refused_code(
        &["annotators", "add", "ana\u{a0}b"],
        "invalid_argument",
        "name `ana\\u{00A0}b` contains U+00A0 NO-BREAK SPACE, a space that looks like a plain space (only U+0020 may appear)",
        &[],
    );
}

#[test]
fn an_agreement_table_naming_one_annotator_in_two_unicode_forms_counts_one() {
    // Before: `José` and `Jose\u{301}` were counted as two annotators of item 1.
    let c = Case::new();
    let f = c.corpus("labels-annotator-nfd.csv");
    c.refused_code(
        &["agreement", "--from-csv", f],
        "invalid_input",
        &problems(f, &[":4: field `label`: annotator `Jos\u{e9}` labels item `1` twice (first on line 2)"]),
        &[],
    );
}

// ---- One upgrade at a time ----

#[test]
fn four_processes_opening_an_old_project_at_once_upgrade_it_once_and_all_open_it() {
    // Before: all but one failed with "disk I/O error", "table project already exists" or a
    // `.bak.partial` path (the file ended intact).
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/upgrade");
    let mut old: Vec<PathBuf> = std::fs::read_dir(&fixtures)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "forcebench"))
        .collect();
    old.sort();
    assert!(old.len() >= 9, "{old:?}");
    for fixture in old {
        let name = fixture.file_name().unwrap().to_str().unwrap().to_string();
        let version: i64 = name.strip_prefix("schema").unwrap().strip_suffix(".forcebench").unwrap().parse().unwrap();
        let c = Case::of(&fixture);
        let children: Vec<_> = (0..4)
            .map(|_| {
                Command::new(env!("CARGO_BIN_EXE_forcebench"))
                    .args(["--project", "p.forcebench", "status", "--json"])
                    .current_dir(c.dir.path())
                    .env_remove("FORCEBENCH_PROJECT")
                    .stdin(Stdio::null())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let outputs: Vec<_> = children.into_iter().map(|c| c.wait_with_output().unwrap()).collect();
        let mut upgraded = 0;
        for o in &outputs {
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(o.status.success(), "{name}: a process failed: {err}");
            serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap_or_else(|e| panic!("{name}: {e}"));
            if !err.is_empty() {
                assert_eq!(
                    err,
                    format!(
                        "{}: upgraded the project from schema {version} to {}; the file as it was is kept as \
                         ./p.forcebench.schema{version}.bak\n",
                        c.project().display(),
                        forcebench::db::latest_version()
                    ),
                    "{name}"
                );
                upgraded += 1;
            }
        }
        assert_eq!(upgraded, 1, "{name}: exactly one process upgrades");
        let mut left: Vec<String> =
            std::fs::read_dir(c.dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        left.retain(|f| !f.ends_with("-wal") && !f.ends_with("-shm"));
        left.sort();
        assert_eq!(left, ["p.forcebench", &format!("p.forcebench.schema{version}.bak")], "{name}");
        let v: i64 = rusqlite::Connection::open(c.project())
            .unwrap()
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, forcebench::db::latest_version(), "{name}");
    }
}

// ---- Smaller refusals and clearer errors (items 7 and 8) ----

/// Ana's return rewritten through `edit` and signed with her packet key (as her workspace could),
/// written as `name` in the case folder; returns the edited tree.
fn forged(c: &Case, name: &str, edit: impl FnOnce(&mut serde_json::Value)) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(c.path("ret.json")).unwrap()).unwrap();
    edit(&mut v);
    v["mac"] = forcebench::packets::mac_of(&v, &packet_template().key).into();
    std::fs::write(c.path(name), serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    v
}

/// The first row of a return with events: its index.
fn worked_row(v: &serde_json::Value) -> usize {
    v["rows"].as_array().unwrap().iter().position(|r| r["events"].as_array().is_some_and(|e| !e.is_empty())).unwrap()
}

fn merge_refusal(file: &str, row: &str, check: &str, message: &str) -> String {
    format!(
        "{file}: 1 problem found; nothing was imported\n  {file}: field `row {row}`: {check} check failed: {message}; nothing was merged"
    )
}

#[test]
fn an_event_time_that_is_not_rfc_3339_is_refused() {
    // Before: `"at": "yesterday"` was merged, and showed as an empty week in `agreement --json`.
    let c = packet_case();
    let v = forged(&c, "when.json", |v| {
        let i = worked_row(v);
        v["rows"][i]["events"][0]["at"] = "yesterday".into();
    });
    let i = worked_row(&v);
    let (row, uid) = (v["rows"][i]["id"].as_str().unwrap(), v["rows"][i]["events"][0]["uid"].as_str().unwrap());
    c.refused_code(
        &["packets", "merge", "when.json"],
        "invalid_input",
        &merge_refusal(
            "when.json",
            row,
            "event",
            &format!("event {uid}: `at` is \"yesterday\", not a time in RFC 3339 form (such as 2026-05-01T12:00:00Z)"),
        ),
        &[],
    );
}

#[test]
fn a_negative_or_huge_time_spent_is_refused() {
    // Before: -5 and 1e300 seconds were stored as the time spent on the row.
    let c = packet_case();
    for (seconds, shown) in [(serde_json::json!(-5.0), "-5"), (serde_json::json!(1e300), &*format!("{}", 1e300f64))] {
        let v = forged(&c, "time.json", |v| {
            let i = worked_row(v);
            v["rows"][i]["seconds_spent"] = seconds.clone();
        });
        let row = v["rows"][worked_row(&v)]["id"].as_str().unwrap();
        c.refused_code(
            &["packets", "merge", "time.json"],
            "invalid_input",
            &merge_refusal(
                "time.json",
                row,
                "time",
                &format!(
                    "`seconds_spent` is {shown}; the time spent on one row is between 0 and 86400 seconds (a day)"
                ),
            ),
            &[],
        );
    }
}

#[test]
fn an_event_uid_taken_by_another_packet_names_whose_it_is_and_the_way_back() {
    // Before: "event … is already in this project from another packet; the return was not
    // written by this packet's workspace", with no word of whose it is: Ana's genuine return
    // was blocked for ever.
    let c = packet_case();
    let t = packet_template();
    let ana: serde_json::Value = serde_json::from_slice(&std::fs::read(c.path("ret.json")).unwrap()).unwrap();
    let i = worked_row(&ana);
    let (row, uid) = (ana["rows"][i]["id"].as_str().unwrap(), ana["rows"][i]["events"][0]["uid"].as_str().unwrap());
    // Ben's return, carrying one of Ana's event uids, signed with Ben's own key.
    let mut ben: serde_json::Value = serde_json::from_slice(&std::fs::read(&t.ben_returned).unwrap()).unwrap();
    let j = worked_row(&ben);
    ben["rows"][j]["events"][0]["uid"] = uid.into();
    ben["mac"] = forcebench::packets::mac_of(&ben, &t.ben_key).into();
    std::fs::write(c.path("ben.json"), serde_json::to_vec_pretty(&ben).unwrap()).unwrap();
    let (code, out, err) = c.run(&["packets", "merge", "ben.json"]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    let merged_at: String = rusqlite::Connection::open(c.project())
        .unwrap()
        .query_row("SELECT merged_at FROM packet_returns WHERE file_name = 'ben.json'", [], |r| r.get(0))
        .unwrap();
    c.refused_code(
        &["packets", "merge", "ret.json"],
        "invalid_input",
        &merge_refusal(
            "ret.json",
            row,
            "event",
            &format!(
                "event {uid} is already in this project, merged from ben's packet `{}` (file `ben.json`, at \
                 {merged_at}); one event cannot belong to two returns, so one of them was copied from the other. \
                 If this return is ana's genuine one, restore the project from a copy made before that merge (the \
                 `.bak` files beside it, or your own backup) and merge this return first",
                ben["packet_id"].as_str().unwrap()
            ),
        ),
        &[],
    );
}

#[test]
fn out_folders_that_are_symbolic_links_are_refused_by_packets_feedback_and_judge_templates() {
    // Before: `packets issue` wrote the packets (their keys included) wherever the link pointed,
    // and `feedback issue` and `judge templates` their files.
    let c = packet_case();
    std::fs::create_dir(c.path("elsewhere")).unwrap();
    std::os::unix::fs::symlink(c.path("elsewhere"), c.path("link")).unwrap();
    c.refused_code(
        &["packets", "issue", "--out", "link"],
        "bad_output_path",
        "link is a symbolic link; write into a real folder (nothing was written)",
        &[],
    );
    c.refused_code(
        &["feedback", "issue", "--out", "link"],
        "bad_output_path",
        "link is a symbolic link; write into a real folder (nothing was written)",
        &[],
    );
    c.refused_code(
        &["judge", "templates", "--out", "link"],
        "bad_output_path",
        "link is a symbolic link; write into a real folder (nothing was written)",
        &[],
    );
    assert_eq!(std::fs::read_dir(c.path("elsewhere")).unwrap().count(), 0);
}

#[test]
fn a_project_is_not_made_through_a_dangling_symbolic_link() {
    // Before: `packets open --workspace` and `init` created the file wherever the link pointed.
    let c = packet_case();
    std::os::unix::fs::symlink(c.path("nowhere/w.forcebench"), c.path("w.forcebench")).unwrap();
    std::fs::create_dir(c.path("nowhere")).unwrap();
    let refusal = "w.forcebench is a symbolic link to a file that does not exist; a project is made only at a real \
                   path (nothing was created)";
    c.refused_code(
        &["packets", "open", "ana.packet.json", "--workspace", "w.forcebench"],
        "bad_output_path",
        refusal,
        &["nowhere/w.forcebench"],
    );
    let (code, _, err) = c.run_args(&["--project", "w.forcebench", "init"], true);
    assert_eq!((code, err), (1, format!("error [bad_output_path]: {refusal}\n")));
    assert!(!c.path("nowhere/w.forcebench").exists());
}

#[test]
fn an_annotators_workspace_refuses_the_leads_steps() {
    // Before: a workspace accepted `import`, `annotators add`, `packets issue` and `sample load`.
    let c = packet_case();
    let (code, _, err) = c.run(&["packets", "open", "ana.packet.json", "--workspace", "ws.forcebench"]);
    assert_eq!((code, err.as_str()), (0, ""));
    let w = Case::of(&c.path("ws.forcebench"));
    let f = w.corpus("candidates-nfc-nfd.jsonl");
    let lead = |step: &str| {
        format!(
            "this is an annotator's workspace, made from a packet: {step} is the lead's step, done in the lead's \
             project. Nothing was changed"
        )
    };
    w.refused_code(&["import", f], "lead_only", &lead("importing candidates"), &[]);
    w.refused_code(&["sample", "load"], "lead_only", &lead("importing candidates"), &[]);
    w.refused_code(&["annotators", "add", "mallory"], "lead_only", &lead("adding people to the roster"), &[]);
    w.refused_code(&["packets", "issue", "--out", "out"], "lead_only", &lead("issuing packets"), &["out"]);
    // The app's Issue feedback refused this in the shell alone; the rule is the core's, so the
    // command line refuses it too.
    w.refused_code(&["feedback", "issue", "--out", "fb"], "lead_only", &lead("issuing feedback files"), &["fb"]);
}

#[test]
fn a_300_character_name_still_gets_its_packet() {
    // Before: "File name too long (os error 36)".
    let c = Case::new();
    let long = "a".repeat(300);
    for args in [
        vec!["init"],
        vec!["sample", "load"],
        vec!["annotators", "add", long.as_str()],
        vec!["annotators", "add", "b"],
        vec!["assign"],
    ] {
        let all = [&["--project", "q.forcebench"][..], &args[..]].concat();
        let (code, out, err) = c.run_args(&all, false);
        assert_eq!(code, 0, "{args:?}: {out} {err}");
    }
    let (code, out, err) =
        c.run_args(&["--project", "q.forcebench", "packets", "issue", "--out", "out", "--json"], false);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    let issued: serde_json::Value = serde_json::from_str(&out).unwrap();
    let file = issued.as_array().unwrap().iter().find(|p| p["annotator"] == long.as_str()).unwrap()["file"]
        .as_str()
        .unwrap()
        .to_string();
    let name = Path::new(&file).file_name().unwrap().to_str().unwrap();
    assert!(name.starts_with(&format!("{}-", "a".repeat(55))) && name.len() < 100, "{name}");
    assert!(c.path(&file).is_file(), "{file}");
}

#[test]
fn a_truncated_project_is_named_as_damaged_with_the_way_back() {
    // Before: "database error: database disk image is malformed", no file named, no advice.
    let c = Case::new();
    let bytes = std::fs::read(c.project()).unwrap();
    std::fs::write(c.project(), &bytes[..bytes.len() / 2]).unwrap();
    std::fs::write(c.path("p.forcebench.schema9.bak"), b"a copy").unwrap();
    c.refused_code(
        &["status"],
        "damaged_project",
        "p.forcebench is damaged (SQLite: database disk image is malformed); ForceBench cannot read it, and changed \
         nothing. The copies kept beside it before upgrades (p.forcebench.schema9.bak) are the way back: copy the \
         latest over it, or restore it from your own backup",
        &[],
    );
}

#[test]
fn annotate_history_shows_values_as_people_read_them() {
    // Before: `None -> Some("…")`.
    let c = packet_case();
    let ret: serde_json::Value = serde_json::from_slice(&std::fs::read(c.path("ret.json")).unwrap()).unwrap();
    let row = ret["rows"][0]["id"].as_str().unwrap().to_string();
    let (code, _, _) = c.run(&["annotate", "set", &row, "notes", "first", "--annotator", "ana"]);
    assert_eq!(code, 0);
    let (code, out, err) = c.run(&["annotate", "history", &row, "--annotator", "ana"]);
    assert_eq!((code, err.as_str()), (0, ""));
    let line = out.lines().find(|l| l.contains(" notes ")).unwrap();
    assert!(line.contains(" (empty) -> \"first\"  (app)") || line.contains(" (empty) -> \"first\"  ("), "{line}");
    assert!(!out.contains("Some(") && !out.contains("None"), "{out}");
}

#[test]
fn verify_refuses_an_eval_csv_formula_cell_that_lost_its_quote() {
    // Before: `verify` compared each cell with its quote taken off, so a cell whose neutralising
    // quote was removed (a live `=HYPERLINK(...)` in a spreadsheet) passed, once the hashes in
    // the manifest were redone.
    let dir = tempfile::tempdir().unwrap();
    let mut p = crate::split::project_from(dir.path(), "f.forcebench", &[("scope", 6)], 1, 1);
    p.conn().execute("UPDATE candidates SET context = '=HYPERLINK(\"http://x.invalid\",\"see\")'", []).unwrap();
    forcebench::split::draft(&mut p, &forcebench::split::SplitParams::new(Default::default(), Some(3), Some(1)))
        .unwrap();
    forcebench::split::lock(&mut p).unwrap();
    drop(p);
    let c = Case::of(&dir.path().join("f.forcebench"));
    let (code, _, err) = c.run(&["export", "out"]);
    assert_eq!((code, err.as_str()), (0, ""));
    let csv = std::fs::read_to_string(c.path("out/eval.csv")).unwrap();
    assert!(csv.contains("\"'=HYPERLINK("), "the export neutralises the cell: {csv}");
    let live = csv.replace("\"'=HYPERLINK(", "\"=HYPERLINK(");
    std::fs::write(c.path("out/eval.csv"), &live).unwrap();
    // The manifest redone as a forger would: the file's hash, then the manifest's own.
    let zero = "0".repeat(64);
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(c.path("out/manifest.json")).unwrap()).unwrap();
    manifest["files"]["eval.csv"] = hex::encode(Sha256::digest(live.as_bytes())).into();
    manifest["manifest_sha256"] = zero.clone().into();
    let text = serde_json::to_string_pretty(&manifest).unwrap() + "\n";
    let own = hex::encode(Sha256::digest(text.as_bytes()));
    let text =
        text.replacen(&format!("\"manifest_sha256\": \"{zero}\""), &format!("\"manifest_sha256\": \"{own}\""), 1);
    std::fs::write(c.path("out/manifest.json"), text).unwrap();
    let first = live.lines().nth(1).unwrap().split(',').next().unwrap().to_string();
    c.refused_code(
        &["verify", "out"],
        "verify_failed",
        &format!(
            "out/eval.csv: line 2 (id `{first}`): `context` begins like a spreadsheet formula and has lost the quote \
             the export puts in front of it, so a spreadsheet would run it"
        ),
        &[],
    );
}

#[test]
fn a_session_refuses_a_severity_written_as_a_string() {
    // Before: `"value": "2"` for severity was saved as 2 (a text cell read as a number).
    use std::io::Write;
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
    writeln!(stdin, "{{\"op\":\"set\",\"id\":\"{id}\",\"field\":\"severity\",\"value\":\"2\"}}").unwrap();
    writeln!(stdin, "{{\"op\":\"get\",\"id\":\"{id}\"}}").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let answers: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(
        answers[0],
        serde_json::json!({"ok": false, "code": "invalid_argument",
            "message": "field `severity`: expected a number, found the string \"2\"; write numbers without quotes"})
    );
    assert_eq!(answers[1]["ok"], true);
    let events: i64 = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row("SELECT count(*) FROM annotation_events WHERE candidate_id = ?1", [&id], |r| r.get(0))
        .unwrap();
    assert_eq!(events, 0, "nothing was saved");
}

#[test]
fn a_project_on_a_read_only_disk_is_read_and_a_change_is_refused_in_words() {
    // Before: even `status` and `export` failed ("unable to open database file" or "attempt to
    // write a readonly database" from switching the journal mode).
    let c = Case::new();
    let mnt = c.path("ro");
    std::fs::create_dir(&mnt).unwrap();
    let mount = |args: &[&str]| Command::new("mount").args(args).arg(&mnt).status().is_ok_and(|s| s.success());
    if !mount(&["-t", "tmpfs", "-o", "size=64m", "tmpfs"]) {
        eprintln!("skipped: this test mounts a file system, which needs root");
        return;
    }
    struct Unmount(PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg(&self.0).status();
        }
    }
    let _mounted = Unmount(mnt.clone());
    std::fs::copy(c.project(), mnt.join("p.forcebench")).unwrap();
    assert!(mount(&["-o", "remount,ro"]));
    let on_ro = |args: &[&str]| c.run_args(&[&["--project", "ro/p.forcebench"][..], args].concat(), true);
    let (code, out, err) = on_ro(&["status", "--json"]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    let (code, _, err) = on_ro(&["export", "out-ro"]);
    assert_eq!((code, err.as_str()), (0, ""));
    let (code, _, err) = c.run(&["export", "out-rw"]);
    assert_eq!((code, err.as_str()), (0, ""));
    for f in forcebench::split::EXPORT_FILES {
        assert_eq!(
            std::fs::read(c.path(&format!("out-ro/{f}"))).unwrap(),
            std::fs::read(c.path(&format!("out-rw/{f}"))).unwrap(),
            "{f}"
        );
    }
    let (code, out, err) = on_ro(&["annotators", "add", "zed"]);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            1,
            "",
            "error [read_only_project]: the project is on a read-only disk: it can be read (status, export, \
             agreement...) but not changed; copy it to a folder you can write to. Nothing was changed\n"
        )
    );
}

#[test]
fn packets_issue_that_fails_before_its_commit_leaves_no_packet_file() {
    // Before: on a full disk the packet files already written (each holding its packet key)
    // stayed in the folder while the project never recorded them. The failure is made here by a
    // trigger refusing Ben's packet, after Ana's file and Ben's were written.
    let c = packet_case();
    by_hand(
        &c,
        "CREATE TRIGGER no_room BEFORE INSERT ON packets
         WHEN NEW.annotator_id = (SELECT id FROM annotators WHERE name = 'ben')
         BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;",
    )
    .unwrap();
    c.refused_code(&["packets", "issue", "--out", "out"], "database", "database error: database or disk is full", &[]);
    let left: Vec<_> = std::fs::read_dir(c.path("out")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(left.is_empty(), "packet files left behind: {left:?}");
}

#[test]
fn evaluate_plots_refuses_a_symbolic_link_for_its_folder() {
    // Before: the four plot files were written wherever the link pointed.
    let c = Case::new();
    std::fs::create_dir(c.path("elsewhere")).unwrap();
    std::os::unix::fs::symlink(c.path("elsewhere"), c.path("plots")).unwrap();
    c.refused_code(
        &["evaluate", "--plots", "plots"],
        "bad_output_path",
        "plots is a symbolic link; write into a real folder (nothing was written)",
        &[],
    );
    assert_eq!(std::fs::read_dir(c.path("elsewhere")).unwrap().count(), 0);
}
