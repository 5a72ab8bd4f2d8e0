//! The split is built as conservatively as the protocol says. A row enters a draft only
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

/// A new lock records a clean leakage audit and exports `source_id` (and the construction
/// family); a hand edit that makes a non-evaluation row share an evaluation row's passage, with
/// every hash recomputed, is refused by `verify` with `leakage_found`. Before, verify had no
/// leakage check and the export no `source_id`.
#[test]
fn verify_recomputes_the_leakage_audit_and_refuses_a_shared_passage() {
    use crate::split::{jsonl_of, reseal, write_jsonl};
    let dir = tempfile::tempdir().unwrap();
    let out = crate::split::exported(dir.path());
    fs::verify(&out).unwrap();
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    let audit = &manifest["leakage_audit"];
    assert_eq!((audit["shared_groups"].as_u64(), audit["shared_passages"].as_u64()), (Some(0), Some(0)));
    assert_eq!(audit["shared_raised_claims"], 0);
    assert!(audit["eval_rows"].as_u64().unwrap() > 0 && audit["rest_rows"].as_u64().unwrap() > 0, "{audit}");
    let eval = jsonl_of(&out.join("eval.jsonl"));
    let keys: Vec<&str> = eval[0].keys().map(String::as_str).collect();
    assert_eq!(&keys[keys.len() - 3..], ["repair", "source_id", "construction_family"]);
    assert!(eval.iter().all(|r| r["source_id"].as_str().unwrap().starts_with("src-")), "{eval:?}");
    let header = std::fs::read_to_string(out.join("eval.csv")).unwrap().lines().next().unwrap().to_string();
    assert!(header.ends_with(",repair,source_id,construction_family"), "{header}");

    let mut benchmark = jsonl_of(&out.join("benchmark.jsonl"));
    let inside = benchmark.iter().position(|r| r["in_eval"] == true).unwrap();
    let outside = benchmark.iter().position(|r| r["in_eval"] == false).unwrap();
    // The same passage with other spacing and case still counts as shared.
    let passage = benchmark[inside]["passage"].as_str().unwrap().to_uppercase().replace(' ', "  ");
    benchmark[outside]["passage"] = passage.into();
    write_jsonl(&out.join("benchmark.jsonl"), &benchmark);
    reseal(&out);
    let err = fs::verify(&out).unwrap_err();
    assert_eq!(err.code(), "leakage_found", "{err}");
    let (a, b) = (benchmark[inside]["id"].as_str().unwrap(), benchmark[outside]["id"].as_str().unwrap());
    assert!(
        err.to_string().contains(&format!("passage shared by evaluation row(s) {a} and other row(s) {b}")),
        "{err}"
    );
}

