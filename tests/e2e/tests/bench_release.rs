//! The release app measured (not a timed test: run by `scripts/bench-release.sh`): with a
//! 100,000-row project, the time from asking for the window to the first interactive view (the
//! candidate list showing rows), and the resident memory of every process of the app: the app
//! itself and WebKit's web and network processes. Then the same for the floor, an empty window of
//! the same build (`FORCEBENCH_FLOOR_BIN`: the `forcebench-studio-floor` binary, the same Tauri
//! and WebKitGTK showing a page of one line), and what the app takes over it. After each start of
//! the app it opens the Annotate view, whose code is fetched when first opened: the time it takes,
//! what the page fetched (from the app's own protocol) and the memory after. Prints the figures.
//!
//! The moment the rows appear is taken in the page, on its clock (the machine's), looked for every
//! 10 ms: the wait of 250 ms between looks it had before added up to that to each start.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use forcebench::{assign, import, roster, sample, Project};
use forcebench_e2e::{find_tools, start_for, Tools};
use serde_json::json;

/// A process's resident memory (KiB): in all, its anonymous part (heap and stacks), and the pages
/// of the project file it has memory-mapped (SQLite's mmap).
struct Rss {
    name: String,
    kib: u64,
    anon: u64,
    project: u64,
}

/// Sums the `Rss:` lines of /proc/PID/smaps for mappings of files named `*.forcebench`.
fn project_mapped_kib(pid: u32) -> u64 {
    let Ok(smaps) = std::fs::read_to_string(format!("/proc/{pid}/smaps")) else { return 0 };
    let mut in_project = false;
    let mut kib = 0;
    for line in smaps.lines() {
        let mut words = line.split_whitespace();
        let first = words.next().unwrap_or("");
        if first.contains('-') && first.chars().next().is_some_and(|c| c.is_ascii_hexdigit()) {
            in_project = line.ends_with(".forcebench");
        } else if first == "Rss:" && in_project {
            kib += words.next().and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
        }
    }
    kib
}

/// Every process descending from `root` (not `root` itself), with its command name and resident
/// memory.
fn descendants_rss(root: u32) -> Vec<Rss> {
    let mut out = Vec::new();
    for (pid, name) in forcebench_e2e::descendants(root) {
        let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else { continue };
        let number = |k: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(k))
                .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        };
        out.push(Rss {
            name,
            kib: number("VmRSS:").unwrap_or(0),
            anon: number("RssAnon:").unwrap_or(0),
            project: project_mapped_kib(pid),
        });
    }
    out
}

/// One cold start: seconds from asking for the window to the view being there, when the page
/// began (the process started, the project opened, WebKit's processes started) and when its
/// script had run, the page's requests, and the memory of every process after 2 s.
struct Start {
    ready: f64,
    page_began: f64,
    script_ran: f64,
    requests: Vec<(String, f64, f64)>,
    memory: Vec<Rss>,
    second: Option<Second>,
}

/// A view not shown at start opened after the memory was read (the app only, not the floor):
/// seconds from the key to the view being there, the scripts and styles the page fetched for it
/// (served by the app's own protocol, as the page), and the memory of every process 2 s later.
struct Second {
    shown: f64,
    fetched: Vec<String>,
    memory: Vec<Rss>,
}

