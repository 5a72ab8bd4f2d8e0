//! The project status: rows per workflow state and the funnel per axis.

use crate::adjudicate::fixture;
use crate::common::*;
use forcebench::adjudicate;
use forcebench::annotate::Field;
use forcebench::status;

#[test]
fn funnel_counts_every_step_per_axis() {
    let mut f = fixture();
    adjudicate::confirm_agreements(&mut f.project, "eve").unwrap(); // rows 0 (accept) and 4 (reject)
    let s = status::status(&f.project).unwrap();
    let t = &s.funnel.total;
    assert_eq!((t.candidates, t.double_annotated, t.adjudicated), (106, 5, 2));
    // Row 0 was bulk-confirmed: its checklist is unanswered, which is a warning, so it is accepted,
    // but held back from splits until its promotion checks are affirmed.
    assert_eq!((t.accepted, t.rejected, t.qc_blocked, t.locality_removed), (1, 1, 0, 0));
    assert_eq!(t.unaffirmed, 1);
    assert_eq!((t.retained, t.evaluation), (None, None), "no split yet");
    assert_eq!(s.funnel.rejected_by_boundary["ambiguous"], 1);
    assert_eq!(s.funnel.by_axis.values().map(|c| c.candidates).sum::<i64>(), 106);
    assert_eq!(s.funnel.by_axis.values().map(|c| c.accepted).sum::<i64>(), 1);
    let axis0 = adjudicate::get(&f.project, &f.ids[0]).unwrap().unwrap().value(Field::Axis).unwrap().to_string();
    assert_eq!(s.funnel.by_axis[&axis0].accepted, 1);
}

