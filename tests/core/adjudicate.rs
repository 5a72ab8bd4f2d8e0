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
    let discuss =
        |id: &str| format!("{{\"id\":\"{id}\",\"decision\":\"needs_discussion\",\"notes\":\"which reading?\"}}\n");
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

/// Ana, Ben and Cleo (three pairs) label the first 60 sample rows (five sources) so that every
/// category occurs many times, by the row's place in import order: a decision disagreement, both
/// needs discussion, severities differing, the same accept, the same reject; every ninth row has
/// only its first annotation. Eve adjudicates three full agreements. Returns the rows in import
/// order.
pub(crate) fn paged_fixture() -> (tempfile::TempDir, Project, Vec<String>) {
    let (dir, _, mut project) = annotated_project(&["ana", "ben", "cleo"]);
    roster::add(&project, "eve", Role::Adjudicator).unwrap();
    let ids: Vec<String> = forcebench::candidate::list(&project).unwrap().into_iter().take(60).map(|r| r.id).collect();
    let roster: Vec<String> = roster::list(&project).unwrap().into_iter().map(|a| a.name).collect();
    let mut lines: std::collections::BTreeMap<String, String> = Default::default();
    for (i, id) in ids.iter().enumerate() {
        let (x, y) = forcebench::assign::annotators_of(&project, id).unwrap().expect("assigned");
        let pos = |n: &str| roster.iter().position(|r| r == n).unwrap();
        let (a, b) = if pos(&x) < pos(&y) { (x, y) } else { (y, x) };
        let accept =
            |severity: u8| format!("{{\"id\":\"{id}\",\"decision\":\"accept_force_gap\",\"severity\":{severity}}}\n");
        let reject =
            format!("{{\"id\":\"{id}\",\"decision\":\"reject_not_force_gap\",\"boundary_type\":\"ambiguous\"}}\n");
        let discuss = format!("{{\"id\":\"{id}\",\"decision\":\"needs_discussion\",\"notes\":\"which reading?\"}}\n");
        let (la, lb) = match i % 5 {
            0 => (accept(2), reject.clone()),
            1 => (discuss.clone(), discuss),
            2 => (accept(1), accept(3)),
            3 => (accept(2), accept(2)),
            _ => (reject.clone(), reject),
        };
        lines.entry(a).or_default().push_str(&la);
        if i % 9 != 8 {
            lines.entry(b).or_default().push_str(&lb);
        }
    }
    for (who, text) in lines {
        let file = write(dir.path(), &format!("{who}.jsonl"), text);
        forcebench::annotate::import_jsonl(&mut project, &file, &who).unwrap();
    }
    let agreed: Vec<String> = adjudicate::queue(&project, &QueueFilter::default())
        .unwrap()
        .items
        .into_iter()
        .filter(|i| i.category == Category::FullAgreement)
        .map(|i| i.id)
        .collect();
    for id in [&agreed[0], &agreed[4], &agreed[9]] {
        adjudicate::resolve(&mut project, id, "eve", &Resolution::default()).unwrap();
    }
    (dir, project, ids)
}

fn query(filter: &QueueFilter, offset: u64, limit: u64) -> adjudicate::AdjudicationQuery {
    adjudicate::AdjudicationQuery { filter: filter.clone(), offset, limit, around: None, open_after: None }
}

