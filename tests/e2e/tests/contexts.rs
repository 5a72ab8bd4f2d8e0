//! The contexts view in the real app window (WebKitGTK through tauri-driver): on the sample
//! contexts, a context is kept by its key, a model drafts it through the window's drafting runner
//! (the scripted OpenAI-compatible server plays the model), and its draft is promoted after the
//! confirmation; the project then holds the candidate, made by the model, with its record.

use std::time::Duration;

use fantoccini::key::Key;
use fantoccini::Client;
use forcebench::contexts::{self, ContextStage};
use forcebench::{drafting, sample, Project};
use forcebench_e2e::client::{click, css, k, keys, run, session, shot, text_of, wait_js_within, Res};
use forcebench_e2e::{find_tools, start_for};
use serde_json::json;

async fn wait_js(client: &Client, expr: &str, want: serde_json::Value) -> Res {
    wait_js_within(client, expr, want, Duration::from_secs(20)).await
}

/// Replaces the text of the input with test id `testid` by `text`.
async fn fill(client: &Client, testid: &str, text: &str) -> Res {
    let input = client.find(css(&format!("[data-testid={testid}]"))).await?;
    input.clear().await?;
    input.send_keys(text).await?;
    Ok(())
}

fn stage_of(id: &str) -> String {
    format!("document.querySelector('[data-testid=context-row][data-id=\"{id}\"]')?.dataset.stage ?? null")
}

/// The model's answer for every context: the draft fields as JSON inside prose.
const ANSWER: &str = "Here it is: {\"evidence_span\": \"a ten-minute walk after dinner\", \"calibrated_claim\": \"In a small study, a short walk after dinner lowered the two-hour glucose peak.\", \"raised_claim\": \"A short walk after dinner cures prediabetes.\", \"repair\": \"A short walk after dinner lowered the glucose peak in a small study.\", \"rationale\": \"The passage reports one outcome in one study.\", \"axis\": \"scope\", \"severity\": 3}";

async fn exercise(client: Client, endpoint: String) -> Res {
    client.wait().at_most(Duration::from_secs(30)).for_element(css("[data-testid=nav-contexts]")).await?;
    keys(&client, &format!("{}0", k(Key::Alt))).await?;
    client.wait().at_most(Duration::from_secs(20)).for_element(css("[data-testid=context-row]")).await?;
    // ctx-01 is first and not screened: k keeps it.
    wait_js(&client, "document.querySelector('[data-testid=context-row].on')?.dataset.id ?? null", json!("ctx-01"))
        .await?;
    keys(&client, "k").await?;
    wait_js(&client, &stage_of("ctx-01"), json!("kept")).await?;

    // The model drafts the kept contexts without a draft (ctx-01 and the sample's ctx-05).
    client.find(css("[data-testid=draft-runner] summary")).await?.click().await?;
    fill(&client, "draft-run-url", &endpoint).await?;
    fill(&client, "draft-run-model", "scripted-drafter").await?;
    fill(&client, "draft-run-name", "window-drafts").await?;
    click(&client, "draft-run-start").await?;
    wait_js(
        &client,
        &format!(
            "({})?.includes('2 contexts; 0 answered before, 2 now; 2 drafts made') ?? null",
            text_of("draft-run-done")
        ),
        json!(true),
    )
    .await?;
    wait_js(&client, &stage_of("ctx-01"), json!("drafted")).await?;
    wait_js(&client, &text_of("draft-version"), json!("v1 · model · scripted-drafter · run window-drafts")).await?;
    wait_js(
        &client,
        &format!("({})?.includes('model scripted-drafter at {endpoint}') ?? null", text_of("record-model")),
        json!(true),
    )
    .await?;
    shot(&client, "window-contexts-drafted.png").await?;

    // p asks; the confirmation button has the focus, so Enter promotes.
    client.find(css("[data-testid=context-passage]")).await?.click().await?;
    keys(&client, "p").await?;
    client.wait().at_most(Duration::from_secs(10)).for_element(css("[data-testid=confirm][data-kind=promote]")).await?;
    wait_js(&client, "document.activeElement?.dataset.testid ?? null", json!("confirm-yes")).await?;
    keys(&client, &k(Key::Enter)).await?;
    wait_js(&client, &stage_of("ctx-01"), json!("promoted")).await?;
    wait_js(&client, &text_of("contexts-done"), json!("1 draft promoted into the candidate pool: ctx-01")).await?;
    shot(&client, "window-contexts-promoted.png").await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_context_is_screened_drafted_by_a_model_and_promoted_in_the_real_window() {
    use forcebench_test_support::openai::{Reply, Server};
    let tools = find_tools().unwrap_or_else(|message| panic!("{message}"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("contexts.forcebench");
    {
        let mut project = Project::create(&path, "E2E contexts").unwrap();
        sample::load_sample_contexts(&mut project).unwrap();
    }
    let server = Server::start(|_, _| Reply::content(ANSWER));
    let (display, driver) = start_for(&tools, &path, dir.path());
    let client = session(&tools, &driver).await;
    run(client.clone(), exercise(client, server.base_url.clone())).await;
    drop(driver);
    drop(display);

    // What the window did, read back from the project by the core.
    let project = Project::open(&path).unwrap();
    assert_eq!(contexts::get(&project, "ctx-01").unwrap().stage, ContextStage::Promoted);
    assert_eq!(contexts::get(&project, "ctx-05").unwrap().stage, ContextStage::Drafted);
    let c = forcebench::candidate::get(&project, "ctx-01").unwrap();
    assert_eq!(c.candidate.construction_family.as_deref(), Some("model"));
    assert_eq!(c.candidate.raised_claim, "A short walk after dinner cures prediabetes.");
    let records = drafting::records(&project, "ctx-01").unwrap();
    let asked = records[0].asked.as_ref().expect("the model's record");
    assert_eq!((asked.model.as_str(), asked.base_url.as_str()), ("scripted-drafter", server.base_url.as_str()));
    assert_eq!(server.seen.lock().unwrap().len(), 2, "one request per kept context without a draft");
}
