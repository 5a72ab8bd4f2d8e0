//! The candidate list in the real app window (WebKitGTK through tauri-driver): a sample row's
//! text comes from the project, and a row carrying HTML and script payloads shows them
//! literally without running anything.

use std::path::Path;
use std::time::{Duration, Instant};

use fantoccini::Client;
use forcebench::candidate::{self, CandidateDetail, CandidateSummary};
use forcebench::{import, sample, Project};
use forcebench_e2e::client::{css, js, run, session, shot, Res};
use forcebench_e2e::{find_tools, start_for};
use serde_json::json;

const FIXTURE: &str = "fixtures/html-payload.jsonl";
const HOSTILE_ID: &str = "e2e-html-001";
const IMG_PAYLOAD: &str = r#"<img src=x onerror="document.title='pwned'">"#;

/// Builds the project the window opens: the sample rows plus the hostile fixture row. Returns the
/// first row, the hostile one in full and every row's id in the core's order.
fn make_project(path: &Path) -> (CandidateSummary, CandidateDetail, Vec<String>) {
    let mut project = Project::create(path, "E2E project").expect("create the project");
    sample::load_sample(&mut project).expect("load the sample");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE);
    import::import_file(&mut project, &fixture, &mut |_, _| {}).expect("import the fixture");
    let rows = candidate::list(&project).unwrap();
    let hostile = candidate::get(&project, HOSTILE_ID).unwrap();
    (rows[0].clone(), hostile, rows.into_iter().map(|r| r.id).collect())
}

/// The list's scrolling element (the table draws only the rows near what is in view).
const LIST: &str = "document.querySelector('[data-testid=candidate-table]').parentElement";

/// Every row of the list in order, read by scrolling it from top to bottom; leaves it at the top.
async fn every_listed_id(client: &Client) -> Res<Vec<String>> {
    let drawn = "return [...document.querySelectorAll('[data-testid=candidate-row]')].map((tr) => tr.dataset.id)";
    let mut seen: Vec<String> = Vec::new();
    js(client, &format!("{LIST}.scrollTop = 0")).await?;
    loop {
        tokio::time::sleep(Duration::from_millis(150)).await;
        for id in serde_json::from_value::<Vec<String>>(js(client, drawn).await?)? {
            if !seen.contains(&id) {
                seen.push(id);
            }
        }
        let end = format!("const l = {LIST}; return l.scrollTop + l.clientHeight >= l.scrollHeight - 1");
        if js(client, &end).await? == json!(true) {
            break;
        }
        js(client, &format!("const l = {LIST}; l.scrollTop += l.clientHeight / 2")).await?;
    }
    js(client, &format!("{LIST}.scrollTop = 0")).await?;
    Ok(seen)
}

async fn text_of(client: &Client, selector: &str) -> Res<String> {
    Ok(client.find(css(selector)).await?.prop("textContent").await?.unwrap_or_default())
}