/// The status restated as the per-row statement it was read with before its scans were joined
/// in memory (each row's finished annotations, final axis and split roles looked up row by row,
/// its state from the SQL statement of the rule): the oracle for `status`.
fn oracle_status(p: &forcebench::Project) -> status::StatusReport {
    use forcebench::status::{Funnel, FunnelCounts};
    use forcebench::vocab::{Axis, BoundaryType, WorkflowState};
    let conn = p.conn();
    conn.execute_batch(crate::split::ORACLE_STATES).unwrap();
    let split: Option<i64> = conn.query_row("SELECT max(id) FROM splits", [], |r| r.get(0)).unwrap();
    let mut funnel = Funnel {
        rejected_by_boundary: BoundaryType::ALL.iter().map(|b| (b.as_str().to_string(), 0)).collect(),
        by_axis: Axis::ALL.iter().map(|a| (a.as_str().to_string(), FunnelCounts::default())).collect(),
        ..Funnel::default()
    };
    let mut stmt = conn
        .prepare(
            "SELECT coalesce(CASE WHEN j.decision = 'accept_force_gap' THEN
                        (SELECT value FROM adjudication_fields f WHERE f.candidate_id = c.id AND f.field = 'axis') END,
                      c.axis, 'none'),
                    s.state,
                    (SELECT count(*) FROM annotations n WHERE n.candidate_id = c.id AND n.finished = 1) >= 2,
                    j.decision, j.boundary_type,
                    EXISTS (SELECT 1 FROM split_rows r WHERE r.split_id = ?1 AND r.candidate_id = c.id AND r.role = 'retained'),
                    EXISTS (SELECT 1 FROM split_rows r WHERE r.split_id = ?1 AND r.candidate_id = c.id AND r.role = 'eval'),
                    coalesce(j.span_decisive = 1 AND j.calibrated_supported = 1 AND j.raised_underwarranted = 1
                             AND j.one_local_axis = 1 AND j.no_unrelated_addition = 1, 0)
             FROM candidates c
             JOIN candidate_states s ON s.candidate_id = c.id
             LEFT JOIN adjudications j ON j.candidate_id = c.id",
        )
        .unwrap();
    let mut rows = stmt.query([split]).unwrap();
    while let Some(r) = rows.next().unwrap() {
        let (axis, state, double): (String, String, bool) = (r.get(0).unwrap(), r.get(1).unwrap(), r.get(2).unwrap());
        let (decision, boundary): (Option<String>, Option<String>) = (r.get(3).unwrap(), r.get(4).unwrap());
        let kept = state != "locality_removed";
        let (retained, eval) = (r.get::<_, bool>(5).unwrap() && kept, r.get::<_, bool>(6).unwrap() && kept);
        let affirmed: bool = r.get(7).unwrap();
        if state == "rejected" {
            if let Some(b) = &boundary {
                *funnel.rejected_by_boundary.entry(b.clone()).or_insert(0) += 1;
            }
        }
        let add = |c: &mut FunnelCounts| {
            c.candidates += 1;
            c.double_annotated += i64::from(double || decision.is_some());
            c.adjudicated += i64::from(decision.is_some());
            c.accepted += i64::from(state == "accepted");
            c.qc_blocked += i64::from(state == "adjudicated" && decision.as_deref() == Some("accept_force_gap"));
            c.unaffirmed += i64::from(state == "accepted" && !affirmed);
            c.rejected += i64::from(state == "rejected");
            c.locality_removed += i64::from(state == "locality_removed");
            if split.is_some() {
                *c.retained.get_or_insert(0) += i64::from(retained);
                *c.evaluation.get_or_insert(0) += i64::from(eval);
            }
        };
        add(&mut funnel.total);
        add(funnel.by_axis.entry(axis).or_default());
    }
    if split.is_some() {
        for c in std::iter::once(&mut funnel.total).chain(funnel.by_axis.values_mut()) {
            c.retained.get_or_insert(0);
            c.evaluation.get_or_insert(0);
        }
    }
    let count_by = |sql: &str| -> std::collections::BTreeMap<String, i64> {
        let mut stmt = conn.prepare(sql).unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect()
    };
    let states = WorkflowState::ALL
        .iter()
        .map(|s| {
            let n: i64 = conn
                .query_row("SELECT count(*) FROM candidate_states WHERE state = ?1", [s.as_str()], |r| r.get(0))
                .unwrap();
            (*s, n)
        })
        .collect();
    let report = status::StatusReport {
        project: p.info().clone(),
        candidates: conn.query_row("SELECT count(*) FROM candidates", [], |r| r.get(0)).unwrap(),
        states,
        by_source: count_by("SELECT source_dataset, count(*) FROM candidates GROUP BY source_dataset"),
        by_suggested_axis: count_by(
            "SELECT coalesce(axis, 'none'), count(*) FROM candidates GROUP BY coalesce(axis, 'none')",
        ),
        groups: conn.query_row("SELECT count(DISTINCT group_id) FROM candidates", [], |r| r.get(0)).unwrap(),
        funnel,
        contexts: forcebench::contexts::accounting(conn).unwrap(),
        software: forcebench::software::software(),
    };
    conn.execute_batch("DROP VIEW temp.candidate_states").unwrap();
    report
}

