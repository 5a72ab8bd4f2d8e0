//! Adjudication: the queue, resolutions and their sources, imports, and the rules the app
//! receives. Its fixture (six rows covering every queue category) serves the QC, locality and
//! status tests too.

use crate::common::*;
use forcebench::adjudicate::{self, Category, Checklist, Choice, QueueFilter, Resolution, Source};
use forcebench::annotate::Field;
use forcebench::roster::{self, Role};
use forcebench::Project;

pub(crate) const YES: Checklist = Checklist {
    span_decisive: Some(true),
    calibrated_supported: Some(true),
    raised_underwarranted: Some(true),
    one_local_axis: Some(true),
    no_unrelated_addition: Some(true),
};

pub(crate) struct Fixture {
    pub(crate) dir: tempfile::TempDir,
    pub(crate) project: Project,
    /// Rows in import order: [full agreement (accept), field disagreement (axis), needs
    /// discussion, decision disagreement, full agreement (reject)], then a row nobody finished.
    pub(crate) ids: Vec<String>,
    /// The suggested axis of row 3 and the axis Ana gave it instead.
    pub(crate) ana_axis_row3: String,
}

fn other_axis(axis: Option<forcebench::vocab::Axis>, not: &[&str]) -> String {
    ["relation", "modality", "scope", "temporal", "numeric"]
        .into_iter()
        .find(|a| Some(*a) != axis.map(|x| x.as_str()) && !not.contains(a))
        .unwrap()
        .to_string()
}

/// Ana and Ben annotate six sample rows so that every queue category occurs, in reverse order of
/// import; Eve adjudicates.
pub(crate) fn fixture() -> Fixture {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    roster::add(&project, "eve", Role::Adjudicator).unwrap();
    let rows: Vec<_> = forcebench::candidate::list(&project).unwrap().into_iter().take(6).collect();
    let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
    let accept = |id: &str, extra: &str| {
        format!("{{\"id\":\"{id}\",\"decision\":\"accept_force_gap\",\"severity\":2{extra}}}\n")
    };
    let reject = |id: &str| {
        format!("{{\"id\":\"{id}\",\"decision\":\"reject_not_force_gap\",\"boundary_type\":\"ambiguous\"}}\n")
    };
    let discuss = |id: &str| format!("{{\"id\":\"{id}\",\"decision\":\"needs_discussion\"}}\n");
    let suggested = |i: usize| rows[i].axis;
    let axis1_b = other_axis(suggested(1), &[]);
    let ana_axis_row3 = other_axis(suggested(3), &[]);
    let ana = [
        accept(&ids[0], ""),
        accept(&ids[1], ""),
        discuss(&ids[2]),
        // Severity 1 once: the line used to give `severity` twice and relied on the last one winning.
        format!(
            "{{\"id\":\"{}\",\"decision\":\"accept_force_gap\",\"axis\":\"{ana_axis_row3}\",\"severity\":1}}\n",
            ids[3]
        ),
        reject(&ids[4]),
    ]
    .concat();
    let ben = [
        accept(&ids[0], ""),
        accept(&ids[1], &format!(",\"axis\":\"{axis1_b}\"")),
        discuss(&ids[2]),
        format!(
            "{{\"id\":\"{}\",\"decision\":\"reject_not_force_gap\",\"boundary_type\":\"ambiguous\",\"severity\":3}}\n",
            ids[3]
        ),
        reject(&ids[4]),
    ]
    .concat();
    forcebench::annotate::import_jsonl(&mut project, &write(dir.path(), "ana.jsonl", ana), "ana").unwrap();
    forcebench::annotate::import_jsonl(&mut project, &write(dir.path(), "ben.jsonl", ben), "ben").unwrap();
    Fixture { dir, project, ids, ana_axis_row3 }
}

