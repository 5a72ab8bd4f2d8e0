//! Synthetic generation: deterministic, valid, importable.

use crate::common::*;
use forcebench::{import::import_file, sample};

#[test]
fn same_seed_same_rows_and_different_seed_different_rows() {
    assert_eq!(sample::generate(200, 7), sample::generate(200, 7));
    assert_ne!(sample::generate(200, 7), sample::generate(200, 8));
}

#[test]
fn generated_rows_import_in_both_formats() {
    let (dir, _, mut project) = temp_project();
    let rows = sample::generate(500, 3);
    assert!(rows.iter().all(|r| r.source_dataset.starts_with("synthetic") && r.passage.contains("synthetic")));
    let groups: std::collections::HashSet<_> = rows.iter().map(|r| &r.group_id).collect();
    assert!(groups.len() < rows.len(), "some rows share a group");
    let csv = dir.path().join("syn.csv");
    let jsonl = dir.path().join("syn.jsonl");
    sample::write_candidates(&csv, &rows).unwrap();
    sample::write_candidates(&jsonl, &rows).unwrap();
    assert_eq!(import_file(&mut project, &csv, &mut |_, _| {}).unwrap().inserted, 500);
    let again = import_file(&mut project, &jsonl, &mut |_, _| {}).unwrap();
    assert_eq!((again.inserted, again.unchanged), (0, 500), "CSV and JSONL writers agree");
}

#[test]
fn embedded_sample_loads_once() {
    let mut project = forcebench::Project::in_memory("t").unwrap();
    let first = sample::load_sample(&mut project).unwrap();
    assert!(first.inserted >= 80);
    assert_eq!(sample::load_sample(&mut project).unwrap().inserted, 0);
}

#[test]
fn sample_project_is_ready_to_annotate() {
    let mut project = forcebench::Project::in_memory("t").unwrap();
    sample::load_sample_project(&mut project).unwrap();
    let status = forcebench::status::status(&project).unwrap();
    assert_eq!(status.states[&forcebench::vocab::WorkflowState::Assigned], status.candidates);
    let ana = forcebench::annotate::queue(&project, "Ana").unwrap();
    assert!(ana.len() >= 50, "four annotators share about 2 x 106 slots: {}", ana.len());
}

#[test]
fn the_demo_project_has_the_same_simulated_annotations_everywhere() {
    let labels = || {
        let (_dir, _, mut project) = temp_project();
        forcebench::sample::load_demo_project(&mut project).unwrap();
        forcebench::sample::load_demo_project(&mut project).unwrap(); // idempotent
        let mut stmt = project
            .conn()
            .prepare(
                "SELECT n.candidate_id, a.name, n.decision, n.axis, n.severity, n.boundary_type, n.evidence_span, n.finished
                 FROM annotations n JOIN annotators a ON a.id = n.annotator_id ORDER BY 1, 2",
            )
            .unwrap();
        let rows: Vec<String> = stmt
            .query_map([], |r| {
                Ok(format!(
                    "{}|{}|{:?}|{:?}|{:?}|{:?}|{:?}|{}",
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Option<String>>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, Option<i64>>(4)?,
                    r.get::<_, Option<String>>(5)?,
                    r.get::<_, Option<String>>(6)?,
                    r.get::<_, bool>(7)?
                ))
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let report = forcebench::agreement::project_report(&project, None).unwrap();
        (rows, report.decision.kappa.n_items)
    };
    let (first, n) = labels();
    assert_eq!(first.len(), 2 * forcebench::sample::DEMO_ANNOTATED_ROWS);
    assert!(first.iter().all(|r| r.ends_with("|true")), "every simulated annotation is finished");
    assert_eq!(n as usize, forcebench::sample::DEMO_ANNOTATED_ROWS);
    // Most answer-key rows are rejected with their boundary type.
    let key_rejects = forcebench::sample::SAMPLE_ANSWER_KEY
        .iter()
        .filter(|(id, b)| {
            first.iter().any(|r| r.starts_with(&format!("{id}|")) && r.contains(&format!("Some(\"{}\")", b.as_str())))
        })
        .count();
    assert!(key_rejects >= 10, "{key_rejects}");
    assert_eq!(labels().0, first, "the same labels in a second project");
}
