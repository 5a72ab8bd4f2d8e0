//! What the window asks of the core while a large project is open: a page of the
//! candidate list (`candidate::page`) with and without filters, and one row of the annotate view
//! (`annotate::row_view`, next-row navigation), beside what they replaced: the whole list
//! (`candidate::list`) and the whole queue read on every row view (`annotate::queue`); and the
//! annotate view's window of the queue (`annotate::queue_page`, `annotate::next_open`), beside
//! the whole queue it replaced.
//!
//! Run: `cargo bench --bench list` builds a 100,000-row project (FORCEBENCH_BENCH_ROWS to change)
//! assigned to four annotators; `FORCEBENCH_BENCH_PROJECT=FILE cargo bench --bench list` measures
//! a project made with the command line (`sample generate`, `import`, `annotators add`, `assign`).

use forcebench::annotate;
use forcebench::candidate::{self, CandidateQuery};
use forcebench::vocab::WorkflowState;
use forcebench::Project;
use std::time::{Duration, Instant};

#[path = "list/adjudication.rs"]
mod adjudication;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Median of `runs` timings of `f`, with the value of its last run.
fn median<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut times = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs {
        let start = Instant::now();
        let value = f();
        times.push(start.elapsed());
        last = Some(value);
    }
    times.sort();
    (times[runs / 2], last.unwrap())
}

/// A figure of /proc/self/status in MiB.
fn status_mib(key: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0.0);
    kb / 1024.0
}

/// Private memory now (RssAnon: the heap, which freed memory mostly stays in) and the peak
/// resident memory so far (VmHWM, which also counts the project file's memory-mapped pages).
fn memory() -> String {
    format!("private {:.0} MiB, peak resident {:.0} MiB", status_mib("RssAnon:"), status_mib("VmHWM:"))
}

