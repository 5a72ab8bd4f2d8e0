//! The paged candidate list (`candidate::page`) against the whole list filtered here, and the
//! annotate view's place in the queue (`annotate::row_view`) against the whole queue.

use forcebench::annotate::{self, Field};
use forcebench::candidate::{self, CandidatePage, CandidateQuery, CandidateSummary, PAGE_LIMIT_MAX};
use forcebench::roster::{self, Role};
use forcebench::vocab::WorkflowState;
use forcebench::Project;
use std::collections::BTreeSet;

/// A generated project whose rows stand in several states: 300 rows assigned to three
/// annotators, some decided by one or both of them, some marked nonlocal, and 60 more rows
/// imported after the assignment (so never assigned).
fn project() -> (tempfile::TempDir, Project) {
    let dir = tempfile::tempdir().unwrap();
    let mut project = Project::create(&dir.path().join("p.forcebench"), "paging").unwrap();
    let rows = forcebench::sample::generate(360, 7);
    let first = dir.path().join("first.csv");
    forcebench::sample::write_candidates(&first, &rows[..300]).unwrap();
    forcebench::import::import_file(&mut project, &first, &mut |_, _| {}).unwrap();
    for name in ["ana", "ben", "cleo"] {
        roster::add(&project, name, Role::Annotator).unwrap();
    }
    forcebench::assign::assign(&mut project, 11).unwrap();
    let second = dir.path().join("second.csv");
    forcebench::sample::write_candidates(&second, &rows[300..]).unwrap();
    forcebench::import::import_file(&mut project, &second, &mut |_, _| {}).unwrap();
    for (i, row) in rows[..300].iter().enumerate() {
        if i % 7 == 0 || i % 11 == 0 {
            let (a, b) = forcebench::assign::annotators_of(&project, &row.id).unwrap().unwrap();
            let who: &[String] = if i % 7 == 0 { &[a, b] } else { &[a] };
            for name in who {
                annotate::set_field(&mut project, &row.id, name, Field::Decision, Some("needs_discussion")).unwrap();
                annotate::set_field(&mut project, &row.id, name, Field::Notes, Some("which reading?")).unwrap();
            }
        }
    }
    // Adjudication, QC and locality facts written directly: only the states they make matter to
    // reading the list.
    let judy = roster::add(&project, "judy", Role::Adjudicator).unwrap();
    for (i, row) in rows[..300].iter().enumerate() {
        let (decision, qc) = match i % 13 {
            5 => ("accept_force_gap", Some(1)),
            6 => ("reject_not_force_gap", None),
            7 => ("accept_force_gap", Some(0)),
            8 => ("accept_force_gap", None),
            _ => continue,
        };
        project.conn().execute(
            "INSERT INTO adjudications (candidate_id, decision, adjudicator_id, decided_at) VALUES (?1, ?2, ?3, 'now')",
            rusqlite::params![row.id, decision, judy.id],
        )
        .unwrap();
        if let Some(passed) = qc {
            // Check `a` (an error) passes or fails, check `b` (a warning) always fails.
            project
                .conn()
                .execute_batch(&format!(
                    "INSERT OR IGNORE INTO qc_check_lists (id, checks) VALUES (1, '[[\"a\",\"error\"],[\"b\",\"warning\"]]');
                     INSERT INTO qc_runs (candidate_id, run_at, checks, failed, blocked) VALUES ('{id}', 'now', 1, {failed}, {blocked});
                     INSERT INTO qc_failures (candidate_id, check_name, severity, ord) SELECT '{id}', 'a', 'error', 1 WHERE {blocked};
                     INSERT INTO qc_failures (candidate_id, check_name, severity, ord) VALUES ('{id}', 'b', 'warning', 2);",
                    id = row.id,
                    failed = 2 - passed,
                    blocked = 1 - passed,
                ))
                .unwrap();
        }
        if i % 13 == 5 && i % 2 == 1 {
            forcebench::locality::mark(&mut project, &row.id, "needs the whole article", "lead").unwrap();
        }
    }
    (dir, project)
}

