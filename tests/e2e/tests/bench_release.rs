//! The release app measured (not a timed test: run by `scripts/bench-release.sh`): with a
//! 100,000-row project, the time from asking for the window to the first interactive view (the
//! candidate list showing rows), and the resident memory of every process of the app: the app
//! itself and WebKit's web and network processes. Prints the figures.

use std::time::{Duration, Instant};

use forcebench::{assign, import, roster, sample, Project};
use forcebench_e2e::client::{css, session, wait_js};
use forcebench_e2e::{find_tools, start_for};
use serde_json::json;

/// Resident memory (KiB) of every process whose command name starts with one of `names`.
fn rss_kib(names: &[&str]) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(status) = std::fs::read_to_string(entry.path().join("status")) else { continue };
        let field = |k: &str| status.lines().find_map(|l| l.strip_prefix(k)).map(|v| v.trim().to_string());
        let Some(name) = field("Name:") else { continue };
        if names.iter().any(|n| name.starts_with(n)) {
            let kib = field("VmRSS:").and_then(|v| v.split_whitespace().next()?.parse().ok()).unwrap_or(0);
            out.push((name, kib));
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a benchmark: run scripts/bench-release.sh"]
async fn release_app_start_and_memory_with_100k_rows() {
    let tools = find_tools().unwrap_or_else(|m| panic!("{m}"));
    // FORCEBENCH_BENCH_ROWS=N measures another size (a small one gives the floor: the app and
    // WebKit with next to nothing to show).
    let rows: usize = std::env::var("FORCEBENCH_BENCH_ROWS").ok().and_then(|v| v.parse().ok()).unwrap_or(100_000);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.forcebench");
    {
        let mut project = Project::create(&path, "100k rows").unwrap();
        let csv = dir.path().join("pool.csv");
        sample::write_candidates(&csv, &sample::generate(rows, 7)).unwrap();
        import::import_file(&mut project, &csv, &mut |_, _| {}).unwrap();
        for who in ["Ana", "Ben", "Chidi", "Dana"] {
            roster::add(&project, who, roster::Role::Annotator).unwrap();
        }
        assign::assign(&mut project, 1).unwrap();
    }
    let mut starts = Vec::new();
    let mut memory = Vec::new();
    for _ in 0..3 {
        let (display, driver) = start_for(&tools, &path, dir.path());
        let asked = Instant::now();
        let client = session(&tools, &driver).await;
        client.wait().at_most(Duration::from_secs(60)).for_element(css("[data-testid=candidate-row]")).await.unwrap();
        wait_js(&client, "document.querySelectorAll('[data-testid=candidate-row]').length > 0", json!(true))
            .await
            .unwrap();
        starts.push(asked.elapsed());
        tokio::time::sleep(Duration::from_secs(2)).await; // settled
        memory.push(rss_kib(&["forcebench-stud", "WebKitWebProces", "WebKitNetworkPr"]));
        let _ = client.close().await;
        drop(driver);
        drop(display);
    }
    starts.sort();
    println!("first interactive view (candidate list with rows), {rows}-row project, 3 cold starts:");
    for s in &starts {
        println!("  {:.2} s", s.as_secs_f64());
    }
    for (i, procs) in memory.iter().enumerate() {
        let total: u64 = procs.iter().map(|(_, k)| k).sum();
        let each =
            procs.iter().map(|(n, k)| format!("{n} {:.0} MiB", *k as f64 / 1024.0)).collect::<Vec<_>>().join(", ");
        println!("resident memory, start {}: {:.0} MiB in all ({each})", i + 1, total as f64 / 1024.0);
    }
}