fn build(dir: &std::path::Path, rows: usize) -> Project {
    let path = dir.join("list.forcebench");
    let mut project = Project::create(&path, "list bench").unwrap();
    let csv = dir.join("rows.csv");
    forcebench::sample::write_candidates(&csv, &forcebench::sample::generate(rows, 19)).unwrap();
    forcebench::import::import_file(&mut project, &csv, &mut |_, _| {}).unwrap();
    for who in ["ana", "ben", "cleo", "dev"] {
        forcebench::roster::add(&project, who, forcebench::roster::Role::Annotator).unwrap();
    }
    forcebench::assign::assign(&mut project, 1).unwrap();
    drop(project);
    Project::open(&path).unwrap()
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    // FORCEBENCH_BENCH_ONLY=adjudication: the adjudication queue's page alone.
    if std::env::var_os("FORCEBENCH_BENCH_ONLY").is_some_and(|v| v == "adjudication") {
        return adjudication::alone(dir.path());
    }
    let owned = std::env::var_os("FORCEBENCH_BENCH_PROJECT").is_none();
    // FORCEBENCH_BENCH_ONLY=annotate-window (with FORCEBENCH_BENCH_PROJECT): the annotate
    // queue's window alone, read-only.
    if std::env::var_os("FORCEBENCH_BENCH_ONLY").is_some_and(|v| v == "annotate-window") {
        let path = std::env::var_os("FORCEBENCH_BENCH_PROJECT").expect("FORCEBENCH_BENCH_PROJECT names the project");
        return annotate_window(&Project::open(std::path::Path::new(&path)).unwrap(), None);
    }
    let project = match std::env::var_os("FORCEBENCH_BENCH_PROJECT") {
        Some(path) => Project::open(std::path::Path::new(&path)).unwrap(),
        None => {
            let rows = std::env::var("FORCEBENCH_BENCH_ROWS").ok().and_then(|s| s.parse().ok()).unwrap_or(100_000);
            build(dir.path(), rows)
        }
    };
    let opened = memory();
    let q = |text: &str, state: Option<WorkflowState>, offset: u64| CandidateQuery {
        text: text.into(),
        state,
        offset,
        limit: 200,
    };
    let first = candidate::page(&project, &q("", None, 0)).unwrap();
    let total = first.total;
    println!("{total} candidates; project opened: {opened}");
    println!("candidate list page (200 rows), median of 5:");
    let cases: [(&str, CandidateQuery); 6] = [
        ("first page, no filter", q("", None, 0)),
        ("last page, no filter", q("", None, total.saturating_sub(200))),
        ("text filter `modality`", q("modality", None, 0)),
        ("text filter matching one row", q(&first.rows.last().map_or(String::new(), |r| r.id.clone()), None, 0)),
        ("state filter `assigned`", q("", Some(WorkflowState::Assigned), 0)),
        ("text and state, no match", q("no such words", Some(WorkflowState::Accepted), 0)),
    ];
    for (name, query) in &cases {
        let (t, page) = median(5, || candidate::page(&project, query).unwrap());
        let bytes = serde_json::to_vec(&page).unwrap().len();
        println!(
            "  {name:<32} {:>9.1} ms   {:>6} matching   {:>5.1} KiB of JSON",
            ms(t),
            page.matching,
            bytes as f64 / 1024.0
        );
    }
    let paged = memory();

    annotate_window(&project, owned.then_some(dir.path()));

    let queue = annotate::queue(&project, "ana").unwrap();
    let ids: Vec<&str> = queue.iter().map(|q| q.id.as_str()).collect();
    println!("annotate row view, {} rows in ana's queue:", ids.len());
    let start = Instant::now();
    annotate::row_view(&project, ids[0], "ana").unwrap();
    println!("  first row (computes the order once)   {:>9.1} ms", ms(start.elapsed()));
    let mut times: Vec<Duration> = ids
        .iter()
        .take(300)
        .map(|id| {
            let start = Instant::now();
            let row = annotate::row_view(&project, id, "ana").unwrap();
            assert_eq!(row.total as usize, ids.len());
            start.elapsed()
        })
        .collect();
    times.sort();
    println!(
        "  next rows, 300 in queue order          p50 {:>6.2} ms   p99 {:>6.2} ms",
        ms(times[times.len() / 2]),
        ms(times[times.len() * 99 / 100])
    );
    // The app gives back the file's mapped pages after every command (db::unmap_pages), so the
    // next read maps what it touches again: the same views, each followed by that, as the app
    // runs them, and the step alone.
    let mut unmapped: Vec<(Duration, Duration)> = ids
        .iter()
        .skip(300)
        .take(300)
        .map(|id| {
            let start = Instant::now();
            annotate::row_view(&project, id, "ana").unwrap();
            let mid = Instant::now();
            forcebench::db::unmap_pages(project.conn()).unwrap();
            (start.elapsed(), mid.elapsed())
        })
        .collect();
    let mut alone: Vec<Duration> = unmapped.iter().map(|t| t.1).collect();
    unmapped.sort();
    alone.sort();
    println!(
        "  next rows, each then unmapped (as the app) p50 {:>6.2} ms   p99 {:>6.2} ms; the unmapping alone p50 {:.3} ms",
        ms(unmapped[unmapped.len() / 2].0),
        ms(unmapped[unmapped.len() * 99 / 100].0),
        ms(alone[alone.len() / 2])
    );
    let (t, _) = median(5, || {
        let page = candidate::page(&project, &q("", None, total / 2)).unwrap();
        forcebench::db::unmap_pages(project.conn()).unwrap();
        page
    });
    let (t_mapped, _) = median(5, || candidate::page(&project, &q("", None, total / 2)).unwrap());
    println!("  a middle page of the list, then unmapped {:>6.1} ms (kept mapped: {:.1} ms)", ms(t), ms(t_mapped));
    let mut parts: Vec<Duration> = ids
        .iter()
        .take(300)
        .map(|id| {
            let start = Instant::now();
            annotate::get(&project, id, "ana").unwrap();
            start.elapsed()
        })
        .collect();
    parts.sort();
    println!(
        "  of which the annotation (annotate::get) p50 {:>6.2} ms   p99 {:>6.2} ms",
        ms(parts[parts.len() / 2]),
        ms(parts[parts.len() * 99 / 100])
    );
    let with_rows = memory();

    println!("what they replaced:");
    let (t, whole) = median(3, || annotate::queue(&project, "ana").unwrap());
    let bytes = serde_json::to_vec(&whole).unwrap().len();
    println!(
        "  the whole queue (annotate_queue, sent before)    {:>9.1} ms   {:>7.1} MiB of JSON",
        ms(t),
        bytes as f64 / (1024.0 * 1024.0)
    );
    // In id order, as the assignments come back (sorting the queue's own order would find it sorted).
    let mut shuffled: Vec<String> = ids.iter().map(|id| id.to_string()).collect();
    shuffled.sort();
    let (t, _) = median(3, || {
        let mut v = shuffled.clone();
        forcebench::assign::annotator_order(&project.info().id, "ana", &mut v);
        v
    });
    shuffled.clear();
    println!("  of which the old sort (a shuffle key per comparison), read per row view before {:>7.1} ms", ms(t));
    let (t, all) = median(3, || candidate::list(&project).unwrap());
    let bytes = serde_json::to_vec(&all).unwrap().len();
    println!(
        "  the whole list, sent to the window before        {:>9.1} ms   {:>7.1} MiB of JSON",
        ms(t),
        bytes as f64 / (1024.0 * 1024.0)
    );
    println!("memory: opened {opened}; after the pages {paged}; after the row views {with_rows} (the queue read once for the ids); after the whole list {}", memory());
    adjudication::after_the_rest(dir.path());
}