/// Rows that repeat each other, reuse a raised claim or share a passage across groups are found
/// with their reasons, shown in the adjudicate view's QC list, refused from a draft, and a
/// duplicate pair is resolved by rejecting one of them with the boundary type `duplicate`.
#[test]
fn duplicates_and_shared_passages_are_found_and_held_back_until_resolved() {
    use forcebench::annotate::Field;
    use forcebench::provenance::findings;
    let dir = tempfile::tempdir().unwrap();
    let mut p = crate::split::project_from(dir.path(), "d.forcebench", &[("scope", 8)], 0, 1);
    // r0001 becomes a normalised duplicate of r0000 (case, spacing and a full stop), r0003 reuses
    // r0002's raised claim on another passage, and r0005 cites r0004's passage in another group.
    let get = |p: &forcebench::Project, id: &str, col: &str| -> String {
        p.conn().query_row(&format!("SELECT {col} FROM candidates WHERE id = ?1"), [id], |r| r.get(0)).unwrap()
    };
    let final_of = |p: &forcebench::Project, id: &str, field: &str| -> String {
        p.conn()
            .query_row(
                "SELECT value FROM adjudication_fields WHERE candidate_id = ?1 AND field = ?2",
                [id, field],
                |r| r.get(0),
            )
            .unwrap()
    };
    let set = |p: &forcebench::Project, sql: &str, a: &str, b: &str| {
        p.conn().execute(sql, [a, b]).unwrap();
    };
    let p0 = get(&p, "r0000", "passage");
    set(&p, "UPDATE candidates SET passage = ?1 WHERE id = ?2", &format!("  {}", p0.to_lowercase()), "r0001");
    for f in ["calibrated_claim", "raised_claim"] {
        let v = final_of(&p, "r0000", f);
        p.conn()
            .execute(
                "UPDATE adjudication_fields SET value = ?1 WHERE candidate_id = 'r0001' AND field = ?2",
                [format!("{}.", v.to_uppercase().trim_end_matches('.')), f.to_string()],
            )
            .unwrap();
    }
    let raised2 = final_of(&p, "r0002", "raised_claim");
    set(
        &p,
        "UPDATE adjudication_fields SET value = ?1 WHERE candidate_id = ?2 AND field = 'raised_claim'",
        &raised2,
        "r0003",
    );
    let p4 = get(&p, "r0004", "passage");
    set(&p, "UPDATE candidates SET passage = ?1 WHERE id = ?2", &p4, "r0005");

    let found: Vec<(String, Vec<String>)> = findings(p.conn())
        .unwrap()
        .into_iter()
        .map(|f| (f.check, f.ids))
        .filter(|f| f.0 != "provenance_missing")
        .collect();
    let ids = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(found.contains(&("duplicate_normalised".into(), ids(&["r0000", "r0001"]))), "{found:?}");
    assert!(found.contains(&("raised_claim_reused".into(), ids(&["r0002", "r0003"]))), "{found:?}");
    assert!(found.contains(&("passage_shared_across_groups".into(), ids(&["r0004", "r0005"]))), "{found:?}");
    assert!(found.contains(&("provenance_inconsistent".into(), ids(&["r0004", "r0005"]))), "{found:?}");
    assert!(!found.iter().any(|f| f.0 == "duplicate_exact"), "{found:?}");

    // The adjudicate view's QC list names the check, the reason and the other row.
    let view = adj::row_view(&p, "r0001", false).unwrap();
    let dup = view.qc.iter().find(|q| q.check == "duplicate_normalised").expect("listed");
    assert!(!dup.passed && dup.detail.as_deref().unwrap().contains("with r0000"), "{dup:?}");

    let s = fs::draft(&mut p, &params(8)).unwrap();
    assert_eq!(s.retained_ids, ["r0006", "r0007"], "only the rows no check refuses");
    let held: Vec<&str> = s.promotion.held_back.iter().map(|h| h.id.as_str()).collect();
    assert_eq!(held, ["r0000", "r0001", "r0002", "r0003", "r0004", "r0005"]);
    assert!(s.promotion.held_back[1].reason.contains("duplicate_normalised"), "{:?}", s.promotion.held_back[1]);

    // Rejecting r0001 as a duplicate resolves the pair: r0000 may enter the draft again.
    let reject = Resolution {
        choices: vec![
            (Field::Decision, adj::Choice::Value(Some("reject_not_force_gap".into()))),
            (Field::BoundaryType, adj::Choice::Value(Some("duplicate".into()))),
        ],
        rationale: Some("repeats r0000".into()),
        checklist: Checklist::default(),
    };
    adj::resolve(&mut p, "r0001", "eve", &reject).unwrap();
    assert!(adj::row_view(&p, "r0000", false).unwrap().qc.iter().all(|q| !q.check.starts_with("duplicate")));
    let s = fs::draft(&mut p, &params(8)).unwrap();
    assert_eq!(s.retained_ids, ["r0000", "r0006", "r0007"]);
}

/// The construction family is imported (CSV and JSONL), shown, counted in the draft and the
/// datasheet, and exported.
#[test]
fn the_construction_family_is_imported_counted_and_exported() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = crate::split::project_from(dir.path(), "f.forcebench", &[("scope", 4)], 0, 1);
    let jsonl = dir.path().join("more.jsonl");
    std::fs::write(
        &jsonl,
        "{\"id\":\"f1\",\"group_id\":\"gf1\",\"source_dataset\":\"LFQA\",\"context\":\"Q?\",\"passage\":\"A unique passage about tides.\",\"calibrated_claim\":\"Tides may rise.\",\"raised_claim\":\"Tides rise.\",\"construction_family\":\" template-hedge \"}\n",
    )
    .unwrap();
    forcebench::import::import_file(&mut p, &jsonl, &mut |_, _| {}).unwrap();
    let detail = forcebench::candidate::get(&p, "f1").unwrap();
    assert_eq!(detail.candidate.construction_family.as_deref(), Some("template-hedge"));
    let csv = dir.path().join("more.csv");
    std::fs::write(
        &csv,
        "id,group_id,source_dataset,context,passage,calibrated_claim,raised_claim,construction_family\nf2,gf2,LFQA,Q?,Another passage on reefs.,Reefs may recover.,Reefs recover.,editor-manual\n",
    )
    .unwrap();
    forcebench::import::import_file(&mut p, &csv, &mut |_, _| {}).unwrap();
    assert_eq!(
        forcebench::candidate::get(&p, "f2").unwrap().candidate.construction_family.as_deref(),
        Some("editor-manual")
    );
    // A row without a family keeps the content hash it always had (13 fields).
    let old = forcebench::candidate::get(&p, "r0000").unwrap();
    assert_eq!(old.candidate.construction_family, None);
    assert_eq!(old.candidate.content_hash(), old.content_sha256);
    p.conn().execute("UPDATE candidates SET construction_family = 'gen-a' WHERE id IN ('r0000', 'r0001')", []).unwrap();
    let s = fs::draft(&mut p, &params(1)).unwrap();
    let total: u64 = s.by_family.values().map(|v| v[0]).sum();
    assert_eq!(total, 4);
    assert_eq!(s.by_family["gen-a"][0], 2);
    assert_eq!(s.by_family["none"][0], 2);
    fs::lock(&mut p).unwrap();
    let out = dir.path().join("out");
    fs::export(&p, &out, &mut |_, _| {}).unwrap();
    fs::verify(&out).unwrap();
    let sheet = std::fs::read_to_string(out.join("DATASHEET.md")).unwrap();
    assert!(sheet.contains("| gen-a | 2 |"), "{sheet}");
    assert!(sheet.contains("## Leakage audit"), "{sheet}");
    let bench = crate::split::jsonl_of(&out.join("benchmark.jsonl"));
    let fam: Vec<&serde_json::Value> = bench.iter().map(|r| &r["construction_family"]).collect();
    assert_eq!(fam.iter().filter(|v| v.as_str() == Some("gen-a")).count(), 2);
    assert_eq!(fam.iter().filter(|v| v.as_str() == Some("")).count(), 2);
}

