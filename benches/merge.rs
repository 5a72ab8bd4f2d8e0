//! Packet round-trip benchmark: issue, return and merge of one annotator's packet of 1,000,
//! 4,000 and 20,000 rows. Target: a 20,000-row merge in seconds (it was 10-14 minutes when each
//! row's lookup scanned all of the packet's events), so a save waiting on it stays under the
//! 5 s busy timeout.
//!
//! Per size, not timed: a synthetic project (`sample::generate`), two annotators each assigned
//! every row, and the annotator's whole packet annotated in their workspace
//! (a rejection with its boundary type set on each row, as the app would: about eight events
//! per row with the pre-fills). Timed: `packets issue` (both
//! annotators' packets), opening the workspace, `packets return`, the merge, and merging the
//! same return again (a no-op).
//!
//! Run: `cargo bench --bench merge` (sizes via FORCEBENCH_BENCH_SIZES, e.g. "1000,4000,20000").

use forcebench::packets::{self, Blinding};
use forcebench::{workspace, Project};
use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let sizes: Vec<usize> = std::env::var("FORCEBENCH_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 4_000, 20_000]);
    println!(
        "{:>7} {:>8} {:>9} {:>9} {:>9} {:>9} {:>11}",
        "rows", "events", "issue s", "open s", "return s", "merge s", "again s"
    );
    for rows in sizes {
        let dir = tempfile::tempdir().unwrap();
        let mut project = Project::create(&dir.path().join("lead.forcebench"), "bench").unwrap();
        let csv = dir.path().join("c.csv");
        forcebench::sample::write_candidates(&csv, &forcebench::sample::generate(rows, 5)).unwrap();
        forcebench::import::import_file(&mut project, &csv, &mut |_, _| {}).unwrap();
        for who in ["A", "B"] {
            forcebench::roster::add(&project, who, forcebench::roster::Role::Annotator).unwrap();
        }
        forcebench::assign::assign(&mut project, 1).unwrap();

        let start = Instant::now();
        let issued = packets::issue(&mut project, &dir.path().join("packets"), Blinding::Standard).unwrap();
        let issue = start.elapsed().as_secs_f64();
        let packet = PathBuf::from(&issued.iter().find(|p| p.annotator == "A").unwrap().file);

        let start = Instant::now();
        let mut ws = workspace::open_packet(&packet, &dir.path().join("ws.forcebench")).unwrap();
        let open = start.elapsed().as_secs_f64();
        // Simulated annotation is the lead's demonstration alone; in a workspace the annotator
        // labels each row as the app would: a rejection with its boundary type finishes it.
        let ids: Vec<String> = {
            let mut stmt = ws.conn().prepare("SELECT id FROM candidates ORDER BY seq").unwrap();
            stmt.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
        };
        for id in &ids {
            use forcebench::annotate::{set_field, Field};
            set_field(&mut ws, id, "A", Field::Decision, Some("reject_not_force_gap")).unwrap();
            set_field(&mut ws, id, "A", Field::BoundaryType, Some("ambiguous")).unwrap();
        }
        let events: i64 = ws.conn().query_row("SELECT count(*) FROM annotation_events", [], |r| r.get(0)).unwrap();

        let returned = dir.path().join("returned.json");
        let start = Instant::now();
        workspace::return_packet(&ws, &returned).unwrap();
        let ret = start.elapsed().as_secs_f64();

        let start = Instant::now();
        let report = packets::merge(&mut project, std::slice::from_ref(&returned)).unwrap();
        let merge = start.elapsed().as_secs_f64();
        assert!(report[0].merged && report[0].new_events == events as u64 && report[0].finished_rows == rows as u64);

        let start = Instant::now();
        let again = packets::merge(&mut project, std::slice::from_ref(&returned)).unwrap();
        let no_op = start.elapsed().as_secs_f64();
        assert!(!again[0].merged);
        println!("{rows:>7} {events:>8} {issue:>9.2} {open:>9.2} {ret:>9.2} {merge:>9.2} {no_op:>11.2}");
    }
}