// The adjudicate view asks for a page at a time. Every page of a filter, one after the
// other, must be the whole queue of that filter, with the same counts.
#[test]
fn every_page_of_the_adjudication_queue_together_is_the_whole_queue() {
    let (_dir, project, _) = paged_fixture();
    let all = adjudicate::queue(&project, &QueueFilter::default()).unwrap();
    for c in Category::ALL {
        assert!(all.counts[&c].total > 1, "{c:?} occurs");
    }
    assert_eq!(all.counts[&Category::FullAgreement].open + 3, all.counts[&Category::FullAgreement].total);
    let first = adjudicate::page(&project, &query(&QueueFilter::default(), 0, 10)).unwrap();
    // The filter menus' values are those of every double-annotated row.
    let mut sources: Vec<String> = all.items.iter().map(|i| i.source_dataset.clone()).collect();
    sources.sort();
    sources.dedup();
    assert!(sources.len() > 1);
    assert_eq!(first.facets.sources, sources);
    let mut pairs: Vec<String> = all
        .items
        .iter()
        .map(|i| {
            let mut v = [i.annotator_a.as_str(), i.annotator_b.as_str()];
            v.sort();
            v.join("+")
        })
        .collect();
    pairs.sort();
    pairs.dedup();
    assert_eq!(first.facets.pairs, ["ana+ben", "ana+cleo", "ben+cleo"]);
    assert_eq!(first.facets.pairs, pairs);
    let axes: std::collections::BTreeSet<String> =
        all.items.iter().map(|i| i.suggested_axis.map_or("none".to_string(), |a| a.as_str().to_string())).collect();
    assert_eq!(first.facets.axes.iter().cloned().collect::<std::collections::BTreeSet<_>>(), axes);
    let axis = first.facets.axes[0].clone();
    let filters = [
        QueueFilter::default(),
        QueueFilter { source: Some(sources[1].clone()), ..Default::default() },
        QueueFilter { pair: Some("cleo+ana".into()), ..Default::default() },
        QueueFilter { axis: Some(axis), ..Default::default() },
        QueueFilter { open_only: true, ..Default::default() },
        QueueFilter {
            source: Some(sources[0].clone()),
            pair: Some("ana+ben".into()),
            open_only: true,
            ..Default::default()
        },
    ];
    // A source no row has: a page of the app's queue matches nothing, the whole queue asked for
    // by name is refused (a mistyped filter read as an empty queue).
    let unknown = QueueFilter { source: Some("no such source".into()), ..Default::default() };
    assert_eq!(adjudicate::page(&project, &query(&unknown, 0, 7)).unwrap().matching, 0);
    assert_eq!(adjudicate::queue(&project, &unknown).unwrap_err().code(), "invalid_argument");
    for filter in &filters {
        let whole = adjudicate::queue(&project, filter).unwrap();
        assert_eq!(whole.counts, all.counts, "filters do not change the counts");
        for limit in [1, 7, 200] {
            let mut items = Vec::new();
            let mut offset = 0;
            loop {
                let page = adjudicate::page(&project, &query(filter, offset, limit)).unwrap();
                assert_eq!(page.counts, all.counts);
                assert_eq!(page.matching, whole.items.len() as u64, "{filter:?}");
                assert_eq!(page.total, all.items.len() as u64);
                assert_eq!(page.offset, offset);
                assert!(page.items.len() as u64 <= limit);
                if page.items.is_empty() {
                    break;
                }
                offset += page.items.len() as u64;
                items.extend(page.items);
            }
            assert_eq!(items, whole.items, "{filter:?} in pages of {limit}");
        }
    }
    // Filters do narrow: each of these is a strict part of the queue, and not empty.
    for filter in &filters[1..6] {
        let n = adjudicate::queue(&project, filter).unwrap().items.len();
        assert!(n > 0 && n < all.items.len(), "{filter:?}: {n}");
    }
}

