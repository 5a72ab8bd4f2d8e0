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

// Broke before: the battery sent every request and stored the answers before it noticed the
// report folder could not be written or a list named one thing twice; `--no-run --models typo`
// exited 0 with an empty report; a panel or a pair naming one evaluator twice was accepted.
#[test]
fn every_battery_panel_and_paired_input_is_checked_before_anything_is_sent() {
    let dir = tempfile::tempdir().unwrap();
    let (project, p, pairs) = locked(dir.path());
    drop(p);
    let server = scripted(&pairs, |_, _| false);
    let a_file = dir.path().join("a-file");
    std::fs::write(&a_file, "x").unwrap();
    let taken = dir.path().join("taken");
    std::fs::create_dir(&taken).unwrap();
    std::fs::write(taken.join("table2.csv"), "mine").unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&taken, &link).unwrap();
    let fresh = dir.path().join("fresh");
    let run = |models: &str, templates: &str, out: &Path| {
        cli(&project)
            .args(["judge", "battery", "--base-url", &server.base_url, "--models", models, "--templates", templates])
            .arg("--out")
            .arg(out)
            .output()
            .unwrap()
    };
    let cases: Vec<(&str, &str, &Path, &str)> = vec![
        ("m1", "generic", &a_file, "is a file, not a folder"),
        ("m1", "generic", Path::new("/dev/null"), "is a file, not a folder"),
        ("m1", "generic", &taken, "already exists"),
        ("m1", "generic", &link, "is a symbolic link"),
        ("m1,m1", "generic", &fresh, "--models: `m1` is named twice (entries 1 and 2)"),
        ("caf\u{e9},cafe\u{301}", "generic", &fresh, "(the same name in another Unicode form)"),
        ("m1", "generic,generic", &fresh, "--templates: `generic` is named twice"),
        ("m1", "generic,nosuch", &fresh, "`nosuch` is neither a template"),
        ("m1,", "generic", &fresh, "--models: entry 2 is empty"),
    ];
    for (models, templates, out, expected) in cases {
        let stderr = err(&run(models, templates, out));
        assert!(stderr.contains(expected), "{models} {templates} {}: {stderr}", out.display());
        assert!(stderr.starts_with("error ["), "{stderr}");
        assert_eq!(server.prompts().len(), 0, "{models} {templates}: nothing sent");
    }
    assert_eq!(std::fs::read_to_string(taken.join("table2.csv")).unwrap(), "mine");
    assert!(!fresh.exists());
    let runs = ok(&cli(&project).args(["judge", "runs", "--json"]).output().unwrap());
    assert_eq!(runs.trim(), "[]", "nothing stored");
    // A report from what is stored names the cells it does not have.
    ok(&judge_run(&project, &server, "m1", &[]));
    let stderr = err(&battery(&project, "m1,typo", &fresh, &[]));
    assert!(stderr.contains("error [no_evaluator]") && stderr.contains("typo@force_aware"), "{stderr}");
    assert!(!fresh.exists());
    // A panel or a pair naming one evaluator twice, in any spelling.
    let stderr = err(&cli(&project).args(["evaluate", "panel", "m1@force_aware", " m1@force_aware"]).output().unwrap());
    assert!(stderr.contains("`m1@force_aware` is named twice in a panel"), "{stderr}");
    let stderr = err(&cli(&project).args(["evaluate", "paired", "m1@force_aware", "m1@force_aware"]).output().unwrap());
    assert!(stderr.contains("side A and side B are the same (m1@force_aware)"), "{stderr}");
}

