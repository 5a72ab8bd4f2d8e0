//! The commands through Tauri's IPC on the mock runtime (no window, no display), built with the
//! app's real tauri.conf.json and capabilities, so the window's permissions apply here too.

use forcebench::Project;
use serde_json::{json, Value};

mod common;
use common::{app, invoke};

fn sample_project() -> Project {
    let mut project = Project::in_memory("IPC test").unwrap();
    forcebench::sample::load_sample(&mut project).unwrap();
    project
}

#[test]
fn candidate_page_returns_the_rows_of_the_project() {
    let project = sample_project();
    let first = forcebench::candidate::list(&project).unwrap().remove(0);
    let (_app, window) = app(Ok(project));

    let page = invoke(&window, "candidate_page", json!({ "query": { "offset": 0, "limit": 5 } }))
        .expect("candidate_page succeeds");
    let row = &page["rows"].as_array().expect("an array of rows")[0];
    assert_eq!(row["id"], first.id);
    assert_eq!(row["calibrated_claim"], first.calibrated_claim);
    assert_eq!(row["state"], "imported");
}

#[test]
fn candidate_page_answers_a_filtered_window_with_its_counts() {
    let project = sample_project();
    let all = forcebench::candidate::list(&project).unwrap();
    let (_app, window) = app(Ok(project));

    let page = invoke(&window, "candidate_page", json!({ "query": { "text": "", "offset": 2, "limit": 3 } })).unwrap();
    assert_eq!(page["total"], all.len());
    assert_eq!(page["matching"], all.len());
    let ids: Vec<&str> = page["rows"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, all[2..5].iter().map(|r| r.id.as_str()).collect::<Vec<_>>());
    let one = invoke(
        &window,
        "candidate_page",
        json!({ "query": { "text": all[7].id, "state": "imported", "offset": 0, "limit": 50 } }),
    )
    .unwrap();
    assert_eq!(one["matching"], 1);
    assert_eq!(one["rows"][0]["id"], all[7].id.as_str());
}

#[test]
fn get_candidate_and_project_status_answer() {
    let project = sample_project();
    let first = forcebench::candidate::list(&project).unwrap().remove(0);
    let (_app, window) = app(Ok(project));

    let detail = invoke(&window, "get_candidate", json!({ "id": first.id })).unwrap();
    assert_eq!(detail["id"], first.id);
    assert!(detail["passage"].as_str().is_some_and(|p| !p.is_empty()));
    let status = invoke(&window, "project_status", json!({})).unwrap();
    assert_eq!(status["project"]["name"], "IPC test");
    assert!(status["candidates"].as_i64().unwrap() >= 1);
}

#[test]
fn a_core_error_arrives_as_code_and_message() {
    let (_app, window) = app(Ok(sample_project()));
    let err = invoke(&window, "get_candidate", json!({ "id": "no-such-row" })).unwrap_err();
    assert_eq!(err, json!({ "code": "not_found", "message": "no candidate with id `no-such-row`" }));
}

#[test]
fn a_project_that_failed_to_open_answers_every_command_with_its_error() {
    // The window must still open on a bad file and say why, rather than the app crashing.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.forcebench");
    std::fs::write(&path, "just some text, not a database").unwrap();
    let opening = Project::open(&path).err().expect("a text file is not a project").payload();
    let (_app, window) = app(Err(opening.clone()));

    for (cmd, args) in [("project_status", json!({})), ("candidate_page", json!({ "query": {} }))] {
        let err = invoke(&window, cmd, args).unwrap_err();
        assert_eq!(err["code"], "not_a_project", "{cmd}");
        assert_eq!(err["message"], opening.message.as_str(), "{cmd}");
    }
    assert!(opening.message.contains("notes.forcebench"));
}

