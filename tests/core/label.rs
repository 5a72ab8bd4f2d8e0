//! A row's final label (`label`): the fields a decision needs, where each final value came from,
//! the checklist, and the label as stored. Storage is read through the public `label::get`; the
//! whole-table readers (`all_final_fields`, `final_fields_between`) and `Source::parse` are
//! crate-private and are tested here through `get` and the adjudicate API that writes labels.

use crate::adjudicate::{fixture, YES};
use forcebench::adjudicate::{self, Choice, Resolution};
use forcebench::annotate::Field;
use forcebench::label::{self, Checklist, Source, FIELDS};
use forcebench::vocab::Decision;

fn names(fields: &[Field]) -> Vec<&'static str> {
    fields.iter().map(|f| f.as_str()).collect()
}

#[test]
fn an_adjudication_decides_eight_fields_in_display_order_decision_first() {
    assert_eq!(
        names(&FIELDS),
        [
            "decision",
            "evidence_span",
            "calibrated_claim",
            "raised_claim",
            "axis",
            "severity",
            "repair",
            "boundary_type"
        ]
    );
}

#[test]
fn an_accept_needs_the_six_claim_fields_a_reject_its_boundary_type_and_a_discussion_nothing() {
    assert_eq!(
        names(label::needed(Decision::AcceptForceGap)),
        ["evidence_span", "calibrated_claim", "raised_claim", "axis", "severity", "repair"]
    );
    assert_eq!(names(label::needed(Decision::RejectNotForceGap)), ["boundary_type"]);
    assert_eq!(names(label::needed(Decision::NeedsDiscussion)), Vec::<&str>::new());
}

#[test]
fn only_a_suggestion_or_an_edit_overrides_both_annotators() {
    for (source, word, overrides) in [
        (Source::Both, "both", false),
        (Source::A, "a", false),
        (Source::B, "b", false),
        (Source::Suggestion, "suggestion", true),
        (Source::Edited, "edited", true),
    ] {
        assert_eq!(source.as_str(), word);
        assert_eq!(serde_json::to_value(source).unwrap(), serde_json::json!(word), "stored and sent alike");
        assert_eq!(source.overrides_both(), overrides, "{word}");
    }
}

#[test]
fn a_checklist_with_an_unknown_item_is_refused_and_an_unanswered_item_stays_unanswered() {
    let err = serde_json::from_str::<Checklist>(r#"{"span_decisive":true,"tidy":true}"#).unwrap_err();
    assert!(err.to_string().starts_with("unknown field `tidy`, expected one of `span_decisive`"), "{err}");
    let partial: Checklist = serde_json::from_str(r#"{"one_local_axis":false}"#).unwrap();
    assert_eq!(partial, Checklist { one_local_axis: Some(false), ..Default::default() });
    let items: Vec<(&str, Option<bool>)> = partial.items().iter().map(|(name, _, answer)| (*name, *answer)).collect();
    assert_eq!(
        items,
        [
            ("span_decisive", None),
            ("calibrated_supported", None),
            ("raised_underwarranted", None),
            ("one_local_axis", Some(false)),
            ("no_unrelated_addition", None),
        ]
    );
}

#[test]
fn a_row_never_adjudicated_and_an_unknown_row_have_no_label() {
    let f = fixture();
    assert_eq!(label::get(&f.project, &f.ids[0]).unwrap(), None);
    assert_eq!(label::get(&f.project, "no-such-row").unwrap(), None);
}

#[test]
fn a_stored_label_lists_the_fields_its_decision_needs_in_display_order_with_its_source_and_adjudicator() {
    let mut f = fixture();
    let id = f.ids[1].clone(); // the annotators disagree on the axis only
    let res = Resolution {
        choices: vec![(Field::Axis, Choice::B)],
        rationale: Some("Ben's axis is the one the passage moves.".into()),
        checklist: YES,
    };
    adjudicate::resolve(&mut f.project, &id, "eve", &res).unwrap();
    let j = label::get(&f.project, &id).unwrap().unwrap();
    assert_eq!(
        (j.candidate_id.as_str(), j.decision, j.adjudicator.as_str()),
        (id.as_str(), Decision::AcceptForceGap, "eve")
    );
    assert_eq!(j.rationale.as_deref(), Some("Ben's axis is the one the passage moves."));
    assert_eq!((j.bulk_confirmed, j.checklist), (false, YES));
    let fields: Vec<&str> = j.fields.iter().map(|x| x.field.as_str()).collect();
    // The decision and the fields an accept needs (no boundary type), in display order although
    // the table keeps them by name.
    assert_eq!(fields, ["decision", "evidence_span", "calibrated_claim", "raised_claim", "axis", "severity", "repair"]);
    assert_eq!(j.source(Field::Decision), Some(Source::Both));
    assert_eq!(j.source(Field::Axis), Some(Source::B));
    assert_eq!(j.value(Field::BoundaryType), None);
    assert!(j.fields.iter().all(|x| x.adjudicator == "eve" && x.at == j.decided_at), "{:?}", j.fields);
}

#[test]
fn a_bulk_confirmed_label_says_so_and_leaves_its_checklist_unanswered() {
    let mut f = fixture();
    adjudicate::confirm_agreements(&mut f.project, "eve").unwrap();
    let j = label::get(&f.project, &f.ids[0]).unwrap().unwrap();
    assert!(j.bulk_confirmed);
    assert_eq!(j.checklist, Checklist::default());
    assert!(j.fields.iter().all(|x| x.source == Source::Both), "{:?}", j.fields);
    let reject = label::get(&f.project, &f.ids[4]).unwrap().unwrap();
    assert_eq!(reject.decision, Decision::RejectNotForceGap);
    let fields: Vec<&str> = reject.fields.iter().map(|x| x.field.as_str()).collect();
    assert_eq!(fields, ["decision", "boundary_type"], "a reject keeps its boundary type only");
    assert_eq!(reject.value(Field::BoundaryType), Some("ambiguous"));
}

/// Writes `sql` to the project file with CHECK constraints off, as an outside tool could.
fn tamper(f: &crate::adjudicate::Fixture, sql: &str) {
    let path = f.dir.path().join("test.forcebench");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(&format!("PRAGMA ignore_check_constraints = ON; {sql}")).unwrap();
}

#[test]
fn a_source_or_field_written_outside_forcebench_is_reported_as_corrupt_not_guessed() {
    let mut f = fixture();
    let id = f.ids[0].clone();
    adjudicate::confirm_agreements(&mut f.project, "eve").unwrap();
    tamper(
        &f,
        &format!("UPDATE adjudication_fields SET source = 'majority' WHERE candidate_id = '{id}' AND field = 'axis'"),
    );
    let err = label::get(&f.project, &id).unwrap_err();
    assert_eq!(
        (err.code(), err.to_string()),
        (
            "corrupt_project",
            "the project holds a value ForceBench cannot read: unknown adjudication source `majority`".into()
        )
    );
    tamper(&f, &format!("UPDATE adjudication_fields SET source = 'both', field = 'tidiness' WHERE candidate_id = '{id}' AND field = 'axis'"));
    let err = label::get(&f.project, &id).unwrap_err();
    assert_eq!(err.code(), "corrupt_project");
    assert!(
        err.to_string()
            .starts_with("the project holds a value ForceBench cannot read: `tidiness` is not an annotation field ("),
        "{err}"
    );
}
