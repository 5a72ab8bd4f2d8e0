//! Issue 28: the split is built as conservatively as the protocol says. A row enters a draft only
//! when its promotion checks are affirmed (one by one, or by an explicit bulk step naming its
//! author); unaffirmed rows are held back and counted, with a reason, in the funnel and the
//! datasheet.

use assert_cmd::Command;
use forcebench::adjudicate::{self as adj, Checklist, Resolution};
use forcebench::split as fs;
use std::collections::BTreeMap;

fn params(per_axis: u32) -> fs::SplitParams {
    fs::SplitParams::new(BTreeMap::new(), Some(per_axis), Some(1))
}

#[test]
fn a_bulk_confirmed_row_is_held_back_until_affirmed_and_the_datasheet_counts_how() {
    let dir = tempfile::tempdir().unwrap();
    // Ten accepts (6 scope, 4 numeric) and one reject, all bulk-confirmed with no --affirm.
    let mut p = crate::split::project_confirmed(dir.path(), "p.forcebench", &[("scope", 6), ("numeric", 4)], 1, 1);
    let funnel = forcebench::status::status(&p).unwrap().funnel;
    assert_eq!((funnel.total.accepted, funnel.total.unaffirmed), (10, 10));

    // Before: every bulk-confirmed accept entered the draft with the checklist unanswered.
    let err = fs::draft(&mut p, &params(2)).unwrap_err();
    assert_eq!(err.code(), "nothing_to_split");
    assert!(err.to_string().contains("10 accepted row(s) are held back"), "{err}");

    // One row affirmed one by one, as the adjudicate view does: only it enters the draft.
    let res = Resolution { checklist: Checklist::all_yes(), ..Resolution::default() };
    adj::resolve(&mut p, "r0000", "eve", &res).unwrap();
    let s = fs::draft(&mut p, &params(2)).unwrap();
    assert_eq!(s.retained_ids, vec!["r0000".to_string()]);
    assert_eq!(s.promotion.held_back.len(), 9);
    assert!(s.promotion.held_back.iter().all(|h| h.reason.contains("not affirmed") && h.reason.contains("bulk")));
    assert_eq!((s.promotion.one_by_one, s.promotion.in_bulk), (1, 0));
    let funnel = forcebench::status::status(&p).unwrap().funnel;
    assert_eq!(funnel.total.unaffirmed, 9);

    // The explicit bulk step: the preview says what it will affirm, then it does.
    let preview = adj::affirm_preview(&p, "eve").unwrap();
    assert_eq!((preview.confirmed, preview.affirmed, preview.frozen), (0, 9, 0));
    assert_eq!(preview.checks.len(), 5);
    let done = adj::confirm_and_affirm(&mut p, "eve").unwrap();
    assert_eq!((done.confirmed, done.affirmed, done.adjudicator.as_str()), (0, 9, "eve"));
    // Drafted again: every row is now affirmed.
    let s = fs::draft(&mut p, &params(2)).unwrap();
    assert_eq!(s.retained_ids.len(), 10);
    assert!(s.promotion.held_back.is_empty());
    assert_eq!((s.promotion.one_by_one, s.promotion.in_bulk), (1, 9));
    assert_eq!(s.promotion.by["eve"], [1, 9]);
    assert_eq!(forcebench::status::status(&p).unwrap().funnel.total.unaffirmed, 0);

    fs::lock(&mut p).unwrap();
    let out = dir.path().join("out");
    fs::export(&p, &out, &mut |_, _| {}).unwrap();
    fs::verify(&out).unwrap();
    let sheet = std::fs::read_to_string(out.join("DATASHEET.md")).unwrap();
    assert!(sheet.contains("## Promotion"), "{sheet}");
    assert!(sheet.contains("Of the 10 retained rows, 1 were affirmed one by one and 9 in bulk"), "{sheet}");
    assert!(sheet.contains("| eve | 1 | 9 |"), "{sheet}");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["promotion"]["in_bulk"], 9);
    assert_eq!(manifest["promotion"]["one_by_one"], 1);
}

#[test]
fn a_draft_made_before_a_row_lost_its_affirmation_cannot_be_locked() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = crate::split::project_from(dir.path(), "q.forcebench", &[("scope", 4)], 0, 1);
    fs::draft(&mut p, &params(2)).unwrap();
    // Reopened with the checklist cleared: the row no longer qualifies.
    let res = Resolution { checklist: Checklist::default(), ..Resolution::default() };
    adj::resolve(&mut p, "r0001", "eve", &res).unwrap();
    let err = fs::lock(&mut p).unwrap_err();
    assert_eq!(err.code(), "split_out_of_date", "{err}");
    let s = fs::draft(&mut p, &params(2)).unwrap();
    assert_eq!(s.promotion.held_back.iter().map(|h| h.id.as_str()).collect::<Vec<_>>(), ["r0001"]);
    assert!(!s.promotion.held_back[0].reason.contains("bulk"), "{}", s.promotion.held_back[0].reason);
}

#[test]
fn the_cli_affirms_in_bulk_only_when_asked_and_names_who_and_what() {
    let dir = tempfile::tempdir().unwrap();
    let p = crate::split::project_confirmed(dir.path(), "c.forcebench", &[("scope", 3)], 0, 1);
    drop(p);
    let path = dir.path().join("c.forcebench");
    let fb = |args: &[&str]| {
        let mut c = Command::cargo_bin("forcebench").unwrap();
        c.current_dir(dir.path()).arg("--project").arg(&path).args(args);
        c
    };
    fb(&["split", "draft"]).assert().failure().stderr(predicates::str::contains("held back"));
    fb(&["status"]).assert().success().stdout(predicates::str::contains("held back from splits: 3 accepted row(s)"));
    fb(&["adjudicate", "confirm-agreements", "--adjudicator", "eve", "--affirm"])
        .assert()
        .success()
        .stdout(predicates::str::contains("affirmed the promotion checks (span_decisive, calibrated_supported, raised_underwarranted, one_local_axis, no_unrelated_addition) of 3 accepted rows, in bulk, as eve"));
    fb(&["split", "draft"])
        .assert()
        .success()
        .stdout(predicates::str::contains("promotion: 0 affirmed one by one, 3 in bulk"));
}

/// A project made before this change: its locked split still exports (the upgrade test checks
/// byte for byte), and a new draft holds back its bulk-confirmed rows, which the lock froze.
#[test]
fn an_old_projects_bulk_confirmed_rows_are_held_back_from_its_next_draft() {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/upgrade/schema9.forcebench");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.forcebench");
    std::fs::copy(&fixture, &path).unwrap();
    let fb = |args: &[&str]| {
        let mut c = Command::cargo_bin("forcebench").unwrap();
        c.current_dir(dir.path()).arg("--project").arg(&path).args(args);
        c
    };
    fb(&["export", dir.path().join("out").to_str().unwrap()]).assert().success();
    let out = fb(&["adjudicate", "confirm-agreements", "--adjudicator", "Eve", "--affirm"]).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("frozen by a locked split and were left unaffirmed"), "{text}");
    let err = fb(&["split", "draft"]).assert().failure();
    let text = String::from_utf8(err.get_output().stderr.clone()).unwrap();
    assert!(text.contains("are held back because their promotion checks are not affirmed"), "{text}");
}