#[test]
fn damage_found_after_the_project_opened_is_named_as_damage_in_the_window_too() {
    // Issue 29: opening reads only the schema, so a damaged table shows up later, at the first
    // command that reads it. The CLI named that as damage of the project file with the way back;
    // the app's commands must too, with the same code, rather than "database disk image is
    // malformed" with no file named.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lab.forcebench");
    {
        let mut project = Project::create(&path, "Lab").unwrap();
        forcebench::sample::load_sample(&mut project).unwrap();
    }
    let (page_size, root): (i64, i64) = {
        let project = Project::open(&path).unwrap();
        let conn = project.conn();
        let page_size = conn.query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap();
        let root =
            conn.query_row("SELECT rootpage FROM sqlite_master WHERE name = 'candidates'", [], |r| r.get(0)).unwrap();
        (page_size, root)
    };
    assert!(!dir.path().join("lab.forcebench-wal").exists(), "everything is in the main file");
    let mut bytes = std::fs::read(&path).unwrap();
    let at = ((root - 1) * page_size) as usize;
    bytes[at..at + page_size as usize].fill(0xEE);
    std::fs::write(&path, bytes).unwrap();
    std::fs::write(dir.path().join("lab.forcebench.schema9.bak"), b"a copy").unwrap();
    let project = Project::open(&path).expect("opening does not read the candidates table");
    let (_app, window) = app(Ok(project));
    let err = invoke(&window, "candidate_page", json!({ "query": { "offset": 0, "limit": 5 } })).unwrap_err();
    assert_eq!(err["code"], "damaged_project", "{err}");
    let message = err["message"].as_str().unwrap();
    assert!(message.contains("lab.forcebench is damaged (SQLite: database disk image is malformed)"), "{message}");
    assert!(message.contains("(lab.forcebench.schema9.bak) are the way back"), "{message}");
}

#[test]
fn the_window_is_granted_no_core_api_beyond_the_app_commands() {
    // capabilities/default.json grants only the dialogs and the window's own close request.
    let (_app, window) = app(Ok(sample_project()));
    let err = invoke(&window, "plugin:app|version", json!({})).unwrap_err();
    // Tauri's ACL answers e.g. "app.version not allowed. Permissions associated with this command: ..."
    assert!(err.as_str().is_some_and(|m| m.contains("app.version not allowed")), "{err}");
}

fn annotate_project() -> (Project, String, String) {
    let mut project = Project::in_memory("IPC annotate").unwrap();
    forcebench::sample::load_sample_project(&mut project).unwrap();
    let first = forcebench::annotate::queue(&project, "Ana").unwrap().remove(0).id;
    (project, first, "Ana".to_string())
}

#[test]
fn an_accept_waits_on_the_suggestions_until_confirm_suggestions() {
    // Old code: no confirm_suggestions command, and the accept finished at once.
    let (project, id, who) = annotate_project();
    let (_app, window) = app(Ok(project));
    let row = invoke(&window, "annotate_row", json!({ "id": id, "annotator": who })).unwrap();
    assert_eq!(row["suggestion_mode"], "prefilled");
    assert_eq!(row["annotation"]["suggested"], json!(["evidence_span", "axis", "severity", "repair"]));
    let a = invoke(
        &window,
        "set_field",
        json!({ "id": id, "annotator": who, "field": "decision", "value": "accept_force_gap" }),
    )
    .unwrap();
    assert_eq!(a["finished"], false);
    let a = invoke(&window, "confirm_suggestions", json!({ "id": id, "annotator": who })).unwrap();
    assert_eq!((a["finished"].clone(), a["suggested"].clone()), (json!(true), json!([])));
}