#[test]
fn queue_orders_disagreements_first_and_counts_each_category() {
    let f = fixture();
    let q = adjudicate::queue(&f.project, &QueueFilter::default()).unwrap();
    let order: Vec<(&str, Category)> = q.items.iter().map(|i| (i.id.as_str(), i.category)).collect();
    assert_eq!(
        order,
        [
            (f.ids[3].as_str(), Category::DecisionDisagreement),
            (f.ids[2].as_str(), Category::NeedsDiscussion),
            (f.ids[1].as_str(), Category::FieldDisagreement),
            (f.ids[0].as_str(), Category::FullAgreement),
            (f.ids[4].as_str(), Category::FullAgreement),
        ]
    );
    assert_eq!(q.items[2].differing, [Field::Axis]);
    assert_eq!(q.counts[&Category::FullAgreement].total, 2);
    assert_eq!(q.counts[&Category::DecisionDisagreement].open, 1);
    // Filters narrow the list, not the counts.
    let by_source = adjudicate::queue(
        &f.project,
        &QueueFilter { source: Some(q.items[0].source_dataset.clone()), ..Default::default() },
    )
    .unwrap();
    assert!(by_source.items.iter().all(|i| i.source_dataset == q.items[0].source_dataset));
    assert_eq!(by_source.counts, q.counts);
    let pair =
        adjudicate::queue(&f.project, &QueueFilter { pair: Some("ben+ana".into()), ..Default::default() }).unwrap();
    assert_eq!(pair.items.len(), 5);
    let nobody =
        adjudicate::queue(&f.project, &QueueFilter { pair: Some("ana+eve".into()), ..Default::default() }).unwrap();
    assert!(nobody.items.is_empty());
}

#[test]
fn an_override_without_a_rationale_is_refused_and_nothing_written() {
    let mut f = fixture();
    let before = dump(&f.project);
    let id = f.ids[1].clone();
    let res = Resolution {
        choices: vec![(Field::Axis, Choice::Value(Some("temporal".into())))],
        rationale: None,
        checklist: YES,
    };
    let a = forcebench::annotate::get(&f.project, &id, "ana").unwrap().axis.unwrap();
    let b = forcebench::annotate::get(&f.project, &id, "ben").unwrap().axis.unwrap();
    let edited = ["relation", "modality", "scope", "temporal", "numeric"]
        .into_iter()
        .find(|x| *x != a.as_str() && *x != b.as_str())
        .unwrap();
    let res = Resolution { choices: vec![(Field::Axis, Choice::Value(Some(edited.into())))], ..res };
    let err = adjudicate::resolve(&mut f.project, &id, "eve", &res).unwrap_err().to_string();
    assert!(
        err.contains("field `axis`: the final value overrides both annotators, so a rationale is required"),
        "{err}"
    );
    assert_eq!(dump(&f.project), before);
    // An unresolved disagreement is named with both values.
    let err = adjudicate::resolve(&mut f.project, &id, "eve", &Resolution::default()).unwrap_err().to_string();
    assert!(err.contains(&format!("field `axis`: the annotators differ (A: \"{a}\", B: \"{b}\")")), "{err}");
    // Annotators cannot adjudicate.
    let err = adjudicate::resolve(
        &mut f.project,
        &id,
        "ana",
        &Resolution { choices: vec![(Field::Axis, Choice::A)], ..Default::default() },
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("`ana` is on the roster as annotator"), "{err}");
    assert_eq!(dump(&f.project), before);
    let ok = Resolution { rationale: Some("The passage is about a forecast, so temporal.".into()), ..res };
    let view = adjudicate::resolve(&mut f.project, &id, "eve", &ok).unwrap();
    let j = view.adjudication.unwrap();
    assert_eq!(j.value(Field::Axis), Some(edited));
    assert_eq!(j.source(Field::Axis), Some(Source::Edited));
}

