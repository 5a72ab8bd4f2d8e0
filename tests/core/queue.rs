//! The annotate queue a window at a time: every window agrees with the whole queue, and the
//! counts and the next open row follow every way an annotation can change (this window, another
//! process on the same file, undo, a reassignment, a packet's workspace).

use crate::common::*;
use crate::packets::{issue, packet_for};
use forcebench::annotate::{self, Field, QueuePage, QueueQuery, QueueRow, QUEUE_PAGE_MAX};
use forcebench::packets::Blinding;
use forcebench::{assign, workspace, Project};

fn page(project: &Project, who: &str, offset: u32, limit: u32) -> QueuePage {
    annotate::queue_page(project, &QueueQuery { annotator: who.into(), offset, limit }).unwrap()
}

/// The whole queue read window by window, `limit` rows at a time.
fn by_windows(project: &Project, who: &str, limit: u32) -> Vec<QueueRow> {
    let mut rows = Vec::new();
    loop {
        let p = page(project, who, rows.len() as u32, limit);
        assert_eq!(p.offset as usize, rows.len());
        if p.rows.is_empty() {
            assert_eq!(rows.len() as u32, p.total);
            return rows;
        }
        rows.extend(p.rows);
    }
}

/// What the window, its counts and the next open row must say, read off the whole queue.
fn check(project: &Project, who: &str) {
    let whole = annotate::queue(project, who).unwrap();
    for limit in [1, 7, 200] {
        assert_eq!(by_windows(project, who, limit), whole, "{who}, windows of {limit}");
    }
    let p = page(project, who, 0, 0);
    assert_eq!(p.total as usize, whole.len());
    assert_eq!(p.finished as usize, whole.iter().filter(|q| q.finished).count(), "{who}: finished count");
    assert!(p.rows.is_empty());
    let first_open = whole.iter().find(|q| !q.finished).cloned();
    assert_eq!(annotate::next_open(project, who, None).unwrap(), first_open);
    for (at, q) in whole.iter().enumerate() {
        let expected = (1..=whole.len()).map(|k| &whole[(at + k) % whole.len()]).find(|q| !q.finished).cloned();
        assert_eq!(annotate::next_open(project, who, Some(&q.id)).unwrap(), expected, "{who}: after {}", q.id);
    }
}

fn finish(project: &mut Project, who: &str, id: &str) {
    annotate::set_field(project, id, who, Field::Decision, Some("reject_not_force_gap")).unwrap();
    annotate::set_field(project, id, who, Field::BoundaryType, Some("ambiguous")).unwrap();
    assert!(annotate::get(project, id, who).unwrap().finished);
}

#[test]
fn every_window_agrees_with_the_whole_queue_as_rows_are_finished_and_undone() {
    let (_d, _, mut project) = annotated_project(&["ana", "ben"]);
    check(&project, "ana");
    let ids: Vec<String> = annotate::queue(&project, "ana").unwrap().into_iter().map(|q| q.id).collect();
    // The first, a middle and the last row finished; one started and left open.
    for id in [&ids[0], &ids[ids.len() / 2], &ids[ids.len() - 1]] {
        finish(&mut project, "ana", id);
    }
    annotate::set_field(&mut project, &ids[1], "ana", Field::Notes, Some("started")).unwrap();
    check(&project, "ana");
    check(&project, "ben");
    assert_eq!(page(&project, "ana", 0, 0).finished, 3);
    // Undo takes the last row's finish back: the count and the next open row follow.
    annotate::undo(&mut project, &ids[ids.len() - 1], "ana").unwrap();
    assert!(!annotate::get(&project, &ids[ids.len() - 1], "ana").unwrap().finished);
    assert_eq!(page(&project, "ana", 0, 0).finished, 2);
    check(&project, "ana");
}

#[test]
fn the_counts_follow_a_change_made_by_another_process_on_the_same_file() {
    let (_d, path, project) = annotated_project(&["ana", "ben"]);
    assert_eq!(page(&project, "ana", 0, 0).finished, 0, "the order is built and kept");
    let ids: Vec<String> = annotate::queue(&project, "ana").unwrap().into_iter().map(|q| q.id).collect();
    {
        // Another connection (the command line, another window) finishes every row but one.
        let mut other = Project::open(&path).unwrap();
        for id in &ids[1..] {
            finish(&mut other, "ana", id);
        }
    }
    assert_eq!(page(&project, "ana", 0, 0).finished as usize, ids.len() - 1);
    assert_eq!(annotate::next_open(&project, "ana", Some(&ids[3])).unwrap().unwrap().id, ids[0], "goes round");
    check(&project, "ana");
    finish(&mut Project::open(&path).unwrap(), "ana", &ids[0]);
    assert_eq!(annotate::next_open(&project, "ana", None).unwrap(), None, "every row finished");
    assert_eq!(page(&project, "ana", 0, 0).finished as usize, ids.len());
}

