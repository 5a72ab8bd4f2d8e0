//! Durable save benchmark: one annotation field change through `annotate::set_field` (event +
//! derived annotation, one transaction, synchronous=FULL), next to a bare single-row SQLite
//! commit with the same pragmas in the same run. Target: p99 at most 1.5x the bare commit's p99.
//!
//! Run: `cargo bench --bench save` (changes via FORCEBENCH_BENCH_SAVES, default 2000).

use forcebench::annotate::{self, Field};
use std::time::{Duration, Instant};

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let n: usize = std::env::var("FORCEBENCH_BENCH_SAVES").ok().and_then(|s| s.parse().ok()).unwrap_or(2000);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.forcebench");
    let mut project = forcebench::Project::create(&path, "bench").unwrap();
    forcebench::sample::load_sample(&mut project).unwrap();
    for who in ["ana", "ben"] {
        forcebench::roster::add(&project, who, forcebench::roster::Role::Annotator).unwrap();
    }
    forcebench::assign::assign(&mut project, 1).unwrap();
    let ids: Vec<String> = annotate::queue(&project, "ana").unwrap().into_iter().map(|q| q.id).collect();
    // Warm up: start every row so the timed saves are ordinary edits.
    for id in &ids {
        annotate::set_field(&mut project, id, "ana", Field::Notes, Some("warm")).unwrap();
    }
    let axes = ["relation", "modality", "scope", "temporal", "numeric"];
    let bare_path = dir.path().join("bare.db");
    let mut bare = rusqlite::Connection::open(&bare_path).unwrap();
    forcebench::db::configure(&mut bare).unwrap();
    bare.execute_batch("CREATE TABLE t (id INTEGER PRIMARY KEY, row TEXT, value TEXT)").unwrap();
    // Interleaved, so both see the same machine conditions (fsync times drift over a run).
    let mut ours = Vec::with_capacity(n);
    let mut plain = Vec::with_capacity(n);
    for i in 0..n {
        let id = &ids[i % ids.len()];
        let start = Instant::now();
        annotate::set_field(&mut project, id, "ana", Field::Axis, Some(axes[i % axes.len()])).unwrap();
        ours.push(start.elapsed());

        let start = Instant::now();
        let tx = bare.transaction().unwrap();
        tx.execute("INSERT INTO t (row, value) VALUES (?1, ?2)", (id, axes[i % axes.len()])).unwrap();
        tx.commit().unwrap();
        plain.push(start.elapsed());
    }
    ours.sort();
    plain.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!("{n} saves each, interleaved, WAL, synchronous=FULL");
    println!(
        "field change (set_field)   p50 {:>7.3} ms   p99 {:>7.3} ms",
        ms(percentile(&ours, 0.5)),
        ms(percentile(&ours, 0.99))
    );
    println!(
        "bare single-row commit     p50 {:>7.3} ms   p99 {:>7.3} ms",
        ms(percentile(&plain, 0.5)),
        ms(percentile(&plain, 0.99))
    );
    println!(
        "ratio                      p50 {:>7.2}x      p99 {:>7.2}x  (target: p99 at most 1.5x)",
        ms(percentile(&ours, 0.5)) / ms(percentile(&plain, 0.5)),
        ms(percentile(&ours, 0.99)) / ms(percentile(&plain, 0.99))
    );
}
