//! Writing where a person said (`output`): a file appears whole or not at all, an existing file
//! is replaced only with `force`, a project (or its `-wal`, `-shm`, `-journal`) never, a folder,
//! pipe or device never, a symlink is replaced and never written through, and CSV cells never
//! start a formula.

use crate::common::*;
use forcebench::output::{self, FORMULA_START};
use forcebench::{Error, Project};
use std::path::{Path, PathBuf};

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

fn exists_message(path: &Path) -> String {
    format!(
        "{} already exists; nothing was written (choose another name, or add --force to replace it)",
        path.display()
    )
}

fn project_message(path: &Path) -> String {
    format!(
        "{} is a ForceBench project; nothing was written (an output never replaces a project, even with --force)",
        path.display()
    )
}

/// A project file (closed) in its own folder.
fn closed_project() -> (tempfile::TempDir, PathBuf) {
    let (dir, path, project) = temp_project();
    drop(project);
    (dir, path)
}

// ---- Whole or not at all ----

#[test]
fn a_new_file_is_written_whole_and_no_temporary_file_is_left_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("labels.jsonl");
    output::write_file(&path, b"{\"id\":\"a\"}\n", false).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"{\"id\":\"a\"}\n");
    assert_eq!(names(dir.path()), ["labels.jsonl"]);
}

#[test]
fn a_writer_that_fails_halfway_leaves_no_file_and_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("report.csv");
    let err = output::write_through(&path, false, |tmp| {
        std::fs::write(tmp, "id,score\na,0.5\nb,").unwrap();
        Err(Error::Internal("the renderer stopped".into()))
    })
    .unwrap_err();
    assert_eq!((err.code(), err.to_string().as_str()), ("internal", "the renderer stopped"));
    assert_eq!(names(dir.path()), Vec::<String>::new());
}

#[test]
fn a_writer_that_fails_while_replacing_with_force_leaves_the_old_file_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "report.csv", "the old report\n");
    let err = output::write_through(&path, true, |tmp| {
        std::fs::write(tmp, "half of the new").unwrap();
        Err(Error::Internal("disk went away".into()))
    })
    .unwrap_err();
    assert_eq!(err.to_string(), "disk went away");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "the old report\n");
    assert_eq!(names(dir.path()), ["report.csv"]);
}

#[test]
fn the_writer_gets_an_unpredictable_hidden_sibling_that_keeps_the_extension() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("plot.svg");
    let mut seen = Vec::new();
    for _ in 0..2 {
        output::write_through(&path, true, |tmp| {
            assert!(!tmp.exists() && std::fs::symlink_metadata(tmp).is_err(), "{} exists already", tmp.display());
            seen.push(tmp.to_path_buf());
            std::fs::write(tmp, "<svg/>").map_err(|e| Error::io(tmp, e))
        })
        .unwrap();
    }
    for tmp in &seen {
        assert_eq!(tmp.parent(), Some(dir.path()));
        let name = tmp.file_name().unwrap().to_str().unwrap();
        let random = name.strip_prefix(".plot.svg.").and_then(|r| r.strip_suffix(".forcebench-tmp.svg"));
        assert!(random.is_some_and(|r| r.len() == 16 && r.bytes().all(|b| b.is_ascii_hexdigit())), "{name}");
    }
    assert_ne!(seen[0], seen[1], "two writes use two different names");
    assert_eq!(names(dir.path()), ["plot.svg"]);
}

// ---- Replacing: only with force, never a project ----

#[test]
fn an_existing_file_is_refused_without_force_and_replaced_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "labels.jsonl", "keep me\n");
    let err = output::write_file(&path, b"new\n", false).unwrap_err();
    assert_eq!(err.code(), "output_exists");
    assert_eq!(err.to_string(), exists_message(&path));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "keep me\n");
    output::write_file(&path, b"new\n", true).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
    assert_eq!(names(dir.path()), ["labels.jsonl"]);
}

