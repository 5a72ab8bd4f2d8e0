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

/// The payload the app receives for `err`, as JSON.
fn payload(err: Error) -> serde_json::Value {
    serde_json::to_value(err.payload()).unwrap()
}

// Broke: every one of these came as `invalid_argument`, so the app could tell a misspelt name
// from a row that is not ready, or a locked split from a missing one, only by its words.
#[test]
fn each_refusal_a_person_must_tell_apart_has_its_own_code_in_the_payload() {
    use forcebench::roster::Role;
    let (_dir, _, mut project) = crate::common::annotated_project(&["Ana", "Ben"]);
    forcebench::roster::add(&project, "Eve", Role::Adjudicator).unwrap();
    let row = forcebench::candidate::list(&project).unwrap()[0].id.clone();

    let Err(err) = forcebench::annotate::queue(&project, "Nobody") else { panic!("refused") };
    assert_eq!(
        payload(err),
        serde_json::json!({ "code": "not_on_roster", "message": "no one named `Nobody` is on the roster (Ana, Ben, Eve)" })
    );
    let Err(err) = forcebench::roster::add(&project, "Ana", Role::Annotator) else { panic!("refused") };
    assert_eq!(
        payload(err),
        serde_json::json!({ "code": "already_done", "message": "`Ana` is already on the roster" })
    );

    let resolution = forcebench::adjudicate::Resolution::default();
    let Err(err) = forcebench::adjudicate::resolve(&mut project, &row, "Eve", &resolution) else { panic!("refused") };
    assert_eq!(
        payload(err),
        serde_json::json!({ "code": "not_double_annotated", "message": format!(
            "row `{row}` is not double-annotated (0 of 2 annotations finished); only double-annotated rows can be adjudicated"
        ) })
    );
    let Err(err) = forcebench::adjudicate::resolve(&mut project, &row, "Ana", &resolution) else { panic!("refused") };
    assert_eq!(
        payload(err),
        serde_json::json!({ "code": "wrong_role", "message": "`Ana` is on the roster as annotator; only an adjudicator or the lead can adjudicate" })
    );

    let Err(err) = forcebench::split::lock(&mut project) else { panic!("refused") };
    assert_eq!(
        payload(err),
        serde_json::json!({ "code": "no_split", "message": "there is no split to lock; draft one first (`forcebench split draft`)" })
    );
    let Err(err) =
        forcebench::split::draft(&mut project, &forcebench::split::SplitParams::new(Default::default(), None, None))
    else {
        panic!("refused")
    };
    assert_eq!(payload(err)["code"], "nothing_to_split");

    let Err(err) = forcebench::locality::mark(&mut project, &row, "  ", "Eve") else { panic!("refused") };
    assert_eq!(
        payload(err),
        serde_json::json!({ "code": "reason_required", "message": format!(
            "marking row `{row}` nonlocal needs a reason (what the raised claim adds or changes)"
        ) })
    );
    let Err(err) = forcebench::locality::mark(&mut project, &row, "adds a population", "Eve") else {
        panic!("refused")
    };
    assert_eq!(payload(err)["code"], "wrong_row_state");
}
