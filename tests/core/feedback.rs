//! Feedback to annotators: their rows where the final label differs, field by field, with the
//! rationale and the guideline version; blinding checked on the bytes of the files written; the
//! per-field figures and each annotator's quality against hand-computed values.

use crate::common::*;
use forcebench::adjudicate::{self, Checklist, Choice, Resolution};
use forcebench::annotate::Field;
use forcebench::roster::{self, Role};
use forcebench::{feedback, Project};
use std::collections::BTreeMap;

const YES: Checklist = Checklist {
    span_decisive: Some(true),
    calibrated_supported: Some(true),
    raised_underwarranted: Some(true),
    one_local_axis: Some(true),
    no_unrelated_addition: Some(true),
};

/// Two annotators with names found nowhere in the sample, three rows: both accept row 0 alike;
/// on row 1 Zephyrine gives severity 1 and Quillon 3 (the final takes Quillon's); on row 2
/// Zephyrine accepts and Quillon rejects with a boundary type only he gave (the final takes
/// Zephyrine's accept), and his note there is distinctive.
fn fixture() -> (tempfile::TempDir, Project, Vec<String>) {
    let (dir, _, mut p) = annotated_project(&["Zephyrine", "Quillon"]);
    roster::add(&p, "Eve", Role::Adjudicator).unwrap();
    let ids: Vec<String> = forcebench::candidate::list(&p).unwrap().into_iter().take(3).map(|c| c.id).collect();
    let accept = |id: &str, severity: u8| {
        format!("{{\"id\":\"{id}\",\"decision\":\"accept_force_gap\",\"severity\":{severity}}}\n")
    };
    let z = [accept(&ids[0], 2), accept(&ids[1], 1), accept(&ids[2], 2)].concat();
    let q = [
        accept(&ids[0], 2),
        accept(&ids[1], 3),
        format!(
            "{{\"id\":\"{}\",\"decision\":\"reject_not_force_gap\",\"boundary_type\":\"nonlocal_rewrite\",\"notes\":\"QUILLON-PRIVATE-NOTE\"}}\n",
            ids[2]
        ),
    ]
    .concat();
    forcebench::annotate::import_jsonl(&mut p, &write(dir.path(), "z.jsonl", z), "Zephyrine").unwrap();
    forcebench::annotate::import_jsonl(&mut p, &write(dir.path(), "q.jsonl", q), "Quillon").unwrap();
    adjudicate::confirm_agreements(&mut p, "Eve").unwrap(); // row 0
    let take = |who: Choice, rationale: &str| Resolution {
        choices: vec![(Field::Decision, who.clone()), (Field::Severity, who)],
        rationale: Some(rationale.into()),
        checklist: YES,
    };
    // The rationale names the other annotator: the feedback must not.
    adjudicate::resolve(&mut p, &ids[1], "Eve", &take(Choice::B, "Quillon is right: the claim is high-impact."))
        .unwrap();
    adjudicate::resolve(&mut p, &ids[2], "Eve", &take(Choice::A, "An accept: Quillon's boundary does not apply."))
        .unwrap();
    (dir, p, ids)
}

#[test]
fn an_annotator_sees_where_the_final_label_differs_field_by_field() {
    let (_dir, p, ids) = fixture();
    let f = feedback::for_annotator(&p, "Zephyrine").unwrap();
    let row = |r: &feedback::FeedbackRow| {
        (r.id.clone(), r.field.clone(), r.yours.clone(), r.final_value.clone(), r.guideline_version.clone())
    };
    let rows: Vec<_> = f.rows.iter().map(row).collect();
    let text = |s: &str| s.to_string();
    // A new project labels under version 2, the paper's guideline.
    assert_eq!(rows, [(ids[1].clone(), text("severity"), Some(text("1")), Some(text("3")), text("2"))]);
    assert_eq!(f.rows[0].rationale.as_deref(), Some("the other annotator is right: the claim is high-impact."));
    // By hand: three adjudicated rows, all accepts, so the decision and the six accept fields
    // count on each; Zephyrine's severity differs once.
    assert_eq!((f.summary.adjudicated_rows, f.summary.differing_rows), (3, 1));
    let tally = |field: &str| (f.summary.per_field[field].agree, f.summary.per_field[field].total);
    assert_eq!((tally("decision"), tally("severity"), tally("axis")), ((3, 3), (2, 3), (3, 3)));
    assert!(!f.summary.per_field.contains_key("boundary_type"), "no final label uses it");

    // Quillon: the severity on row 1 agrees now; row 2's decision does not.
    let q = feedback::for_annotator(&p, "Quillon").unwrap();
    let fields: Vec<(&str, &str)> = q.rows.iter().map(|r| (r.id.as_str(), r.field.as_str())).collect();
    assert!(fields.contains(&(ids[2].as_str(), "decision")), "{fields:?}");
    assert_eq!(q.summary.per_field["decision"].agree, 2);
}

