//! The adjudicate view's page of the adjudication queue (`adjudicate::page`), beside the whole
//! queue it replaced (`adjudicate::queue`, which the window read twice on every load). A
//! project with no double-annotated row gets labels first, as `scripts/bench_scaling.py` gives
//! them (every row accepted with the suggestions; Ben rejects every 7th row of his queue, Cleo
//! gives severity 3 to every 5th and Dev sends every 11th to discussion), imported per annotator
//! with `annotate import`. The steps that write (an adjudication, an annotation changed) run only
//! on a project built in the run or when `FORCEBENCH_BENCH_WRITE=1` (on a copy).

use forcebench::adjudicate::{self, AdjudicationQuery, Category, QueueFilter, Resolution};
use forcebench::{annotate, roster, Project};
use std::time::Instant;

use crate::{median, memory, ms};

fn label_everything(project: &mut Project, dir: &std::path::Path) {
    let people: Vec<String> = roster::list(project)
        .unwrap()
        .into_iter()
        .filter(|p| p.role == roster::Role::Annotator)
        .map(|p| p.name)
        .collect();
    for who in &people {
        let queue = annotate::queue(project, who).unwrap();
        let mut text = String::new();
        for (i, q) in queue.iter().enumerate() {
            let id = &q.id;
            let line = match who.to_lowercase().as_str() {
                "ben" if i % 7 == 3 => {
                    format!("{{\"id\":\"{id}\",\"decision\":\"reject_not_force_gap\",\"boundary_type\":\"ambiguous\"}}")
                }
                "cleo" if i % 5 == 2 => format!("{{\"id\":\"{id}\",\"decision\":\"accept_force_gap\",\"severity\":3}}"),
                // A row sent to discussion says what to discuss (a rule since schema 14).
                "dev" if i % 11 == 5 => {
                    format!("{{\"id\":\"{id}\",\"decision\":\"needs_discussion\",\"notes\":\"is the axis numeric or scope?\"}}")
                }
                _ => format!("{{\"id\":\"{id}\",\"decision\":\"accept_force_gap\",\"severity\":2}}"),
            };
            text.push_str(&line);
            text.push('\n');
        }
        let file = dir.join(format!("{who}.jsonl"));
        std::fs::write(&file, text).unwrap();
        let start = Instant::now();
        annotate::import_jsonl(project, &file, who).unwrap();
        println!("  labels of {who} imported ({} rows) in {:.1} s", queue.len(), start.elapsed().as_secs_f64());
    }
}

fn kib(value: &impl serde::Serialize) -> f64 {
    serde_json::to_vec(value).unwrap().len() as f64 / 1024.0
}

