//! A project file (`project`): created only where nothing is, opened only when it is a project
//! (and then left as it was when refused), named, identified, and watched for other writers
//! (`data_version`); a bulk write gives its large cache back.

use crate::common::*;
use forcebench::roster::{self, Role};
use forcebench::{db, Error, Project};
use std::path::Path;

fn cache_size(project: &Project) -> i64 {
    project.conn().query_row("PRAGMA cache_size", [], |r| r.get(0)).unwrap()
}

/// Every file in `dir` with its bytes, to show a refusal wrote nothing and created nothing.
fn folder(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap_or_default())
        })
        .collect()
}

// ---- Create ----

#[test]
fn a_project_needs_a_name_that_is_not_blank_and_none_is_created_without_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.forcebench");
    for name in ["", "   ", "\t\n"] {
        let err = Project::create(&path, name).err().unwrap();
        assert_eq!((err.code(), err.to_string()), ("invalid_argument", "a project needs a non-empty name".into()));
        assert!(!path.exists(), "{name:?}");
    }
    let project = Project::create(&path, "  Hedges, 2026  ").unwrap();
    assert_eq!(project.info().name, "Hedges, 2026", "the name is trimmed");
}

#[test]
fn a_new_project_says_where_it_is_and_which_schema_it_has() {
    let (_dir, path, project) = temp_project();
    let info = project.info();
    assert_eq!(info.path, path.display().to_string());
    assert_eq!((info.schema_version, info.upgraded.clone()), (db::latest_version(), None));
    let memory = Project::in_memory("scratch").unwrap();
    assert_eq!((memory.info().path.as_str(), memory.info().name.as_str()), (":memory:", "scratch"));
}

#[test]
fn open_or_create_names_a_new_project_after_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let (project, created) = Project::open_or_create(&dir.path().join("hedge study.forcebench")).unwrap();
    assert!(created);
    assert_eq!(project.info().name, "hedge study");
}

#[test]
fn create_refuses_an_existing_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "x.forcebench", "keep me");
    let err = Project::create(&path, "x").err().unwrap();
    assert_eq!(err.code(), "already_exists");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "keep me");
}

#[test]
fn open_or_create_creates_parent_directories_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a/b/default.forcebench");
    let (p, created) = Project::open_or_create(&path).unwrap();
    assert!(created);
    let id = p.info().id.clone();
    drop(p);
    let (p, created) = Project::open_or_create(&path).unwrap();
    assert!(!created);
    assert_eq!(p.info().id, id);
}

// ---- Open ----

#[test]
fn project_identity_is_kept_across_opens() {
    let (_dir, path, project) = temp_project();
    let info = project.info().clone();
    assert_eq!(uuid::Uuid::parse_str(&info.id).unwrap().get_version_num(), 4);
    assert!(chrono::DateTime::parse_from_rfc3339(&info.created_at).unwrap().offset().local_minus_utc() == 0);
    drop(project);
    let again = Project::open(&path).unwrap();
    assert_eq!((again.info().id.as_str(), again.info().name.as_str()), (info.id.as_str(), "test"));
}

#[test]
fn opening_a_missing_file_says_how_to_create_it() {
    let dir = tempfile::tempdir().unwrap();
    let err = Project::open(&dir.path().join("nope.forcebench")).err().unwrap();
    assert_eq!(err.code(), "no_project");
    assert!(err.to_string().contains("forcebench --project"), "{err}");
}

#[test]
fn a_project_file_without_its_project_record_is_refused_and_left_as_it_was() {
    let (dir, path, project) = temp_project();
    project.conn().execute("DELETE FROM project", []).unwrap();
    drop(project);
    let before = folder(dir.path());
    let err = Project::open(&path).err().expect("a file without a project record is not a project");
    assert_eq!(err.code(), "not_a_project");
    assert_eq!(
        err.to_string(),
        format!("{}: not a ForceBench project (its project record is missing); nothing was changed", path.display())
    );
    assert_eq!(folder(dir.path()), before, "the refusal changed or left a file");
}