// The queue reads both annotations of every row in one pass of their stored fields; the row view
// folds each annotation's events. Each row must be classified the same way by both.
#[test]
fn the_queue_classifies_each_row_as_its_row_view_does() {
    let (_dir, project, ids) = paged_fixture();
    let all = adjudicate::queue(&project, &QueueFilter::default()).unwrap();
    assert_eq!(all.items.len(), ids.iter().enumerate().filter(|(i, _)| i % 9 != 8).count());
    for item in &all.items {
        let view = adjudicate::row_view(&project, &item.id, false).unwrap();
        assert_eq!(view.category, item.category, "{}", item.id);
        let differs: Vec<Field> = view.fields.iter().filter(|f| f.differs).map(|f| f.field).collect();
        assert_eq!(differs, item.differing, "{}", item.id);
        assert_eq!(view.annotator_a.as_deref(), Some(item.annotator_a.as_str()));
        assert_eq!(view.annotator_b.as_deref(), Some(item.annotator_b.as_str()));
        assert_eq!((view.a.decision, view.b.decision), (Some(item.decision_a), Some(item.decision_b)));
        assert_eq!(view.adjudication.map(|j| j.decision), item.final_decision);
    }
    // Import order within each category.
    let seq = |id: &str| ids.iter().position(|x| x == id).unwrap();
    for w in all.items.windows(2) {
        assert!((w[0].category, seq(&w[0].id)) < (w[1].category, seq(&w[1].id)));
    }
}

// What the view asks after saving a row (the next open row after it in the filter, then from the
// top) and when it shows a row (the page holding it).
#[test]
fn the_queue_finds_the_next_open_row_and_the_page_holding_a_row() {
    let (_dir, project, _) = paged_fixture();
    let all = adjudicate::queue(&project, &QueueFilter::default()).unwrap().items;
    let none = QueueFilter::default();
    let ask = |filter: &QueueFilter, limit: u64, around: Option<&str>, after: Option<&str>| {
        adjudicate::page(
            &project,
            &adjudicate::AdjudicationQuery {
                filter: filter.clone(),
                offset: 0,
                limit,
                around: around.map(String::from),
                open_after: after.map(String::from),
            },
        )
        .unwrap()
    };
    // The next open row after an adjudicated full agreement skips the adjudicated ones after it.
    let at = all.iter().position(|i| i.adjudicated).unwrap();
    let expected = all[at + 1..].iter().position(|i| !i.adjudicated).unwrap() + at + 1;
    let page = ask(&none, 4, None, Some(&all[at].id));
    assert_eq!(page.next_open.as_deref(), Some(all[expected].id.as_str()));
    assert_eq!(page.position, Some(expected as u64));
    assert_eq!(page.offset, expected as u64 / 4 * 4);
    assert!(page.items.iter().any(|i| i.id == all[expected].id));
    // After the last open row: from the top.
    let last_open = all.iter().rposition(|i| !i.adjudicated).unwrap();
    let first_open = all.iter().position(|i| !i.adjudicated).unwrap();
    let page = ask(&none, 4, None, Some(&all[last_open].id));
    assert_eq!(page.next_open.as_deref(), Some(all[first_open].id.as_str()));
    assert_eq!(page.offset, 0);
    // In a filter: positions among its matches; the row itself is never its own next.
    let filter = QueueFilter { source: Some(all[at].source_dataset.clone()), open_only: true, ..Default::default() };
    let matches = adjudicate::queue(&project, &filter).unwrap().items;
    assert!(matches.len() > 2);
    let page = ask(&filter, 2, None, Some(&matches[1].id));
    assert_eq!(page.next_open.as_deref(), Some(matches[2].id.as_str()));
    assert_eq!((page.position, page.offset), (Some(2), 2));
    assert_eq!(page.items, matches[2..4.min(matches.len())]);
    let only = QueueFilter { pair: Some(format!("{}+{}", all[at].annotator_a, all[at].annotator_b)), ..filter.clone() };
    let mine = adjudicate::queue(&project, &only).unwrap().items;
    if mine.len() == 1 {
        assert_eq!(ask(&only, 2, None, Some(&mine[0].id)).next_open, None);
    }
    // The page holding a row.
    let page = ask(&none, 4, Some(&all[9].id), None);
    assert_eq!((page.position, page.offset), (Some(9), 8));
    assert_eq!(page.items, all[8..12]);
    // A row the filter leaves out: the page at the offset asked, no position.
    let other = all.iter().find(|i| i.source_dataset != all[at].source_dataset).unwrap();
    let page = ask(&filter, 2, Some(&other.id), None);
    assert_eq!((page.position, page.offset), (None, 0));
    assert_eq!(ask(&none, 4, Some("no-such-row"), None).position, None);
}

