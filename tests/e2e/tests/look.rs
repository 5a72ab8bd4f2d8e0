//! Screenshots of every view of the demonstration project in the real window, at the default
//! 1280×800, at 1440×900 and at the 960×600 minimum, for a person to look at (ignored in the test run:
//! `cargo test -p forcebench-e2e --test look -- --ignored`; the pictures land in
//! tests/e2e/shots/look-<view>-<size>.png). With `FORCEBENCH_LOOK_DOCS=1` it also writes the
//! README's pictures of these views into docs/; `FORCEBENCH_LOOK_PROJECT=FILE` looks at a copy of
//! that project instead of a new demonstration project (`scripts/look-project.sh` makes one with
//! a locked split and evaluators and runs this, which also writes the Split and Evaluate pictures).

use std::time::Duration;

use fantoccini::key::Key;
use forcebench_e2e::client::{css, js, k, keys, run, session, shot, wait_js, Res};
use forcebench_e2e::{find_tools, repo_root, start_for};
use serde_json::json;

/// Writes the window as `docs/<name>` when FORCEBENCH_LOOK_DOCS is set. The project lives in a
/// temporary folder here; the README's pictures show a path a person would have instead (the
/// header's project path is the only text changed).
async fn doc(c: &fantoccini::Client, name: &str) -> Res {
    if std::env::var_os("FORCEBENCH_LOOK_DOCS").is_some() {
        js(
            c,
            "document.querySelectorAll('.path').forEach((e) => { \
               if (e.textContent.includes('/tmp')) e.textContent = '/home/lee/ForceBench/Sample project.forcebench'; \
             }); return true",
        )
        .await?;
        std::fs::write(repo_root().join("docs").join(name), c.screenshot().await?)?;
    }
    Ok(())
}

const VIEWS: [(&str, char); 9] = [
    ("setup", '9'),
    ("candidates", '1'),
    ("annotate", '2'),
    ("packets", '3'),
    ("agreement", '4'),
    ("adjudicate", '5'),
    ("funnel", '6'),
    ("split", '7'),
    ("evaluate", '8'),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "screenshots for review"]
async fn look_at_every_view_at_both_sizes() {
    let tools = find_tools().unwrap_or_else(|message| panic!("{message}"));
    let dir = tempfile::tempdir().unwrap();
    // A path with no project yet: the app makes the demonstration project there. With
    // FORCEBENCH_LOOK_PROJECT=FILE, a copy of that project instead (one with a locked split and
    // evaluators shows the Split and Evaluate views full).
    let path = dir.path().join("Demo project.forcebench");
    let locked = match std::env::var_os("FORCEBENCH_LOOK_PROJECT") {
        Some(source) => {
            std::fs::copy(source, &path).expect("copy FORCEBENCH_LOOK_PROJECT");
            true
        }
        None => false,
    };
    let (display, driver) = start_for(&tools, &path, dir.path());
    let client = session(&tools, &driver).await;
    let c = client.clone();
    run(client, async move {
        c.wait().at_most(Duration::from_secs(30)).for_element(css("[data-testid=nav-candidates]")).await?;
        for (width, height) in [(1280, 800), (1440, 900), (960, 600)] {
            c.set_window_size(width, height).await?;
            tokio::time::sleep(Duration::from_millis(500)).await;
            for (view, key) in VIEWS {
                keys(&c, &format!("{}{key}", k(Key::Alt))).await?;
                // A view's code is fetched the first time it is opened: the picture is of the view.
                wait_js(&c, "document.querySelector('[data-testid=view-loading]') === null", json!(true)).await?;
                tokio::time::sleep(Duration::from_millis(900)).await;
                if view == "annotate" && c.find(css("[data-testid=pick-annotator]")).await.is_ok() {
                    keys(&c, &k(Key::Enter)).await?;
                    tokio::time::sleep(Duration::from_millis(700)).await;
                }
                shot(&c, &format!("look-{view}-{width}x{height}.png")).await?;
                match (view, width) {
                    ("candidates", 1280) => doc(&c, "screenshot-candidates.png").await?,
                    ("annotate", 1280) => doc(&c, "screenshot-annotate.png").await?,
                    ("candidates", 960) => doc(&c, "screenshot-candidates-960.png").await?,
                    ("annotate", 960) => doc(&c, "screenshot-annotate-960.png").await?,
                    ("agreement", 1280) => {
                        // The rows behind one cell of the decision matrix: where A and B differ.
                        js(&c, "document.querySelectorAll('[data-testid=heatmap-decision] [data-testid=cell]')[1]?.click(); return true").await?;
                        tokio::time::sleep(Duration::from_millis(800)).await;
                        shot(&c, "look-agreement-cell-1280x800.png").await?;
                        doc(&c, "screenshot-agreement.png").await?;
                    }
                    // Only from a project with a locked split (FORCEBENCH_LOOK_PROJECT): the
                    // demonstration project has none, and these views would show their empty state.
                    ("split", 1280) if locked => {
                        // The export folder defaults to the project's own folder, here a temporary
                        // one: the picture shows a folder a person would type instead.
                        js(
                            &c,
                            "const i = document.querySelector('[data-testid=export-dir]'); \
                             if (i) { i.value = '/home/lee/ForceBench/Sample-split-v1'; i.dispatchEvent(new Event('input')); } return true",
                        )
                        .await?;
                        tokio::time::sleep(Duration::from_millis(300)).await;
                        doc(&c, "screenshot-split.png").await?;
                    }
                    ("evaluate", 1280) if locked => doc(&c, "screenshot-evaluate.png").await?,
                    _ => {}
                }
            }
        }
        Ok(())
    })
    .await;
    drop(driver);
    drop(display);
}
