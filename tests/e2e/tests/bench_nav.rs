//! Next-row navigation time in the real window (not a timed test: run by `scripts/bench-ui.sh`).
//! Presses "n" N times through WebDriver on a 200-row queue and measures, inside the page, from
//! the keydown to the first animation frame after the new row's id is in the DOM. Prints p50,
//! p90, p99 and max, and beside them the floor of the same window: the same measure when the
//! keydown's handler only changes one text node (`f`, a key the view does not use).

use std::time::{Duration, Instant};

use fantoccini::key::Key;
use forcebench::{assign, import, roster, sample, Project};
use forcebench_e2e::client::{css, js, k, keys, session, Res};
use forcebench_e2e::{find_tools, start_for};

const PRESSES: usize = 100;

/// Installs the in-page probe: a keydown listener (capture phase, so it runs first) notes the
/// time and the row shown; a MutationObserver waits for another row id, then one frame. A second
/// listener measures the floor: on `f` it changes one text node, then waits one frame.
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
  requestAnimationFrame(() => { window.__nav.push(performance.now() - start); window.__wake?.(); });
}).observe(document.body, { subtree: true, childList: true, characterData: true });
window.__floor = [];
const one = document.createElement('div');
one.style.position = 'fixed'; one.style.right = '0'; one.style.bottom = '0'; one.textContent = '0';
document.body.appendChild(one);
window.addEventListener('keydown', (e) => {
  if (e.key !== 'f') return;
  const start = performance.now();
  one.textContent = String(window.__floor.length + 1);
  requestAnimationFrame(() => { window.__floor.push(performance.now() - start); window.__wake?.(); });
}, true);
return true;
"#;

/// Answers once `arguments[0]` presses are measured in `window[arguments[1]]`: one WebDriver call
/// per press. Polling through WebDriver every few ms put the measurer's own work on the 2 cores
/// being measured.
const WAIT: &str = r#"
const [want, list, done] = arguments;
const check = () => { if (window[list].length >= want) { window.__wake = null; done(window[list].length); } };
window.__wake = check;
check();
"#;

/// Presses `key` `PRESSES` times, each after the last is measured in `window[list]`; returns the
/// times, sorted.
async fn presses(client: &fantoccini::Client, key: &str, list: &str) -> Res<Vec<f64>> {
    for i in 0..PRESSES {
        keys(client, key).await?;
        let wait = client.execute_async(WAIT, vec![(i + 1).into(), list.into()]);
        let got = tokio::time::timeout(Duration::from_secs(10), wait).await.ok().transpose()?;
        if got.and_then(|n| n.as_u64()) != Some(i as u64 + 1) {
            return Err(format!("{key} press {i}: not measured within 10 s").into());
        }
    }
    let mut times: Vec<f64> = serde_json::from_value(js(client, &format!("return window.{list}")).await?)?;
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    Ok(times)
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    let i = ((p / 100.0) * (sorted.len() as f64 - 1.0)).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a benchmark: run scripts/bench-ui.sh"]
async fn next_row_navigation_time() {
    let tools = find_tools().unwrap_or_else(|m| panic!("{m}"));
    let dir = tempfile::tempdir().unwrap();
    // FORCEBENCH_BENCH_PROJECT=FILE measures a project made elsewhere (a 1M-row one: the first
    // annotator's queue is then a million rows); the app writes to it (time on rows).
    let given = std::env::var_os("FORCEBENCH_BENCH_PROJECT").map(std::path::PathBuf::from);
    let path = given.clone().unwrap_or_else(|| dir.path().join("bench.forcebench"));
    if given.is_none() {
        let mut project = Project::create(&path, "Navigation benchmark").unwrap();
        let csv = dir.path().join("pool.csv");
        sample::write_candidates(&csv, &sample::generate(200, 7)).unwrap();
        import::import_file(&mut project, &csv, &mut |_, _| {}).unwrap();
        roster::add(&project, "Ana", roster::Role::Annotator).unwrap();
        roster::add(&project, "Ben", roster::Role::Annotator).unwrap();
        assign::assign(&mut project, 1).unwrap();
    }
    let (display, driver) = start_for(&tools, &path, dir.path());
    let asked = Instant::now();
    let client = session(&tools, &driver).await;

    let result: Res<(Vec<f64>, Vec<f64>, Duration)> = async {
        client.wait().at_most(Duration::from_secs(60)).for_element(css("[data-testid=nav-annotate]")).await?;
        let shown = asked.elapsed();
        keys(&client, &format!("{}2", k(Key::Alt))).await?;
        client.wait().at_most(Duration::from_secs(60)).for_element(css("[data-testid=pick-annotator]")).await?;
        tokio::time::sleep(Duration::from_millis(200)).await;
        let picked = Instant::now();
        keys(&client, &k(Key::Enter)).await?;
        client.wait().at_most(Duration::from_secs(60)).for_element(css("[data-testid=row-id]")).await?;
        let queue = js(&client, "return document.querySelector('[data-testid=progress]')?.textContent").await?;
        println!(
            "window up in {:.2} s; the first row of the queue ({queue} done) {:.2} s after choosing the annotator",
            shown.as_secs_f64(),
            picked.elapsed().as_secs_f64()
        );
        js(&client, PROBE).await?;
        let started = Instant::now();
        let times = presses(&client, "n", "__nav").await?;
        let wall = started.elapsed();
        let floor = presses(&client, "f", "__floor").await?;
        Ok((times, floor, wall))
    }
    .await;
    let _ = client.close().await;
    drop(driver);
    drop(display);
    let (times, floor, wall) = result.unwrap_or_else(|e| panic!("{e}"));
    let line = |t: &[f64]| {
        format!(
            "p50 {:.1} ms   p90 {:.1} ms   p99 {:.1} ms   max {:.1} ms",
            pct(t, 50.0),
            pct(t, 90.0),
            pct(t, 99.0),
            t[t.len() - 1]
        )
    };
    println!(
        "next-row navigation in the real window, {} presses (keydown -> new row id in the DOM -> next frame):\n  \
         {}   ({:.1} s wall, WebDriver round trips included)\n\
         floor, the same window when the keydown only changes one text node (keydown -> next frame):\n  {}",
        times.len(),
        line(&times),
        wall.as_secs_f64(),
        line(&floor)
    );
}