/// Checks the queue as kept against what the row view (which folds each annotation's events)
/// says of every row: the same rows (those with both annotations finished), each classified the
/// same way, in category then import order, and each found where it is by its id.
fn check_against_row_views(project: &Project, ids: &[String], double: &[&str]) {
    let all = adjudicate::queue(project, &QueueFilter::default()).unwrap().items;
    let mut queued: Vec<&str> = all.iter().map(|i| i.id.as_str()).collect();
    queued.sort();
    let mut expected = double.to_vec();
    expected.sort();
    assert_eq!(queued, expected);
    let seq = |id: &str| ids.iter().position(|x| x == id).unwrap();
    for w in all.windows(2) {
        assert!((w[0].category, seq(&w[0].id)) < (w[1].category, seq(&w[1].id)));
    }
    for (at, item) in all.iter().enumerate() {
        let view = adjudicate::row_view(project, &item.id, false).unwrap();
        assert_eq!(view.category, item.category, "{}", item.id);
        let differs: Vec<Field> = view.fields.iter().filter(|f| f.differs).map(|f| f.field).collect();
        assert_eq!(differs, item.differing, "{}", item.id);
        assert_eq!(view.adjudication.map(|j| j.decision), item.final_decision, "{}", item.id);
        let held = adjudicate::page(
            project,
            &adjudicate::AdjudicationQuery { around: Some(item.id.clone()), ..query(&QueueFilter::default(), 0, 1) },
        )
        .unwrap();
        assert_eq!(held.position, Some(at as u64), "{} is found by its id", item.id);
    }
}

// The queue is kept between requests: it must follow an adjudication (folded in) and changed
// annotations (each changed row read again and merged in: a row moving to another category, a
// row finishing its second annotation, a row losing one), whichever connection wrote them.
#[test]
fn the_kept_queue_follows_adjudications_and_annotation_changes() {
    let (dir, mut project, ids) = paged_fixture();
    let before = adjudicate::page(&project, &query(&QueueFilter::default(), 0, 500)).unwrap();
    let open = |p: &adjudicate::AdjudicationPage, c: Category| p.counts[&c].open;
    let agreed: Vec<&adjudicate::QueueItem> =
        before.items.iter().filter(|i| i.category == Category::FullAgreement && !i.adjudicated).collect();
    let (x, y) = (agreed[0].id.clone(), agreed[1].id.clone());
    adjudicate::resolve(&mut project, &x, "eve", &Resolution::default()).unwrap();
    let after = adjudicate::page(&project, &query(&QueueFilter::default(), 0, 500)).unwrap();
    assert_eq!(open(&after, Category::FullAgreement), open(&before, Category::FullAgreement) - 1);
    let item = after.items.iter().find(|i| i.id == x).unwrap();
    assert!(item.adjudicated);
    assert_eq!(item.final_decision, Some(agreed[0].decision_a));
    // Another connection (the command line, another window) changes B's label of row y.
    let mut other = Project::open(&dir.path().join("test.forcebench")).unwrap();
    let b = item_b(&after, &y);
    if agreed[1].decision_a == forcebench::vocab::Decision::AcceptForceGap {
        forcebench::annotate::set_field(&mut other, &y, &b, Field::Severity, Some("3")).unwrap();
    } else {
        forcebench::annotate::set_field(&mut other, &y, &b, Field::BoundaryType, Some("duplicate")).unwrap();
    }
    adjudicate::resolve(&mut other, &agreed[2].id, "eve", &Resolution::default()).unwrap();
    let later = adjudicate::page(&project, &query(&QueueFilter::default(), 0, 500)).unwrap();
    let moved = later.items.iter().find(|i| i.id == y).unwrap();
    assert_eq!(moved.category, Category::FieldDisagreement);
    assert_eq!(later.counts[&Category::FieldDisagreement].total, before.counts[&Category::FieldDisagreement].total + 1);
    assert!(later.items.iter().find(|i| i.id == agreed[2].id).unwrap().adjudicated);
    let mut double: Vec<&str> = before.items.iter().map(|i| i.id.as_str()).collect();
    check_against_row_views(&project, &ids, &double);

    // Row 8 had only its first annotation: its second annotator labels it (an accept, as the
    // first) and it joins the queue; an open decision disagreement loses B's decision and
    // leaves it.
    let (p, q) = forcebench::assign::annotators_of(&other, &ids[8]).unwrap().unwrap();
    let done =
        |who: &str| -> bool { forcebench::annotate::get(&other, &ids[8], who).map(|a| a.finished).unwrap_or(false) };
    let second = if done(&p) { q } else { p };
    let label = format!("{{\"id\":\"{}\",\"decision\":\"accept_force_gap\",\"severity\":2}}\n", ids[8]);
    forcebench::annotate::import_jsonl(&mut other, &write(dir.path(), "second.jsonl", label), &second).unwrap();
    let gone = before.items.iter().find(|i| i.category == Category::DecisionDisagreement).unwrap();
    forcebench::annotate::set_field(&mut other, &gone.id, &gone.annotator_b, Field::Decision, None).unwrap();
    drop(other);
    double.push(&ids[8]);
    double.retain(|id| *id != gone.id);
    check_against_row_views(&project, &ids, &double);
    let last = adjudicate::page(&project, &query(&QueueFilter::default(), 0, 500)).unwrap();
    assert_eq!(last.total, before.total);
    assert!(last.items.iter().any(|i| i.id == ids[8] && i.category == Category::FullAgreement));
}