/// Opens the Annotate view (Alt+2): its code is not part of the page the window starts with.
async fn open_second_view(client: &fantoccini::Client, driver: &forcebench_e2e::TauriDriver) -> Second {
    use fantoccini::key::Key;
    use forcebench_e2e::client::{k, keys};
    // WebKitGTK lists no resource timing for a module a script imports from the app's protocol;
    // the chunk's styles and shared chunks are added to the document as links, and those show it.
    const FILES: &str = "return [...performance.getEntriesByType('resource').map((e) => e.name), \
        ...[...document.querySelectorAll('link[href]')].map((l) => l.href)]";
    let files = || async {
        let v = client.execute(FILES, vec![]).await.ok();
        v.and_then(|v| serde_json::from_value::<Vec<String>>(v).ok()).unwrap_or_default()
    };
    let before = files().await;
    let pressed = epoch_ms();
    keys(client, &format!("{}2", k(Key::Alt))).await.expect("Alt+2 sent");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let got = loop {
        if let Ok(v) = client.execute(LOOK, vec![json!("[data-testid=annotate-view]")]).await {
            if v.get("waiting").is_none() {
                break v;
            }
        }
        assert!(std::time::Instant::now() < deadline, "the Annotate view did not show within 30 s");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    let shown = (got["origin"].as_f64().unwrap() + got["seen"].as_f64().unwrap() - pressed) / 1000.0;
    let mut fetched: Vec<String> = files().await.into_iter().filter(|n| !before.contains(n)).collect();
    fetched.dedup();
    tokio::time::sleep(Duration::from_secs(2)).await; // settled
    let memory = descendants_rss(driver.pid()).into_iter().filter(|p| p.name != "WebKitWebDriver").collect();
    Second { shown, fetched, memory }
}

fn epoch_ms() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs_f64() * 1000.0
}

/// The page's timings once `selector` shows, else null.
const LOOK: &str = r#"
const [selector] = arguments;
if (!document.querySelector(selector)) return { waiting: location.href + " " + document.documentElement.outerHTML.slice(0, 600) };
const nav = performance.getEntriesByType("navigation")[0];
return {
  origin: performance.timeOrigin,
  seen: performance.now(),
  dcl: nav ? nav.domContentLoadedEventEnd : null,
  requests: performance.getEntriesByType("resource").map((e) => [e.name, e.startTime, e.responseEnd]),
};
"#;

