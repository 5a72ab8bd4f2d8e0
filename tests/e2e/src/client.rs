//! WebDriver helpers a window test needs once its tools are up (see the crate root): open a
//! session on the app, send keys as a person types, click, poll the page, take screenshots, run a
//! session's checks so that it is always closed, and find the `forcebench` command line to check
//! what the window wrote.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::json;

use crate::{repo_root, shots_dir, TauriDriver, Tools};

pub type Res<T = ()> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// The id of the row the annotate or adjudicate view shows (`null` before one is shown).
pub const ROW_ID: &str = "document.querySelector('[data-testid=row-id]')?.textContent ?? null";
/// The save indicator's state ("saved", "error"...), for polling until a change is saved.
pub const SAVE_STATE: &str = "document.querySelector('[data-testid=save-state]')?.dataset.state ?? null";

pub fn css(selector: &str) -> Locator<'_> {
    Locator::Css(selector)
}

/// One special key as the text WebDriver sends for it.
pub fn k(key: Key) -> String {
    char::from(key).to_string()
}

/// Sends keys to whatever has focus, as a person typing would (no element is clicked). Modifier
/// keys stay down until the end of `text` or `Key::Null`.
pub async fn keys(client: &Client, text: &str) -> Res {
    client.active_element().await?.send_keys(text).await?;
    Ok(())
}

pub async fn js(client: &Client, script: &str) -> Res<serde_json::Value> {
    Ok(client.execute(script, vec![]).await?)
}

/// Polls a JS expression until it returns `want` (10 s).
pub async fn wait_js(client: &Client, expr: &str, want: serde_json::Value) -> Res {
    wait_js_within(client, expr, want, Duration::from_secs(10)).await
}

/// [`wait_js`] with another time limit, for a view whose work takes longer than a keypress.
pub async fn wait_js_within(client: &Client, expr: &str, want: serde_json::Value, within: Duration) -> Res {
    let deadline = Instant::now() + within;
    loop {
        let got = js(client, &format!("return {expr};")).await.unwrap_or(json!(null));
        if got == want {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!("{expr} is {got}, expected {want}").into());
        }
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
}

/// A JS expression for the text shown by the element `[data-testid=TESTID]`, white space folded
/// as a person reads it (`null` while there is no such element).
pub fn text_of(testid: &str) -> String {
    format!("document.querySelector('[data-testid={testid}]')?.innerText.replace(/\\s+/g, ' ').trim() ?? null")
}

/// Clicks the element `[data-testid=TESTID]`.
pub async fn click(client: &Client, testid: &str) -> Res {
    // WebKitWebDriver scrolls the page to an element, not a pane that scrolls inside it (the
    // views' own panes): a control below a pane's fold is brought into sight first, as a person
    // scrolls to it, or the click is refused as not interactable.
    let element = client.find(css(&format!("[data-testid={testid}]"))).await?;
    client.execute("arguments[0].scrollIntoView({ block: 'center' })", vec![serde_json::to_value(&element)?]).await?;
    element.click().await?;
    Ok(())
}

/// Writes a screenshot of the window to `tests/e2e/shots/NAME`.
pub async fn shot(client: &Client, name: &str) -> Res {
    std::fs::create_dir_all(shots_dir())?;
    std::fs::write(shots_dir().join(name), client.screenshot().await?)?;
    Ok(())
}

/// A WebDriver session on the app (tauri-driver starts it); panics with the driver's log.
pub async fn session(tools: &Tools, driver: &TauriDriver) -> Client {
    let mut caps = serde_json::Map::new();
    caps.insert("tauri:options".into(), json!({ "application": tools.app }));
    let mut builder = ClientBuilder::new(HttpConnector::new());
    let url = driver.url();
    match tokio::time::timeout(Duration::from_secs(60), builder.capabilities(caps).connect(&url)).await {
        Ok(Ok(client)) => client,
        Ok(Err(e)) => panic!("no WebDriver session: {e}\ntauri-driver log:\n{}", driver.log_text()),
        Err(_) => panic!("no WebDriver session within 60 s\ntauri-driver log:\n{}", driver.log_text()),
    }
}

/// Runs one window session's checks in their own task; the session is closed even when a check
/// fails, and a failure is re-raised here.
pub async fn run<F>(client: Client, checks: F)
where
    F: std::future::Future<Output = Res> + Send + 'static,
{
    let task = tokio::spawn(checks);
    let outcome = tokio::time::timeout(Duration::from_secs(120), task).await;
    let _ = client.close().await;
    match outcome {
        Err(_) => panic!("the window session did not finish within 120 s"),
        Ok(Err(join)) if join.is_panic() => std::panic::resume_unwind(join.into_panic()),
        Ok(Err(join)) => panic!("the window session task failed: {join}"),
        Ok(Ok(Err(e))) => panic!("{e}\n{e:?}"),
        Ok(Ok(Ok(()))) => {}
    }
}

/// The `forcebench` command line built beside the app (`FORCEBENCH_BIN` overrides), or a message
/// saying how to build it.
pub fn cli_binary() -> Result<PathBuf, String> {
    let target = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| repo_root().join("target"));
    let bin = std::env::var_os("FORCEBENCH_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| target.join("debug").join("forcebench"));
    if bin.is_file() {
        Ok(bin)
    } else {
        Err(format!(
            "the command line {} is missing: build it with `cargo build -p forcebench --bin forcebench`",
            bin.display()
        ))
    }
}
