//! Errors as people read them.

use forcebench::Error;

// Broke: a missing file showed the system's words, `io: packets/ana.json: No such file or
// directory (os error 2)`.
#[test]
fn file_errors_are_said_in_words() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("packets").join("ana.returned.json");
    let err = forcebench::packets::read(&missing).unwrap_err();
    assert_eq!(err.code(), "io");
    assert_eq!(err.to_string(), format!("No file or folder at {}", missing.display()));
    let folder = Error::io(dir.path(), std::io::Error::from(std::io::ErrorKind::IsADirectory));
    assert_eq!(folder.to_string(), format!("{} is a folder, not a file", dir.path().display()));
    let denied = Error::io("/root/x", std::io::Error::from(std::io::ErrorKind::PermissionDenied));
    assert_eq!(denied.to_string(), "/root/x: permission denied (this user may not read or write it)");
}

// Broke: "no split" and "only a draft" came as `invalid_argument`, so the app matched the message
// text with a regular expression to show its "lock a split first" state.
#[test]
fn export_and_evaluation_without_a_locked_split_say_no_locked_split_in_the_payload_the_app_gets() {
    let (dir, _, project) = crate::common::temp_project();
    let Err(err) = forcebench::evaluate::eval_pairs(&project) else { panic!("refused") };
    assert_eq!(
        serde_json::to_value(err.payload()).unwrap(),
        serde_json::json!({ "code": "no_locked_split", "message": "there is no split; draft and lock one first" })
    );
    let Err(err) = forcebench::split::export(&project, &dir.path().join("out"), &mut |_, _| {}) else {
        panic!("refused")
    };
    assert_eq!(err.code(), "no_locked_split");
    assert_eq!(err.to_string(), "there is no split to export; draft and lock one first");
}

/// Every code the core can give is in the documented error table (docs/cli.md), and no two
/// kinds of error share a code by accident (`split_locked` and `invalid_input` are shared on
/// purpose: one refusal, two places it is caught).
#[test]
fn every_error_code_is_documented_in_the_error_table() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(root.join("src/error.rs")).unwrap();
    let table = std::fs::read_to_string(root.join("docs/cli.md")).unwrap();
    let body = source.split("pub fn code(&self)").nth(1).unwrap().split("pub fn io(").next().unwrap();
    let codes: Vec<&str> = body.lines().filter_map(|l| l.split("=> \"").nth(1)?.split('"').next()).collect();
    assert!(codes.len() >= 15, "{codes:?}");
    for code in &codes {
        assert!(table.contains(&format!("| `{code}` |")), "`{code}` is missing from the error table in docs/cli.md");
    }
    let mut unique = codes.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len() + 1, codes.len(), "one duplicate only (UnreadableInput shares invalid_input): {codes:?}");
}