// Broke if a feedback file held the other annotator's name or labels (blinding after
// adjudication).
#[test]
fn feedback_files_hold_no_other_annotators_name_or_labels_on_their_bytes() {
    let (dir, p, _) = fixture();
    let out = dir.path().join("feedback");
    let written = feedback::issue(&p, &out, false).unwrap();
    assert_eq!(written.iter().map(|w| w.annotator.as_str()).collect::<Vec<_>>(), ["Zephyrine", "Quillon"]);
    let zephyrine = std::fs::read_to_string(out.join("Zephyrine.feedback.json")).unwrap();
    for secret in ["Quillon", "QUILLON-PRIVATE-NOTE", "nonlocal_rewrite", "\"source", "\"b\""] {
        assert!(!zephyrine.contains(secret), "Zephyrine's feedback holds {secret}");
    }
    let quillon = std::fs::read_to_string(out.join("Quillon.feedback.json")).unwrap();
    assert!(!quillon.contains("Zephyrine"), "Quillon's feedback names Zephyrine");
    // Each file opens as a feedback, and nothing else does.
    let back = feedback::read(&out.join("Zephyrine.feedback.json")).unwrap();
    assert_eq!((back.annotator.as_str(), back.rows.len()), ("Zephyrine", 1));
    assert!(back.row_text.contains_key(&back.rows[0].id), "the row's passage and claims travel with it");
    let not = write(dir.path(), "other.json", "{\"format\":\"forcebench-packet\"}");
    assert_eq!(feedback::read(&not).unwrap_err().code(), "invalid_input");
    // Written again without --force: refused, the files untouched.
    assert_eq!(feedback::issue(&p, &out, false).unwrap_err().code(), "output_exists");
}

#[test]
fn each_annotators_quality_against_the_final_labels_in_the_agreement_report() {
    let (_dir, p, _) = fixture();
    let r = forcebench::agreement::project_report(&p, None).unwrap();
    let z = r.by_annotator.iter().find(|a| a.annotator == "Zephyrine").unwrap();
    assert_eq!(z.adjudicated_rows, 3);
    let severity = &z.per_field["severity"];
    assert_eq!((severity.agree, severity.total), (2, 3));
    // Wilson 95% interval for 2 of 3 (computed by hand: centre 0.5731, half-width 0.3654).
    let [lo, hi] = severity.ci95.unwrap();
    assert!((lo - 0.2077).abs() < 1e-3 && (hi - 0.9385).abs() < 1e-3, "{lo} {hi}");
    assert_eq!(z.sent_to_discussion, Some(0.0));
    assert_eq!(z.under_two_seconds, 0, "imported labels have no time and are not flagged");
}

// Broke if time recorded in the app were ignored: a row decided in 1.2 s is flagged to the
// adjudicator (as the annotator in its slot) and counted for that annotator; 30 s is not.
#[test]
fn a_row_decided_in_under_two_seconds_is_flagged_to_the_adjudicator_and_counted() {
    let (_dir, mut p, ids) = fixture();
    forcebench::annotate::add_time(&mut p, &ids[1], "Zephyrine", 1.2).unwrap();
    forcebench::annotate::add_time(&mut p, &ids[1], "Quillon", 30.0).unwrap();
    let view = adjudicate::row_view(&p, &ids[1], false).unwrap();
    let quick: Vec<&str> = view
        .decided_quickly
        .iter()
        .map(
            |slot| {
                if slot == "A" {
                    view.annotator_a.as_deref().unwrap()
                } else {
                    view.annotator_b.as_deref().unwrap()
                }
            },
        )
        .collect();
    assert_eq!(quick, ["Zephyrine"]);
    // Blinded, the flag names the slot only.
    let blind = adjudicate::row_view(&p, &ids[1], true).unwrap();
    assert_eq!(blind.decided_quickly, view.decided_quickly);
    assert!(blind.annotator_a.is_none() && blind.annotator_b.is_none());

    let r = forcebench::agreement::project_report(&p, None).unwrap();
    let of = |name: &str| r.by_annotator.iter().find(|a| a.annotator == name).unwrap().clone();
    // By hand: time is recorded on one row each, so time per row is that row's time.
    assert_eq!((of("Zephyrine").under_two_seconds, of("Zephyrine").seconds_per_row), (1, Some(1.2)));
    assert_eq!((of("Quillon").under_two_seconds, of("Quillon").seconds_per_row), (0, Some(30.0)));
}