#[test]
fn a_folder_named_as_the_project_is_refused_and_left_empty() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.forcebench");
    std::fs::create_dir(&path).unwrap();
    let err = Project::open(&path).err().unwrap();
    assert_eq!((err.code(), err.to_string()), ("io", format!("{} is a folder, not a file", path.display())));
    assert_eq!(std::fs::read_dir(&path).unwrap().count(), 0);
    let err = Project::open_or_create(&path).err().unwrap();
    assert_eq!(err.code(), "io");
}

// ---- Bulk writes ----

#[test]
fn a_bulk_write_has_the_large_cache_while_it_runs_and_gives_it_back_after() {
    let (_dir, _path, mut project) = temp_project();
    assert_eq!(cache_size(&project), db::CACHE_SIZE);
    let seen = project
        .bulk(|p| {
            roster::add(p, "ana", Role::Annotator)?;
            Ok(cache_size(p))
        })
        .unwrap();
    assert_eq!(seen, db::BULK_CACHE_SIZE);
    assert_eq!(cache_size(&project), db::CACHE_SIZE);
    assert_eq!(roster::list(&project).unwrap().len(), 1, "what the bulk write did is kept");
}

#[test]
fn a_bulk_write_that_fails_gives_the_cache_back_and_returns_its_own_error() {
    let (_dir, _path, mut project) = temp_project();
    let err = project
        .bulk(|p| -> forcebench::Result<()> {
            assert_eq!(cache_size(p), db::BULK_CACHE_SIZE);
            Err(Error::InvalidArgument("the third file is bad".into()))
        })
        .unwrap_err();
    assert_eq!((err.code(), err.to_string()), ("invalid_argument", "the third file is bad".into()));
    assert_eq!(cache_size(&project), db::CACHE_SIZE);
}

// ---- Other writers ----

#[test]
fn data_version_moves_when_another_connection_commits_and_not_on_its_own_commits() {
    let (_dir, path, project) = temp_project();
    let start = project.data_version().unwrap();
    roster::add(&project, "ana", Role::Annotator).unwrap();
    assert_eq!(project.data_version().unwrap(), start, "its own commit");

    let other = Project::open(&path).unwrap();
    let other_start = other.data_version().unwrap();
    roster::list(&other).unwrap();
    assert_eq!(project.data_version().unwrap(), start, "another connection only read");
    roster::add(&other, "ben", Role::Annotator).unwrap();
    let moved = project.data_version().unwrap();
    assert_ne!(moved, start, "another connection committed");
    assert_eq!(project.data_version().unwrap(), moved, "no commit since: it stays");
    assert_eq!(other.data_version().unwrap(), other_start, "the writer's own commit leaves its number");
    // The change is visible to the first connection.
    assert_eq!(roster::list(&project).unwrap().iter().map(|a| a.name.as_str()).collect::<Vec<_>>(), ["ana", "ben"]);
}

// Broke before `db::check_header` looked at the file's kind: a plain `File::open` of a FIFO waits
// for a writer, so `forcebench --project PIPE status` hung.
#[test]
fn a_fifo_named_as_the_project_is_refused_at_once_instead_of_waiting_for_a_writer() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.forcebench");
    assert!(std::process::Command::new("mkfifo").arg(&path).status().unwrap().success());
    let (tx, rx) = std::sync::mpsc::channel();
    let owned = path.clone();
    std::thread::spawn(move || tx.send(Project::open(&owned).err().map(|e| (e.code(), e.to_string()))));
    let refused = rx.recv_timeout(std::time::Duration::from_secs(10));
    if refused.is_err() {
        // Unblock the reader so the thread ends.
        let _ = std::fs::OpenOptions::new().write(true).open(&path);
    }
    let refused = refused.expect("Project::open blocked on a FIFO").expect("a FIFO is not a project");
    assert_eq!(refused.0, "not_a_project", "{}", refused.1);
    assert_eq!(
        refused.1,
        format!("{}: not a ForceBench project (it is a pipe, a socket or a device, not a regular file); nothing was changed", path.display())
    );
}