/// Guideline version 2: a new project has the paper's guideline in force, with what
/// changed from version 1; a row stronger on one dominant axis with a minor second shift is
/// accepted under it and its label records version 2; an upgraded old project keeps version 1.
#[test]
fn guideline_two_is_in_force_in_a_new_project_and_accepts_one_dominant_axis() {
    use forcebench::annotate::Field;
    use forcebench::guideline;
    let dir = tempfile::tempdir().unwrap();
    let mut p = crate::split::project_from(dir.path(), "g.forcebench", &[("modality", 2)], 0, 1);
    let in_force = guideline::in_force(&p).unwrap();
    assert_eq!((in_force.version.label.as_str(), in_force.previous.as_deref()), ("2", Some("1")));
    let text = &in_force.version.text;
    assert!(text.contains("stronger along one dominant axis"), "{text}");
    assert!(text.contains("none of them is\n  clearly the primary one"), "{text}");
    for word in ["proof", "obligation", "mentions", "risk", "bounded", "comparative"] {
        assert!(text.contains(word), "the axis definitions name `{word}`");
    }
    assert!(text.contains("high-impact or strongly misleading"), "{text}");
    let added: Vec<&str> = in_force.changes.iter().filter(|l| l.change == "added").map(|l| l.text.as_str()).collect();
    assert!(added.iter().any(|l| l.contains("one dominant")), "{added:?}");
    assert_eq!(guideline::get(&p, "1").unwrap().text, guideline::GUIDELINE);

    // The vaccine row of the new examples: the hedge is dropped (modality) and "about" goes with
    // it. Under version 1 ("exactly one axis") that was a reject; now it is an accept.
    let raised = "The vaccine cuts infections by half.";
    let res = adj::Resolution {
        choices: vec![
            (Field::CalibratedClaim, adj::Choice::Value(Some("The vaccine may cut infections by about half.".into()))),
            (Field::RaisedClaim, adj::Choice::Value(Some(raised.into()))),
        ],
        rationale: Some("one dominant axis (modality); the dropped 'about' is secondary".into()),
        checklist: Checklist::all_yes(),
    };
    let view = adj::resolve(&mut p, "r0000", "eve", &res).unwrap();
    assert!(view.qc.iter().all(|q| q.passed || q.severity == forcebench::qc::Severity::Warning), "{:?}", view.qc);
    let version: String = p
        .conn()
        .query_row("SELECT guideline_version FROM adjudications WHERE candidate_id = 'r0000'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, "2");
    let s = fs::draft(&mut p, &params(2)).unwrap();
    assert!(s.retained_ids.contains(&"r0000".to_string()), "{:?}", s.promotion.held_back);

    // An old project keeps the version it had: labels and the guideline in force stay "1".
    let old = dir.path().join("old.forcebench");
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/upgrade/schema9.forcebench"),
        &old,
    )
    .unwrap();
    let old = forcebench::Project::open(&old).unwrap();
    assert_eq!(guideline::current(&old).unwrap().label, "1");
    assert_eq!(guideline::list(&old).unwrap().len(), 1);
}