fn item_b(page: &adjudicate::AdjudicationPage, id: &str) -> String {
    page.items.iter().find(|i| i.id == id).unwrap().annotator_b.clone()
}

// Only a reassignment leaves a finished annotation of someone no longer assigned to the row: the
// queue pairs the annotations of the annotators assigned now (before, a row like this stopped
// the whole queue with `not_double_annotated`).
#[test]
fn a_reassigned_row_is_queued_with_the_annotations_of_its_annotators_now() {
    let (dir, mut project, _) = paged_fixture();
    let all = adjudicate::queue(&project, &QueueFilter::default()).unwrap().items;
    let row = all.iter().find(|i| i.category == Category::DecisionDisagreement).unwrap().clone();
    let third = ["ana", "ben", "cleo"].into_iter().find(|n| *n != row.annotator_a && *n != row.annotator_b).unwrap();
    forcebench::assign::reassign(&mut project, &row.id, &row.annotator_b, third, "lee", "left the project").unwrap();
    let now = adjudicate::queue(&project, &QueueFilter::default()).unwrap();
    assert!(now.items.iter().all(|i| i.id != row.id), "one of its assigned annotators has finished");
    assert_eq!(now.items.len(), all.len() - 1);
    let label = format!("{{\"id\":\"{}\",\"decision\":\"{}\",\"severity\":2}}\n", row.id, row.decision_a.as_str());
    forcebench::annotate::import_jsonl(&mut project, &write(dir.path(), "third.jsonl", label), third).unwrap();
    let page = adjudicate::page(&project, &query(&QueueFilter::default(), 0, 500)).unwrap();
    let item = page.items.iter().find(|i| i.id == row.id).expect("queued again");
    let mut pair = [item.annotator_a.as_str(), item.annotator_b.as_str()];
    pair.sort();
    let mut expected = [row.annotator_a.as_str(), third];
    expected.sort();
    assert_eq!(pair, expected);
    let view = adjudicate::row_view(&project, &row.id, false).unwrap();
    assert_eq!(view.category, item.category);
    assert_eq!(view.fields.iter().filter(|f| f.differs).map(|f| f.field).collect::<Vec<_>>(), item.differing);
}