/// The page as computed here from the whole list: the same word rule, the same state rule.
fn expected(all: &[CandidateSummary], q: &CandidateQuery) -> (u64, Vec<CandidateSummary>) {
    let words: Vec<String> = q.text.to_lowercase().split_whitespace().map(String::from).collect();
    let matching: Vec<&CandidateSummary> = all
        .iter()
        .filter(|r| q.state.is_none_or(|s| r.state == s))
        .filter(|r| {
            let hay = [
                r.id.as_str(),
                &r.group_id,
                &r.source_dataset,
                r.axis.map_or("", |a| a.as_str()),
                &r.context,
                &r.calibrated_claim,
                &r.raised_claim,
            ]
            .join("\n")
            .to_lowercase();
            words.iter().all(|w| hay.contains(w.as_str()))
        })
        .collect();
    let rows = matching.iter().skip(q.offset as usize).take(q.limit.min(PAGE_LIMIT_MAX) as usize).map(|r| (*r).clone());
    (matching.len() as u64, rows.collect())
}

fn query(text: &str, state: Option<WorkflowState>, offset: u64, limit: u64) -> CandidateQuery {
    CandidateQuery { text: text.into(), state, offset, limit }
}

fn check(project: &Project, all: &[CandidateSummary], q: &CandidateQuery) -> CandidatePage {
    let page = candidate::page(project, q).unwrap();
    let (matching, rows) = expected(all, q);
    assert_eq!(page.total, all.len() as u64, "{q:?}");
    assert_eq!(page.matching, matching, "{q:?}");
    assert_eq!(page.offset, q.offset, "{q:?}");
    assert_eq!(page.rows, rows, "{q:?}");
    page
}

#[test]
fn pages_match_the_whole_list_filtered_and_windowed() {
    let (_dir, project) = project();
    let all = candidate::list(&project).unwrap();
    assert_eq!(all.len(), 360);
    let states: BTreeSet<WorkflowState> = all.iter().map(|r| r.state).collect();
    assert_eq!(states.len(), WorkflowState::ALL.len(), "the fixture covers several states: {states:?}");

    // No filter: windows in import order, the last one partial, then empty past the end.
    let first = check(&project, &all, &query("", None, 0, 200));
    assert_eq!(first.rows.len(), 200);
    assert_eq!(first.matching, 360);
    assert_eq!(check(&project, &all, &query("", None, 200, 200)).rows.len(), 160);
    assert_eq!(check(&project, &all, &query("", None, 123, 7)).rows[0].id, all[123].id);
    assert!(check(&project, &all, &query("", None, 360, 200)).rows.is_empty());
    assert!(check(&project, &all, &query("", None, 10_000, 200)).rows.is_empty());
    assert!(check(&project, &all, &query("", None, u64::MAX, 200)).rows.is_empty());
    assert!(check(&project, &all, &query("", None, 0, 0)).rows.is_empty());

    // Each state alone, paged.
    for state in WorkflowState::ALL {
        let q = query("", Some(*state), 0, 200);
        let page = check(&project, &all, &q);
        assert!(page.rows.iter().all(|r| r.state == *state));
        if page.matching > 3 {
            check(&project, &all, &query("", Some(*state), page.matching - 3, 200));
        }
        check(&project, &all, &query("", Some(*state), page.matching, 200));
    }

    // Text: any case, several words, words from different fields, an id, a source, an axis.
    for text in [
        "modality",
        "MODALITY",
        "  Synthetic   QUESTION 12 ",
        "syn-7-0000042",
        "synthetic-lfqa numeric",
        "farms everywhere",
        "the",
        "no such words at all",
        "reading\nscores",
    ] {
        for (offset, limit) in [(0, 200), (5, 10), (0, 1), (150, 200), (100_000, 200)] {
            check(&project, &all, &query(text, None, offset, limit));
        }
    }
    let one = check(&project, &all, &query("syn-7-0000042", None, 0, 200));
    assert_eq!(one.matching, 1);

    // Text and state together, and a filter matching nothing.
    for state in [WorkflowState::Assigned, WorkflowState::DoubleAnnotated, WorkflowState::Imported] {
        for text in ["scope", "synthetic-expertqa temporal", "question 2"] {
            check(&project, &all, &query(text, Some(state), 0, 200));
            check(&project, &all, &query(text, Some(state), 3, 4));
        }
    }
    let none = check(&project, &all, &query("no such words", Some(WorkflowState::Accepted), 0, 200));
    assert_eq!((none.matching, none.rows.len()), (0, 0));

    // A limit above the largest page is capped.
    let big = candidate::page(&project, &query("", None, 0, u64::MAX)).unwrap();
    assert_eq!(big.rows.len(), 360.min(PAGE_LIMIT_MAX as usize));
}