// Broke before: a run of the old force_aware template (the one that put `{{axis}}` in the
// prompt) pooled into tables and panels like any other.
#[test]
fn a_leaky_run_is_marked_and_kept_out_of_every_table_panel_and_comparison() {
    let dir = tempfile::tempdir().unwrap();
    let (project, p, pairs) = locked(dir.path());
    drop(p);
    let server = scripted(&pairs, |_, _| false);
    for model in ["old", "new"] {
        ok(&judge_run(&project, &server, model, &[]));
    }
    // What a run of the first force_aware template stored: its text ended with the gold axis.
    let db = rusqlite::Connection::open(&project).unwrap();
    db.execute(
        "UPDATE judge_runs SET template_text = template_text || 'The force axis to watch here is: {{axis}}' WHERE name = 'old@force_aware'",
        [],
    )
    .unwrap();
    drop(db);
    let listed = ok(&cli(&project).args(["judge", "runs"]).output().unwrap());
    assert!(listed.contains("LEAKY: its template puts {{axis}} in the prompt"), "{listed}");
    let runs: Value =
        serde_json::from_str(&ok(&cli(&project).args(["judge", "runs", "--json"]).output().unwrap())).unwrap();
    let leaky: Vec<bool> = runs.as_array().unwrap().iter().map(|r| r["leaky"].is_string()).collect();
    assert_eq!(leaky, [false, true], "new, then old");
    let why = "error [bad_template]: `old@force_aware` is leaky";
    for args in [
        vec!["evaluate", "panel", "old@force_aware", "new@force_aware", "--include-incomplete"],
        vec!["evaluate", "paired", "old@force_aware", "new@force_aware"],
    ] {
        let stderr = err(&cli(&project).args(&args).output().unwrap());
        assert!(stderr.contains(why), "{args:?}: {stderr}");
    }
    let stderr = err(&battery(&project, "old,new", &dir.path().join("r"), &["--include-incomplete"]));
    assert!(stderr.contains(why), "{stderr}");
    // The app's grid shows the cell and pools only the clean one.
    let p = forcebench::Project::open(&project).unwrap();
    let grid = evaluate::battery::stored(&p).unwrap();
    let old = grid.cells.iter().find(|c| c.evaluator == "old@force_aware").unwrap();
    assert!(old.left_out.as_deref().unwrap().contains("is leaky"));
    assert_eq!(grid.pooled[0].panel.members, ["new@force_aware"]);
}

// Broke before: a password in --base-url was stored and printed by `judge runs`; zero tries,
// answers or seconds were taken as 1; a pairwise template under the evidence swap was refused
// as `No file or folder at pairwise`.
#[test]
fn run_settings_no_run_can_be_made_with_are_refused_in_words() {
    let dir = tempfile::tempdir().unwrap();
    let (project, p, pairs) = locked(dir.path());
    drop(p);
    let server = scripted(&pairs, |_, _| false);
    let with_password = server.base_url.replace("http://", "http://lab:s3cret@");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--base-url", &with_password], "--base-url holds a user name or password"),
        (vec!["--base-url", &server.base_url, "--attempts", "0"], "--attempts 0 would send nothing"),
        (vec!["--base-url", &server.base_url, "--answer-attempts", "0"], "--answer-attempts 0 would keep no answer"),
        (vec!["--base-url", &server.base_url, "--timeout", "0"], "--timeout 0 leaves no time for an answer"),
        (vec!["--base-url", &server.base_url, "--concurrency", "0"], "--concurrency 0 is outside what a run can keep"),
        (
            vec!["--base-url", &server.base_url, "--concurrency", "65"],
            "--concurrency 65 is outside what a run can keep",
        ),
    ];
    for (args, expected) in cases {
        let out = cli(&project)
            .args(["judge", "run", "--model", "m", "--template", "generic", "--name", "m"])
            .args(&args)
            .output()
            .unwrap();
        let stderr = err(&out);
        assert!(stderr.contains(&format!("error [invalid_argument]: {expected}")), "{stderr}");
        assert!(!stderr.contains("s3cret"), "{stderr}");
        let battery = cli(&project)
            .args(["judge", "battery", "--models", "m", "--out"])
            .arg(dir.path().join("b"))
            .args(&args)
            .output()
            .unwrap();
        assert!(err(&battery).contains(expected));
    }
    assert_eq!(server.prompts().len(), 0);
    let stderr = err(&cli(&project)
        .args(["judge", "run", "--base-url", &server.base_url, "--model", "m", "--name", "m"])
        .args(["--template", "pairwise", "--control", "swapped_evidence"])
        .output()
        .unwrap());
    assert!(
        stderr.contains("`pairwise` is a pairwise template (both claims in one prompt): it is for the order control (`--control order`), not for --control swapped_evidence"),
        "{stderr}"
    );
    let runs = ok(&cli(&project).args(["judge", "runs", "--json"]).output().unwrap());
    assert_eq!(runs.trim(), "[]");
}
