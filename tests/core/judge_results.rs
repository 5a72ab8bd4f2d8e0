//! Judge results fit to publish: only complete, non-leaky evaluators in any pooled table, panel
//! or comparison (an incomplete one refused by name with the command that resumes it, or pooled
//! on request with its unanswered pairs left out and counted), answers read strictly (a body
//! that is no answer is never scored; a label decides the score), numbers that stay numbers in
//! the report CSVs, and every input checked before the first request is sent.

use forcebench::evaluate::{self, judge, runner, LabelMap};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use crate::judge::{claim_of, cli, locked, no_progress, options, Reply, Server};

/// A judge that licenses every calibrated claim and gaps every raised one, except that model
/// `m` also licenses the raised claims of the pairs `ties(m)` names (a tie: a violation), and a
/// model named `contrary` swaps the two (every pair a violation with margin -1).
fn scripted(pairs: &[evaluate::Pair], ties: fn(&str, usize) -> bool) -> Server {
    let index: Vec<(String, String)> =
        pairs.iter().map(|p| (p.calibrated_claim.clone(), p.raised_claim.clone())).collect();
    Server::start(move |body: &Value, _| {
        let model = body["model"].as_str().unwrap();
        let claim = claim_of(body);
        let (i, safe) = index
            .iter()
            .enumerate()
            .find_map(|(i, (s, r))| (claim == *s).then_some((i, true)).or((claim == *r).then_some((i, false))))
            .unwrap();
        let supported = if model == "contrary" { !safe } else { safe || ties(model, i) };
        let label = if supported { "force_calibrated" } else { "force_gap" };
        Reply::content(&format!("{{\"label\": \"{label}\", \"reason\": \"scripted\"}}"))
    })
}