#[test]
fn a_file_that_appears_after_the_check_is_not_replaced_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("labels.jsonl");
    let err = output::write_through(&path, false, |tmp| {
        std::fs::write(&path, "written meanwhile by someone else\n").unwrap();
        std::fs::write(tmp, "ours\n").map_err(|e| Error::io(tmp, e))
    })
    .unwrap_err();
    assert_eq!((err.code(), err.to_string()), ("output_exists", exists_message(&path)));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "written meanwhile by someone else\n");
    assert_eq!(names(dir.path()), ["labels.jsonl"]);
}

#[test]
fn a_project_file_is_never_replaced_even_with_force() {
    let (dir, path) = closed_project();
    let before = std::fs::read(&path).unwrap();
    for force in [false, true] {
        let err = output::write_file(&path, b"id,score\n", force).unwrap_err();
        assert_eq!(err.code(), "output_is_project");
        assert_eq!(err.to_string(), project_message(&path));
    }
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert_eq!(names(dir.path()), ["test.forcebench"]);
    Project::open(&path).unwrap();
}

#[test]
fn a_projects_wal_shm_and_journal_are_never_replaced_whether_they_exist_or_not() {
    let (dir, path, project) = temp_project();
    let companions = ["-wal", "-shm", "-journal"].map(|s| dir.path().join(format!("test.forcebench{s}")));
    assert!(companions[0].exists(), "an open project has its -wal beside it");
    let wal_before = std::fs::read(&companions[0]).unwrap();
    for companion in &companions {
        let err = output::write_file(companion, b"x", true).unwrap_err();
        assert_eq!((err.code(), err.to_string()), ("output_is_project", project_message(companion)));
    }
    assert_eq!(std::fs::read(&companions[0]).unwrap(), wal_before);
    assert!(!companions[2].exists(), "no -journal was created");
    drop(project);
    // Closed, the -wal is gone; its name is still refused.
    assert!(!companions[0].exists());
    let err = output::write_file(&companions[0], b"x", true).unwrap_err();
    assert_eq!(err.code(), "output_is_project");
    assert!(!companions[0].exists());
    assert!(output::is_project(&path));
}

#[test]
fn a_symlink_to_a_project_is_refused_as_the_project() {
    let (dir, path) = closed_project();
    let link = dir.path().join("labels.jsonl");
    std::os::unix::fs::symlink(&path, &link).unwrap();
    let before = std::fs::read(&path).unwrap();
    let err = output::write_file(&link, b"x", true).unwrap_err();
    assert_eq!((err.code(), err.to_string()), ("output_is_project", project_message(&link)));
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
}

#[test]
fn only_a_project_and_its_companions_count_as_a_project() {
    let (dir, path) = closed_project();
    assert!(output::is_project(&path));
    for suffix in ["-wal", "-shm", "-journal"] {
        assert!(output::is_project(&dir.path().join(format!("test.forcebench{suffix}"))), "{suffix}");
    }
    let notes = write(dir.path(), "notes.txt", "not a database");
    let other = dir.path().join("other.db");
    rusqlite::Connection::open(&other).unwrap().execute_batch("CREATE TABLE t (x);").unwrap();
    for path in [
        notes.clone(),
        dir.path().join("notes.txt-wal"),
        other.clone(),
        dir.path().join("other.db-wal"),
        dir.path().join("-wal"),
        dir.path().join("missing.forcebench"),
        dir.path().to_path_buf(),
    ] {
        assert!(!output::is_project(&path), "{}", path.display());
    }
    // A companion-looking name beside a file that is no project is an ordinary output.
    output::write_file(&dir.path().join("notes.txt-wal"), b"x", false).unwrap();
}

// ---- What is not a file ----

#[test]
fn a_folder_is_refused_as_a_target_even_with_force() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("export");
    std::fs::create_dir(&folder).unwrap();
    for force in [false, true] {
        let err = output::write_file(&folder, b"x", force).unwrap_err();
        assert_eq!(err.code(), "bad_output_path");
        assert_eq!(
            err.to_string(),
            format!("{} is a folder; name a file to write (nothing was written)", folder.display())
        );
    }
    assert!(folder.is_dir());
}

