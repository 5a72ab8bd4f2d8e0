//! Agreement benchmark: every statistic on 100,000 double-annotated rows. Target: under 50 ms in
//! total with the bootstrap excluded; the bootstrap (1,000 replicates) is timed separately.
//!
//! Measured: the statistics on labels in memory (`report_from_rows`, which also groups the
//! string triples into an item x annotator table); reading both annotations of every row from a
//! project; and every statistic of the project report on the rows read (`report_for`).
//!
//! Run: `cargo bench --bench agreement` (rows via FORCEBENCH_BENCH_ROWS).

use std::time::Instant;

fn main() {
    let rows: usize = std::env::var("FORCEBENCH_BENCH_ROWS").ok().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let decisions = ["accept_force_gap", "reject_not_force_gap", "needs_discussion"];
    let axes = ["relation", "modality", "scope", "temporal", "numeric"];

    // Labels in memory: two annotators agreeing about 85% of the time.
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let mut long = Vec::with_capacity(rows * 2);
    let mut pairs = Vec::with_capacity(rows);
    for i in 0..rows {
        let a = next(3) as usize;
        let b = if next(100) < 85 { a } else { next(3) as usize };
        long.push((format!("r{i}"), "A".to_string(), decisions[a].to_string()));
        long.push((format!("r{i}"), "B".to_string(), decisions[b].to_string()));
        pairs.push((a as u32, b as u32));
    }
    let start = Instant::now();
    let report = forcebench::agreement::report_from_rows(&long, None);
    let in_memory = start.elapsed();
    assert_eq!(report.pair.kappa.n_items as usize, rows);

    // A project with the same shape, annotations written in bulk for the benchmark's setup.
    let dir = tempfile::tempdir().unwrap();
    let mut project = forcebench::Project::create(&dir.path().join("bench.forcebench"), "bench").unwrap();
    let csv = dir.path().join("c.csv");
    forcebench::sample::write_candidates(&csv, &forcebench::sample::generate(rows, 5)).unwrap();
    forcebench::import::import_file(&mut project, &csv, &mut |_, _| {}).unwrap();
    for who in ["A", "B"] {
        forcebench::roster::add(&project, who, forcebench::roster::Role::Annotator).unwrap();
    }
    forcebench::assign::assign(&mut project, 1).unwrap();
    {
        let tx = project.conn_mut().transaction().unwrap();
        {
            let ids: Vec<String> = {
                let mut s = tx.prepare("SELECT id, evidence_span FROM candidates ORDER BY seq").unwrap();
                s.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
            };
            let mut ins = tx
                .prepare(
                    "INSERT INTO annotations (candidate_id, annotator_id, decision, evidence_span, calibrated_claim,
                        raised_claim, axis, severity, boundary_type, repair, finished, updated_at)
                     SELECT id, ?2, ?3, CASE WHEN ?7 THEN substr(evidence_span, 1, length(evidence_span) / 2)
                        ELSE evidence_span END, calibrated_claim, CASE WHEN ?7 THEN 'edited' ELSE raised_claim END,
                        ?4, ?5, ?6, repair, 1, 't'
                     FROM candidates WHERE id = ?1",
                )
                .unwrap();
            for (i, id) in ids.iter().enumerate() {
                let (a, b) = pairs[i];
                for (who, d) in [(1i64, a), (2, b)] {
                    let accept = d == 0;
                    ins.execute(rusqlite::params![
                        id,
                        who,
                        decisions[d as usize],
                        accept.then(|| axes[(i + who as usize) % 5]),
                        accept.then_some(1 + (i % 3) as i64),
                        (d == 1).then_some("ambiguous"),
                        who == 2 && a != b, // where they disagree, B marks half the span and edits the claim
                    ])
                    .unwrap();
                }
            }
        }
        // Each label's event, as a label made in the app or imported has (its mode, guideline
        // version and week are read from its events).
        tx.execute(
            "INSERT INTO annotation_events (candidate_id, annotator_id, field, new_value, at, origin, uid)
             SELECT candidate_id, annotator_id, 'decision', decision, '2025-03-10T09:15:02.000Z', 'import',
                    lower(hex(randomblob(16)))
             FROM annotations ORDER BY rowid",
            [],
        )
        .unwrap();
        tx.commit().unwrap();
    }
    if let Ok(keep) = std::env::var("FORCEBENCH_BENCH_KEEP") {
        project.conn().execute("VACUUM INTO ?1", [keep]).unwrap();
    }
    let start = Instant::now();
    let loaded = forcebench::agreement::double_annotated(&project).unwrap();
    let load = start.elapsed();
    let start = Instant::now();
    let project_report = forcebench::agreement::report_for(&loaded, None);
    let from_project = start.elapsed();
    assert_eq!(project_report.decision.kappa.n_items as usize, rows);

    let start = Instant::now();
    let ci = forcebench::agreement::stats::bootstrap_kappa_ci(&pairs, 3, 1000, 1).unwrap();
    let bootstrap = start.elapsed();

    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    println!("{rows} double-annotated rows");
    println!(
        "statistics on labels in memory        {:>8.1} ms  (kappa, SE, CI, PABAK, AC1, alpha, Fleiss, confusion)",
        ms(in_memory)
    );
    println!("project: read both annotations         {:>8.1} ms  (SQLite, not part of the target)", ms(load));
    println!("project: every statistic              {:>8.1} ms  (decisions, accept/not, axis, severity, spans, claims, breakdowns, alpha, Fleiss)", ms(from_project));
    println!("bootstrap CI, 1,000 replicates         {:>8.1} ms  ({:.3} to {:.3})", ms(bootstrap), ci[0], ci[1]);
    println!("target: under 50 ms in total, bootstrap excluded");
}