async fn cold_start(tools: &Tools, project: &Path, dir: &Path, selector: &str, floor: bool) -> Start {
    let (display, driver) = start_for(tools, project, dir);
    let asked = epoch_ms();
    let client = forcebench_e2e::client::session(tools, &driver).await;
    // Looked for every 10 ms: the time is taken in the page when it is first seen there.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let got = loop {
        let last = match client.execute(LOOK, vec![json!(selector)]).await {
            Ok(v) if v.get("waiting").is_none() => break v,
            Ok(v) => v["waiting"].to_string(),
            Err(e) => e.to_string(),
        };
        if std::time::Instant::now() > deadline {
            panic!("{selector} not shown within 60 s; the page last: {last}");
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    let origin = got["origin"].as_f64().unwrap();
    let dcl = got["dcl"].as_f64();
    // The floor's line is in its HTML: it is there when the document is parsed.
    let seen = if floor { dcl.unwrap_or(got["seen"].as_f64().unwrap()) } else { got["seen"].as_f64().unwrap() };
    let since = |page_ms: f64| (origin + page_ms - asked) / 1000.0;
    let requests = got["requests"]
        .as_array()
        .map(|all| {
            all.iter()
                .map(|r| {
                    (
                        r[0].as_str().unwrap_or("").to_string(),
                        since(r[1].as_f64().unwrap_or(0.0)),
                        since(r[2].as_f64().unwrap_or(0.0)),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    tokio::time::sleep(Duration::from_secs(2)).await; // settled
    let memory = descendants_rss(driver.pid()).into_iter().filter(|p| p.name != "WebKitWebDriver").collect();
    let second = if floor { None } else { Some(open_second_view(&client, &driver).await) };
    let _ = client.close().await;
    drop(driver);
    drop(display);
    Start {
        ready: since(seen),
        page_began: since(0.0),
        script_ran: dcl.map(since).unwrap_or(f64::NAN),
        requests,
        memory,
        second,
    }
}

fn total_mib(s: &Start) -> f64 {
    sum_mib(&s.memory)
}

fn sum_mib(memory: &[Rss]) -> f64 {
    memory.iter().map(|p| p.kib as f64).sum::<f64>() / 1024.0
}

/// Each process's memory in MiB, its anonymous part and the project file's mapped pages beside it.
fn each_process(memory: &[Rss]) -> String {
    let mib = |k: u64| k as f64 / 1024.0;
    memory
        .iter()
        .map(|p| {
            let file = if p.project > 0 { format!(", the project file {:.0}", mib(p.project)) } else { String::new() };
            format!("{} {:.0} (anonymous {:.0}{file})", p.name, mib(p.kib), mib(p.anon))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn print_starts(what: &str, starts: &[Start], requests: bool) {
    println!("{what}, 3 cold starts:");
    for (i, s) in starts.iter().enumerate() {
        println!(
            "  start {}: ready {:.2} s (page began {:.2} s, its script ran by {:.2} s)",
            i + 1,
            s.ready,
            s.page_began,
            s.script_ran
        );
        if requests {
            for (name, began, ended) in s.requests.iter().filter(|(n, ..)| !n.ends_with(".js") && !n.ends_with(".css"))
            {
                println!("    {name}: {began:.3}-{ended:.3} s");
            }
        }
        println!("    resident memory {:.0} MiB in all: {}", total_mib(s), each_process(&s.memory));
        if let Some(second) = &s.second {
            let names: Vec<&str> = second.fetched.iter().map(|n| n.rsplit('/').next().unwrap_or(n)).collect();
            let from = second.fetched.first().map(|n| n.split("/assets/").next().unwrap_or(n)).unwrap_or("nowhere");
            println!(
                "    then Alt+2: the Annotate view in {:.2} s, fetching {} from {from}; memory {:.0} MiB in all: {}",
                second.shown,
                if names.is_empty() { "nothing".to_string() } else { names.join(", ") },
                sum_mib(&second.memory),
                each_process(&second.memory)
            );
        }
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a benchmark: run scripts/bench-release.sh"]
async fn release_app_start_and_memory_with_100k_rows() {
    let tools = find_tools().unwrap_or_else(|m| panic!("{m}"));
    // FORCEBENCH_BENCH_ROWS=N measures another size.
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
    let mut app = Vec::new();
    for _ in 0..3 {
        app.push(cold_start(&tools, &path, dir.path(), "[data-testid=candidate-row]", false).await);
    }
    print_starts(&format!("the app, {rows}-row project, to the candidate list showing rows"), &app, true);

    let floor_bin = std::env::var_os("FORCEBENCH_FLOOR_BIN").map(PathBuf::from);
    let Some(floor_bin) = floor_bin.filter(|b| b.is_file()) else {
        println!(
            "the floor: not measured (FORCEBENCH_FLOOR_BIN does not name the built forcebench-studio-floor example)"
        );
        return;
    };
    let floor_tools = Tools {
        app: floor_bin,
        tauri_driver: tools.tauri_driver.clone(),
        webkit_driver: tools.webkit_driver.clone(),
        xvfb: tools.xvfb.clone(),
    };
    let mut floor = Vec::new();
    for _ in 0..3 {
        floor.push(cold_start(&floor_tools, &path, dir.path(), "[data-testid=floor]", true).await);
    }
    print_starts("the floor, an empty window of the same build", &floor, false);

    let (a, f) = (median(app.iter().map(|s| s.ready).collect()), median(floor.iter().map(|s| s.ready).collect()));
    let (am, fm) = (median(app.iter().map(total_mib).collect()), median(floor.iter().map(total_mib).collect()));
    println!(
        "medians: start {a:.2} s against the floor's {f:.2} s ({:.2}x, {:.2} s over; goal 1.5 s: {}); \
         memory {am:.0} MiB against the floor's {fm:.0} MiB ({:.0} MiB over; goal the floor + 100 MiB: {})",
        a / f,
        a - f,
        if a <= 1.5 { "met" } else { "not met" },
        am - fm,
        if am - fm <= 100.0 { "met" } else { "not met" },
    );
}