#[test]
fn set_field_and_undo_round_trip_through_ipc() {
    let (project, id, who) = annotate_project();
    let (_app, window) = app(Ok(project));

    let page =
        invoke(&window, "annotate_queue_page", json!({ "query": { "annotator": who, "offset": 0, "limit": 10 } }))
            .unwrap();
    assert_eq!(page["rows"][0]["id"], id.as_str());
    assert_eq!(page["rows"][0]["position"], 1);
    assert_eq!(page["finished"], 0);
    let next = invoke(&window, "annotate_next_open", json!({ "annotator": who, "after": null })).unwrap();
    assert_eq!(next["id"], id.as_str(), "nothing finished: the first row is the next open one");
    let row = invoke(&window, "annotate_row", json!({ "id": id, "annotator": who })).unwrap();
    assert_eq!(row["annotation"]["events"], 0, "not started: the suggestions, pre-filled");
    assert_eq!(row["annotation"]["calibrated_claim"], row["suggested_calibrated_claim"]);

    let a = invoke(
        &window,
        "set_field",
        json!({ "id": id, "annotator": who, "field": "decision", "value": "needs_discussion" }),
    )
    .unwrap();
    assert_eq!(a["decision"], "needs_discussion");
    assert_eq!(a["finished"], false, "needs discussion waits for a note saying why (issue 31)");
    assert_eq!(a["problem_fields"], json!(["notes"]));
    assert_eq!(a["can_undo"], true);
    let a = invoke(
        &window,
        "set_field",
        json!({ "id": id, "annotator": who, "field": "notes", "value": "which reading?" }),
    )
    .unwrap();
    assert_eq!(a["finished"], true);
    // A value different from the current one, so the change is an event (the first row of the
    // queue depends on the project's random id; a no-op set would make the undos below differ).
    let events = a["events"].as_i64().unwrap();
    let severity = if a["severity"] == 3 { 1 } else { 3 };
    let a = invoke(
        &window,
        "set_field",
        json!({ "id": id, "annotator": who, "field": "severity", "value": severity.to_string() }),
    )
    .unwrap();
    assert_eq!(a["severity"], severity);
    assert_eq!(a["events"].as_i64().unwrap(), events + 1, "the severity change is recorded");
    // A span as verbatim text is stored with its byte offsets.
    let passage = row["passage"].as_str().unwrap();
    let text: String = passage.split_whitespace().take(2).collect::<Vec<_>>().join(" ");
    assert_ne!(row["annotation"]["evidence_span"]["text"], text.as_str(), "the span must change for the undo check");
    let a =
        invoke(&window, "set_field", json!({ "id": id, "annotator": who, "field": "evidence_span", "value": text }))
            .unwrap();
    let start = a["evidence_span"]["start"].as_u64().unwrap() as usize;
    let end = a["evidence_span"]["end"].as_u64().unwrap() as usize;
    assert_eq!(&passage[start..end], text);

    let a = invoke(&window, "undo_change", json!({ "id": id, "annotator": who })).unwrap();
    assert_eq!(a["evidence_span"], row["annotation"]["evidence_span"], "undo restores the earlier span");
    let a = invoke(&window, "undo_change", json!({ "id": id, "annotator": who })).unwrap();
    assert_eq!(a["severity"], row["annotation"]["severity"]);
    assert_eq!(a["decision"], "needs_discussion");

    invoke(&window, "add_time", json!({ "id": id, "annotator": who, "seconds": 12.5 })).unwrap();
    let row = invoke(&window, "annotate_row", json!({ "id": id, "annotator": who })).unwrap();
    assert_eq!(row["annotation"]["seconds_spent"], 12.5);
    assert_eq!(row["annotation"]["decision"], "needs_discussion");
    let page =
        invoke(&window, "annotate_queue_page", json!({ "query": { "annotator": who, "offset": 0, "limit": 1 } }))
            .unwrap();
    assert_eq!(page["rows"][0]["finished"], true);
    assert_eq!(page["finished"], 1, "the count follows the saved decision");
    let next = invoke(&window, "annotate_next_open", json!({ "annotator": who, "after": null })).unwrap();
    assert_ne!(next["id"], id.as_str(), "a finished row is not the next open one");
}

#[test]
fn an_invalid_annotation_value_arrives_as_an_error_payload() {
    let (project, id, who) = annotate_project();
    let (_app, window) = app(Ok(project));
    let err = invoke(&window, "set_field", json!({ "id": id, "annotator": who, "field": "severity", "value": "7" }))
        .unwrap_err();
    assert_eq!(err["code"], "invalid_argument");
    assert!(err["message"].as_str().unwrap().contains("severity `7` is not 1, 2 or 3"), "{err}");
    let err = invoke(
        &window,
        "set_field",
        json!({ "id": id, "annotator": who, "field": "evidence_span", "value": "words that are not in the passage" }),
    )
    .unwrap_err();
    assert!(err["message"].as_str().unwrap().contains("not a verbatim substring"), "{err}");
    let err =
        invoke(&window, "annotate_queue_page", json!({ "query": { "annotator": "Nobody", "offset": 0, "limit": 10 } }))
            .unwrap_err();
    assert_eq!(err["code"], "not_on_roster");
    assert!(err["message"].as_str().unwrap().contains("Ana"), "names who is on the roster: {err}");
}

