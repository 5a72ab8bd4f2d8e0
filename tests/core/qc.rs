//! Quality control of final labels: the checks per row, the report, and the heuristics by hand.

use crate::adjudicate::{fixture, YES};
use forcebench::adjudicate::{self, Checklist, Choice, Resolution};
use forcebench::annotate::Field;
use forcebench::{qc, status};

#[test]
fn qc_lists_failures_per_row_with_the_check_that_failed() {
    let mut f = fixture();
    // Row 0: checklist all yes, raised claim edited to name a new place and a new year.
    let res = Resolution {
        choices: vec![(Field::RaisedClaim, Choice::Value(Some("In Norway the effect was proven in 2031.".into())))],
        rationale: Some("Rewritten for the test.".into()),
        checklist: YES,
    };
    adjudicate::resolve(&mut f.project, &f.ids[0].clone(), "eve", &res).unwrap();
    // Row 1: the adjudicator answers no to "span decisive".
    let no = Resolution {
        choices: vec![(Field::Axis, Choice::A)],
        rationale: None,
        checklist: Checklist { span_decisive: Some(false), ..YES },
    };
    adjudicate::resolve(&mut f.project, &f.ids[1].clone(), "eve", &no).unwrap();
    // Row 4: a full agreement on reject, confirmed in bulk.
    assert_eq!(adjudicate::confirm_agreements(&mut f.project, "eve").unwrap(), 1, "row 0 is already adjudicated");
    let report = qc::run(&mut f.project).unwrap();
    assert_eq!((report.rows_checked, report.passed, report.blocked, report.warned), (2, 1, 1, 1));
    let row0 = report.rows.iter().find(|r| r.id == f.ids[0]).unwrap();
    assert!(!row0.blocked);
    let failed: Vec<&str> = row0.failed.iter().map(|r| r.check.as_str()).collect();
    assert!(failed.contains(&"locality_new_entities") && failed.contains(&"locality_changed_dates"), "{failed:?}");
    let entities = row0.failed.iter().find(|r| r.check == "locality_new_entities").unwrap();
    assert!(entities.detail.as_deref().unwrap().contains("`Norway`"), "{entities:?}");
    let row1 = report.rows.iter().find(|r| r.id == f.ids[1]).unwrap();
    assert!(row1.blocked);
    assert_eq!(
        row1.failed.iter().filter(|r| r.severity == qc::Severity::Error).map(|r| r.check.as_str()).collect::<Vec<_>>(),
        ["checklist_span_decisive"]
    );
    let states = status::status(&f.project).unwrap().states;
    use forcebench::vocab::WorkflowState as S;
    assert_eq!((states[&S::Accepted], states[&S::Adjudicated], states[&S::Rejected]), (1, 1, 1));
    // The adjudicate view is told which row QC holds back (it worked it out itself).
    let held = |id: &str| adjudicate::row_view(&f.project, id, false).unwrap().held_back_by_qc;
    assert_eq!((held(&f.ids[0]), held(&f.ids[1])), (false, true), "a failed warning holds nothing back");
    // Answering yes on reopen lets the row through without running `qc run` again.
    let yes = Resolution { choices: vec![], rationale: None, checklist: YES };
    let view = adjudicate::resolve(&mut f.project, &f.ids[1].clone(), "eve", &yes).unwrap();
    assert!(view.qc.iter().all(|r| r.passed || r.severity == qc::Severity::Warning));
    assert!(!view.held_back_by_qc);
    assert_eq!(status::status(&f.project).unwrap().states[&S::Accepted], 2);
}

/// A run keeps the lists of checks it stored, to store each once: rows whose lists are as long
/// but differ in a severity (a checklist question answered on one row, left unanswered on the
/// other) must each be stored with their own.
#[test]
fn a_qc_run_stores_each_row_with_its_own_list_of_checks() {
    let mut f = fixture();
    let answered = Resolution { choices: vec![], rationale: None, checklist: YES };
    adjudicate::resolve(&mut f.project, &f.ids[0].clone(), "eve", &answered).unwrap();
    let unanswered = Resolution {
        choices: vec![(Field::Decision, Choice::A), (Field::Axis, Choice::A), (Field::Severity, Choice::A)],
        rationale: None,
        checklist: Checklist { one_local_axis: None, ..YES },
    };
    adjudicate::resolve(&mut f.project, &f.ids[3].clone(), "eve", &unanswered).unwrap();
    let report = qc::run(&mut f.project).unwrap();
    assert_eq!(report.rows_checked, 2);
    let stored = |id: &str| adjudicate::row_view(&f.project, id, false).unwrap().qc;
    let (row0, row3) = (stored(&f.ids[0]), stored(&f.ids[3]));
    assert_eq!(row0.len(), row3.len(), "the same checks, so lists of one length");
    let question = |rows: &[qc::QcResult]| {
        let r = rows.iter().find(|r| r.check == "checklist_one_local_axis").unwrap();
        (r.severity, r.passed)
    };
    assert_eq!(question(&row0), (qc::Severity::Error, true));
    assert_eq!(question(&row3), (qc::Severity::Warning, false));
}

