//! A lock that waits for the audit: `split lock` refuses while a selected row's locality warning
//! is unreviewed, names the rows, says how many double-annotated rows were never adjudicated;
//! `locality keep` records a review; `--allow-unreviewed` locks and the manifest and datasheet say
//! what was skipped. Also: the kappa the lock records is the one the datasheet prints.

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn fb(project: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    Command::cargo_bin("forcebench").unwrap().arg("--project").arg(project).args(args).assert()
}

fn stdout(project: &Path, args: &[&str]) -> String {
    String::from_utf8(fb(project, args).success().get_output().stdout.clone()).unwrap()
}

fn stderr_of(a: assert_cmd::assert::Assert) -> String {
    String::from_utf8(a.failure().get_output().stderr.clone()).unwrap()
}

fn query(p: &Path, sql: &str) -> Vec<String> {
    let conn = rusqlite::Connection::open(p).unwrap();
    let mut stmt = conn.prepare(sql).unwrap();
    stmt.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
}

/// The sample, every row annotated, full agreements confirmed and affirmed, a draft of 8 per axis.
fn drafted(dir: &Path) -> PathBuf {
    let p = dir.join("demo.forcebench");
    fb(&p, &["init"]).success();
    fb(&p, &["sample", "load"]).success();
    for name in ["Ana", "Ben", "Chidi", "Dana"] {
        fb(&p, &["annotators", "add", name]).success();
    }
    fb(&p, &["annotators", "add", "Eve", "--role", "adjudicator"]).success();
    fb(&p, &["assign"]).success();
    fb(&p, &["sample", "annotate", "--rows", "106"]).success();
    fb(&p, &["adjudicate", "confirm-agreements", "--adjudicator", "Eve", "--affirm"]).success();
    fb(&p, &["split", "draft", "--per-axis", "8"]).success();
    p
}

/// Selected rows with a failed locality check, and the double-annotated rows with no final
/// label, read from the tables themselves.
fn expected(p: &Path, eval: &[String]) -> (Vec<String>, usize) {
    let warned = query(
        p,
        "SELECT DISTINCT candidate_id FROM qc_failures WHERE check_name LIKE 'locality%' ORDER BY candidate_id",
    );
    let warned: Vec<String> = warned.into_iter().filter(|id| eval.contains(id)).collect();
    let never = query(
        p,
        "SELECT candidate_id FROM annotations WHERE finished = 1 GROUP BY candidate_id HAVING count(*) = 2
         EXCEPT SELECT candidate_id FROM adjudications",
    );
    (warned, never.len())
}

fn ids(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap().to_string()).collect()
}

// Broke: `split lock` locked a split whose selected rows' locality warnings nobody had reviewed,
// and said nothing of the double-annotated rows never adjudicated.
#[test]
fn the_lock_refuses_until_every_warned_selected_row_is_reviewed_and_says_what_was_never_adjudicated() {
    let dir = tempfile::tempdir().unwrap();
    let p = drafted(dir.path());
    let show: Value = serde_json::from_str(&stdout(&p, &["split", "show", "--json"])).unwrap();
    let eval: Vec<String> = show["eval_ids"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().into()).collect();
    let (mut warned, never) = expected(&p, &eval);
    assert!(warned.len() >= 2 && never > 0, "the sample gives both: {warned:?}, {never}");
    let mut listed = ids(&show["audit"]["unreviewed_locality"]);
    listed.sort();
    assert_eq!(listed, warned, "the draft lists the rows the lock waits for");
    assert_eq!(show["audit"]["never_adjudicated"].as_u64(), Some(never as u64));

    let before = std::fs::read(&p).unwrap();
    let err = stderr_of(fb(&p, &["split", "lock"]));
    assert!(err.starts_with("error [audit_unfinished]: split v1 cannot be locked yet"), "{err}");
    for id in warned.iter().take(10) {
        assert!(err.contains(&format!("{id} (")), "{id} named: {err}");
    }
    if warned.len() > 10 {
        assert!(
            err.contains(&format!("and {} more (`forcebench split show --json` lists them all)", warned.len() - 10)),
            "{err}"
        );
    }
    assert!(err.contains(&format!("{never} double-annotated row(s) were never adjudicated")), "{err}");
    assert_eq!(query(&p, "SELECT status FROM splits"), ["draft"]);
    drop(before);

    // A review of one is recorded with who and when; a marked row is reviewed by its mark.
    let first = warned.remove(0);
    let out = stdout(&p, &["locality", "keep", &first, "--by", "Eve", "--note", "the date is the passage's own"]);
    assert!(out.starts_with(&format!("kept {first} after review (Eve at ")), "{out}");
    let err = stderr_of(fb(&p, &["locality", "keep", &first]));
    assert!(err.starts_with("error [already_done]"), "{err}");
    let second = warned.remove(0);
    fb(&p, &["locality", "mark", &second, "--reason", "changes the population too"]).success();
    let err = stderr_of(fb(&p, &["locality", "keep", &second]));
    assert!(err.starts_with("error [wrong_row_state]") && err.contains("marked nonlocal"), "{err}");
    let rejected = query(&p, "SELECT candidate_id FROM adjudications WHERE decision = 'reject_not_force_gap' LIMIT 1");
    let err = stderr_of(fb(&p, &["locality", "keep", &rejected[0]]));
    assert!(err.starts_with("error [wrong_row_state]") && err.contains("accepted rows only"), "{err}");
    let err = stderr_of(fb(&p, &["split", "lock"]));
    assert!(!err.contains(&format!("{first} (")) && !err.contains(&format!("{second} (")), "{err}");

    for id in &warned {
        fb(&p, &["locality", "keep", id]).success();
    }
    let out = stdout(&p, &["split", "lock"]);
    assert!(
        out.contains(&format!("{never} double-annotated row(s) were never adjudicated and are not in the split")),
        "{out}"
    );
    let export = dir.path().join("v1");
    fb(&p, &["export", export.to_str().unwrap()]).success();
    let manifest: Value = serde_json::from_slice(&std::fs::read(export.join("manifest.json")).unwrap()).unwrap();
    let audit = &manifest["audit_at_lock"];
    assert_eq!(audit["allowed_unreviewed"], false);
    assert_eq!(audit["unreviewed_locality"], serde_json::json!([]));
    assert_eq!(audit["never_adjudicated"].as_u64(), Some(never as u64));
    let sheet = std::fs::read_to_string(export.join("DATASHEET.md")).unwrap();
    assert!(sheet.contains("Every selected row with a locality warning was reviewed"), "{sheet}");
    assert!(sheet.contains(&format!("{never} double-annotated row(s) were never adjudicated")), "{sheet}");
    // The kappa the lock recorded is the one the datasheet prints and `agreement` reads now.
    let now: Value = serde_json::from_str(&stdout(&p, &["agreement", "--json", "--bootstrap", "0"])).unwrap();
    let k = manifest["agreement_at_lock"]["cohen_kappa"].as_f64().unwrap();
    assert_eq!(now["cohen_kappa"].as_f64(), Some(k));
    assert!(sheet.contains(&format!("Cohen's kappa {k:.3}")), "{sheet}");
    // A kept row of a locked split cannot be kept again or un-kept in storage.
    let err = rusqlite::Connection::open(&p)
        .unwrap()
        .execute("DELETE FROM locality_keeps WHERE candidate_id = ?1", [&first])
        .unwrap_err();
    assert!(err.to_string().contains("split_locked"), "{err}");
}