#[test]
fn a_packet_opened_in_the_app_is_annotated_returned_and_merged() {
    let dir = tempfile::tempdir().unwrap();
    let lead_path = dir.path().join("lead.forcebench");
    let issued = {
        let mut lead = Project::create(&lead_path, "Lead").unwrap();
        forcebench::sample::load_sample_project(&mut lead).unwrap();
        forcebench::packets::issue(&mut lead, &dir.path().join("out"), forcebench::packets::Blinding::Standard).unwrap()
    };
    let ana = issued.iter().find(|p| p.annotator == "Ana").unwrap();

    // The annotator's window: open the packet, annotate a row, return the packet.
    let (_app, window) = app(Ok(sample_project()));
    let session = invoke(&window, "session_info", json!({})).unwrap();
    assert!(session["workspace"].is_null());
    let err = invoke(&window, "return_packet", json!({ "out": null })).unwrap_err();
    assert!(err["message"].as_str().unwrap().contains("not an annotator workspace"), "{err}");
    let session = invoke(&window, "open_packet", json!({ "path": ana.file })).unwrap();
    assert_eq!(session["workspace"]["annotator"], "Ana");
    assert_eq!(session["workspace"]["packet_id"], ana.packet_id.as_str());
    let page =
        invoke(&window, "annotate_queue_page", json!({ "query": { "annotator": "Ana", "offset": 0, "limit": 1 } }))
            .unwrap();
    let id = page["rows"][0]["id"].as_str().unwrap().to_string();
    invoke(
        &window,
        "set_field",
        json!({ "id": id, "annotator": "Ana", "field": "decision", "value": "needs_discussion" }),
    )
    .unwrap();
    invoke(&window, "set_field", json!({ "id": id, "annotator": "Ana", "field": "notes", "value": "which reading?" }))
        .unwrap();
    let returned = invoke(&window, "return_packet", json!({ "out": null })).unwrap();
    let path = returned["path"].as_str().unwrap();
    assert_eq!(Some(path), session["workspace"]["return_path"].as_str());
    assert!(path.ends_with(".returned.json") && std::path::Path::new(path).is_file(), "{path}");

    // The lead's window: merge it; a bad path merges nothing and says why.
    let (_app2, lead_window) = app(Ok(Project::open(&lead_path).unwrap()));
    let err = invoke(&lead_window, "merge_packets", json!({ "paths": [path, "/no/such/packet.json"] })).unwrap_err();
    assert_eq!(err["code"], "io");
    let reports = invoke(&lead_window, "merge_packets", json!({ "paths": [path] })).unwrap();
    assert_eq!(reports[0]["annotator"], "Ana");
    assert_eq!(reports[0]["merged"], true);
    assert_eq!(reports[0]["finished_rows"], 1);
    let again = invoke(&lead_window, "merge_packets", json!({ "paths": [path] })).unwrap();
    assert_eq!(again[0]["merged"], false, "a second merge of the same file is a no-op");
}

#[test]
fn the_guideline_and_the_roster_answer() {
    let (project, _, _) = annotate_project();
    let (_app, window) = app(Ok(project));
    let shown = invoke(&window, "guideline", json!({})).unwrap();
    // Issue 28: a new project is on the paper's guideline, version 2, and the app is told what
    // changed from version 1.
    assert_eq!(shown["version"]["label"], "2", "a new project is on guideline version 2");
    assert_eq!(shown["version"]["text"].as_str().unwrap(), forcebench::guideline::GUIDELINE_V2);
    assert_eq!(shown["previous"], json!("1"));
    let added: Vec<&str> = shown["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["change"] == "added")
        .map(|l| l["text"].as_str().unwrap())
        .collect();
    assert!(added.iter().any(|l| l.contains("one dominant axis")), "{added:?}");
    let people = invoke(&window, "list_annotators", json!({})).unwrap();
    let names: Vec<&str> = people.as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Ana", "Ben", "Chidi", "Dana", "Eve", "Lee"]);
}

#[test]
fn the_app_opens_a_packet_given_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let issued = {
        let mut lead = Project::create(&dir.path().join("lead.forcebench"), "Lead").unwrap();
        forcebench::sample::load_sample_project(&mut lead).unwrap();
        forcebench::packets::issue(&mut lead, dir.path(), forcebench::packets::Blinding::Strict).unwrap()
    };
    let ben = issued.iter().find(|p| p.annotator == "Ben").unwrap();
    let args = ["--packet".to_string(), ben.file.clone()];
    let project = forcebench_studio::open_startup_project(args).expect("the packet's workspace opens");
    let (_app, window) = app(Ok(project));
    let session = invoke(&window, "session_info", json!({})).unwrap();
    assert_eq!(session["workspace"]["annotator"], "Ben");
    assert_eq!(session["workspace"]["blinding"], "strict");
    assert_eq!(session["workspace"]["packet_path"], ben.file.as_str());
    let err = forcebench_studio::open_startup_project(["--packet=/no/such/packet.json".to_string()]).err().unwrap();
    assert_eq!(err.code, "io", "{}", err.message);
}

