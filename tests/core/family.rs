//! Results per construction family and the shortcut audit, checked against counts read from the
//! stored outputs themselves.

use assert_cmd::Command;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn fb(project: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    Command::cargo_bin("forcebench").unwrap().arg("--project").arg(project).args(args).assert()
}

fn json(project: &Path, args: &[&str]) -> Value {
    serde_json::from_slice(&fb(project, args).success().get_output().stdout).unwrap()
}

/// The sample through lock (8 evaluation rows per axis) with the five baselines stored.
fn locked(dir: &Path) -> PathBuf {
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
    fb(&p, &["sample", "audit"]).success();
    fb(&p, &["split", "lock"]).success();
    fb(&p, &["baselines", "run"]).success();
    p
}

/// Each evaluation pair's (violation, margin) for one stored evaluator, from its raw scores.
fn outcomes(p: &Path, evaluator: &str) -> BTreeMap<String, (bool, f64)> {
    let conn = rusqlite::Connection::open(p).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT o.candidate_id, max(CASE WHEN claim = 'safe' THEN score END), max(CASE WHEN claim = 'raised' THEN score END)
             FROM evaluator_outputs o JOIN evaluators e ON e.id = o.evaluator_id WHERE e.name = ?1 GROUP BY o.candidate_id",
        )
        .unwrap();
    stmt.query_map([evaluator], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, Option<f64>>(1)?, r.get::<_, Option<f64>>(2)?))
    })
    .unwrap()
    .map(|x| {
        let (id, s, r) = x.unwrap();
        let o = match (s, r) {
            (Some(s), Some(r)) => (r >= s, s - r),
            _ => (true, 0.0),
        };
        (id, o)
    })
    .collect()
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-9, "{a} vs {b}");
}