/// The adjudication queue's page: cold, warm, later, filtered, after a change; the whole queue.
pub fn bench(project: &mut Project, built_in: Option<&std::path::Path>) {
    let writes = built_in.is_some() || std::env::var_os("FORCEBENCH_BENCH_WRITE").is_some();
    let q = |filter: QueueFilter, offset: u64| AdjudicationQuery {
        filter,
        offset,
        limit: 200,
        around: None,
        open_after: None,
    };
    let start = Instant::now();
    let mut first = adjudicate::page(project, &q(QueueFilter::default(), 0)).unwrap();
    let mut cold = start.elapsed();
    if first.total == 0 {
        let Some(dir) = built_in else {
            println!("adjudication queue: no double-annotated row in this project (labels are added only to a project built in the run)");
            return;
        };
        println!("adjudication queue: labelling every row first");
        label_everything(project, dir);
        let start = Instant::now();
        first = adjudicate::page(project, &q(QueueFilter::default(), 0)).unwrap();
        cold = start.elapsed();
    }
    let counts: Vec<String> =
        first.counts.iter().map(|(c, n)| format!("{} {}/{}", c.as_str(), n.open, n.total)).collect();
    println!("adjudication queue page (200 items) of {} double-annotated rows ({}):", first.total, counts.join(", "));
    println!(
        "  first request (classifies every row)   {:>9.1} ms   {:>6.1} KiB of JSON; {}",
        ms(cold),
        kib(&first),
        memory()
    );
    let source = first.facets.sources.first().cloned();
    let pair = first.facets.pairs.first().cloned();
    let last = first.total.saturating_sub(200);
    let cases: Vec<(&str, AdjudicationQuery)> = vec![
        ("first page again", q(QueueFilter::default(), 0)),
        ("a later page (the middle)", q(QueueFilter::default(), first.total / 2)),
        ("the last page", q(QueueFilter::default(), last)),
        ("source filter", q(QueueFilter { source: source.clone(), ..Default::default() }, 0)),
        ("source filter, a later page", q(QueueFilter { source: source.clone(), ..Default::default() }, 20_000)),
        ("pair and open rows only", q(QueueFilter { pair, open_only: true, ..Default::default() }, 0)),
        ("axis `none` (matches few)", q(QueueFilter { axis: Some("none".into()), ..Default::default() }, 0)),
        (
            "the page holding a row near the end",
            AdjudicationQuery { around: first_id_near_end(project, last), ..q(QueueFilter::default(), 0) },
        ),
        (
            "next open row after the first",
            AdjudicationQuery { open_after: first.items.first().map(|i| i.id.clone()), ..q(QueueFilter::default(), 0) },
        ),
    ];
    for (name, query) in &cases {
        let (t, page) = median(5, || adjudicate::page(project, query).unwrap());
        println!("  {name:<38} {:>9.2} ms   {:>7} matching   {:>6.1} KiB of JSON", ms(t), page.matching, kib(&page));
    }
    if writes {
        let adjudicator = roster::list(project)
            .unwrap()
            .into_iter()
            .find(|p| p.role == roster::Role::Adjudicator || p.role == roster::Role::Lead)
            .map(|p| p.name);
        let adjudicator = adjudicator.unwrap_or_else(|| {
            roster::add(project, "eve", roster::Role::Adjudicator).unwrap();
            "eve".to_string()
        });
        // An open full agreement (they come last), resolved as the shared label; then the page
        // the view asks for next (the next open row's).
        let agreements: u64 =
            first.counts.iter().filter(|(c, _)| **c != Category::FullAgreement).map(|(_, n)| n.total).sum();
        let page = adjudicate::page(project, &q(QueueFilter::default(), agreements)).unwrap();
        if let Some(item) = page.items.iter().find(|i| !i.adjudicated) {
            let start = Instant::now();
            adjudicate::resolve(project, &item.id, &adjudicator, &Resolution::default()).unwrap();
            let saved = start.elapsed();
            let start = Instant::now();
            let after = adjudicate::page(
                project,
                &AdjudicationQuery { open_after: Some(item.id.clone()), ..q(QueueFilter::default(), 0) },
            )
            .unwrap();
            let t = start.elapsed();
            assert_eq!(after.counts[&Category::FullAgreement].open + 1, first.counts[&Category::FullAgreement].open);
            println!(
                "  after an adjudication (resolve {:.1} ms): the next open row's page {:>6.2} ms (the decision folded in)",
                ms(saved),
                ms(t)
            );
        }
        // An annotation changed (five times, five rows): the changed row is read again and merged in.
        let mut saves = Vec::new();
        let mut pages = Vec::new();
        for (k, item) in first.items.iter().take(5).enumerate() {
            let start = Instant::now();
            annotate::set_field(
                project,
                &item.id,
                &item.annotator_b,
                annotate::Field::Notes,
                Some(&format!("seen {k}")),
            )
            .unwrap();
            saves.push(start.elapsed());
            let start = Instant::now();
            adjudicate::page(project, &q(QueueFilter::default(), 0)).unwrap();
            pages.push(start.elapsed());
        }
        saves.sort();
        pages.sort();
        println!(
            "  after an annotation changed (save {:.1} ms): the first page, median of 5 {:>6.2} ms, slowest {:.2} ms (the row read again, merged in)",
            ms(saves[2]),
            ms(pages[2]),
            ms(pages[4])
        );
    } else {
        println!("  (the steps that write are left out: FORCEBENCH_BENCH_WRITE=1 on a copy of the project)");
    }
    println!("  memory after the pages: {}", memory());
    println!("what it replaced:");
    let (t, whole) = median(3, || adjudicate::queue(project, &QueueFilter::default()).unwrap());
    println!(
        "  the whole queue from the kept rows     {:>9.1} ms   {:>7.1} MiB of JSON ({} items; the window read it twice per load)",
        ms(t),
        kib(&whole) / 1024.0,
        whole.items.len()
    );
    drop(whole);
    println!("  memory after the whole queue: {}", memory());
}

fn first_id_near_end(project: &Project, last: u64) -> Option<String> {
    let page = adjudicate::page(
        project,
        &AdjudicationQuery { filter: QueueFilter::default(), offset: last, limit: 1, around: None, open_after: None },
    )
    .unwrap();
    page.items.first().map(|i| i.id.clone())
}

/// The project the rest of the bench measured: FORCEBENCH_BENCH_PROJECT, or the one built in
/// `dir` (whose path is returned with it).
fn project_of(dir: &std::path::Path) -> (std::path::PathBuf, bool) {
    match std::env::var_os("FORCEBENCH_BENCH_PROJECT") {
        Some(path) => (path.into(), false),
        None => (dir.join("list.forcebench"), true),
    }
}

/// After the other measures, on the same project (a second connection to it).
pub fn after_the_rest(dir: &std::path::Path) {
    let (path, built) = project_of(dir);
    bench(&mut Project::open(&path).unwrap(), built.then_some(dir));
}

/// Alone (FORCEBENCH_BENCH_ONLY=adjudication): the project is built or opened first.
pub fn alone(dir: &std::path::Path) {
    let (path, built) = project_of(dir);
    if built {
        let rows = std::env::var("FORCEBENCH_BENCH_ROWS").ok().and_then(|s| s.parse().ok()).unwrap_or(100_000);
        drop(crate::build(dir, rows));
    }
    let mut project = Project::open(&path).unwrap();
    println!("project opened: {}", memory());
    bench(&mut project, built.then_some(dir));
}