/// A project where ana and ben both annotated four rows: agree on rows 0, 2 and 3; on row 1 ana
/// accepts and ben asks for discussion.
fn agreement_project(dir: &std::path::Path) -> (Project, Vec<String>) {
    let mut project = Project::in_memory("IPC agreement").unwrap();
    forcebench::sample::load_sample(&mut project).unwrap();
    for name in ["ana", "ben"] {
        forcebench::roster::add(&project, name, forcebench::roster::Role::Annotator).unwrap();
    }
    forcebench::assign::assign(&mut project, 1).unwrap();
    let ids: Vec<String> = forcebench::candidate::list(&project).unwrap().into_iter().take(4).map(|r| r.id).collect();
    let accept = |id: &str| format!("{{\"id\":\"{id}\",\"decision\":\"accept_force_gap\"}}\n");
    let reject = |id: &str| {
        format!("{{\"id\":\"{id}\",\"decision\":\"reject_not_force_gap\",\"boundary_type\":\"duplicate\"}}\n")
    };
    let discuss =
        |id: &str| format!("{{\"id\":\"{id}\",\"decision\":\"needs_discussion\",\"notes\":\"which reading?\"}}\n");
    let ana = [accept(&ids[0]), accept(&ids[1]), reject(&ids[2]), reject(&ids[3])].concat();
    let ben = [accept(&ids[0]), discuss(&ids[1]), reject(&ids[2]), reject(&ids[3])].concat();
    for (name, lines) in [("ana", ana), ("ben", ben)] {
        let file = dir.join(format!("{name}.jsonl"));
        std::fs::write(&file, lines).unwrap();
        forcebench::annotate::import_jsonl(&mut project, &file, name).unwrap();
    }
    (project, ids)
}

#[test]
fn the_agreement_report_and_the_rows_behind_a_cell_answer() {
    use forcebench::agreement::{self, BOOTSTRAP_REPS, BOOTSTRAP_SEED};
    let dir = tempfile::tempdir().unwrap();
    let (project, ids) = agreement_project(dir.path());
    let expected =
        common::as_parsed(&agreement::project_report(&project, Some((BOOTSTRAP_REPS, BOOTSTRAP_SEED))).unwrap());
    let (_app, window) = app(Ok(project));

    let report = invoke(&window, "agreement_report", json!({})).unwrap();
    assert_eq!(report, expected, "the core's report with the default bootstrap");
    assert_eq!(report["n_items"], 4);
    assert_eq!(report["confusion"], json!([[1, 0, 1], [0, 2, 0], [0, 0, 0]]));
    assert!(report["bootstrap_ci95"].is_array(), "{report}");

    // Row 1: ana (first on the roster, matrix rows) accepts, ben (columns) asks for discussion.
    let rows = invoke(&window, "agreement_cell_rows", json!({ "table": "decision", "row": 0, "col": 2 })).unwrap();
    assert_eq!(rows, json!([{ "id": ids[1], "annotator_a": "ana", "annotator_b": "ben" }]));
    let rows = invoke(&window, "agreement_cell_rows", json!({ "table": "accept_vs_not", "row": 1, "col": 1 })).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 2);
    let rows = invoke(&window, "agreement_cell_rows", json!({ "table": "axis_when_both_accept", "row": 4, "col": 0 }))
        .unwrap();
    assert_eq!(rows, json!([]));
    let err = invoke(&window, "agreement_cell_rows", json!({ "table": "severity", "row": 0, "col": 0 })).unwrap_err();
    assert!(err.as_str().is_some_and(|m| m.contains("severity")), "Tauri refuses an unknown table: {err}");
}

