//! Which software wrote a file: `forcebench --version`, `status --json` and the build's commit.

use crate::common::*;
use assert_cmd::Command;
use serde_json::Value;

/// The commit this test binary's build was made from, independently of build.rs: git itself.
fn head_commit() -> Option<String> {
    let out = std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[test]
fn version_names_the_version_the_commit_it_was_built_from_and_the_schema_it_writes() {
    // Before: `forcebench 0.1.0`, with no way to tell which build or schema wrote a file.
    let out = Command::cargo_bin("forcebench").unwrap().arg("--version").assert().success().get_output().stdout.clone();
    let line = String::from_utf8(out).unwrap();
    let schema = forcebench::db::latest_version();
    let commit = forcebench::software::COMMIT;
    assert_eq!(
        line.trim(),
        format!("forcebench {} (commit {commit}, project schema {schema})", env!("CARGO_PKG_VERSION"))
    );
    // The schema is the number of migrations there are, not a number written down somewhere.
    let migrations = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/schema"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().ends_with(".sql"))
        .count();
    assert_eq!(schema, migrations as i64);
    if let Some(head) = head_commit() {
        // Built in this checkout: the commit is a prefix of HEAD (a rebuild follows each commit).
        assert!(head.starts_with(commit), "built from {commit}, HEAD is {head}");
        assert!(commit.len() >= 7 && commit.chars().all(|c| c.is_ascii_hexdigit()), "{commit}");
    }
}

#[test]
fn status_json_carries_the_software_and_the_files_own_schema() {
    let (dir, path, _) = temp_project();
    let out = Command::cargo_bin("forcebench")
        .unwrap()
        .args(["--project", path.to_str().unwrap(), "status", "--json"])
        .env("HOME", dir.path())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let status: Value = serde_json::from_slice(&out).unwrap();
    let software = &status["software"];
    assert_eq!(software["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(software["commit"], forcebench::software::COMMIT);
    assert_eq!(software["schema_version"], forcebench::db::latest_version());
    assert_eq!(
        status["project"]["schema_version"],
        forcebench::db::latest_version(),
        "a new file is at the newest schema"
    );
}