/// What `for_annotator` said before it read rows in bulk, computed here from the public one-row
/// reads (the annotation folded from its events, the stored label): each differing field, and
/// the agreeing and compared counts per field.
type Reference = (Vec<(String, String, Option<String>, Option<String>)>, BTreeMap<String, (u64, u64)>);

fn reference(p: &Project, name: &str) -> Reference {
    use forcebench::annotate::Span;
    let readable = |field: Field, v: Option<String>| match (field, v) {
        (Field::EvidenceSpan, Some(v)) => Some(Span::text_of(&v).to_string()),
        (_, v) => v.filter(|v| !v.trim().is_empty()),
    };
    let (mut rows, mut tally) = (Vec::new(), BTreeMap::<String, (u64, u64)>::new());
    for c in forcebench::candidate::list(p).unwrap() {
        let Some((a, b)) = forcebench::assign::annotators_of(p, &c.id).unwrap() else { continue };
        if a != name && b != name {
            continue;
        }
        let Some(label) = forcebench::label::get(p, &c.id).unwrap() else { continue };
        let mine = forcebench::annotate::get(p, &c.id, name).unwrap();
        if !mine.finished {
            continue;
        }
        let needed = forcebench::label::needed(label.decision);
        for field in forcebench::label::FIELDS {
            if field != Field::Decision && !needed.contains(&field) {
                continue;
            }
            let stored = match field {
                Field::Decision => mine.decision.map(|d| d.as_str().to_string()),
                Field::EvidenceSpan => mine.evidence_span.as_ref().map(|s| s.text.clone()),
                Field::CalibratedClaim => mine.calibrated_claim.clone(),
                Field::RaisedClaim => mine.raised_claim.clone(),
                Field::Axis => mine.axis.map(|a| a.as_str().to_string()),
                Field::Severity => mine.severity.map(|s| s.to_string()),
                Field::Repair => mine.repair.clone(),
                Field::BoundaryType => mine.boundary_type.map(|b| b.as_str().to_string()),
                Field::Notes => None,
            };
            let (yours, last) = (readable(field, stored), readable(field, label.value(field).map(String::from)));
            let t = tally.entry(field.as_str().to_string()).or_default();
            t.1 += 1;
            if yours == last {
                t.0 += 1;
            } else {
                rows.push((c.id.clone(), field.as_str().to_string(), yours, last));
            }
        }
    }
    (rows, tally)
}

// Broke if reading the rows in bulk (the stored annotation, every final field in one scan) said
// anything else than folding each row's events and reading its label: on the demonstration
// project, with every disagreement resolved for A, every annotator's feedback is the reference's.
#[test]
fn feedback_read_in_bulk_says_what_the_row_by_row_reads_say() {
    let (_dir, _, mut p) = temp_project();
    forcebench::sample::load_demo_project(&mut p).unwrap();
    adjudicate::confirm_agreements(&mut p, "Eve").unwrap();
    let queue = adjudicate::queue(&p, &Default::default()).unwrap();
    let mut resolved = 0;
    for item in queue.items.iter().filter(|i| !i.adjudicated) {
        let mut choices = vec![(Field::Decision, Choice::A)];
        choices.extend(item.differing.iter().filter(|f| **f != Field::Decision).map(|f| (*f, Choice::A)));
        let res = Resolution { choices, rationale: Some("A is right here.".into()), checklist: YES };
        resolved += usize::from(adjudicate::resolve(&mut p, &item.id, "Eve", &res).is_ok());
    }
    assert!(resolved >= 5, "disagreements resolved: {resolved}");
    let mut differing = 0;
    for who in ["Ana", "Ben", "Chidi", "Dana"] {
        let f = feedback::for_annotator(&p, who).unwrap();
        let (rows, tally) = reference(&p, who);
        differing += rows.len();
        let got: Vec<_> =
            f.rows.iter().map(|r| (r.id.clone(), r.field.clone(), r.yours.clone(), r.final_value.clone())).collect();
        assert_eq!(got, rows, "{who}");
        let got: BTreeMap<String, (u64, u64)> =
            f.summary.per_field.iter().map(|(k, t)| (k.clone(), (t.agree, t.total))).collect();
        assert_eq!(got, tally, "{who}");
        assert!(f.summary.adjudicated_rows > 0, "{who}");
    }
    assert!(differing >= 5, "fields where a final label differs from an annotator's: {differing}");
}