#[test]
fn each_final_field_records_source_adjudicator_and_history() {
    let mut f = fixture();
    let id = f.ids[3].clone();
    // Decision and axis from Ana, severity from Ben, raised claim edited.
    let res = Resolution {
        choices: vec![
            (Field::Decision, Choice::A),
            (Field::Axis, Choice::A),
            (Field::Severity, Choice::B),
            (Field::RaisedClaim, Choice::Value(Some("A sharper claim than the passage allows.".into()))),
        ],
        rationale: Some("Ana's reading holds; the raised claim needed rewording.".into()),
        checklist: YES,
    };
    let view = adjudicate::resolve(&mut f.project, &id, "eve", &res).unwrap();
    let j = view.adjudication.as_ref().unwrap();
    assert_eq!(j.decision.as_str(), "accept_force_gap");
    assert_eq!(j.source(Field::Decision), Some(Source::A));
    assert_eq!(j.value(Field::Axis), Some(f.ana_axis_row3.as_str()));
    assert_eq!(j.source(Field::Axis), Some(Source::A));
    assert_eq!((j.value(Field::Severity), j.source(Field::Severity)), (Some("3"), Some(Source::B)));
    assert_eq!(j.source(Field::RaisedClaim), Some(Source::Edited));
    assert_eq!(j.source(Field::CalibratedClaim), Some(Source::Both), "both kept the suggestion");
    assert_eq!(j.value(Field::BoundaryType), None, "an accept has no boundary type");
    assert!(j.fields.iter().all(|x| x.adjudicator == "eve" && !x.at.is_empty()));
    // Reopen: severity from Ana now. History keeps both.
    let again = Resolution { choices: vec![(Field::Severity, Choice::A)], rationale: None, checklist: YES };
    let view = adjudicate::resolve(&mut f.project, &id, "eve", &again).unwrap();
    let j = view.adjudication.as_ref().unwrap();
    assert_eq!((j.value(Field::Severity), j.source(Field::Severity)), (Some("1"), Some(Source::A)));
    assert_eq!(
        j.rationale.as_deref(),
        Some("Ana's reading holds; the raised claim needed rewording."),
        "kept on reopen"
    );
    let severity: Vec<(Option<&str>, Option<&str>, &str)> = view
        .history
        .iter()
        .filter(|e| e.field == "severity")
        .map(|e| (e.old_value.as_deref(), e.new_value.as_deref(), e.source.as_str()))
        .collect();
    assert_eq!(severity, [(None, Some("3"), "b"), (Some("3"), Some("1"), "a")]);
    // Exported with sources and the annotator each came from.
    let rows = adjudicate::export_rows(&f.project).unwrap();
    let row = rows.iter().find(|r| r.id == id).unwrap();
    assert_eq!(row.sources["raised_claim"], Source::Edited);
    assert_eq!(row.annotators["axis"].as_deref(), Some("ana"));
    assert_eq!(row.annotators["severity"].as_deref(), Some("ana"));
}

#[test]
fn importing_adjudications_for_rows_not_double_annotated_writes_nothing() {
    let mut f = fixture();
    let before = dump(&f.project);
    let text = format!(
        "{{\"id\":\"{}\",\"checklist\":{{\"span_decisive\":true}}}}\n{{\"id\":\"{}\",\"decision\":\"accept_force_gap\"}}\n",
        f.ids[0], f.ids[5]
    );
    let path = write(f.dir.path(), "adj.jsonl", text);
    let err = adjudicate::import_jsonl(&mut f.project, &path, "eve").unwrap_err().to_string();
    assert!(
        err.contains(&format!(
            "adj.jsonl:2: field `id`: row `{}` is not double-annotated (0 of 2 annotations finished)",
            f.ids[5]
        )),
        "{err}"
    );
    assert_eq!(dump(&f.project), before);
    // Bad fields name line and field; the checklist must be true/false items.
    let text = format!(
        "{{\"id\":\"{}\",\"notes\":\"x\"}}\n{{\"id\":\"{}\",\"checklist\":{{\"tidy\":true}}}}\n",
        f.ids[0], f.ids[1]
    );
    let err = adjudicate::import_jsonl(&mut f.project, &write(f.dir.path(), "bad.jsonl", text), "eve")
        .unwrap_err()
        .to_string();
    assert!(err.contains("bad.jsonl:1: field `notes`: not an adjudicated field"), "{err}");
    assert!(err.contains("bad.jsonl:2: field `checklist`: expected an object of the five items"), "{err}");
    assert_eq!(dump(&f.project), before);
    // A good file: row 3 resolved by values, row 1 by Ben's axis.
    let b_axis = forcebench::annotate::get(&f.project, &f.ids[1], "ben").unwrap().axis.unwrap();
    let yes = serde_json::to_string(&YES).unwrap();
    let text = format!(
        "{{\"id\":\"{}\",\"decision\":\"reject_not_force_gap\",\"boundary_type\":\"ambiguous\"}}\n{{\"id\":\"{}\",\"axis\":\"{}\",\"checklist\":{yes}}}\n",
        f.ids[3], f.ids[1], b_axis
    );
    let report = adjudicate::import_jsonl(&mut f.project, &write(f.dir.path(), "good.jsonl", text), "eve").unwrap();
    assert_eq!(report.rows, 2);
    let j = adjudicate::get(&f.project, &f.ids[3]).unwrap().unwrap();
    assert_eq!((j.source(Field::Decision), j.source(Field::BoundaryType)), (Some(Source::B), Some(Source::B)));
    let j = adjudicate::get(&f.project, &f.ids[1]).unwrap().unwrap();
    assert_eq!(j.source(Field::Axis), Some(Source::B));
    assert_eq!(j.checklist, YES);
}