#[test]
fn the_status_read_in_scans_is_the_per_row_statements() {
    use forcebench::adjudicate::{Checklist, Choice, Resolution};
    use forcebench::split as fs;
    use forcebench::vocab::WorkflowState as S;
    let dir = tempfile::tempdir().unwrap();
    let mut p = crate::split::project_from(dir.path(), "s.forcebench", &[("scope", 9), ("numeric", 7)], 5, 2);
    let check = |p: &forcebench::Project| {
        let (got, want) = (status::status(p).unwrap(), oracle_status(p));
        assert_eq!(got, want);
        got
    };
    check(&p);
    // Rows no one has finished, one annotator has, both have (not adjudicated yet), and rows
    // imported later with no suggested axis and a source of their own.
    let mut rows: Vec<String> = (0..6).map(|k| csv_row(&format!("z{k}"))).collect();
    rows.extend((0..2).map(|k| csv_row(&format!("y{k}")).replace(",modality,2", ",,").replace("ExpertQA", "NewSet")));
    forcebench::import::import_file(&mut p, &write(dir.path(), "more.csv", csv_file(&rows)), &mut |_, _| {}).unwrap();
    check(&p);
    forcebench::assign::assign(&mut p, 2).unwrap();
    check(&p);
    let labels = write(
        dir.path(),
        "more.jsonl",
        "{\"id\":\"z0\",\"decision\":\"reject_not_force_gap\",\"boundary_type\":\"ambiguous\"}\n\
         {\"id\":\"z1\",\"decision\":\"reject_not_force_gap\",\"boundary_type\":\"duplicate\"}\n",
    );
    forcebench::annotate::import_jsonl(&mut p, &labels, "ana").unwrap();
    check(&p);
    let labels = write(
        dir.path(),
        "z0.jsonl",
        "{\"id\":\"z0\",\"decision\":\"reject_not_force_gap\",\"boundary_type\":\"ambiguous\"}\n",
    );
    forcebench::annotate::import_jsonl(&mut p, &labels, "ben").unwrap();
    check(&p);
    // An accept moved to another axis than suggested, one held back by QC, one marked nonlocal,
    // quality control run, and a split drafted around them.
    let resolve = |p: &mut forcebench::Project, id: &str, axis: &str, checklist: Checklist| {
        let res = Resolution {
            choices: vec![
                (forcebench::annotate::Field::Decision, Choice::Value(Some("accept_force_gap".into()))),
                (forcebench::annotate::Field::Axis, Choice::Value(Some(axis.into()))),
            ],
            rationale: Some("the axis is the time frame".into()),
            checklist,
        };
        forcebench::adjudicate::resolve(p, id, "eve", &res).unwrap();
    };
    resolve(&mut p, "r0000", "temporal", Checklist::default());
    check(&p);
    resolve(&mut p, "r0001", "scope", Checklist { one_local_axis: Some(false), ..Default::default() });
    check(&p);
    forcebench::qc::run(&mut p).unwrap();
    check(&p);
    let s = fs::draft(&mut p, &fs::SplitParams::new(std::collections::BTreeMap::new(), Some(3), Some(1))).unwrap();
    check(&p);
    let eval = s.eval_ids[0].clone();
    forcebench::locality::mark(&mut p, &eval, "the raised claim names a new population", "eve").unwrap();
    check(&p);
    // A final axis on a rejected row (this version drops it; the rule must not rely on that).
    p.conn()
        .execute(
            "INSERT INTO adjudication_fields (candidate_id, field, value, source, adjudicator_id, at)
             SELECT candidate_id, 'axis', 'relation', 'edited', adjudicator_id, decided_at FROM adjudications
             WHERE decision = 'reject_not_force_gap' ORDER BY candidate_id LIMIT 1",
            [],
        )
        .unwrap();
    let got = check(&p);
    // A row's slot moves to another annotator, who starts on it; a label changed and undone.
    forcebench::roster::add(&p, "cy", forcebench::roster::Role::Annotator).unwrap();
    let z2: Vec<String> = p
        .conn()
        .prepare("SELECT a.name FROM assignments s JOIN annotators a ON a.id = s.annotator_id WHERE s.candidate_id = 'z2' ORDER BY s.slot")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    forcebench::assign::reassign(&mut p, "z2", &z2[0], "cy", "lead", "away").unwrap();
    check(&p);
    let labels = write(
        dir.path(),
        "z2.jsonl",
        "{\"id\":\"z2\",\"decision\":\"reject_not_force_gap\",\"boundary_type\":\"duplicate\"}\n",
    );
    forcebench::annotate::import_jsonl(&mut p, &labels, "cy").unwrap();
    check(&p);
    forcebench::annotate::set_field(&mut p, "z2", "cy", forcebench::annotate::Field::Notes, Some("which reading?"))
        .unwrap();
    forcebench::annotate::set_field(
        &mut p,
        "z2",
        "cy",
        forcebench::annotate::Field::Decision,
        Some("needs_discussion"),
    )
    .unwrap();
    forcebench::annotate::set_field(&mut p, "z2", "cy", forcebench::annotate::Field::Decision, None).unwrap();
    assert_eq!(check(&p).states[&S::Annotating], 1, "z1 only: z2's label was taken back");
    forcebench::annotate::undo(&mut p, "z2", "cy").unwrap();
    assert_eq!(check(&p).states[&S::Annotating], 2, "z1 and z2");
    // The same file opened again, as another window or command would.
    let again = forcebench::Project::open(std::path::Path::new(&p.info().path)).unwrap();
    assert_eq!(status::status(&again).unwrap(), oracle_status(&again));
    // The project holds what the test is about.
    for state in S::ALL {
        assert!(got.states[state] > 0 || *state == S::Imported, "{} {:?}", state.as_str(), got.states);
    }
    let t = &got.funnel.total;
    assert!(
        t.qc_blocked == 1 && t.locality_removed == 1 && t.retained.unwrap() > 0 && t.evaluation.unwrap() > 0,
        "{t:?}"
    );
    assert_eq!(got.funnel.by_axis["temporal"].adjudicated, 1, "the final axis counts, not the suggested one");
    assert_eq!(got.by_suggested_axis["none"], 2);
    assert_eq!(got.by_source["NewSet"], 2);
    assert_eq!(got.funnel.rejected_by_boundary["ambiguous"], 5);
    assert_eq!(got.states[&S::DoubleAnnotated], 1, "z0, not adjudicated");
}