/// The annotate view's window of a queue: the first (which computes the annotator's order and
/// which rows are finished), later ones, the next open row, and a window read after another
/// connection saved a change (only on a project built in the run: it writes).
fn annotate_window(project: &Project, built_in: Option<&std::path::Path>) {
    // FORCEBENCH_BENCH_ANNOTATOR names whose queue (a project made elsewhere may name them otherwise).
    let who = std::env::var("FORCEBENCH_BENCH_ANNOTATOR").unwrap_or_else(|_| "ben".into());
    let window = |offset: u32| annotate::QueueQuery { annotator: who.clone(), offset, limit: 600 };
    let start = Instant::now();
    let first = annotate::queue_page(project, &window(0)).unwrap();
    let cold = start.elapsed();
    let bytes = serde_json::to_vec(&first).unwrap().len();
    println!("annotate queue window (600 rows) of {who}'s {} rows:", first.total);
    println!(
        "  first window (computes the order)      {:>9.1} ms   {:>5.1} KiB of JSON",
        ms(cold),
        bytes as f64 / 1024.0
    );
    let middle = first.total / 2;
    let (t, _) = median(5, || annotate::queue_page(project, &window(middle)).unwrap());
    println!("  a window in the middle, median of 5    {:>9.2} ms", ms(t));
    let (t, next) = median(5, || annotate::next_open(project, &who, None).unwrap());
    println!("  the next open row from the start       {:>9.2} ms   ({})", ms(t), next.map_or("none".into(), |q| q.id));
    if let Some(dir) = built_in {
        let mut other = Project::open(&dir.join("list.forcebench")).unwrap();
        let id = first.rows[0].id.clone();
        annotate::set_field(&mut other, &id, &who, annotate::Field::Notes, Some("seen")).unwrap();
        let start = Instant::now();
        annotate::queue_page(project, &window(0)).unwrap();
        println!("  a window after a change saved elsewhere {:>8.2} ms", ms(start.elapsed()));
    }
    println!("  memory after the windows: {}", memory());
}