// Broke: construction families were stored and exported, but no result was broken down by them
// and nothing checked whether a family was easy for a shortcut.
#[test]
fn mvr_and_fs_per_family_match_the_outputs_and_a_family_easy_for_a_lexical_baseline_is_flagged() {
    let dir = tempfile::tempdir().unwrap();
    let p = locked(dir.path());
    // The lexical baseline with the most violations that still gets seven pairs right.
    let lexical = ["baseline:token_overlap", "baseline:entity_overlap", "baseline:rule_force", "baseline:axis_lexical"];
    let rate = |o: &BTreeMap<String, (bool, f64)>| o.values().filter(|x| x.0).count() as f64 / o.len() as f64;
    let base = *lexical
        .iter()
        .filter(|b| outcomes(&p, b).values().filter(|x| !x.0).count() >= 7)
        .max_by(|a, b| rate(&outcomes(&p, a)).total_cmp(&rate(&outcomes(&p, b))))
        .unwrap();
    let token = outcomes(&p, base);
    // `easy`: the pairs that baseline gets right but two; `rest`: every other pair.
    let right: Vec<&String> = token.iter().filter(|(_, o)| !o.0).map(|(id, _)| id).collect();
    let easy: Vec<&String> = right[..right.len() - 2].to_vec();
    assert!(easy.len() >= 5 && token.len() - easy.len() >= 5);
    {
        let conn = rusqlite::Connection::open(&p).unwrap();
        // The families are chosen from the locked split's scores, so they are written after the
        // lock, past the guard that keeps a frozen row's family (no command can do this).
        conn.execute_batch("DROP TRIGGER candidates_locked_update").unwrap();
        for id in token.keys() {
            let family = if easy.contains(&id) { "easy" } else { "rest" };
            conn.execute("UPDATE candidates SET construction_family = ?1 WHERE id = ?2", [family, id]).unwrap();
        }
    }
    let n = token.len();
    let by_hand = |o: &BTreeMap<String, (bool, f64)>, family: &str| {
        let ids: Vec<&String> = o.keys().filter(|id| (family == "easy") == easy.contains(id)).collect();
        let v = ids.iter().filter(|id| o[**id].0).count() as f64;
        let fs: f64 = ids.iter().map(|id| o[*id].1).sum();
        (ids.len() as u64, v / ids.len() as f64, fs / ids.len() as f64)
    };

    let report = json(&p, &["evaluate", "families", "--json", "--bootstrap", "200"]);
    assert_eq!(report["pairs"]["easy"].as_u64(), Some(easy.len() as u64));
    assert_eq!(report["pairs"]["rest"].as_u64(), Some((n - easy.len()) as u64));
    for evaluator in ["baseline:token_overlap", "baseline:rule_force", "baseline:axis_lexical"] {
        let o = outcomes(&p, evaluator);
        for family in ["easy", "rest"] {
            let m = &report["per_family"][evaluator][family];
            let (k, mvr, fs) = by_hand(&o, family);
            assert_eq!(m["n_pairs"].as_u64(), Some(k), "{evaluator} {family}");
            close(m["mvr"].as_f64().unwrap(), mvr);
            close(m["fs"].as_f64().unwrap(), fs);
            let ci = m["mvr_ci95"].as_array().unwrap();
            assert!(ci[0].as_f64().unwrap() <= mvr && mvr <= ci[1].as_f64().unwrap(), "{evaluator} {family}: {m}");
        }
    }
    // The audit of the token-overlap baseline, by hand: 0 violations on `easy`, its rate elsewhere.
    let rest_mvr = by_hand(&token, "rest").1;
    let row = report["shortcuts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["family"] == "easy" && s["baseline"] == base)
        .unwrap();
    close(row["mvr"].as_f64().unwrap(), 0.0);
    close(row["mvr_rest"].as_f64().unwrap(), rest_mvr);
    close(row["gap"].as_f64().unwrap(), rest_mvr);
    assert_eq!(row["flagged"], rest_mvr >= 0.25, "{row}");
    assert!(rest_mvr >= 0.25, "{base} violates at least a quarter of the other pairs: {rest_mvr}");
    assert!(report["flagged"].as_array().unwrap().contains(&serde_json::json!("easy")), "{report}");
    // The constant baseline is no lexical evidence: it is not audited.
    assert!(report["shortcuts"].as_array().unwrap().iter().all(|s| s["baseline"] != "baseline:citation_presence"));

    // The same figures in `evaluate --json` and a panel of two baselines pooled per family.
    let all = json(&p, &["evaluate", "--json", "--bootstrap", "0"]);
    let token_report = all.as_array().unwrap().iter().find(|r| r["name"] == base).unwrap();
    close(token_report["per_family"]["rest"]["mvr"].as_f64().unwrap(), rest_mvr);
    let other = *lexical.iter().find(|b| **b != base).unwrap();
    let panel = json(&p, &["evaluate", "panel", base, other, "--json", "--bootstrap", "0"]);
    let (_, other_easy, _) = by_hand(&outcomes(&p, other), "easy");
    assert_eq!(panel["per_family"]["easy"]["units"].as_u64(), Some(2 * easy.len() as u64));
    close(panel["per_family"]["easy"]["mvr"].as_f64().unwrap(), (0.0 + other_easy) / 2.0);
    let text = String::from_utf8(fb(&p, &["evaluate", "families"]).success().get_output().stdout.clone()).unwrap();
    assert!(text.contains("FLAGGED") && text.contains("flagged families: easy"), "{text}");
    let _ = rate;
}

fn metrics(n: u64, v: u64) -> forcebench::evaluate::Metrics {
    forcebench::evaluate::Metrics {
        n_pairs: n,
        mvr: Some(v as f64 / n as f64),
        fs: Some(0.0),
        violations: v,
        missing: 0,
        unanswered: 0,
        mvr_ci95: None,
        fs_ci95: None,
    }
}

/// The rule's edges: a gap of exactly a quarter flags, a smaller one does not, and a side with
/// fewer than five pairs is not judged whatever its gap.
#[test]
fn the_shortcut_rule_flags_a_gap_of_a_quarter_and_judges_no_family_on_too_few_pairs() {
    let report = |fam: (u64, u64), rest: (u64, u64)| forcebench::evaluate::EvaluatorReport {
        name: "baseline:token_overlap".into(),
        label_map: "generic".into(),
        split_version: 1,
        overall: metrics(fam.0 + rest.0, fam.1 + rest.1),
        per_axis: BTreeMap::new(),
        per_severity: BTreeMap::new(),
        per_source: BTreeMap::new(),
        per_family: [("f".to_string(), metrics(fam.0, fam.1)), ("g".to_string(), metrics(rest.0, rest.1))].into(),
        missing_pairs: Vec::new(),
        completeness: Default::default(),
    };
    let f_row = |r| forcebench::evaluate::family::shortcuts_of(&r).into_iter().find(|s| s.family == "f").unwrap();
    let s = f_row(report((8, 2), (8, 4)));
    assert!(s.flagged && !s.too_few, "0.25 against 0.5: {s:?}");
    close(s.gap.unwrap(), 0.25);
    assert!(!f_row(report((8, 2), (8, 3))).flagged, "0.25 against 0.375");
    let few = f_row(report((4, 0), (8, 8)));
    assert!(few.too_few && !few.flagged, "{few:?}");
    assert!(f_row(report((8, 0), (4, 4))).too_few, "the rest too has to have five pairs");
}