#[test]
fn an_empty_project_has_an_empty_page() {
    let project = Project::in_memory("empty").unwrap();
    for q in [query("", None, 0, 200), query("x", None, 0, 200), query("", Some(WorkflowState::Imported), 5, 200)] {
        let page = candidate::page(&project, &q).unwrap();
        assert_eq!((page.total, page.matching, page.rows.len()), (0, 0, 0));
    }
}

#[test]
fn a_page_follows_changes_to_the_project() {
    let (_dir, mut project) = project();
    let q = query("", Some(WorkflowState::LocalityRemoved), 0, 200);
    let before = candidate::page(&project, &q).unwrap();
    let all = candidate::list(&project).unwrap();
    let id = all.iter().find(|r| r.state == WorkflowState::Accepted).unwrap().id.clone();
    forcebench::locality::mark(&mut project, &id, "needs the figure", "lead").unwrap();
    let after = candidate::page(&project, &q).unwrap();
    assert_eq!(after.matching, before.matching + 1);
    assert!(after.rows.iter().any(|r| r.id == id));
    let all = candidate::list(&project).unwrap();
    check(&project, &all, &q);
}

/// The row view's position and total are the row's place in the whole queue, for every row of
/// every annotator, and follow a reassignment.
#[test]
fn the_row_view_places_each_row_where_the_queue_has_it() {
    let (_dir, mut project) = project();
    for name in ["ana", "ben", "cleo"] {
        let queue = annotate::queue(&project, name).unwrap();
        // The queue is the annotator's shuffle.
        let mut ids: Vec<String> = queue.iter().map(|q| q.id.clone()).collect();
        forcebench::assign::annotator_order(&project.info().id, name, &mut ids);
        assert_eq!(ids, queue.iter().map(|q| q.id.clone()).collect::<Vec<_>>(), "{name}");
        for q in &queue {
            let row = annotate::row_view(&project, &q.id, name).unwrap();
            assert_eq!((row.position, row.total), (q.position, queue.len() as u32), "{name} {}", q.id);
        }
    }
    let ana = annotate::queue(&project, "ana").unwrap();

    // Reassigning an unstarted row of ana's to whoever does not annotate it moves it out of her
    // queue and into theirs (a row not adjudicated either: a decided row's annotators stay).
    let adjudicated = |id: &str| -> bool {
        project
            .conn()
            .query_row("SELECT count(*) FROM adjudications WHERE candidate_id = ?1", [id], |r| r.get::<_, i64>(0))
            .unwrap()
            > 0
    };
    let moved = ana.iter().find(|q| !q.started && !adjudicated(&q.id)).unwrap().id.clone();
    let (a, b) = forcebench::assign::annotators_of(&project, &moved).unwrap().unwrap();
    let to = ["ana", "ben", "cleo"].into_iter().find(|n| *n != a && *n != b).unwrap();
    // Their order, as the view keeps it, computed before the change.
    let first_of_theirs = annotate::queue(&project, to).unwrap()[0].id.clone();
    annotate::row_view(&project, &first_of_theirs, to).unwrap();
    forcebench::assign::reassign(&mut project, &moved, "ana", to, "lead", "ana is away").unwrap();
    let ana_after = annotate::queue(&project, "ana").unwrap();
    let theirs = annotate::queue(&project, to).unwrap();
    assert_eq!(ana_after.len(), ana.len() - 1);
    let row = annotate::row_view(&project, &moved, to).unwrap();
    let want = theirs.iter().find(|q| q.id == moved).unwrap().position;
    assert_eq!((row.position, row.total), (want, theirs.len() as u32));
    for q in ana_after.iter().step_by(17) {
        let row = annotate::row_view(&project, &q.id, "ana").unwrap();
        assert_eq!((row.position, row.total), (q.position, ana_after.len() as u32));
    }
}

/// In an annotator's workspace the queue keeps the packet's order: the row view places each row
/// where that queue has it.
#[test]
fn the_row_view_places_rows_in_a_workspace_as_its_queue_does() {
    let (dir, _, mut project) = crate::common::annotated_project(&["ana", "ben"]);
    let list = crate::packets::issue(&mut project, dir.path(), forcebench::packets::Blinding::Standard);
    let ws = forcebench::workspace::open_or_resume(&crate::packets::packet_for(&list, "ben")).unwrap();
    let queue = annotate::queue(&ws, "ben").unwrap();
    assert!(queue.len() > 2);
    for q in &queue {
        let row = annotate::row_view(&ws, &q.id, "ben").unwrap();
        assert_eq!((row.position, row.total), (q.position, queue.len() as u32), "{}", q.id);
    }
}