fn ok(out: &std::process::Output) -> String {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn err(out: &std::process::Output) -> String {
    assert!(!out.status.success(), "expected a refusal: {}", String::from_utf8_lossy(&out.stdout));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn judge_run(project: &Path, server: &Server, model: &str, extra: &[&str]) -> std::process::Output {
    cli(project)
        .args(["judge", "run", "--base-url", &server.base_url, "--model", model, "--template", "force_aware"])
        .args(["--name", &format!("{model}@force_aware"), "--retry-wait-ms", "1"])
        .args(extra)
        .output()
        .unwrap()
}

fn battery(project: &Path, models: &str, out: &Path, extra: &[&str]) -> std::process::Output {
    cli(project)
        .args(["judge", "battery", "--base-url", "http://127.0.0.1:9/v1", "--models", models])
        .args(["--templates", "force_aware", "--no-run", "--out"])
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

/// Every cell of every numeric column of a report CSV parses as a number (an empty cell is a
/// figure with no value); the text columns are named.
fn numeric_columns(csv: &str, text: &[&str]) -> usize {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let mut checked = 0;
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells.len(), header.len(), "{line}");
        for (h, c) in header.iter().zip(&cells) {
            if !text.contains(h) && !c.is_empty() {
                assert!(c.parse::<f64>().is_ok(), "column {h}: `{c}` is not a number in {line}");
                checked += 1;
            }
        }
    }
    checked
}

// Broke before: a run stopped part-way was pooled into the model aggregate with every
// unanswered pair counted as a violation, and table3.csv had no column saying so.
#[test]
fn an_incomplete_judge_is_refused_from_tables_by_name_and_pooled_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let (project, p, pairs) = locked(dir.path());
    drop(p);
    // Both models tie pairs 0-2 (three violations each when complete).
    let server = scripted(&pairs, |_, i| i < 3);
    ok(&judge_run(&project, &server, "a", &[]));
    ok(&judge_run(&project, &server, "b", &["--limit", "7"]));
    let out_dir = dir.path().join("report");
    let refused = err(&battery(&project, "a,b", &out_dir, &[]));
    assert!(refused.contains("error [unfinished]: `b@force_aware` is incomplete: 13 of its 20 requests were never answered (7 answered, 0 answered but unusable)"), "{refused}");
    let resume = format!(
        "`forcebench judge run --base-url {} --model b --template force_aware --name b@force_aware`",
        server.base_url
    );
    assert!(refused.contains(&resume), "{refused}");
    assert!(!out_dir.exists(), "nothing written for a refused report");
    // The same refusal from a panel and a paired comparison.
    let panel = err(&cli(&project).args(["evaluate", "panel", "a@force_aware", "b@force_aware"]).output().unwrap());
    assert!(panel.contains("`b@force_aware` is incomplete"), "{panel}");
    let paired = err(&cli(&project).args(["evaluate", "paired", "a@force_aware", "b@force_aware"]).output().unwrap());
    assert!(paired.contains("`b@force_aware` is incomplete"), "{paired}");

    // Pooled on request: b's pairs with a claim never answered are left out and counted.
    let recorded =
        runner::requests(&forcebench::Project::open(&project).unwrap(), "b@force_aware", runner::Control::None)
            .unwrap();
    let answered: BTreeSet<&str> =
        recorded.iter().filter(|r| r.answered_at.is_some()).map(|r| r.request_id.as_str()).collect();
    let scored: Vec<usize> = (0..10)
        .filter(|&i| {
            answered.contains(format!("{}:safe", pairs[i].id).as_str())
                && answered.contains(format!("{}:raised", pairs[i].id).as_str())
        })
        .collect();
    let b_violations = scored.iter().filter(|&&i| i < 3).count();
    let (units, violations) = (10 + scored.len(), 3 + b_violations);
    ok(&battery(&project, "a,b", &out_dir, &["--include-incomplete"]));
    let t3 = std::fs::read_to_string(out_dir.join("table3.csv")).unwrap();
    let row = t3.lines().nth(1).unwrap();
    let expected = format!(
        "Model aggregate,Axis-list force-aware,{violations},{units},{},{:.3},",
        20 - units,
        violations as f64 / units as f64
    );
    assert!(row.starts_with(&expected), "{row} vs {expected}");
    let notes = std::fs::read_to_string(out_dir.join("footnotes.txt")).unwrap();
    assert!(
        notes.contains("b@force_aware (13 of 20 requests)") && notes.contains("they are not violations"),
        "{notes}"
    );
    for svg in ["figure2_mvr_fs.svg", "figure3_grid.svg", "figure4_mvr_by_axis.svg"] {
        let text = std::fs::read_to_string(out_dir.join(svg)).unwrap();
        assert!(text.contains("Incomplete evaluators were included"), "{svg}");
    }
    let grid = std::fs::read_to_string(out_dir.join("figure3_grid.csv")).unwrap();
    assert!(
        grid.contains(&format!("b,force_aware,b@force_aware,{},{b_violations},{},", scored.len(), 10 - scored.len())),
        "{grid}"
    );
    // `evaluate --json` shows each evaluator's completeness.
    let all: Value =
        serde_json::from_str(&ok(&cli(&project).args(["evaluate", "--json", "--bootstrap", "0"]).output().unwrap()))
            .unwrap();
    let b = all.as_array().unwrap().iter().find(|e| e["name"] == "b@force_aware").unwrap();
    assert_eq!(
        b["completeness"],
        serde_json::json!({ "requests": 20, "answered": 7, "unusable": 0, "unanswered": 13 })
    );

    // The command the refusal gave resumes it; then the report needs no flag.
    ok(&judge_run(&project, &server, "b", &[]));
    ok(&battery(&project, "a,b", &out_dir, &["--force"]));
    let t3 = std::fs::read_to_string(out_dir.join("table3.csv")).unwrap();
    assert!(t3.lines().nth(1).unwrap().starts_with("Model aggregate,Axis-list force-aware,6,20,0,0.300,"), "{t3}");
    assert_eq!(std::fs::read_to_string(out_dir.join("footnotes.txt")).unwrap(), "");
}

// Broke before: an HTML page, an error object, an array or a legacy text completion in a 200
// were stored as answers, and the judge scored with every claim a violation (MVR 1.000).
#[test]
fn a_body_that_is_no_answer_is_retried_and_never_scored() {
    for body in [
        "<html><body>Bad gateway</body></html>".to_string(),
        "{\"error\": {\"message\": \"overloaded\"}}".to_string(),
        "[1, 2]".to_string(),
        "{\"choices\": [{\"text\": \"{\\\"label\\\": \\\"force_gap\\\"}\"}]}".to_string(),
        "{\"choices\": []}".to_string(),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let (_, mut p, _) = locked(dir.path());
        let b = body.clone();
        let server = Server::start(move |_, _| Reply { body: b.clone(), ..Reply::status(200) });
        let mut o = options(&server, "strict");
        o.max_attempts = 2;
        o.limit = Some(3);
        let e = runner::run(&mut p, &o, &mut no_progress(), &AtomicBool::new(false)).unwrap_err();
        assert_eq!(e.code(), "unfinished", "{body}: {e}");
        assert!(e.to_string().contains("not an answer"), "{body}: {e}");
        assert_eq!(server.prompts().len(), 6, "{body}: each of three requests tried twice");
        assert!(evaluate::compare(&p, None).unwrap().is_empty(), "{body}: nothing scored");
    }
}

