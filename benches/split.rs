//! Split benchmark: draft, lock and export on a 100,000-row project. Target: under 1 s in total.
//!
//! The project is built in bulk with SQL for the benchmark's setup (not timed): 100,000
//! synthetic candidates, two annotators who agree, and adjudications that accept 90% of the rows
//! (with passing QC) and reject the rest. Timed: `split draft` (relation capped), `split lock`
//! (which also computes kappa over every double-annotated row for the manifest) and `export`
//! (nine files), each on its own and in total.
//!
//! After the timed steps it measures two floors on the same project and files, which no
//! implementation of this export can go below on this machine: stepping SQLite through every
//! column the export reads, without decoding or copying anything; and writing, hashing (sha256)
//! and syncing the exported bytes, already serialised, on two threads.
//!
//! Run: `cargo bench --bench split` (rows via FORCEBENCH_BENCH_ROWS).

use std::time::Instant;

fn main() {
    let rows: usize = std::env::var("FORCEBENCH_BENCH_ROWS").ok().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    // FORCEBENCH_BENCH_DIR keeps the project and the export there for a look afterwards.
    let tmp = tempfile::tempdir().unwrap();
    let dir = std::env::var_os("FORCEBENCH_BENCH_DIR").map(std::path::PathBuf::from);
    let dir = dir.as_deref().unwrap_or(tmp.path());
    std::fs::create_dir_all(dir).unwrap();
    let mut project = forcebench::Project::create(&dir.join("bench.forcebench"), "bench").unwrap();
    let csv = dir.join("c.csv");
    forcebench::sample::write_candidates(&csv, &forcebench::sample::generate(rows, 5)).unwrap();
    forcebench::import::import_file(&mut project, &csv, &mut |_, _| {}).unwrap();
    for (who, role) in [
        ("A", forcebench::roster::Role::Annotator),
        ("B", forcebench::roster::Role::Annotator),
        ("E", forcebench::roster::Role::Adjudicator),
    ] {
        forcebench::roster::add(&project, who, role).unwrap();
    }
    forcebench::assign::assign(&mut project, 1).unwrap();
    project
        .conn()
        .execute_batch(
            "BEGIN;
             INSERT INTO annotations (candidate_id, annotator_id, decision, evidence_span, span_start, span_end,
                 calibrated_claim, raised_claim, axis, severity, boundary_type, repair, finished, updated_at)
             SELECT c.id, a.id, CASE WHEN c.seq % 10 = 0 THEN 'reject_not_force_gap' ELSE 'accept_force_gap' END,
                 c.evidence_span, instr(c.passage, c.evidence_span) - 1, instr(c.passage, c.evidence_span) - 1 + length(c.evidence_span),
                 c.calibrated_claim, c.raised_claim, c.axis, c.severity,
                 CASE WHEN c.seq % 10 = 0 THEN 'ambiguous' END, c.repair, 1, 't'
             FROM candidates c JOIN annotators a ON a.role = 'annotator';
             INSERT INTO adjudications (candidate_id, decision, boundary_type, adjudicator_id, decided_at, bulk_confirmed)
             SELECT c.id, CASE WHEN c.seq % 10 = 0 THEN 'reject_not_force_gap' ELSE 'accept_force_gap' END,
                 CASE WHEN c.seq % 10 = 0 THEN 'ambiguous' END, 3, 't', 1
             FROM candidates c;
             INSERT INTO adjudication_fields (candidate_id, field, value, source, adjudicator_id, at)
             SELECT c.id, f.field,
                 CASE f.field WHEN 'decision' THEN 'accept_force_gap'
                     WHEN 'evidence_span' THEN json_object('text', c.evidence_span, 'start', instr(c.passage, c.evidence_span) - 1,
                                                           'end', instr(c.passage, c.evidence_span) - 1 + length(c.evidence_span))
                     WHEN 'calibrated_claim' THEN c.calibrated_claim WHEN 'raised_claim' THEN c.raised_claim
                     WHEN 'axis' THEN c.axis WHEN 'severity' THEN CAST(c.severity AS TEXT) ELSE c.repair END,
                 'both', 3, 't'
             FROM candidates c
             JOIN (SELECT 'decision' AS field UNION ALL SELECT 'evidence_span' UNION ALL SELECT 'calibrated_claim'
                   UNION ALL SELECT 'raised_claim' UNION ALL SELECT 'axis' UNION ALL SELECT 'severity' UNION ALL SELECT 'repair') f
             WHERE c.seq % 10 <> 0;
             INSERT INTO adjudication_fields (candidate_id, field, value, source, adjudicator_id, at)
             SELECT c.id, f.field, CASE f.field WHEN 'decision' THEN 'reject_not_force_gap' ELSE 'ambiguous' END, 'both', 3, 't'
             FROM candidates c JOIN (SELECT 'decision' AS field UNION ALL SELECT 'boundary_type') f WHERE c.seq % 10 = 0;
             INSERT INTO qc_check_lists (id, checks) VALUES (1, '[[\"span_present\",\"error\"]]');
             INSERT INTO qc_runs (candidate_id, run_at, checks, failed, blocked)
             SELECT id, 't', 1, 0, 0 FROM candidates WHERE seq % 10 <> 0;
             COMMIT;",
        )
        .unwrap();
    // Timed on the project as a user opens it (the CLI opens it afresh for every command): closed
    // after the bulk setup, so its write-ahead log is checkpointed, and opened again.
    drop(project);
    let mut project = forcebench::Project::open(&dir.join("bench.forcebench")).unwrap();
    let accepted = forcebench::status::status(&project).unwrap().funnel.total.accepted;

    let params = forcebench::split::SplitParams::new(
        [(forcebench::vocab::Axis::Relation, (accepted / 8) as u32)].into_iter().collect(),
        Some(40),
        Some(1),
    );
    let start = Instant::now();
    let draft = forcebench::split::draft(&mut project, &params).unwrap();
    let t_draft = start.elapsed();
    let start = Instant::now();
    // The synthetic rows' locality warnings are not reviewed: the lock is timed as it records them.
    let locked = forcebench::split::lock_with(&mut project, true).unwrap();
    let t_lock = start.elapsed();
    let start = Instant::now();
    let report = forcebench::split::export(&project, &dir.join("out"), &mut |_, _| {}).unwrap();
    let t_export = start.elapsed();
    assert_eq!(locked.eval_ids, draft.eval_ids);
    let size: u64 = report.files.keys().map(|f| std::fs::metadata(dir.join("out").join(f)).unwrap().len()).sum();

    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    println!(
        "{rows} candidates, {accepted} accepted; {} retained, {} capped, {} evaluation",
        locked.counts.retained, locked.counts.capped, locked.counts.eval
    );
    println!("split draft                 {:>8.1} ms", ms(t_draft));
    println!("split lock (incl. kappa)    {:>8.1} ms", ms(t_lock));
    println!("export (9 files, {:.1} MB)  {:>8.1} ms", size as f64 / 1e6, ms(t_export));
    println!("total                       {:>8.1} ms   (target: under 1000 ms)", ms(t_draft + t_lock + t_export));
    for f in report.files.keys() {
        println!("  {f:<24} {:>8.1} MB", std::fs::metadata(dir.join("out").join(f)).unwrap().len() as f64 / 1e6);
    }

    let read = read_floor(project.conn());
    let names: Vec<&String> = report.files.keys().collect();
    let write = write_floor(&dir.join("out"), &dir.join("floor"), &names);
    println!("floors (no export can go below these here):");
    println!("  read every column it needs  {:>8.1} ms", ms(read));
    println!("  write + sha256 + sync       {:>8.1} ms   (its {:.1} MB, on two threads)", ms(write), size as f64 / 1e6);
}

