//! Import benchmark: 100,000 generated candidate rows through `forcebench` import, next to the
//! `sqlite3` shell's `.import` of the same CSV into a plain table, measured in the same run, and
//! the same `.import` into a database journalled as a project is (write-ahead log, synchronous
//! FULL), which writes every page twice and is the floor a project's own journal sets.
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
        // Closed inside the timing, as the shell's run ends with its database closed (closing a
        // project deletes its write-ahead log).
        drop(project);
        ours.push(start.elapsed());
        assert_eq!(report.inserted as usize, rows);
    }

    // `.import` of the CSV into a new database, after `pragmas` (none: SQLite's defaults).
    let shell = |pragmas: &[&str], name: &str| -> Vec<Duration> {
        (0..runs)
            .map(|run| {
                let db = dir.path().join(format!("{name}{run}.db"));
                let start = Instant::now();
                let status = Command::new("sqlite3")
                    .arg(&db)
                    .args(pragmas)
                    .arg(".mode csv")
                    .arg(format!(".import {} candidates", csv.display()))
                    .stdout(std::process::Stdio::null())
                    .status()
                    .expect("the sqlite3 command is needed for the comparison (apt-get install sqlite3)");
                let took = start.elapsed();
                assert!(status.success());
                took
            })
            .collect()
    };
    let plain = shell(&[], "plain");
    let wal = median(shell(&["PRAGMA journal_mode = WAL", "PRAGMA synchronous = FULL"], "wal"));

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
        "sqlite3 .import WAL {:>8.0} ms  {:>9.0} rows/s  (the same, journalled as a project is: WAL, synchronous=FULL)",
        wal.as_secs_f64() * 1e3,
        rate(wal)
    );
    println!(
        "ratio               {:>8.2}x  (target: at most 1.2x; median of {runs} runs each)",
        ours.as_secs_f64() / plain.as_secs_f64()
    );
    println!(
        "ratio to WAL floor  {:>8.2}x  (the shell itself: {:.2}x its plain run)",
        ours.as_secs_f64() / wal.as_secs_f64(),
        wal.as_secs_f64() / plain.as_secs_f64()
    );
}