// Broke before: a `"score"` beside a label overrode it (correct labels with score 0.9 gave MVR
// 1.0), and `"score": 1e300` gave FS 2e300.
#[test]
fn the_label_decides_the_score_and_a_number_counts_only_where_the_map_takes_one() {
    let force = LabelMap::named("force").unwrap();
    let read = |t: &str, m: &LabelMap| judge::parse_answer(t, m).score;
    assert_eq!(read("{\"label\": \"force_calibrated\", \"score\": 0.1}", &force), Some(1.0));
    assert_eq!(read("{\"label\": \"force_gap\", \"score\": 0.9}", &force), Some(0.0));
    assert_eq!(read("{\"score\": 1e300}", &force), None);
    assert_eq!(read("{\"score\": 0.7}", &force), None, "the force map takes labels only");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("numeric.json");
    std::fs::write(&file, "{\"supported\": 1, \"unsupported\": 0, \"score\": true}").unwrap();
    let numeric = LabelMap::named(file.to_str().unwrap()).unwrap();
    assert_eq!(read("{\"score\": 0.7}", &numeric), Some(0.7));
    assert_eq!(read("{\"score\": 1e300}", &numeric), None, "outside [0, 1]");
    assert_eq!(read("{\"score\": -0.5}", &numeric), None, "outside [0, 1]");
    assert_eq!(read("{\"label\": \"unsupported\", \"score\": 0.9}", &numeric), Some(0.0), "the label wins");
}

// Broke before: the reader restarted its scan at every `{`, so 200,000 unbalanced braces took
// over a minute.
#[test]
fn the_answer_reader_is_linear_in_the_answers_size() {
    let force = LabelMap::named("force").unwrap();
    for text in
        ["{".repeat(1 << 20), "{\"a\":".repeat(200_000), format!("{}{{\"label\": \"force_gap\"}}", "x{".repeat(50))]
    {
        let t = Instant::now();
        let a = judge::parse_answer(&text, &force);
        assert!(t.elapsed() < Duration::from_secs(2), "{} bytes took {:?}", text.len(), t.elapsed());
        let _ = a;
    }
    let a = judge::parse_answer(&format!("{}{{\"label\": \"force_gap\"}}", "x{".repeat(50)), &force);
    assert_eq!(a.score, Some(0.0), "an object after stray braces is still found");
}

// Broke before: a negative FS was written as `'-0.050` (the formula guard applied to numbers),
// so pandas read the column as text.
#[test]
fn every_numeric_column_of_the_report_csvs_is_a_number() {
    let dir = tempfile::tempdir().unwrap();
    let (project, p, pairs) = locked(dir.path());
    drop(p);
    // `contrary` prefers every raised claim (FS -1), `=cmd` ties every pair (FS 0).
    let server = scripted(&pairs, |model, _| model == "=cmd");
    for model in ["contrary", "=cmd"] {
        ok(&judge_run(&project, &server, model, &[]));
    }
    ok(&cli(&project).args(["baselines", "run"]).output().unwrap());
    let out_dir = dir.path().join("report");
    ok(&battery(&project, "contrary,=cmd", &out_dir, &[]));
    let t3 = std::fs::read_to_string(out_dir.join("table3.csv")).unwrap();
    assert!(t3.contains(",-0.500,"), "the pooled FS of -1 and 0 is -0.5, written as a number: {t3}");
    let text = ["evaluator", "prompt", "model", "evaluator"];
    let mut checked = 0;
    for f in ["table2.csv", "table3.csv", "figure3_grid.csv"] {
        checked += numeric_columns(&std::fs::read_to_string(out_dir.join(f)).unwrap(), &text);
    }
    assert!(checked > 40, "{checked}");
    let grid = std::fs::read_to_string(out_dir.join("figure3_grid.csv")).unwrap();
    assert!(grid.contains("'=cmd,force_aware,'=cmd@force_aware,10,10,0,1.000,0.000"), "text keeps its guard: {grid}");
    assert!(grid.contains("contrary,force_aware,contrary@force_aware,10,10,0,1.000,-1.000"), "{grid}");
}
