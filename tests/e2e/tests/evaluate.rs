//! The evaluation view in the real app window (WebKitGTK through tauri-driver): on a project
//! with a locked split, Run baselines fills the comparison table with the core's figures, the
//! core's SVG plots show inline under the app's CSP, Export plots writes SVG and PNG into a
//! typed folder, an LLM judge's requests are written and its answers read back and scored, a
//! judge is run against a scripted endpoint, and a panel file of two API styles is run as a
//! battery with its report folder written.

use std::path::Path;
use std::time::Duration;

use fantoccini::key::Key;
use fantoccini::Client;
use forcebench::split::{self, SplitParams};
use forcebench::{adjudicate, evaluate, sample, Project};
use forcebench_e2e::client::{click, css, js, k, keys, run, session, shot, text_of, wait_js_within, Res};
use forcebench_e2e::{find_tools, start_for};
use serde_json::json;

/// `client::wait_js` with the 20 s this file has always allowed, not 10: its waits follow the
/// baselines (bootstrapped) and the export of the plots.
async fn wait_js(client: &Client, expr: &str, want: serde_json::Value) -> Res {
    wait_js_within(client, expr, want, Duration::from_secs(20)).await
}

/// From the app's start to the evaluation view, by Alt+8.
async fn enter_evaluate(client: &Client) -> Res {
    client.wait().at_most(Duration::from_secs(30)).for_element(css("[data-testid=nav-evaluate]")).await?;
    keys(client, &format!("{}8", k(Key::Alt))).await?;
    client
        .wait()
        .at_most(Duration::from_secs(20))
        .for_element(css("[data-testid=comparison], [data-testid=evaluate-empty]"))
        .await?;
    Ok(())
}

/// The demo project with every row annotated, the full agreements confirmed, and a split of 4
/// evaluation rows per axis locked; no evaluator yet.
fn make_project(path: &Path) {
    let mut project = Project::create(path, "E2E evaluate").expect("create the project");
    sample::load_sample_project(&mut project).unwrap();
    sample::annotate_sample(&mut project, 106, 1).unwrap();
    adjudicate::confirm_and_affirm(&mut project, "Eve").unwrap();
    split::draft(&mut project, &SplitParams::new(Default::default(), Some(4), Some(1))).unwrap();
    split::audit_sample(&mut project, "Eve").unwrap();
    split::lock(&mut project).unwrap();
}

fn row_text(name: &str) -> String {
    format!("document.querySelector('tr[data-evaluator=\"{name}\"]')?.innerText.replace(/\\s+/g, ' ').trim() ?? null")
}

/// Replaces the text of the input with test id `testid` by `text`.
async fn fill(client: &Client, testid: &str, text: &str) -> Res {
    let input = client.find(css(&format!("[data-testid={testid}]"))).await?;
    input.clear().await?;
    input.send_keys(text).await?;
    Ok(())
}

/// Answers every judge request in `requests` right (JSON), except the first, which gets no
/// verdict; writes them to `responses`. Returns the first request's id.
fn answer(requests: &Path, responses: &Path) -> String {
    let lines: Vec<serde_json::Value> =
        std::fs::read_to_string(requests).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let mut out = String::new();
    for (i, r) in lines.iter().enumerate() {
        let label = if r["claim"] == "safe" { "force_calibrated" } else { "force_gap" };
        let response = if i == 0 { "I cannot say.".to_string() } else { format!("{{\"label\": \"{label}\"}}") };
        out += &format!("{}\n", json!({ "request_id": r["request_id"], "response": response }));
    }
    std::fs::write(responses, out).unwrap();
    lines[0]["request_id"].as_str().unwrap().to_string()
}

