//! Next-row navigation time in the real window (not a timed test: run by `scripts/bench-ui.sh`).
//! Presses "n" N times through WebDriver on a 200-row queue and measures, inside the page, from
//! the keydown to the first animation frame after the new row's id is in the DOM. Prints p50,
//! p90, p99 and max.

use std::time::{Duration, Instant};

use fantoccini::key::Key;
use forcebench::{assign, import, roster, sample, Project};
use forcebench_e2e::client::{css, js, k, keys, session, Res};
use forcebench_e2e::{find_tools, start_for};

const PRESSES: usize = 100;

/// Installs the in-page probe: a keydown listener (capture phase, so it runs first) notes the
/// time and the row shown; a MutationObserver waits for another row id, then one frame.
const PROBE: &str = r#"
window.__nav = [];
let t0 = null, from = null;
const rowId = () => document.querySelector('[data-testid=row-id]')?.textContent;
window.addEventListener('keydown', (e) => {
  if (e.key === 'n') { t0 = performance.now(); from = rowId(); }
}, true);
new MutationObserver(() => {
  if (t0 === null || rowId() === from) return;
  const start = t0; t0 = null;
  requestAnimationFrame(() => window.__nav.push(performance.now() - start));
}).observe(document.body, { subtree: true, childList: true, characterData: true });
return true;
"#;

fn pct(sorted: &[f64], p: f64) -> f64 {
    let i = ((p / 100.0) * (sorted.len() as f64 - 1.0)).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a benchmark: run scripts/bench-ui.sh"]
async fn next_row_navigation_time() {
    let tools = find_tools().unwrap_or_else(|m| panic!("{m}"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.forcebench");
    {
        let mut project = Project::create(&path, "Navigation benchmark").unwrap();
        let csv = dir.path().join("pool.csv");
        sample::write_candidates(&csv, &sample::generate(200, 7)).unwrap();
        import::import_file(&mut project, &csv, &mut |_, _| {}).unwrap();
        roster::add(&project, "Ana", roster::Role::Annotator).unwrap();
        roster::add(&project, "Ben", roster::Role::Annotator).unwrap();
        assign::assign(&mut project, 1).unwrap();
    }
    let (display, driver) = start_for(&tools, &path, dir.path());
    let client = session(&tools, &driver).await;

    let result: Res<(Vec<f64>, Duration)> = async {
        client.wait().at_most(Duration::from_secs(30)).for_element(css("[data-testid=nav-annotate]")).await?;
        keys(&client, &format!("{}2", k(Key::Alt))).await?;
        client.wait().at_most(Duration::from_secs(10)).for_element(css("[data-testid=pick-annotator]")).await?;
        tokio::time::sleep(Duration::from_millis(200)).await;
        keys(&client, &k(Key::Enter)).await?;
        client.wait().at_most(Duration::from_secs(10)).for_element(css("[data-testid=row-id]")).await?;
        js(&client, PROBE).await?;
        let started = Instant::now();
        for i in 0..PRESSES {
            keys(&client, "n").await?;
            let deadline = Instant::now() + Duration::from_secs(10);
            loop {
                let n = js(&client, "return window.__nav.length").await?;
                if n.as_u64() == Some(i as u64 + 1) {
                    break;
                }
                if Instant::now() > deadline {
                    return Err(format!("press {i}: no new row within 10 s").into());
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
        let wall = started.elapsed();
        let times: Vec<f64> = serde_json::from_value(js(&client, "return window.__nav").await?)?;
        Ok((times, wall))
    }
    .await;
    let _ = client.close().await;
    drop(driver);
    drop(display);
    let (mut times, wall) = result.unwrap_or_else(|e| panic!("{e}"));
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "next-row navigation in the real window, {} presses (keydown -> new row id in the DOM -> next frame):\n  \
         p50 {:.1} ms   p90 {:.1} ms   p99 {:.1} ms   max {:.1} ms   ({:.1} s wall, WebDriver round trips included)",
        times.len(),
        pct(&times, 50.0),
        pct(&times, 90.0),
        pct(&times, 99.0),
        times[times.len() - 1],
        wall.as_secs_f64()
    );
}
