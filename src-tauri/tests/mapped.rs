//! What a command leaves mapped: SQLite reads the project file through a memory map, and every
//! page a read touched stayed mapped, resident in the app, for as long as the project was open.
//! The views' whole-table reads (agreement, its export, the adjudication queue's first page, QC,
//! the locality audit, the header's counts) left those tables' pages there; every command now
//! gives them back when it answers. Measured in this process's /proc/self/smaps, on a project
//! file (one in memory has no map).
#![cfg(target_os = "linux")]

mod common;

use std::path::Path;

use common::invoke;
use forcebench::{assign, import, roster, sample, Project};
use forcebench_test_support::smaps::mapped_kib;
use serde_json::json;

/// A project file of 3,000 generated rows, each assigned to two of four annotators and labelled
/// by both: agreement, the adjudication queue and QC all have every row to read.
fn labelled_project(path: &Path) {
    let mut p = Project::create(path, "mapped").unwrap();
    let csv = path.with_extension("csv");
    sample::write_candidates(&csv, &sample::generate(3_000, 11)).unwrap();
    import::import_file(&mut p, &csv, &mut |_, _| {}).unwrap();
    for who in ["Ana", "Ben", "Chidi", "Dana"] {
        roster::add(&p, who, roster::Role::Annotator).unwrap();
    }
    roster::add(&p, "Eve", roster::Role::Adjudicator).unwrap();
    assign::assign(&mut p, 1).unwrap();
    sample::annotate_sample(&mut p, 3_000, 1).unwrap();
}

#[test]
fn no_command_leaves_the_pages_of_a_whole_read_mapped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mapped.forcebench");
    labelled_project(&path);

    // The measure sees what a whole read maps: a scan on a connection of its own, closed after.
    {
        let other = Project::open(&path).unwrap();
        let n: i64 = other
            .conn()
            .query_row("SELECT count(*) FROM candidates WHERE length(context) >= 0", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 3_000);
        let scanned = mapped_kib(&path);
        assert!(scanned > 1024, "a scan of every row maps more than 1 MiB of the file, here {scanned} KiB");
    }
    assert_eq!(mapped_kib(&path), 0, "closing a connection unmaps its pages");

    let (_app, window) = common::app(Ok(Project::open(&path).unwrap()));
    let report = dir.path().join("agreement.json");
    let calls = [
        ("project_status", json!({})),
        ("agreement_report", json!({})),
        ("export_agreement", json!({ "path": report.display().to_string(), "format": "json" })),
        ("adjudication_page", json!({ "query": { "filter": {}, "limit": 200 } })),
        ("affirm_preview", json!({ "adjudicator": "Eve" })),
        ("run_qc", json!({})),
        ("locality_rows", json!({})),
        ("candidate_page", json!({ "query": { "limit": 200 } })),
    ];
    let mut answered = Vec::new();
    for (cmd, args) in calls {
        let got = invoke(&window, cmd, args).unwrap_or_else(|e| panic!("{cmd}: {e}"));
        answered.push((cmd, got));
        assert_eq!(mapped_kib(&path), 0, "{cmd} left pages of the project file mapped");
    }
    // The reads still read: what each answered is the project's, not an empty reply.
    let by = |cmd: &str| &answered.iter().find(|(c, _)| *c == cmd).unwrap().1;
    assert_eq!(by("project_status")["candidates"], json!(3_000));
    let paired = by("agreement_report")["n_items"].as_u64().unwrap();
    assert!(paired >= 1_000, "rows with two labels read: {paired}");
    assert!(report.is_file());
    assert_eq!(by("candidate_page")["rows"].as_array().unwrap().len(), 200);
    assert!(by("adjudication_page")["total"].as_u64().unwrap() > 0);
}