/// The status's first read scans whole tables, and SQLite reads the file through a memory map:
/// the pages it touched stayed mapped, resident in the app for as long as the project was open.
#[cfg(target_os = "linux")]
#[test]
fn the_first_status_read_leaves_no_page_of_the_file_mapped() {
    use forcebench::{assign, import, roster, sample};
    use forcebench_test_support::smaps::mapped_kib;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mapped.forcebench");
    {
        let mut p = forcebench::Project::create(&path, "mapped").unwrap();
        let csv = dir.path().join("pool.csv");
        sample::write_candidates(&csv, &sample::generate(3_000, 11)).unwrap();
        import::import_file(&mut p, &csv, &mut |_, _| {}).unwrap();
        for who in ["Ana", "Ben"] {
            roster::add(&p, who, roster::Role::Annotator).unwrap();
        }
        assign::assign(&mut p, 1).unwrap();
    }
    let p = forcebench::Project::open(&path).unwrap();
    // A scan of every row maps its pages: the measure sees them.
    let n: i64 =
        p.conn().query_row("SELECT count(*) FROM candidates WHERE length(context) >= 0", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 3_000);
    let scanned = mapped_kib(&path);
    assert!(scanned > 1024, "a scan of 3,000 rows maps more than 1 MiB of the file, here {scanned} KiB");
    let s = status::status(&p).unwrap();
    assert_eq!((s.candidates, s.states.values().sum::<i64>()), (3_000, 3_000));
    assert_eq!(mapped_kib(&path), 0, "after the status, of {scanned} KiB mapped by a scan");
    // The project reads as before, through the map again.
    let page =
        forcebench::candidate::page(&p, &serde_json::from_value(serde_json::json!({ "limit": 200 })).unwrap()).unwrap();
    assert_eq!((page.total, page.rows.len()), (3_000, 200));
    assert_eq!(status::status(&p).unwrap(), s);
    assert_eq!(s, oracle_status(&p));
}

/// A project in memory has no file to map: its status reads as any other's.
#[test]
fn the_status_of_a_project_in_memory_reads() {
    let p = forcebench::Project::in_memory("in memory").unwrap();
    let s = status::status(&p).unwrap();
    assert_eq!((s.candidates, s.states.values().sum::<i64>()), (0, 0));
}
