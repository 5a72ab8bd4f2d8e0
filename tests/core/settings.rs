//! Settings: the suggestion mode (stored, set from the command line, refused in a workspace),
//! what each mode starts an annotation from, and the mode recorded on every event.

use crate::common::*;
use assert_cmd::Command;
use forcebench::annotate::{self, Field};
use forcebench::settings::{self, SuggestionMode};
use forcebench::{candidate, Project};

/// The first row in `who`'s queue.
fn first_row(project: &Project, who: &str) -> String {
    annotate::queue(project, who).unwrap()[0].id.clone()
}

#[test]
fn the_cli_prints_and_sets_the_suggestion_mode_and_refuses_an_unknown_one() {
    // Old code: there was no `settings` command.
    let (dir, path, project) = temp_project();
    drop(project);
    let run = |args: &[&str]| {
        let mut cmd = Command::cargo_bin("forcebench").unwrap();
        cmd.env_remove("FORCEBENCH_PROJECT").env("HOME", dir.path()).arg("--project").arg(&path).args(args);
        cmd.assert()
    };
    run(&["settings", "suggestions"]).success().stdout("suggestions  prefilled\n");
    let out = run(&["settings", "suggestions", "beside", "--json"]).success().get_output().stdout.clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v, serde_json::json!({"suggestions": "beside"}));
    run(&["settings", "suggestions"]).success().stdout("suggestions  beside\n");
    run(&["settings", "suggestions", "sideways"]).failure().stderr(
        "error [invalid_argument]: `sideways` is not a suggestion mode; expected prefilled, beside or hidden\n",
    );
    assert_eq!(settings::suggestion_mode(Project::open(&path).unwrap().conn()).unwrap(), SuggestionMode::Beside);
}

#[test]
fn a_prefilled_row_lists_its_suggested_fields_and_the_claims_are_not_among_them() {
    // Old code: nothing told a suggested value from one the annotator chose.
    let (_d, _, project) = annotated_project(&["ana", "ben"]);
    let id = first_row(&project, "ana");
    let c = candidate::get(&project, &id).unwrap().candidate;
    let a = annotate::get(&project, &id, "ana").unwrap();
    assert_eq!(a.suggestion_mode, SuggestionMode::Prefilled);
    assert_eq!(a.axis, c.axis);
    assert_eq!(a.suggested, [Field::EvidenceSpan, Field::Axis, Field::Severity, Field::Repair]);
    assert_eq!(a.calibrated_claim.as_deref(), Some(c.calibrated_claim.as_str()));
}

#[test]
fn beside_and_hidden_start_with_the_claims_alone_and_only_beside_shows_the_suggestions() {
    // Old code: every row started from the drafter's span, axis, severity and repair.
    for mode in [SuggestionMode::Beside, SuggestionMode::Hidden] {
        let (_d, _, mut project) = annotated_project(&["ana", "ben"]);
        settings::set_suggestion_mode(&mut project, mode).unwrap();
        let id = first_row(&project, "ana");
        let c = candidate::get(&project, &id).unwrap().candidate;
        let a = annotate::get(&project, &id, "ana").unwrap();
        assert_eq!(
            (a.evidence_span.clone(), a.axis, a.severity, a.repair.clone()),
            (None, None, None, None),
            "{mode:?}"
        );
        assert!(a.suggested.is_empty());
        assert_eq!(a.raised_claim.as_deref(), Some(c.raised_claim.as_str()), "the claims are the row under test");
        let view = annotate::row_view(&project, &id, "ana").unwrap();
        assert_eq!(view.suggestion_mode, mode);
        assert_eq!(view.suggested_raised_claim, c.raised_claim);
        if mode == SuggestionMode::Beside {
            assert_eq!((view.suggested_axis, view.suggested_span.clone()), (c.axis, c.evidence_span.clone()));
        } else {
            assert_eq!(
                (view.suggested_axis, view.suggested_severity, view.suggested_span, view.suggested_repair),
                (None, None, None, None)
            );
        }
        // An accept then needs the annotator's own span, axis, severity and repair, nothing to confirm.
        let a = annotate::set_field(&mut project, &id, "ana", Field::Decision, Some("accept_force_gap")).unwrap();
        assert_eq!(
            a.problems,
            [
                "an accept needs an evidence span",
                "an accept needs a primary axis",
                "an accept needs a severity",
                "an accept needs a repair"
            ]
        );
    }
}

#[test]
fn every_event_records_the_suggestion_mode_in_force_when_it_was_made() {
    // Old code: events had no mode, so agreement could not be broken down by it.
    let (_d, _, mut project) = annotated_project(&["ana", "ben"]);
    let id = first_row(&project, "ana");
    annotate::set_field(&mut project, &id, "ana", Field::Notes, Some("first look")).unwrap();
    settings::set_suggestion_mode(&mut project, SuggestionMode::Hidden).unwrap();
    annotate::set_field(&mut project, &id, "ana", Field::Notes, Some("second look")).unwrap();
    annotate::undo(&mut project, &id, "ana").unwrap();
    let modes: Vec<(String, Option<String>)> = {
        let mut stmt = project
            .conn()
            .prepare("SELECT origin, suggestion_mode FROM annotation_events WHERE candidate_id = ?1 ORDER BY id")
            .unwrap();
        stmt.query_map([&id], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect()
    };
    let (prefill, rest): (Vec<_>, Vec<_>) = modes.iter().partition(|(origin, _)| origin == "prefill");
    assert!(!prefill.is_empty() && prefill.iter().all(|(_, m)| m.as_deref() == Some("prefilled")), "{modes:?}");
    let later: Vec<Option<&str>> = rest.iter().map(|(_, m)| m.as_deref()).collect();
    assert_eq!(later, [Some("prefilled"), Some("hidden"), Some("hidden")], "note, note, undo");
}