#[test]
fn qc_heuristics_by_hand() {
    use std::collections::BTreeSet;
    let set = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(
        qc::entities("Tea may lower stroke risk in Japan. Coffee was not studied by the WHO."),
        set(&["Japan", "WHO"])
    );
    assert_eq!(qc::numbers("between 1,200 and 1,500 adults, 12.5% of them"), set(&["1200", "1500", "12.5"]));
    assert_eq!(qc::dates("As of May 2021 it may change"), set(&["2021", "may"]));
    assert!(qc::dates("it may change").is_empty());
    // Text beyond plain ASCII, and the edges of each pattern.
    assert_eq!(
        qc::entities("The NASA probe met Ärzte in U.S. labs. Then Paris"),
        set(&["NASA", "Ärzte", "U.S", "Paris"]),
        "a capital after a non-ASCII letter, a dotted acronym ending a sentence, a sentence's first word left out"
    );
    assert_eq!(
        qc::numbers("1,000.5 then 12. or 3,4 and ,5 but not \u{663}\u{664}"),
        set(&["1000.5", "12", "34", "5"]),
        "a trailing point is not part of a number, and only ASCII digits count"
    );
    assert_eq!(
        qc::dates("In MAY 2024 a may-be trial of MARCH 1999 ran to 2101 and june, not \u{212A}elvin"),
        set(&["may", "2024", "march", "1999", "june"]),
        "capitals are lowered, lower-case may is not a month, 2101 is not a year"
    );
    // Lower-cased words: "Straße" and "STRASSE" differ, "ÄRZTE" and "ärzte" do not.
    assert!(
        (qc::rewrite_share("ÄRZTE may help in Straße 5", "ärzte will help in STRASSE 5") - 2.0 / 6.0).abs() < 1e-12
    );
    assert_eq!(qc::rewrite_share("", ""), 0.0);
    // "tea may lower risk" -> "tea lowers risk": delete "may", substitute "lower": 2 of 4 words.
    assert!((qc::rewrite_share("Tea may lower risk", "Tea lowers risk") - 0.5).abs() < 1e-12);
    let warnings = qc::locality("The drug may reduce pain in adults.", "The drug reduces pain in all adults.");
    assert!(warnings.iter().all(|w| w.passed), "a local modality change raises no warning: {warnings:?}");
    let warnings = qc::locality("About 40% of voters agreed.", "Exactly 45% of voters in Ohio agreed in 2020.");
    let failed: Vec<&str> = warnings.iter().filter(|w| !w.passed).map(|w| w.check.as_str()).collect();
    // 9 words against 5, 6 edits (two substitutions, four insertions): 6/9 of the words changed.
    assert_eq!(
        failed,
        ["locality_new_entities", "locality_new_numbers", "locality_changed_dates", "locality_large_rewrite"]
    );
    // Broke: "calibrated {`2023`, `september`}, raised {}": raw sets, an empty one as `{}`.
    let dates = |c: &str, r: &str| {
        qc::locality(c, r).into_iter().find(|w| w.check == "locality_changed_dates").and_then(|w| w.detail)
    };
    assert_eq!(
        dates("The vote was in September 2023.", "The vote was decisive.").as_deref(),
        Some("the raised claim leaves out the date of the calibrated claim (`2023`, `september`)")
    );
    assert_eq!(
        dates("About 40% of voters agreed.", "Exactly 45% of voters in Ohio agreed in 2020.").as_deref(),
        Some("the raised claim adds a date the calibrated claim does not have (`2020`)")
    );
    assert_eq!(
        dates("Sales rose in 2021.", "Sales rose in 2022.").as_deref(),
        Some("the dates differ: the calibrated claim has `2021`, the raised claim `2022`")
    );
    assert!(
        (qc::rewrite_share("About 40% of voters agreed.", "Exactly 45% of voters in Ohio agreed in 2020.") - 6.0 / 9.0)
            .abs()
            < 1e-12
    );
}