/// Steps SQLite through every row and column an export reads, touching each value in place.
fn read_floor(conn: &rusqlite::Connection) -> std::time::Duration {
    let start = Instant::now();
    let mut bytes = 0usize;
    for sql in [
        "SELECT candidate_id, role, reason FROM split_rows",
        "SELECT candidate_id, field, value, source FROM adjudication_fields",
        "SELECT id, group_id, source_dataset, context, passage, calibrated_claim, raised_claim, axis FROM candidates",
        "SELECT candidate_id, annotator_id, decision, evidence_span, span_start, span_end, calibrated_claim, raised_claim,
                axis, severity, boundary_type, repair, notes, seconds_spent FROM annotations WHERE finished = 1",
        "SELECT candidate_id, decision, rationale, adjudicator_id, decided_at, bulk_confirmed, span_decisive, calibrated_supported,
                raised_underwarranted, one_local_axis, no_unrelated_addition, boundary_type FROM adjudications",
        "SELECT candidate_id, blocked FROM qc_runs",
    ] {
        let mut stmt = conn.prepare(sql).unwrap();
        let columns = stmt.column_count();
        let mut rows = stmt.query([]).unwrap();
        while let Some(r) = rows.next().unwrap() {
            for i in 0..columns {
                if let rusqlite::types::ValueRef::Text(t) = r.get_ref(i).unwrap() {
                    bytes += t.len();
                }
            }
        }
    }
    std::hint::black_box(bytes);
    start.elapsed()
}

/// Writes copies of `names` (read into memory first, not timed) into `to`, each hashed and
/// synced, shared between two threads by size.
fn write_floor(from: &std::path::Path, to: &std::path::Path, names: &[&String]) -> std::time::Duration {
    use sha2::Digest;
    use std::io::Write;
    std::fs::create_dir_all(to).unwrap();
    let mut files: Vec<(String, Vec<u8>)> =
        names.iter().map(|n| (n.to_string(), std::fs::read(from.join(n)).unwrap())).collect();
    files.sort_by_key(|f| std::cmp::Reverse(f.1.len()));
    let mut halves: [Vec<&(String, Vec<u8>)>; 2] = [Vec::new(), Vec::new()];
    let mut load = [0usize; 2];
    for f in &files {
        let i = usize::from(load[1] < load[0]);
        load[i] += f.1.len();
        halves[i].push(f);
    }
    let start = Instant::now();
    std::thread::scope(|s| {
        for half in &halves {
            s.spawn(move || {
                for (name, bytes) in half {
                    let mut file = std::fs::File::create(to.join(name)).unwrap();
                    let mut hash = sha2::Sha256::new();
                    for chunk in bytes.chunks(1 << 20) {
                        file.write_all(chunk).unwrap();
                        hash.update(chunk);
                    }
                    file.sync_all().unwrap();
                    std::hint::black_box(hash.finalize());
                }
            });
        }
    });
    start.elapsed()
}