#[test]
fn a_pipe_or_a_device_is_refused_at_once_and_never_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("out.jsonl");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    // `/dev/null` without force only: should the check regress, a rename that refuses an existing
    // name still cannot replace the device (a test run as root must not).
    for (target, force) in [(fifo.as_path(), false), (fifo.as_path(), true), (Path::new("/dev/null"), false)] {
        let err = output::write_file(target, b"x", force).unwrap_err();
        assert_eq!(err.code(), "bad_output_path");
        assert_eq!(
            err.to_string(),
            format!(
                "{} is not a regular file (a device or a pipe); name a file to write (nothing was written)",
                target.display()
            )
        );
    }
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(&std::fs::symlink_metadata(&fifo).unwrap().file_type()));
    assert_eq!(names(dir.path()), ["out.jsonl"]);
}

#[test]
fn a_symlink_at_the_target_is_refused_without_force_and_with_force_is_replaced_never_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let victim = write(outside.path(), "victim.txt", "precious");
    let link = dir.path().join("labels.jsonl");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let err = output::write_file(&link, b"labels\n", false).unwrap_err();
    assert_eq!((err.code(), err.to_string()), ("output_exists", exists_message(&link)));
    output::write_file(&link, b"labels\n", true).unwrap();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    assert!(std::fs::symlink_metadata(&link).unwrap().is_file(), "the link itself was replaced");
    assert_eq!(std::fs::read_to_string(&link).unwrap(), "labels\n");
    // A dangling link counts as an existing name too: nothing is created where it points.
    let dangling = dir.path().join("scores.csv");
    let nowhere = outside.path().join("nowhere.csv");
    std::os::unix::fs::symlink(&nowhere, &dangling).unwrap();
    let err = output::write_file(&dangling, b"x", false).unwrap_err();
    assert_eq!(err.code(), "output_exists");
    assert!(!nowhere.exists());
    assert_eq!(names(outside.path()), ["victim.txt"]);
}

// ---- Inert CSV cells ----

#[test]
fn a_cell_a_spreadsheet_would_read_as_a_formula_gets_a_single_quote_in_front() {
    assert_eq!(FORMULA_START, ['=', '+', '-', '@', '\t', '\r']);
    for (text, cell) in [
        ("=1+2", "'=1+2"),
        ("+31 6 1234", "'+31 6 1234"),
        ("-2", "'-2"),
        ("@SUM(A1:A9)", "'@SUM(A1:A9)"),
        ("\t=cmd", "'\t=cmd"),
        ("\rx", "'\rx"),
        ("=HYPERLINK(\"http://x\",\"y\")", "'=HYPERLINK(\"http://x\",\"y\")"),
        ("'already quoted", "''already quoted"),
    ] {
        assert_eq!(output::inert_cell(text), cell, "{text:?}");
        assert_eq!(output::literal_cell(cell), text, "{cell:?}");
    }
}

#[test]
fn a_cell_with_a_formula_character_anywhere_but_first_is_left_alone() {
    for text in ["a=b", "1+2", "x-y", "mail@example.org", "", "plain text", "é=1"] {
        assert!(matches!(output::inert_cell(text), std::borrow::Cow::Borrowed(t) if t == text), "{text:?}");
        assert_eq!(output::literal_cell(text), text);
    }
}

// Broke when the refusal named the temporary file: writing into a folder that does not exist
// is a bad output path, said of the folder, and leaves nothing anywhere.
#[test]
fn a_file_in_a_folder_that_does_not_exist_is_a_bad_output_path_naming_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing").join("labels.jsonl");
    let err = forcebench::output::write_file(&path, b"{}\n", false).unwrap_err();
    assert_eq!(
        (err.code(), err.to_string()),
        (
            "bad_output_path",
            format!(
                "{}: the folder {} does not exist; create it or name another (nothing was written)",
                path.display(),
                dir.path().join("missing").display()
            )
        )
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