/// Polls until `selector`'s text equals `want` (the UI loads details asynchronously).
async fn wait_for_text(client: &Client, selector: &str, want: &str) -> Res {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let got = text_of(client, selector).await.unwrap_or_default();
        if got == want {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!("{selector} shows {got:?}, expected {want:?}").into());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn exercise(
    client: Client,
    path: std::path::PathBuf,
    first: CandidateSummary,
    hostile: CandidateDetail,
    ids: Vec<String>,
) -> Res {
    let count = ids.len();
    client.wait().at_most(Duration::from_secs(30)).for_element(css("[data-testid=candidate-row]")).await?;
    let title = client.title().await?;
    assert_eq!(title, "ForceBench Studio");
    assert_eq!(text_of(&client, "[data-testid=project-name]").await?, "E2E project");
    // Every row is listed, in the core's order, though only those near the view are drawn.
    forcebench_e2e::client::wait_js(
        &client,
        "document.querySelector('[data-testid=shown-count]')?.textContent ?? null",
        json!(format!("{count} of {count} shown")),
    )
    .await?;
    let drawn = client.find_all(css("[data-testid=candidate-row]")).await?.len();
    assert!(drawn < count && drawn <= 60, "{drawn} of {count} rows drawn");
    assert_eq!(every_listed_id(&client).await?, ids);

    // The first sample row, as the core reads it, is in the list.
    let row = client.wait().for_element(css(&format!("[data-testid=candidate-row][data-id=\"{}\"]", first.id))).await?;
    let claim = row.find(css("[data-testid=row-calibrated]")).await?.prop("textContent").await?;
    assert_eq!(claim.as_deref(), Some(first.calibrated_claim.as_str()));
    // Click a cell, as a person would (WebKitWebDriver finds a <tr> itself not interactable).
    row.find(css("[data-testid=row-id]")).await?.click().await?;
    wait_for_text(&client, "[data-testid=detail-id]", &first.id).await?;
    assert_eq!(text_of(&client, "[data-testid=detail-calibrated]").await?, first.calibrated_claim);
    shot(&client, "window-sample-row.png").await?;

    // The row with HTML and script payloads (the last) shows them as text and runs nothing.
    js(&client, &format!("{LIST}.scrollTop = {LIST}.scrollHeight")).await?;
    client.wait().for_element(css(&format!("[data-testid=candidate-row][data-id=\"{HOSTILE_ID}\"]"))).await?;
    let row = client.find(css(&format!("[data-testid=candidate-row][data-id=\"{HOSTILE_ID}\"]"))).await?;
    row.find(css("[data-testid=row-id]")).await?.click().await?;
    wait_for_text(&client, "[data-testid=detail-id]", HOSTILE_ID).await?;
    assert_eq!(text_of(&client, "[data-testid=detail-passage]").await?, hostile.candidate.passage);
    assert_eq!(text_of(&client, "[data-testid=detail-span]").await?, IMG_PAYLOAD);
    assert_eq!(text_of(&client, "[data-testid=detail-raised]").await?, hostile.candidate.raised_claim);
    tokio::time::sleep(Duration::from_millis(300)).await; // let any injected handler fire
    assert!(client.find_all(css("[data-testid=candidate-detail] img")).await?.is_empty());
    assert_eq!(js(&client, "return document.querySelectorAll('img').length").await?, json!(0));
    assert_eq!(js(&client, "return typeof window.__pwned").await?, json!("undefined"));
    assert_eq!(client.title().await?, title, "document.title was changed by a payload");
    // The CSP from tauri.conf.json is in force: no eval.
    let eval = "try { eval('1'); return 'eval ran'; } catch (e) { return e.name; }";
    assert_eq!(js(&client, eval).await?, json!("EvalError"));
    shot(&client, "window-html-payload.png").await?;

    // Broke: the list and the header's counts loaded once at start. Another connection (as the
    // command line would) adds a roster and assigns every row; the open window follows.
    let state_of = |id: &str| {
        format!("document.querySelector('[data-testid=candidate-row][data-id=\"{id}\"] [data-testid=state-badge]')?.dataset.state ?? null")
    };
    // Back to the top, where the first row is drawn (the selection stays on the hostile row).
    js(&client, &format!("{LIST}.scrollTop = 0")).await?;
    forcebench_e2e::client::wait_js(&client, &format!("({}) !== null", state_of(&first.id)), json!(true)).await?;
    assert_eq!(js(&client, &format!("return {}", state_of(&first.id))).await?, json!("imported"));
    {
        let mut other = Project::open(&path).expect("a second connection");
        for name in ["Ana", "Ben"] {
            forcebench::roster::add(&other, name, forcebench::roster::Role::Annotator).unwrap();
        }
        forcebench::assign::assign(&mut other, 1).unwrap();
    }
    forcebench_e2e::client::wait_js(&client, &state_of(&first.id), json!("assigned")).await?;
    forcebench_e2e::client::wait_js(
        &client,
        "document.querySelector('[data-testid=state-count][data-state=assigned] .n')?.textContent ?? null",
        json!(count.to_string()),
    )
    .await?;
    wait_for_text(&client, "[data-testid=detail-id]", HOSTILE_ID).await?;
    forcebench_e2e::client::wait_js(
        &client,
        "document.querySelector('[data-testid=candidate-detail] [data-testid=state-badge]')?.dataset.state ?? null",
        json!("assigned"),
    )
    .await?;
    Ok(())
}

/// The app has WebKit draw without accelerated compositing unless its environment says otherwise
/// (`forcebench_studio::draw_without_compositing`): WebKit's web process, which reads the setting,
/// holds it as the app leaves it, "1" where this test's environment has none.
fn web_process_draws_without_compositing(driver: u32) {
    let variable = "WEBKIT_DISABLE_COMPOSITING_MODE";
    let want = format!("{variable}={}", std::env::var(variable).unwrap_or_else(|_| "1".into()));
    let web: Vec<u32> = forcebench_e2e::descendants(driver)
        .into_iter()
        .filter(|(_, n)| n == "WebKitWebProces")
        .map(|(p, _)| p)
        .collect();
    assert!(!web.is_empty(), "no WebKit web process under tauri-driver");
    for pid in web {
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
        let found: Vec<String> = environ
            .split(|&b| b == 0)
            .map(|v| String::from_utf8_lossy(v).into_owned())
            .filter(|v| v.starts_with(&format!("{variable}=")))
            .collect();
        assert_eq!(found, [want.as_str()], "the web process's {variable}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn candidate_list_in_the_real_window() {
    let tools = find_tools().unwrap_or_else(|message| panic!("{message}"));
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("e2e.forcebench");
    let (first, hostile, ids) = make_project(&project);

    let (display, driver) = start_for(&tools, &project, dir.path());

    let client = session(&tools, &driver).await;
    web_process_draws_without_compositing(driver.pid());
    run(client.clone(), exercise(client, project.clone(), first, hostile, ids)).await;
    drop(driver);
    drop(display);
}
