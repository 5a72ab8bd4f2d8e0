//! The installed app (scripts/test-package.sh runs this against /usr/bin/forcebench-studio with
//! `FORCEBENCH_STUDIO_BIN`): started with a fresh home and no project, it creates the sample
//! project and its first view lists the sample rows. Ignored in the ordinary run, where the app
//! under test is the debug build that window.rs already covers.

use std::time::Duration;

use forcebench_e2e::client::{css, js, run, session, shot, wait_js, Res};
use forcebench_e2e::{find_tools, start_for};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "run by scripts/test-package.sh against the installed package"]
async fn the_installed_app_opens_on_the_sample_project() {
    let tools = find_tools().unwrap_or_else(|message| panic!("{message}"));
    let dir = tempfile::tempdir().unwrap();
    // No project yet at this path: the app creates the sample project there, as on a first run.
    let path = dir.path().join("default.forcebench");
    let (display, driver) = start_for(&tools, &path, dir.path());
    let client = session(&tools, &driver).await;
    let c = client.clone();
    run(client, async move {
        c.wait().at_most(Duration::from_secs(30)).for_element(css("[data-testid=candidate-row]")).await?;
        wait_js(&c, "document.querySelectorAll('[data-testid=candidate-row]').length > 0", json!(true)).await?;
        let first = js(&c, "return document.querySelector('[data-testid=candidate-row]').dataset.id").await?;
        assert_eq!(first, json!("fb-0001"), "the sample's first row");
        shot(&c, "installed-first-view.png").await?;
        Res::Ok(())
    })
    .await;
    drop(driver);
    drop(display);
    assert!(path.exists(), "the sample project was created");
}
