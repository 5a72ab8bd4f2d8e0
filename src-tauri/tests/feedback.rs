//! Issuing feedback files from the lead's window (issue 31: it was `forcebench feedback issue`
//! alone), through IPC on the mock runtime: what is written, and each refusal with its reason.

use forcebench::Project;
use serde_json::json;

mod common;
use common::{accepted_project, app, invoke};

#[test]
fn the_lead_issues_feedback_files_into_a_folder_and_each_refusal_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, window) = app(Ok(accepted_project("feedback")));
    let out = dir.path().join("feedback");

    let none = invoke(&window, "issue_feedback", json!({ "dir": "  ", "force": false })).unwrap_err();
    assert_eq!(none["code"], "invalid_argument", "{none}");
    assert!(none["message"].as_str().unwrap().contains("folder"), "{none}");

    let written = invoke(&window, "issue_feedback", json!({ "dir": out.to_str().unwrap(), "force": false })).unwrap();
    let written = written.as_array().unwrap();
    assert!(!written.is_empty());
    for w in written {
        let file = std::path::Path::new(w["file"].as_str().unwrap());
        assert_eq!(file.parent().unwrap(), out);
        let back = forcebench::feedback::read(file).unwrap();
        assert_eq!(back.annotator, w["annotator"].as_str().unwrap());
        assert_eq!(back.summary.adjudicated_rows, w["adjudicated_rows"].as_u64().unwrap());
        assert_eq!(back.summary.differing_rows, w["differing_rows"].as_u64().unwrap());
        assert!(w["adjudicated_rows"].as_u64().unwrap() > 0);
    }
    // A file as it reads, without the time it was written.
    let contents = || -> Vec<serde_json::Value> {
        written
            .iter()
            .map(|w| {
                let mut v: serde_json::Value =
                    serde_json::from_slice(&std::fs::read(w["file"].as_str().unwrap()).unwrap()).unwrap();
                v.as_object_mut().unwrap().remove("written_at");
                v
            })
            .collect()
    };
    let before = contents();

    // Again: the files exist, so nothing is replaced unless asked.
    let again = invoke(&window, "issue_feedback", json!({ "dir": out.to_str().unwrap(), "force": false })).unwrap_err();
    assert_eq!(again["code"], "output_exists", "{again}");
    let replaced = invoke(&window, "issue_feedback", json!({ "dir": out.to_str().unwrap(), "force": true })).unwrap();
    assert_eq!(replaced.as_array().unwrap().len(), written.len());
    assert_eq!(before, contents(), "the same project writes the same feedback");

    // A file where a folder is wanted.
    let file = dir.path().join("not-a-folder");
    std::fs::write(&file, "x").unwrap();
    let bad = invoke(&window, "issue_feedback", json!({ "dir": file.to_str().unwrap(), "force": false })).unwrap_err();
    assert_eq!(bad["code"], "bad_output_path", "{bad}");

    // Before anything is adjudicated there is nothing to say, and nothing is written.
    let mut fresh = Project::in_memory("fresh").unwrap();
    forcebench::sample::load_sample_project(&mut fresh).unwrap();
    let (_app2, fresh_window) = app(Ok(fresh));
    let empty = dir.path().join("empty");
    let early =
        invoke(&fresh_window, "issue_feedback", json!({ "dir": empty.to_str().unwrap(), "force": false })).unwrap_err();
    assert!(early["message"].as_str().unwrap().contains("adjudicate first"), "{early}");
    assert!(!empty.exists(), "no folder made for nothing");
}

#[test]
fn an_annotators_workspace_cannot_issue_feedback() {
    let dir = tempfile::tempdir().unwrap();
    let mut lead = Project::in_memory("lead").unwrap();
    forcebench::sample::load_sample_project(&mut lead).unwrap();
    let issued = forcebench::packets::issue(&mut lead, &dir.path().join("packets"), "strict".parse().unwrap()).unwrap();
    let ws = forcebench::workspace::open_or_resume(std::path::Path::new(&issued[0].file)).unwrap();
    let (_app, window) = app(Ok(ws));
    let out = dir.path().join("feedback");
    let refused =
        invoke(&window, "issue_feedback", json!({ "dir": out.to_str().unwrap(), "force": false })).unwrap_err();
    assert_eq!(refused["code"], "lead_only", "{refused}");
    assert_eq!(
        refused["message"],
        "this is an annotator's workspace, made from a packet: issuing feedback files is the lead's step, done in \
         the lead's project. Nothing was changed"
    );
    assert!(!out.exists());
}