// Broke: a first adjudication logged a "checklist" event although nobody touched the checklist,
// so the history said "Checklist edited".
#[test]
fn an_untouched_checklist_logs_no_checklist_event() {
    let mut f = fixture();
    let untouched = Resolution { choices: vec![], rationale: None, checklist: Default::default() };
    let view = adjudicate::resolve(&mut f.project, &f.ids[0].clone(), "eve", &untouched).unwrap();
    assert!(view.history.iter().all(|e| e.field != "checklist"), "{:?}", view.history);
    let answered = Resolution { choices: vec![], rationale: None, checklist: YES };
    let view = adjudicate::resolve(&mut f.project, &f.ids[0].clone(), "eve", &answered).unwrap();
    assert_eq!(
        view.history.iter().filter(|e| e.field == "checklist").count(),
        1,
        "an answered checklist is logged once"
    );
}

// The adjudicate view takes these rules from the row view instead of restating them; the UI's
// tests answer with the same rules from ui/tests/support/rules.json, kept current here (rerun
// with FORCEBENCH_UPDATE_BINDINGS=1 after changing a rule).
#[test]
fn the_rules_the_app_receives_are_the_protocols_and_its_test_fixture_is_current() {
    use forcebench::adjudicate::rules;
    let value = serde_json::to_value(rules()).unwrap();
    // What the protocol asks of a final label, written out here rather than read from the code.
    assert_eq!(
        value["needed"],
        serde_json::json!({
            "accept_force_gap": ["evidence_span", "calibrated_claim", "raised_claim", "axis", "severity", "repair"],
            "reject_not_force_gap": ["boundary_type"],
            "needs_discussion": [],
        })
    );
    assert_eq!(value["needs_rationale"], serde_json::json!(["suggestion", "edited"]));
    let keys: Vec<&str> = value["checklist"].as_array().unwrap().iter().map(|q| q["key"].as_str().unwrap()).collect();
    assert_eq!(
        keys,
        ["span_decisive", "calibrated_supported", "raised_underwarranted", "one_local_axis", "no_unrelated_addition"]
    );
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/tests/support/rules.json");
    let text = serde_json::to_string_pretty(&value).unwrap() + "\n";
    if std::env::var_os("FORCEBENCH_UPDATE_BINDINGS").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        text,
        "ui/tests/support/rules.json is stale; rerun with FORCEBENCH_UPDATE_BINDINGS=1"
    );
}

// Broke if the row view's sources were not the order `resolve` records: a value both annotators
// gave is `both`, not `a`.
#[test]
fn each_field_of_the_row_view_lists_its_sources_in_the_order_a_value_is_given_one() {
    let f = fixture();
    let view = adjudicate::row_view(&f.project, &f.ids[3], false).unwrap();
    let sources = |field: Field| -> Vec<(Source, Option<String>)> {
        let row = view.fields.iter().find(|r| r.field == field).unwrap();
        row.sources.iter().map(|s| (s.source, s.value.clone())).collect()
    };
    // Both kept the suggested calibrated claim: `both` comes first, so it is what a take records.
    let claim = view.candidate.calibrated_claim.clone();
    assert_eq!(
        sources(Field::CalibratedClaim),
        [
            (Source::Both, Some(claim.clone())),
            (Source::A, Some(claim.clone())),
            (Source::B, Some(claim.clone())),
            (Source::Suggestion, Some(claim))
        ]
    );
    // Ana gave another axis and Ben rejected (no axis): no `both`.
    let axis = sources(Field::Axis);
    assert_eq!(axis.iter().map(|s| s.0).collect::<Vec<_>>(), [Source::A, Source::B, Source::Suggestion]);
    assert_eq!(axis[0].1.as_deref(), Some(f.ana_axis_row3.as_str()));
    // What resolve records agrees with the list: the first source giving the value.
    let res = Resolution {
        choices: vec![(Field::Decision, Choice::A), (Field::Axis, Choice::A), (Field::Severity, Choice::A)],
        rationale: None,
        checklist: YES,
    };
    let mut project = f.project;
    let j = adjudicate::resolve(&mut project, &f.ids[3], "eve", &res).unwrap().adjudication.unwrap();
    assert_eq!(j.source(Field::CalibratedClaim), Some(Source::Both));
    assert_eq!(j.source(Field::Axis), Some(Source::A));
}