async fn exercise(
    client: Client,
    expected: Vec<(String, String)>,
    out: String,
    judge: std::path::PathBuf,
    n_pairs: u64,
    endpoint: String,
) -> Res {
    enter_evaluate(&client).await?;
    wait_js(&client, "!!document.querySelector('[data-testid=comparison-none]')", json!(true)).await?;
    click(&client, "run-baselines").await?;
    wait_js(&client, "document.querySelectorAll('[data-testid=report-row]').length", json!(5)).await?;
    for (name, row) in &expected {
        wait_js(&client, &row_text(name), json!(row)).await?;
    }
    // The core's SVG, inline: its text is in the page (the CSP let it in).
    wait_js(&client, "document.querySelectorAll('[data-testid=plot-scatter] svg text').length > 5", json!(true))
        .await?;
    wait_js(
        &client,
        "document.querySelector('[data-testid=plot-heatmap] svg text')?.textContent ?? null",
        json!("MVR per axis (lower is better)"),
    )
    .await?;
    let body: String = serde_json::from_value(js(&client, "return document.body.innerText;").await?)?;
    for raw in ["NaN", "null", "undefined", "Infinity"] {
        assert!(!body.split_whitespace().any(|w| w == raw), "{raw} on screen:\n{body}");
    }
    shot(&client, "window-evaluate.png").await?;

    let input = client.find(css("[data-testid=plots-dir]")).await?;
    input.clear().await?;
    input.send_keys(&out).await?;
    click(&client, "export-plots").await?;
    wait_js(
        &client,
        &text_of("export-done"),
        json!("Wrote 4 files: mvr_fs.svg mvr_fs.png mvr_by_axis.svg mvr_by_axis.png"),
    )
    .await?;

    // The judge: requests with the default template, two per pair; then its answers, one with
    // no verdict, which counts as a violation with margin 0.
    let (requests, responses) = (judge.join("requests.jsonl"), judge.join("responses.jsonl"));
    fill(&client, "judge-out", requests.to_str().unwrap()).await?;
    click(&client, "judge-write").await?;
    let written = format!(
        "Wrote {} requests to requests.jsonl. Save each answer as a JSONL line of request_id and response, then read them below.",
        2 * n_pairs
    );
    wait_js(&client, &text_of("judge-written"), json!(written)).await?;
    let unreadable = answer(&requests, &responses);
    fill(&client, "judge-path", responses.to_str().unwrap()).await?;
    fill(&client, "judge-name", "window-judge").await?;
    click(&client, "judge-read").await?;
    let n = n_pairs as f64;
    let read = format!(
        "Scored window-judge on {n_pairs} pairs: MVR {:.3}, FS {:.3}. Read {} responses: {} as JSON, 0 by a label in the text, 1 with no verdict. {unreadable}",
        1.0 / n,
        (n - 1.0) / n,
        2 * n_pairs,
        2 * n_pairs - 1
    );
    wait_js(&client, &text_of("judge-read-done"), json!(read)).await?;
    wait_js(&client, "document.querySelectorAll('[data-testid=report-row]').length", json!(6)).await?;
    shot(&client, "window-evaluate-judge.png").await?;

    // A judge run from the window against the endpoint the test serves: every claim is called a
    // force gap, so every pair ties (MVR 1, FS 0) and the judge agrees with the humans on half
    // the claims.
    fill(&client, "run-url", &endpoint).await?;
    fill(&client, "run-model", "scripted").await?;
    fill(&client, "run-name", "window-run").await?;
    click(&client, "run-start").await?;
    let done = format!("{0} of {0} requests answered (0 before this run). MVR 1.000, FS 0.000.", 2 * n_pairs);
    wait_js(&client, &text_of("run-done"), json!(done)).await?;
    wait_js(&client, "document.querySelectorAll('[data-testid=report-row]').length", json!(7)).await?;
    wait_js(
        &client,
        &format!("({})?.includes('on {} claims') ?? null", text_of("run-trust"), 2 * n_pairs),
        json!(true),
    )
    .await?;
    shot(&client, "window-evaluate-run.png").await?;

    // A panel file of two API styles (chat and Responses) against the same scripted server: read
    // by the core and listed, run cell by cell through the shell's channel, the report written.
    let panel = judge.join("panel.toml");
    std::fs::write(
        &panel,
        format!(
            "[[model]]\nname = \"open-chat\"\nbase_url = \"{endpoint}\"\n\n[[model]]\nname = \"gpt-r\"\napi = \"responses\"\nbase_url = \"{endpoint}\"\nno_temperature = true\nextra = {{ reasoning = {{ effort = \"minimal\" }} }}\n"
        ),
    )?;
    fill(&client, "battery-panel", panel.to_str().unwrap()).await?;
    click(&client, "battery-read").await?;
    wait_js(&client, "document.querySelectorAll('[data-testid=battery-models] li').length", json!(2)).await?;
    fill(&client, "battery-templates", "force_aware").await?;
    let report = judge.join("panel report");
    fill(&client, "battery-out", report.to_str().unwrap()).await?;
    click(&client, "battery-run").await?;
    wait_js(
        &client,
        &format!(
            "({})?.startsWith('Report written to {}: report.json table2.csv') ?? null",
            text_of("battery-written"),
            report.display()
        ),
        json!(true),
    )
    .await?;
    wait_js(
        &client,
        &format!("{} ?? null", text_of("grid-answered-gpt-r-force_aware")),
        json!(format!("{0}/{0} answered", 2 * n_pairs)),
    )
    .await?;
    shot(&client, "window-evaluate-panel.png").await?;
    Ok(())
}

