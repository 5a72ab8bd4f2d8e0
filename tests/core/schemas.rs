//! What the code reads and writes matches the JSON Schemas documented in schema/.

use crate::common::*;
use forcebench::annotate::{self, Field};
use forcebench::packets::{self, Blinding};
use forcebench::workspace;
use serde_json::Value;
use std::path::Path;

fn validator(name: &str) -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema").join(name);
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{name} is not a valid schema: {e}"))
}

fn assert_valid(v: &jsonschema::Validator, instance: &Value, what: &str) {
    let errors: Vec<String> = v.iter_errors(instance).map(|e| format!("{} at {}", e, e.instance_path())).collect();
    assert!(errors.is_empty(), "{what} does not match its schema: {errors:#?}");
}

#[test]
fn sample_candidates_match_the_candidate_schema() {
    let v = validator("candidate.schema.json");
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data/candidates.jsonl")).unwrap();
    for (i, line) in text.lines().enumerate() {
        assert_valid(&v, &serde_json::from_str(line).unwrap(), &format!("sample line {}", i + 1));
    }
    let mut bad: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    bad["axis"] = "sideways".into();
    assert!(!v.is_valid(&bad), "the schema must reject an unknown axis");
}

#[test]
fn issued_and_returned_packets_match_the_packet_schema() {
    let v = validator("packet.schema.json");
    for blinding in [Blinding::Standard, Blinding::Strict] {
        let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
        let issued = packets::issue(&mut project, &dir.path().join("p"), blinding).unwrap();
        let file = std::path::PathBuf::from(&issued[0].file);
        let value: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        assert_valid(&v, &value, &format!("{blinding:?} issued packet"));
        let mut ws = workspace::open_or_resume(&file).unwrap();
        let who = issued[0].annotator.clone();
        let id = annotate::queue(&ws, &who).unwrap()[0].id.clone();
        annotate::set_field(&mut ws, &id, &who, Field::Decision, Some("needs_discussion")).unwrap();
        annotate::set_field(&mut ws, &id, &who, Field::Notes, Some("unsure")).unwrap();
        annotate::undo(&mut ws, &id, &who).unwrap();
        let out = dir.path().join("returned.json");
        workspace::return_packet(&ws, &out).unwrap();
        let mut value: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        assert_valid(&v, &value, &format!("{blinding:?} returned packet"));
        let mut keyed = value.clone();
        keyed["secret"] = "0".repeat(64).into();
        assert!(!v.is_valid(&keyed), "the schema must reject a returned packet that carries the packet key");
        value["rows"][0]["surprise"] = true.into();
        assert!(!v.is_valid(&value), "the schema must reject unknown row keys");
    }
}

#[test]
fn annotation_import_examples_match_the_annotation_schema() {
    let v = validator("annotation.schema.json");
    for line in [
        r#"{"id":"a","decision":"accept_force_gap","evidence_span":"may help","axis":"scope","severity":2,"repair":"x"}"#,
        r#"{"id":"a","decision":"reject_not_force_gap","boundary_type":"duplicate","notes":null}"#,
        r#"{"id":"a","evidence_span":{"text":"may help","start":3,"end":11}}"#,
    ] {
        assert_valid(&v, &serde_json::from_str(line).unwrap(), line);
    }
    assert!(!v.is_valid(&serde_json::json!({"id": "a", "severity": 4})));
    assert!(!v.is_valid(&serde_json::json!({"decision": "accept_force_gap"})), "id is required");
}

#[test]
fn adjudication_import_examples_match_the_adjudication_schema() {
    let v = validator("adjudication.schema.json");
    for line in [
        r#"{"id":"a","decision":"accept_force_gap","axis":"scope","severity":2,"rationale":"B's axis","checklist":{"span_decisive":true,"calibrated_supported":true,"raised_underwarranted":true,"one_local_axis":true,"no_unrelated_addition":true}}"#,
        r#"{"id":"a","decision":"reject_not_force_gap","boundary_type":"duplicate"}"#,
        r#"{"id":"a","checklist":{"span_decisive":false}}"#,
    ] {
        assert_valid(&v, &serde_json::from_str(line).unwrap(), line);
    }
    assert!(!v.is_valid(&serde_json::json!({"id": "a", "decision": "needs_discussion"})), "not a final decision");
    assert!(!v.is_valid(&serde_json::json!({"id": "a", "checklist": {"tidy": true}})));
    assert!(!v.is_valid(&serde_json::json!({"id": "a", "notes": "x"})));
}

#[test]
fn feedback_files_match_the_feedback_schema() {
    let v = validator("feedback.schema.json");
    let (dir, _, mut p) = annotated_project(&["ana", "ben"]);
    forcebench::roster::add(&p, "eve", forcebench::roster::Role::Adjudicator).unwrap();
    let ids: Vec<String> = forcebench::candidate::list(&p).unwrap().into_iter().take(2).map(|c| c.id).collect();
    let line = |id: &str, severity: u8| {
        format!("{{\"id\":\"{id}\",\"decision\":\"accept_force_gap\",\"severity\":{severity}}}\n")
    };
    annotate::import_jsonl(&mut p, &write(dir.path(), "a.jsonl", line(&ids[0], 1) + &line(&ids[1], 2)), "ana").unwrap();
    annotate::import_jsonl(&mut p, &write(dir.path(), "b.jsonl", line(&ids[0], 3) + &line(&ids[1], 2)), "ben").unwrap();
    forcebench::adjudicate::confirm_agreements(&mut p, "eve").unwrap();
    let take_b = forcebench::adjudicate::Resolution {
        choices: vec![(Field::Severity, forcebench::adjudicate::Choice::B)],
        rationale: Some("higher impact".into()),
        checklist: Default::default(),
    };
    forcebench::adjudicate::resolve(&mut p, &ids[0], "eve", &take_b).unwrap();
    let written = forcebench::feedback::issue(&p, &dir.path().join("fb"), false).unwrap();
    for w in &written {
        let value: Value = serde_json::from_slice(&std::fs::read(&w.file).unwrap()).unwrap();
        assert_valid(&v, &value, &w.file);
    }
    let ana: Value = serde_json::from_slice(&std::fs::read(&written[0].file).unwrap()).unwrap();
    assert_eq!(ana["rows"].as_array().unwrap().len(), 1, "one differing field: the schema saw a real row");
    let mut bad = ana.clone();
    bad["rows"][0]["source"] = "b".into();
    assert!(!v.is_valid(&bad), "the schema must reject a row that says where the final value came from");
}
