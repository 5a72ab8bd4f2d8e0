//! Assignment: two distinct annotators per row, balanced, deterministic, stable.

use crate::common::*;
use forcebench::assign::{self, pair_order};
use forcebench::roster::{self, Role};
use std::collections::HashMap;

/// Per-annotator and per-pair loads of the whole project.
fn loads(project: &forcebench::Project) -> (HashMap<String, u32>, HashMap<(String, String), u32>) {
    let mut per = HashMap::new();
    let mut pairs = HashMap::new();
    for row in forcebench::candidate::list(project).unwrap() {
        let (a, b) = assign::annotators_of(project, &row.id).unwrap().expect("every row assigned");
        assert_ne!(a, b, "row {} has the same annotator twice", row.id);
        *per.entry(a.clone()).or_insert(0) += 1;
        *per.entry(b.clone()).or_insert(0) += 1;
        let key = if a < b { (a, b) } else { (b, a) };
        *pairs.entry(key).or_insert(0) += 1;
    }
    (per, pairs)
}

fn spread<K>(m: &HashMap<K, u32>) -> u32 {
    m.values().max().unwrap() - m.values().min().unwrap()
}

#[test]
fn balanced_for_two_three_and_four_annotators() {
    for names in [&["ana", "ben"][..], &["ana", "ben", "cleo"], &["ana", "ben", "cleo", "dev"]] {
        for rows in [1usize, 5, 7, 106, 251] {
            let (dir, _, mut project) = temp_project();
            let file = dir.path().join("c.csv");
            forcebench::sample::write_candidates(&file, &forcebench::sample::generate(rows, rows as u64)).unwrap();
            forcebench::import::import_file(&mut project, &file, &mut |_, _| {}).unwrap();
            for n in names {
                roster::add(&project, n, Role::Annotator).unwrap();
            }
            let report = assign::assign(&mut project, 11).unwrap();
            assert_eq!(report.assigned as usize, rows);
            let (per, pairs) = loads(&project);
            let total: u32 = per.values().sum();
            assert_eq!(total as usize, 2 * rows, "every row goes to exactly two annotators");
            if rows >= names.len() {
                assert_eq!(per.len(), names.len(), "everyone gets rows");
            }
            let mut per_all: HashMap<String, u32> = names.iter().map(|n| (n.to_string(), 0)).collect();
            per_all.extend(per);
            assert!(spread(&per_all) <= 1, "{} annotators, {rows} rows: per-annotator loads {per_all:?}", names.len());
            let n_pairs = names.len() * (names.len() - 1) / 2;
            let mut pairs_all = pairs.clone();
            for i in 0..names.len() {
                for j in i + 1..names.len() {
                    let (a, b) = (names[i].to_string(), names[j].to_string());
                    let key = if a < b { (a, b) } else { (b, a) };
                    pairs_all.entry(key).or_insert(0);
                }
            }
            assert_eq!(pairs_all.len(), n_pairs);
            assert!(spread(&pairs_all) <= 1, "{} annotators, {rows} rows: per-pair loads {pairs_all:?}", names.len());
        }
    }
}

#[test]
fn pair_order_keeps_every_prefix_balanced() {
    for k in 2..=10 {
        let order = pair_order(k);
        assert_eq!(order.len(), k * (k - 1) / 2, "every pair once");
        let mut degree = vec![0; k];
        for (a, b) in order {
            degree[a] += 1;
            degree[b] += 1;
            assert!(degree.iter().max().unwrap() - degree.iter().min().unwrap() <= 1, "k={k}: {degree:?}");
        }
    }
}

#[test]
fn same_seed_same_assignment_other_seed_differs() {
    let run = |seed| {
        let (_d, _, mut project) = temp_project();
        forcebench::sample::load_sample(&mut project).unwrap();
        for n in ["ana", "ben", "cleo"] {
            roster::add(&project, n, Role::Annotator).unwrap();
        }
        assign::assign(&mut project, seed).unwrap();
        forcebench::candidate::list(&project)
            .unwrap()
            .iter()
            .map(|r| assign::annotators_of(&project, &r.id).unwrap().unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(run(5), run(5));
    assert_ne!(run(5), run(6));
}

#[test]
fn assignments_are_kept_and_only_new_rows_assigned() {
    let (dir, _, mut project) = annotated_project(&["ana", "ben", "cleo"]);
    let before: Vec<_> = forcebench::candidate::list(&project)
        .unwrap()
        .iter()
        .map(|r| assign::annotators_of(&project, &r.id).unwrap())
        .collect();
    let file = write(dir.path(), "more.csv", csv_file(&[csv_row("new-1"), csv_row("new-2")]));
    forcebench::import::import_file(&mut project, &file, &mut |_, _| {}).unwrap();
    let report = assign::assign(&mut project, 99).unwrap();
    assert_eq!((report.assigned, report.already_assigned), (2, before.len() as u64));
    let after: Vec<_> = forcebench::candidate::list(&project)
        .unwrap()
        .iter()
        .take(before.len())
        .map(|r| assign::annotators_of(&project, &r.id).unwrap())
        .collect();
    assert_eq!(before, after);
}

#[test]
fn assignment_needs_two_annotators_and_ignores_other_roles() {
    let (_d, _, mut project) = temp_project();
    forcebench::sample::load_sample(&mut project).unwrap();
    roster::add(&project, "ana", Role::Annotator).unwrap();
    roster::add(&project, "lee", Role::Lead).unwrap();
    let err = assign::assign(&mut project, 1).unwrap_err();
    assert!(err.to_string().contains("at least two people with the annotator role; the roster has 1"), "{err}");
}

#[test]
fn reassignment_is_recorded_with_who_when_why() {
    let (_d, _, mut project) = annotated_project(&["ana", "ben", "cleo"]);
    let id = forcebench::candidate::list(&project).unwrap()[0].id.clone();
    let (a, b) = assign::annotators_of(&project, &id).unwrap().unwrap();
    let other = ["ana", "ben", "cleo"].into_iter().find(|n| *n != a && *n != b).unwrap();
    assert!(assign::reassign(&mut project, &id, &a, other, "lead", "  ")
        .unwrap_err()
        .to_string()
        .contains("needs a reason"));
    assert!(assign::reassign(&mut project, &id, &a, &b, "lead", "x")
        .unwrap_err()
        .to_string()
        .contains("already annotates"));
    assign::reassign(&mut project, &id, &a, other, "lead", "on leave").unwrap();
    assert_eq!(assign::annotators_of(&project, &id).unwrap().unwrap().0, other);
    let (by, reason): (String, String) = project
        .conn()
        .query_row("SELECT decided_by, reason FROM reassignments", [], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    assert_eq!((by.as_str(), reason.as_str()), ("lead", "on leave"));
}

#[test]
fn assignment_cannot_be_changed_behind_the_protocols_back() {
    // Regression guard: the table's keys forbid a third annotator or the same one twice.
    let (_d, _, project) = annotated_project(&["ana", "ben", "cleo"]);
    let id = forcebench::candidate::list(&project).unwrap()[0].id.clone();
    let err = project
        .conn()
        .execute(
            "INSERT INTO assignments (candidate_id, slot, annotator_id, seed, assigned_at) VALUES (?1, 3, 1, 0, 't')",
            [&id],
        )
        .unwrap_err();
    assert!(err.to_string().contains("CHECK"), "{err}");
}
