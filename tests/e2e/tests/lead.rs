//! The lead's and the annotator's round trip in the real app window (WebKitGTK through
//! tauri-driver), with the real `forcebench` command line on the other side:
//! - Packets: a CSV offered as a packet is named as not one; Ana's issued packet opens as her
//!   workspace, a row is annotated there by keyboard and the return is written; the lead's
//!   command line merges it.
//! - Agreement: the view shows the kappa `forcebench agreement --json` prints, and a confusion
//!   cell lists the rows behind it.
//! - Live views: a change made with the command line while the window is open reaches the
//!   candidate list and its counts within seconds, with no reload.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use fantoccini::key::Key;
use fantoccini::Client;
use forcebench::{candidate, sample, Project};
use forcebench_e2e::client::{
    cli_binary, click, css, js, k, keys, run, session, shot, text_of, wait_js, wait_js_within, Res, ROW_ID, SAVE_STATE,
};
use forcebench_e2e::{find_tools, start_for};
use serde_json::{json, Value};

/// Runs the real command line on the project; returns stdout, panicking with stderr on failure.
fn cli(project: &Path, args: &[&str]) -> String {
    let bin = cli_binary().unwrap_or_else(|m| panic!("{m}"));
    let out = Command::new(&bin).arg("--project").arg(project).args(args).output().expect("run forcebench");
    assert!(out.status.success(), "forcebench {args:?} failed:\n{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Types into an input found by test id, replacing what it held (WebKit keeps typed text in the
/// DOM value, which is what Svelte's binding reads on the input event).
async fn type_into(client: &Client, testid: &str, text: &str) -> Res {
    // Waited for: a view's code is fetched the first time it is opened (Alt+3 just before).
    let field =
        client.wait().at_most(Duration::from_secs(10)).for_element(css(&format!("[data-testid={testid}]"))).await?;
    field.clear().await?;
    field.send_keys(text).await?;
    Ok(())
}

async fn packets_round_trip(client: Client, dir: std::path::PathBuf, ana_packet: String) -> Res {
    client.wait().at_most(Duration::from_secs(30)).for_element(css("[data-testid=nav-packets]")).await?;
    keys(&client, &format!("{}3", k(Key::Alt))).await?; // Alt+3: Packets

    // Broke: a CSV opened as a packet said "1 problem found; nothing was imported".
    let csv = dir.join("candidates.csv");
    std::fs::write(&csv, "id,passage\nfb-1,text\n")?;
    type_into(&client, "open-path", csv.to_str().unwrap()).await?;
    click(&client, "open-packet").await?;
    wait_js(
        &client,
        &format!("({})?.includes('is not a ForceBench packet') ?? null", text_of("open-error")),
        json!(true),
    )
    .await?;
    let said = js(&client, &format!("return {}", text_of("open-error"))).await?;
    assert!(!said.as_str().unwrap().contains("problem found"), "{said}");

    // Ana's packet opens as her workspace, on the Annotate view.
    type_into(&client, "open-path", &ana_packet).await?;
    click(&client, "open-packet").await?;
    wait_js(
        &client,
        &format!("({})?.startsWith('Packet workspace of Ana') ?? null", text_of("session-where")),
        json!(true),
    )
    .await?;
    wait_js(&client, &format!("({ROW_ID}) !== null"), json!(true)).await?;
    let first = js(&client, &format!("return {ROW_ID}")).await?;
    // y confirms the shown suggestions, a accepts: the row is finished and saved.
    keys(&client, "y").await?;
    keys(&client, "a").await?;
    wait_js(&client, SAVE_STATE, json!("saved")).await?;
    wait_js(
        &client,
        &format!(
            "document.querySelector('[data-testid=queue-row][data-id=\"' + {first} + '\"]')?.dataset.finished ?? null"
        ),
        json!("true"),
    )
    .await?;

    // Back to Packets: write the return.
    keys(&client, &format!("{}3", k(Key::Alt))).await?;
    let ret = dir.join("ana.returned.json");
    type_into(&client, "return-path", ret.to_str().unwrap()).await?;
    click(&client, "return-packet").await?;
    wait_js(&client, &format!("({})?.startsWith('Written to') ?? null", text_of("return-result")), json!(true)).await?;
    shot(&client, "window-packets-returned.png").await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_packet_opens_in_the_window_is_annotated_and_returned_and_the_lead_merges_it() {
    let tools = find_tools().unwrap_or_else(|message| panic!("{message}"));
    cli_binary().unwrap_or_else(|message| panic!("{message}"));
    let dir = tempfile::tempdir().unwrap();
    let lead = dir.path().join("lead.forcebench");
    {
        let mut project = Project::create(&lead, "E2E packets").unwrap();
        sample::load_sample_project(&mut project).unwrap();
    }
    let out = dir.path().join("packets");
    let issued: Value =
        serde_json::from_str(&cli(&lead, &["packets", "issue", "--out", out.to_str().unwrap(), "--json"])).unwrap();
    let ana =
        issued.as_array().expect("a list of packets").iter().find(|p| p["annotator"] == "Ana").expect("Ana's packet");
    let ana_packet = ana["file"].as_str().unwrap().to_string();

    let (display, driver) = start_for(&tools, &lead, dir.path());
    let client = session(&tools, &driver).await;
    run(client.clone(), packets_round_trip(client, dir.path().to_path_buf(), ana_packet)).await;
    drop(driver);
    drop(display);

    // The lead merges the return written by the window: one finished row of Ana's.
    let ret = dir.path().join("ana.returned.json");
    let merged: Value =
        serde_json::from_str(&cli(&lead, &["packets", "merge", ret.to_str().unwrap(), "--json"])).unwrap();
    let report = &merged.as_array().map(|a| a[0].clone()).unwrap_or(merged.clone());
    assert_eq!(report["annotator"], "Ana", "{merged}");
    assert_eq!(report["finished_rows"], 1, "{merged}");
    assert!(report["new_events"].as_u64().unwrap() >= 2, "a decision and the confirmations: {merged}");
}

async fn agreement_matches_the_cli(client: Client, kappa: String, cell: (usize, usize, usize)) -> Res {
    client.wait().at_most(Duration::from_secs(30)).for_element(css("[data-testid=nav-agreement]")).await?;
    keys(&client, &format!("{}4", k(Key::Alt))).await?; // Alt+4: Agreement
    wait_js(&client, "document.querySelector('[data-testid=kappa]')?.textContent ?? null", json!(kappa)).await?;
    // The decision table's cell (row, col) lists as many rows as the command line counted there.
    let (row, col, n) = cell;
    let selector = format!("[data-testid=cell][data-table=decision][data-row=\"{row}\"][data-col=\"{col}\"]");
    js(&client, &format!("document.querySelector('{selector}').click(); return true")).await?;
    wait_js(&client, "document.querySelectorAll('[data-testid=cell-row]').length", json!(n)).await?;
    shot(&client, "window-agreement-cell.png").await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agreement_view_shows_the_kappa_the_command_line_prints_and_the_rows_behind_a_cell() {
    let tools = find_tools().unwrap_or_else(|message| panic!("{message}"));
    cli_binary().unwrap_or_else(|message| panic!("{message}"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agreement.forcebench");
    {
        let mut project = Project::create(&path, "E2E agreement").unwrap();
        sample::load_demo_project(&mut project).unwrap();
    }
    let report: Value = serde_json::from_str(&cli(&path, &["agreement", "--json"])).unwrap();
    let kappa = report["cohen_kappa"].as_f64().expect("kappa is defined on the demo project");
    // The view shows two decimals, as the command line's own table does.
    let shown = format!("{kappa:.2}");
    // The off-diagonal cell with the most rows: a disagreement the lead would look at.
    let matrix = report["confusion"].as_array().expect("the decision table");
    let mut best = (0, 0, 0);
    for (i, r) in matrix.iter().enumerate() {
        for (j, n) in r.as_array().unwrap().iter().enumerate() {
            let n = n.as_u64().unwrap() as usize;
            if i != j && n > best.2 {
                best = (i, j, n);
            }
        }
    }
    assert!(best.2 > 0, "the demo project has disagreements: {}", report["confusion"]);

    let (display, driver) = start_for(&tools, &path, dir.path());
    let client = session(&tools, &driver).await;
    run(client.clone(), agreement_matches_the_cli(client, shown, best)).await;
    drop(driver);
    drop(display);
}

async fn list_follows_the_cli(client: Client, path: std::path::PathBuf, id: String) -> Res {
    client.wait().at_most(Duration::from_secs(30)).for_element(css("[data-testid=candidate-row]")).await?;
    let badge = format!("document.querySelector('[data-testid=candidate-row][data-id=\"{id}\"] [data-testid=state-badge]')?.dataset.state ?? null");
    let count = "document.querySelector('[data-testid=state-count][data-state=annotating] .n')?.textContent ?? null";
    wait_js(&client, &badge, json!("assigned")).await?;
    wait_js(&client, count, json!("0")).await?;
    // The command line finishes one annotation of the row while the window is open.
    let (a, _) = forcebench::assign::annotators_of(&Project::open(&path)?, &id)?.expect("assigned");
    let file = path.with_file_name("one.jsonl");
    std::fs::write(
        &file,
        format!("{}\n", json!({ "id": id, "decision": "reject_not_force_gap", "boundary_type": "duplicate" })),
    )?;
    cli(&path, &["annotate", "import", file.to_str().unwrap(), "--annotator", &a]);
    // Broke: the list and its counts loaded once, so they kept saying "assigned" and 0.
    wait_js_within(&client, &badge, json!("annotating"), Duration::from_secs(10)).await?;
    wait_js_within(&client, count, json!("1"), Duration::from_secs(10)).await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_made_with_the_command_line_reaches_the_open_window_within_seconds() {
    let tools = find_tools().unwrap_or_else(|message| panic!("{message}"));
    cli_binary().unwrap_or_else(|message| panic!("{message}"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.forcebench");
    let id = {
        let mut project = Project::create(&path, "E2E live").unwrap();
        sample::load_sample_project(&mut project).unwrap();
        candidate::list(&project).unwrap().remove(0).id
    };
    let (display, driver) = start_for(&tools, &path, dir.path());
    let client = session(&tools, &driver).await;
    run(client.clone(), list_follows_the_cli(client, path.clone(), id)).await;
    drop(driver);
    drop(display);
}

async fn open_feedback(client: Client, file: String, summary: String, first_row: String) -> Res {
    client.wait().at_most(Duration::from_secs(30)).for_element(css("[data-testid=nav-packets]")).await?;
    keys(&client, &format!("{}3", k(Key::Alt))).await?; // Alt+3: Packets
    type_into(&client, "feedback-path", &file).await?;
    click(&client, "feedback-open").await?;
    wait_js(&client, &text_of("feedback-summary"), json!(summary)).await?;
    let first = js(&client, "return document.querySelector('[data-testid=feedback-row]')?.dataset.id ?? null").await?;
    assert_eq!(first, json!(first_row));
    shot(&client, "window-feedback.png").await?;
    Ok(())
}

// The annotator's side of feedback: the file the lead's command line wrote opens in the
// window with the figures the core computed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_feedback_file_written_by_the_lead_opens_in_the_annotators_window() {
    let tools = find_tools().unwrap_or_else(|message| panic!("{message}"));
    cli_binary().unwrap_or_else(|message| panic!("{message}"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("feedback.forcebench");
    {
        let mut project = Project::create(&path, "E2E feedback").unwrap();
        sample::load_demo_project(&mut project).unwrap();
    }
    cli(&path, &["adjudicate", "confirm-agreements", "--adjudicator", "Eve", "--affirm"]);
    // Eve settles every decision disagreement by taking B's label, with a rationale.
    let queue: Value = serde_json::from_str(&cli(&path, &["adjudicate", "queue", "--json"])).unwrap();
    let open: Vec<&str> = queue["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|q| q["category"] == "decision_disagreement")
        .map(|q| q["id"].as_str().unwrap())
        .collect();
    assert!(!open.is_empty(), "the demo project has decision disagreements");
    let mut lines = String::new();
    for id in &open {
        let row: Value = serde_json::from_str(&cli(&path, &["adjudicate", "show", id, "--json"])).unwrap();
        let fields = row["fields"].as_array().unwrap();
        if fields.iter().any(|f| f["field"] == "decision" && f["b"] == "needs_discussion") {
            continue;
        }
        // B's value for every field where the two differ (a span as its object, severity a number).
        let mut line = json!({ "id": id, "rationale": "B read the hedge right" });
        for f in fields.iter().filter(|f| f["differs"] == true) {
            let value = match (f["field"].as_str().unwrap(), f["b"].as_str()) {
                ("evidence_span", Some(v)) => serde_json::from_str(v).unwrap(),
                ("severity", Some(v)) => json!(v.parse::<u8>().unwrap()),
                (_, v) => json!(v),
            };
            line[f["field"].as_str().unwrap()] = value;
        }
        lines += &format!("{line}\n");
    }
    std::fs::write(dir.path().join("adj.jsonl"), lines).unwrap();
    let adj = dir.path().join("adj.jsonl");
    cli(&path, &["adjudicate", "import", adj.to_str().unwrap(), "--adjudicator", "Eve"]);
    let out = dir.path().join("fb");
    let written: Value =
        serde_json::from_str(&cli(&path, &["feedback", "issue", "--out", out.to_str().unwrap(), "--json"])).unwrap();
    let with_rows = written
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["differing_rows"].as_u64().unwrap() > 0)
        .expect("someone has feedback");
    let file = with_rows["file"].as_str().unwrap().to_string();
    let f: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let s = &f["summary"];
    let seconds = s["seconds_per_row"].as_f64().map_or(String::new(), |x| format!("; {} s per row", x.round()));
    let summary = format!(
        "{}: {} adjudicated rows, {} where the final label differs from yours{seconds}. Guideline in force: version 2.",
        f["annotator"].as_str().unwrap(),
        s["adjudicated_rows"],
        s["differing_rows"]
    );
    let first_row = f["rows"][0]["id"].as_str().unwrap().to_string();

    let (display, driver) = start_for(&tools, &path, dir.path());
    let client = session(&tools, &driver).await;
    run(client.clone(), open_feedback(client, file, summary, first_row)).await;
    drop(driver);
    drop(display);
}