#[test]
fn a_lead_who_locks_anyway_gets_the_skipped_rows_in_the_manifest_and_the_datasheet() {
    let dir = tempfile::tempdir().unwrap();
    let p = drafted(dir.path());
    let show: Value = serde_json::from_str(&stdout(&p, &["split", "show", "--json"])).unwrap();
    let skipped = ids(&show["audit"]["unreviewed_locality"]);
    assert!(!skipped.is_empty());
    let locked: Value = serde_json::from_str(&stdout(&p, &["split", "lock", "--allow-unreviewed", "--json"])).unwrap();
    assert_eq!(locked["audit"]["allowed_unreviewed"], true);
    assert_eq!(ids(&locked["audit"]["unreviewed_locality"]), skipped);
    let text = stdout(&p, &["split", "show"]);
    assert!(text.contains("locked with its final audit unfinished (--allow-unreviewed)"), "{text}");
    let export = dir.path().join("v1");
    fb(&p, &["export", export.to_str().unwrap()]).success();
    fb(&p, &["verify", export.to_str().unwrap()]).success();
    let manifest: Value = serde_json::from_slice(&std::fs::read(export.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["audit_at_lock"]["allowed_unreviewed"], true);
    assert_eq!(ids(&manifest["audit_at_lock"]["unreviewed_locality"]), skipped);
    let sheet = std::fs::read_to_string(export.join("DATASHEET.md")).unwrap();
    assert!(sheet.contains("locked with its final audit unfinished (`--allow-unreviewed`)"), "{sheet}");
    for id in &skipped {
        assert!(sheet.contains(&format!("- `{id}`: locality warning not reviewed")), "{id}: {sheet}");
    }
}

// Broke: `qc run --json` left out the checks across rows (duplicates, provenance) that the text
// output lists after the rows.
#[test]
fn qc_run_json_carries_every_finding_the_text_shows() {
    let dir = tempfile::tempdir().unwrap();
    let p = drafted(dir.path());
    // A late candidate that repeats a sample row's passage and claims: a duplicate finding.
    let row: Vec<String> = query(
        &p,
        "SELECT json_object('id', 'late-dup', 'group_id', 'late', 'source_dataset', source_dataset, 'source_id', 'late-1',
             'context', context, 'passage', passage, 'calibrated_claim', calibrated_claim, 'raised_claim', raised_claim,
             'axis', axis, 'severity', severity) FROM candidates WHERE id = 'fb-0001'",
    );
    let file = dir.path().join("late.jsonl");
    std::fs::write(&file, format!("{}\n", row[0])).unwrap();
    fb(&p, &["import", file.to_str().unwrap()]).success();
    let text = stdout(&p, &["qc", "run"]);
    let json: Value = serde_json::from_str(&stdout(&p, &["qc", "run", "--json"])).unwrap();
    let findings = json["findings"].as_array().unwrap();
    assert!(findings.iter().any(|f| f["check"].as_str().unwrap().starts_with("duplicate")), "{json}");
    // Every line of the text that is not a row or one of its checks is a finding in the JSON.
    let finding_lines: Vec<&str> =
        text.lines().filter(|l| (l.starts_with("FAIL ") || l.starts_with("warn ")) && l.contains(": ")).collect();
    assert_eq!(finding_lines.len(), findings.len(), "{text}");
    for f in findings {
        let ids: Vec<&str> = f["ids"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        let line = format!("{} {}: {}", f["check"].as_str().unwrap(), ids.join(", "), f["detail"].as_str().unwrap());
        assert!(
            finding_lines.iter().any(|l| l.split_whitespace().collect::<Vec<_>>().join(" ").ends_with(&line)),
            "{line}\n{text}"
        );
        assert!(["error", "warning"].contains(&f["severity"].as_str().unwrap()));
    }
    // The per-row part is as before.
    assert!(json["rows"].is_array() && json["rows_checked"].is_u64());
}