#[test]
fn a_reassignment_moves_the_row_out_of_one_queue_and_into_another() {
    let (_d, _, mut project) = annotated_project(&["ana", "ben", "cat"]);
    let before = page(&project, "cat", 0, 0).total;
    let id = annotate::queue(&project, "ana")
        .unwrap()
        .into_iter()
        .map(|q| q.id)
        .find(|id| assign::annotators_of(&project, id).unwrap().is_some_and(|(a, b)| a != "cat" && b != "cat"))
        .unwrap();
    finish(&mut project, "ana", &id);
    let ana = page(&project, "ana", 0, 0);
    assign::reassign(&mut project, &id, "ana", "cat", "lead", "Ana is away").unwrap();
    assert_eq!(page(&project, "ana", 0, 0).total, ana.total - 1);
    assert_eq!(page(&project, "cat", 0, 0).total, before + 1);
    assert!(annotate::queue(&project, "cat").unwrap().iter().any(|q| q.id == id && !q.finished));
    check(&project, "ana");
    check(&project, "cat");
}

#[test]
fn a_workspace_window_keeps_the_packets_order() {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Strict);
    let mut ws = workspace::open_packet(&packet_for(&list, "ana"), &dir.path().join("ws.forcebench")).unwrap();
    check(&ws, "ana");
    let second = annotate::queue(&ws, "ana").unwrap()[1].id.clone();
    finish(&mut ws, "ana", &second);
    check(&ws, "ana");
    assert_eq!(page(&ws, "ana", 1, 1).rows[0].id, second);
    assert!(page(&ws, "ana", 1, 1).rows[0].finished);
}

#[test]
fn a_bad_window_or_name_is_refused_and_a_window_past_the_end_is_empty() {
    let (_d, _, project) = annotated_project(&["ana", "ben"]);
    let total = page(&project, "ana", 0, 0).total;
    let past = page(&project, "ana", total + 50, 10);
    assert_eq!((past.offset, past.rows.len()), (total, 0));
    let tail = page(&project, "ana", total - 2, 10);
    assert_eq!(tail.rows.iter().map(|r| r.position).collect::<Vec<_>>(), [total - 1, total]);
    let err =
        annotate::queue_page(&project, &QueueQuery { annotator: "ana".into(), offset: 0, limit: QUEUE_PAGE_MAX + 1 })
            .unwrap_err();
    assert!(err.to_string().contains("at most 5000 rows"), "{err}");
    let err = annotate::queue_page(&project, &QueueQuery { annotator: "zed".into(), offset: 0, limit: 1 }).unwrap_err();
    assert!(err.to_string().contains("no one named `zed`"), "{err}");
    assert!(annotate::next_open(&project, "zed", None).is_err());
    // An id that names no row is refused: starting from the top instead read as if the person
    // had asked for the top.
    let err = annotate::next_open(&project, "ana", Some("no-such-row")).unwrap_err();
    assert_eq!((err.code(), err.to_string().as_str()), ("not_found", "no candidate with id `no-such-row`"));
}

#[test]
fn a_copy_put_back_in_place_of_the_project_is_read_again() {
    // The kept order is known by the project and its path; a file put back from a copy has the
    // same of both, and fewer events than the order has seen.
    let (dir, path, project) = annotated_project(&["ana", "ben"]);
    drop(project);
    let copy = dir.path().join("copy.forcebench");
    std::fs::copy(&path, &copy).unwrap();
    let mut project = Project::open(&path).unwrap();
    let ids: Vec<String> = annotate::queue(&project, "ana").unwrap().into_iter().map(|q| q.id).collect();
    for id in &ids[..3] {
        finish(&mut project, "ana", id);
    }
    assert_eq!(page(&project, "ana", 0, 0).finished, 3);
    drop(project);
    for end in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{end}", path.display()));
    }
    std::fs::copy(&copy, &path).unwrap();
    let project = Project::open(&path).unwrap();
    assert_eq!(page(&project, "ana", 0, 0).finished, 0, "the file as it is now, not the order kept from before");
    check(&project, "ana");
}