#[test]
fn the_agreement_report_is_exported_as_csv_or_json() {
    use forcebench::agreement::{self, BOOTSTRAP_REPS, BOOTSTRAP_SEED};
    let dir = tempfile::tempdir().unwrap();
    let (project, _) = agreement_project(dir.path());
    let report = agreement::project_report(&project, Some((BOOTSTRAP_REPS, BOOTSTRAP_SEED))).unwrap();
    let (_app, window) = app(Ok(project));

    let csv = dir.path().join("agreement.csv");
    let written =
        invoke(&window, "export_agreement", json!({ "path": format!(" {} ", csv.display()), "format": "csv" }))
            .unwrap();
    assert_eq!(written, csv.display().to_string());
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), agreement::export::to_csv(&report).unwrap());
    assert!(std::fs::read_to_string(&csv)
        .unwrap()
        .contains("decision,confusion,accept_force_gap|needs_discussion,1\n"));
    // The suggestions followed through, as `agreement --json` has them.
    let uptake = report.suggestion_uptake.as_ref().unwrap();
    assert!(std::fs::read_to_string(&csv)
        .unwrap()
        .contains(&format!("\nsuggestion_uptake,annotations,,{}\n", uptake.annotations)));
    let json_path = dir.path().join("agreement.json");
    let written =
        invoke(&window, "export_agreement", json!({ "path": json_path.display().to_string(), "format": "json" }))
            .unwrap();
    assert_eq!(written, json_path.display().to_string());
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    assert_eq!(saved, common::as_parsed(&report));

    let err = invoke(&window, "export_agreement", json!({ "path": json_path.display().to_string(), "format": "xlsx" }))
        .unwrap_err();
    assert_eq!(err, json!({ "code": "invalid_argument", "message": "export format `xlsx` is not csv or json" }));
    let err = invoke(&window, "export_agreement", json!({ "path": "  ", "format": "csv" })).unwrap_err();
    assert_eq!(err["code"], "invalid_argument");
    let missing = dir.path().join("no/such/dir/agreement.csv");
    let err = invoke(&window, "export_agreement", json!({ "path": missing.display().to_string(), "format": "csv" }))
        .unwrap_err();
    assert_eq!(err["code"], "bad_output_path");
    assert!(
        err["message"].as_str().unwrap().contains(&format!("{}: the folder", missing.display())),
        "names the file: {err}"
    );
}

#[test]
fn an_undefined_agreement_report_says_why_and_a_failed_project_answers_with_its_error() {
    let (_app, window) = app(Ok(sample_project()));
    let report = invoke(&window, "agreement_report", json!({})).unwrap();
    assert_eq!(report["n_items"], 0);
    assert!(report["cohen_kappa"].is_null());
    assert!(report["notes"][0].as_str().unwrap().contains("no item was labelled by both annotators"), "{report}");

    let opening =
        forcebench::ErrorPayload { code: "not_a_project".into(), message: "x: not a ForceBench project".into() };
    let (_app, window) = app(Err(opening.clone()));
    for (cmd, args) in [
        ("agreement_report", json!({})),
        ("agreement_cell_rows", json!({ "table": "decision", "row": 0, "col": 0 })),
        ("export_agreement", json!({ "path": "/tmp/x.csv", "format": "csv" })),
    ] {
        let err = invoke(&window, cmd, args).unwrap_err();
        assert_eq!(err, serde_json::to_value(&opening).unwrap(), "{cmd}");
    }
}

// Broke: views loaded once and went stale; they now poll this revision, which must move on
// every change, from this window or from another connection (the command line, a merge), and
// stay put while nothing changes.
#[test]
fn the_revision_moves_when_anyone_changes_the_project_and_only_then() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.forcebench");
    let mut project = Project::create(&path, "live").unwrap();
    forcebench::sample::load_sample(&mut project).unwrap();
    let (_app, window) = app(Ok(project));
    let revision = || invoke(&window, "project_revision", json!({})).unwrap().as_str().unwrap().to_string();
    let first = revision();
    assert_eq!(revision(), first, "reading changes nothing");
    invoke(&window, "candidate_page", json!({ "query": { "offset": 0, "limit": 200 } })).unwrap();
    assert_eq!(revision(), first, "a read command changes nothing");

    // Another connection, as the command line would.
    let other = Project::open(&path).unwrap();
    forcebench::roster::add(&other, "Zoe", forcebench::roster::Role::Annotator).unwrap();
    let second = revision();
    assert_ne!(second, first, "a commit elsewhere moves the revision");
    assert_eq!(revision(), second);

    // A change made through this window.
    invoke(&window, "run_qc", json!({})).unwrap();
    assert_ne!(revision(), second, "a change from this window moves the revision");
}
