//! Import benchmark: 100,000 generated candidate rows through `forcebench` import, next to the
//! `sqlite3` shell's `.import` of the same CSV into a plain table, measured in the same run.
//! Target: ForceBench's import at most 1.2x the plain `.import`.
//!
//! Run: `cargo bench --bench import` (needs the `sqlite3` command; rows via FORCEBENCH_BENCH_ROWS).

use std::process::Command;
use std::time::{Duration, Instant};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let rows: usize = std::env::var("FORCEBENCH_BENCH_ROWS").ok().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let runs = 3;
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("candidates.csv");
    forcebench::sample::write_candidates(&csv, &forcebench::sample::generate(rows, 42)).unwrap();
    let size = std::fs::metadata(&csv).unwrap().len();
    println!("input: {rows} rows, {:.1} MiB CSV", size as f64 / 1048576.0);

    let mut ours = Vec::new();
    for run in 0..runs {
        let path = dir.path().join(format!("p{run}.forcebench"));
        let mut project = forcebench::Project::create(&path, "bench").unwrap();
        let start = Instant::now();
        let report = forcebench::import::import_file(&mut project, &csv, &mut |_, _| {}).unwrap();
        ours.push(start.elapsed());
        assert_eq!(report.inserted as usize, rows);
    }

    let mut plain = Vec::new();
    for run in 0..runs {
        let db = dir.path().join(format!("plain{run}.db"));
        let start = Instant::now();
        let status = Command::new("sqlite3")
            .arg(&db)
            .arg(".mode csv")
            .arg(format!(".import {} candidates", csv.display()))
            .status()
            .expect("the sqlite3 command is needed for the comparison (apt-get install sqlite3)");
        plain.push(start.elapsed());
        assert!(status.success());
    }

    let (ours, plain) = (median(ours), median(plain));
    let rate = |d: Duration| rows as f64 / d.as_secs_f64();
    println!(
        "forcebench import   {:>8.0} ms  {:>9.0} rows/s  (validate, hash, index, one transaction, synchronous=FULL)",
        ours.as_secs_f64() * 1e3,
        rate(ours)
    );
    println!(
        "sqlite3 .import     {:>8.0} ms  {:>9.0} rows/s  (plain table, no validation)",
        plain.as_secs_f64() * 1e3,
        rate(plain)
    );
    println!(
        "ratio               {:>8.2}x  (target: at most 1.2x; median of {runs} runs each)",
        ours.as_secs_f64() / plain.as_secs_f64()
    );
}