/// An OpenAI-compatible endpoint on 127.0.0.1 that calls every claim a force gap (the scripted
/// server the core's and the shell's tests use).
fn endpoint() -> String {
    use forcebench_test_support::openai::{Reply, Server};
    Server::start_with_path(|path, _, _| match path {
        "/v1/responses" => Reply::responses("{\"label\": \"force_gap\"}"),
        _ => Reply::content("{\"label\": \"force_gap\"}"),
    })
    .base_url
}

fn fmt(x: Option<f64>) -> String {
    x.map_or("—".into(), |v| format!("{v:.3}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn baselines_table_plots_and_export_in_the_real_window() {
    let tools = find_tools().unwrap_or_else(|message| panic!("{message}"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("evaluate.forcebench");
    make_project(&path);
    // What the table must show: the core's own figures for the same split.
    let expected: Vec<(String, String)> = {
        // On a copy: the window starts on the project with no evaluator yet.
        let copy = dir.path().join("scratch.forcebench");
        std::fs::copy(&path, &copy).unwrap();
        let mut scratch = Project::open(&copy).unwrap();
        let reports =
            evaluate::run_baselines(&mut scratch, Some((evaluate::BOOTSTRAP_REPS, evaluate::BOOTSTRAP_SEED))).unwrap();
        reports
            .iter()
            .map(|r| {
                let ci = |c: Option<[f64; 2]>| c.map_or(String::new(), |[a, b]| format!(" {a:.3}–{b:.3}"));
                let row = format!(
                    "▸ {} baseline {} {}{} {}{} {} {}",
                    r.name.trim_start_matches("baseline:"),
                    r.overall.n_pairs,
                    fmt(r.overall.mvr),
                    ci(r.overall.mvr_ci95),
                    fmt(r.overall.fs),
                    ci(r.overall.fs_ci95),
                    r.overall.violations,
                    r.overall.missing
                );
                (r.name.clone(), row)
            })
            .collect()
    };
    let out = dir.path().join("plots out");
    let n_pairs = evaluate::eval_pairs(&Project::open(&path).unwrap()).unwrap().1.len() as u64;

    let (display, driver) = start_for(&tools, &path, dir.path());
    let client = session(&tools, &driver).await;
    let served = endpoint();
    run(
        client.clone(),
        exercise(client, expected, out.display().to_string(), dir.path().to_path_buf(), n_pairs, served),
    )
    .await;
    drop(driver);
    drop(display);

    // The window stored the judge in the project, as `forcebench judge import` would.
    let stored = evaluate::compare(&Project::open(&path).unwrap(), None).unwrap();
    let judge = stored.iter().find(|r| r.name == "window-judge").expect("the judge is stored");
    assert_eq!((judge.label_map.as_str(), judge.overall.missing, judge.overall.n_pairs), ("force", 1, n_pairs));

    for name in ["mvr_fs.png", "mvr_by_axis.png"] {
        let bytes = std::fs::read(out.join(name)).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{name}");
    }
    let svg = std::fs::read_to_string(out.join("mvr_fs.svg")).unwrap();
    assert!(svg.contains("token_overlap"));
}

/// A screenshot for a person to look at (not a test of behaviour): the evaluation view of the
/// project named by `FORCEBENCH_LOOK_EVALUATE` (copied first, so it is left as it is). Run with
/// `FORCEBENCH_LOOK_EVALUATE=FILE cargo test -p forcebench-e2e --test evaluate -- --ignored look`;
/// the picture is `tests/e2e/shots/look-evaluate.png`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "screenshot for review"]
async fn look_at_the_evaluate_view() {
    let source = std::env::var("FORCEBENCH_LOOK_EVALUATE")
        .expect("FORCEBENCH_LOOK_EVALUATE names a project with a locked split");
    let tools = find_tools().unwrap_or_else(|message| panic!("{message}"));
    let dir = tempfile::tempdir().unwrap();
    let name = Path::new(&source).file_name().expect("a file name");
    let path = dir.path().join(name);
    std::fs::copy(&source, &path).unwrap();
    let (display, driver) = start_for(&tools, &path, dir.path());
    let client = session(&tools, &driver).await;
    let c = client.clone();
    run(client, async move {
        enter_evaluate(&c).await?;
        c.wait().at_most(Duration::from_secs(20)).for_element(css("[data-testid=plot-heatmap] svg")).await?;
        tokio::time::sleep(Duration::from_millis(400)).await;
        shot(&c, "look-evaluate.png").await
    })
    .await;
    drop(driver);
    drop(display);
}
