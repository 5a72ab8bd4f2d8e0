//! The Rust vocabularies agree with the schema's lookup tables and the JSON Schema.

use forcebench::vocab::{Axis, BoundaryType, Decision, WorkflowState};
use forcebench::{candidate, db};

fn table(conn: &rusqlite::Connection, name: &str) -> Vec<String> {
    let mut stmt = conn.prepare(&format!("SELECT name FROM {name} ORDER BY position")).unwrap();
    stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
}

fn names<T: Copy>(all: &[T], f: fn(T) -> &'static str) -> Vec<String> {
    all.iter().map(|v| f(*v).to_string()).collect()
}

#[test]
fn enums_match_lookup_tables() {
    let conn = db::in_memory().unwrap();
    assert_eq!(table(&conn, Axis::TABLE), names(Axis::ALL, Axis::as_str));
    assert_eq!(table(&conn, Decision::TABLE), names(Decision::ALL, Decision::as_str));
    assert_eq!(table(&conn, BoundaryType::TABLE), names(BoundaryType::ALL, BoundaryType::as_str));
    assert_eq!(table(&conn, WorkflowState::TABLE), names(WorkflowState::ALL, WorkflowState::as_str));
}

#[test]
fn serde_names_are_the_wire_names() {
    for a in Axis::ALL {
        assert_eq!(serde_json::to_value(a).unwrap(), a.as_str());
        assert_eq!(a.as_str().parse::<Axis>().unwrap(), *a);
    }
    for b in BoundaryType::ALL {
        assert_eq!(serde_json::to_value(b).unwrap(), b.as_str());
    }
    assert!("Relation".parse::<Axis>().is_err(), "names are case-sensitive");
}

#[test]
fn candidate_json_schema_matches_the_importer() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/schema/candidate.schema.json");
    let schema: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let props = schema["properties"].as_object().unwrap();
    let keys: Vec<&str> = props.keys().map(String::as_str).collect();
    assert_eq!(keys, candidate::IMPORT_FIELDS, "properties, in canonical order");
    let required: Vec<&str> = schema["required"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(required, candidate::REQUIRED);
    let axes: Vec<String> =
        props["axis"]["enum"].as_array().unwrap().iter().filter_map(|v| v.as_str().map(String::from)).collect();
    assert_eq!(axes, names(Axis::ALL, Axis::as_str));
    assert_eq!(props["severity"]["minimum"], 1);
    assert_eq!(props["severity"]["maximum"], 3);
    assert_eq!(schema["additionalProperties"], false);
}
