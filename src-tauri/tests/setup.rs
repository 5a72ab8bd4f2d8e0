//! The lead's first steps through IPC on the mock runtime: import (a refusal arrives with every
//! problem structured), the roster, assignment and issuing packets.

use forcebench::Project;
use serde_json::json;

mod common;
use common::{app, invoke};

#[test]
fn import_roster_assign_and_issue_from_the_window() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, window) = app(Ok(Project::in_memory("setup").unwrap()));

    // A file with two bad rows: nothing imported, each problem with its line and field.
    let bad = dir.path().join("bad.csv");
    let header = "id,group_id,source_dataset,source_id,context,passage,evidence_span,calibrated_claim,raised_claim,repair,rationale,axis,severity";
    let row = |id: &str, axis: &str| {
        format!("{id},g-{id},ExpertQA,s-{id},Q?,The drug may help adults.,may help,The drug may help adults.,The drug helps.,The drug may help adults.,Drops the hedge.,{axis},2")
    };
    std::fs::write(
        &bad,
        format!("{header}\n{}\n{}\n{}\n", row("a1", "modality"), row("a2", "certainty"), row("a3", "loudness")),
    )
    .unwrap();
    let refused = invoke(&window, "import_candidates", json!({ "path": bad.to_str().unwrap() })).unwrap_err();
    assert_eq!(refused["code"], "invalid_input");
    let problems = refused["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 2, "{refused}");
    assert_eq!((problems[0]["line"].as_u64(), problems[0]["field"].as_str()), (Some(3), Some("axis")));
    assert_eq!(problems[1]["line"].as_u64(), Some(4));
    let page = invoke(&window, "candidate_page", json!({ "query": { "offset": 0, "limit": 200 } })).unwrap();
    assert_eq!(page["total"], 0, "nothing was imported");

    let good = dir.path().join("good.csv");
    std::fs::write(&good, format!("{header}\n{}\n{}\n", row("a1", "modality"), row("a2", "scope"))).unwrap();
    let report = invoke(&window, "import_candidates", json!({ "path": good.to_str().unwrap() })).unwrap();
    assert_eq!(report["inserted"], 2, "{report}");

    for (name, role) in [("Ana", "annotator"), ("Ben", "annotator"), ("Eve", "adjudicator")] {
        invoke(&window, "roster_add", json!({ "name": name, "role": role })).unwrap();
    }
    let wrong = invoke(&window, "roster_add", json!({ "name": "Zed", "role": "boss" })).unwrap_err();
    assert_eq!(wrong["code"], "invalid_argument");
    let assigned = invoke(&window, "assign_rows", json!({ "seed": 1 })).unwrap();
    assert_eq!(assigned["assigned"], 2);

    let out = dir.path().join("packets");
    let issued =
        invoke(&window, "issue_packets", json!({ "dir": out.to_str().unwrap(), "blinding": "strict" })).unwrap();
    let files: Vec<&str> = issued.as_array().unwrap().iter().map(|p| p["file"].as_str().unwrap()).collect();
    assert_eq!(files.len(), 2);
    assert!(files.iter().all(|f| std::path::Path::new(f).is_file()));
    let page = invoke(&window, "candidate_page", json!({ "query": { "offset": 0, "limit": 5000 } })).unwrap();
    assert_eq!(page["rows"].as_array().unwrap().len() as u64, page["total"].as_u64().unwrap(), "every row in one page");
    assert!(page["rows"].as_array().unwrap().iter().all(|r| r["state"] == "assigned"), "{page}");
}
