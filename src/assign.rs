//! Assignment: every candidate goes to exactly two distinct annotators, balanced and
//! deterministic for a seed.
//!
//! Balance comes from cycling through all annotator pairs in an order whose every prefix keeps
//! the annotators' counts within one of each other (found by a small depth-first search, see
//! [`pair_order`]). Rows are taken in an order fixed by `sha256(seed, row id)`. Over one `assign`
//! run, per-pair loads then differ by at most one, and so do per-annotator loads.
//!
//! Assignments never change silently: a row that already has an assignment is left alone, and
//! once a row has labels only [`reassign`] (which records who, when and why) can move it.

use rusqlite::{params, OptionalExtension};
use serde::Serialize;
use sha2::{Digest, Sha256};
use ts_rs::TS;

use crate::error::{Error, Result};
use crate::project::{now, Project};
use crate::roster::{self, Role};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct AssignReport {
    #[ts(type = "number")]
    pub seed: u64,
    /// Rows assigned by this run.
    #[ts(type = "number")]
    pub assigned: u64,
    /// Rows that already had an assignment and were left alone.
    #[ts(type = "number")]
    pub already_assigned: u64,
    /// (annotator, rows assigned by this run), in roster order.
    pub per_annotator: Vec<(String, u32)>,
}

/// sha256 of the seed and a string, as a sortable key (stable on every machine).
pub(crate) fn stable_key(seed: u64, s: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(seed.to_be_bytes());
    h.update(s.as_bytes());
    h.finalize().into()
}

/// An order of all pairs of `k` people such that after every prefix the number of pairs each
/// person is in differs by at most one between people. Depth-first search, nearly linear in
/// practice; a bounded search falls back to a greedy order for very large rosters.
pub fn pair_order(k: usize) -> Vec<(usize, usize)> {
    let edges: Vec<(usize, usize)> = (0..k).flat_map(|a| (a + 1..k).map(move |b| (a, b))).collect();
    let mut degree = vec![0usize; k];
    let mut used = vec![false; edges.len()];
    let mut order = Vec::with_capacity(edges.len());
    let mut budget = 1_000_000usize;
    fn search(
        edges: &[(usize, usize)],
        degree: &mut [usize],
        used: &mut [bool],
        order: &mut Vec<(usize, usize)>,
        budget: &mut usize,
    ) -> bool {
        if order.len() == edges.len() {
            return true;
        }
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        let mut candidates: Vec<usize> = (0..edges.len()).filter(|i| !used[*i]).collect();
        candidates.sort_by_key(|i| (degree[edges[*i].0] + degree[edges[*i].1], edges[*i]));
        for i in candidates {
            let (a, b) = edges[i];
            degree[a] += 1;
            degree[b] += 1;
            let spread = degree.iter().max().unwrap() - degree.iter().min().unwrap();
            if spread <= 1 {
                used[i] = true;
                order.push(edges[i]);
                if search(edges, degree, used, order, budget) {
                    return true;
                }
                used[i] = false;
                order.pop();
            }
            degree[a] -= 1;
            degree[b] -= 1;
        }
        false
    }
    if search(&edges, &mut degree, &mut used, &mut order, &mut budget) {
        return order;
    }
    // Greedy fallback: least-loaded pair first. Balanced over full cycles, near-balanced within.
    let mut degree = vec![0usize; k];
    let mut rest = edges;
    let mut order = Vec::with_capacity(rest.len());
    while !rest.is_empty() {
        let (pos, _) = rest.iter().enumerate().min_by_key(|(_, e)| (degree[e.0] + degree[e.1], **e)).unwrap();
        let e = rest.remove(pos);
        degree[e.0] += 1;
        degree[e.1] += 1;
        order.push(e);
    }
    order
}

/// Assigns every unassigned candidate to two distinct annotators.
pub fn assign(project: &mut Project, seed: u64) -> Result<AssignReport> {
    project.bulk(|project| assign_in(project, seed))
}

fn assign_in(project: &mut Project, seed: u64) -> Result<AssignReport> {
    let mut people: Vec<_> = roster::list(project)?.into_iter().filter(|a| a.role == Role::Annotator).collect();
    if people.len() < 2 {
        return Err(Error::NotEnoughAnnotators(format!(
            "assignment needs at least two people with the annotator role; the roster has {}",
            people.len()
        )));
    }
    // Which person plays which position in the pair order is fixed by the seed too.
    people.sort_by_key(|a| stable_key(seed, &a.name));
    let mut rows: Vec<String> = {
        let mut stmt = project.conn().prepare(
            "SELECT id FROM candidates c WHERE NOT EXISTS (SELECT 1 FROM assignments s WHERE s.candidate_id = c.id)",
        )?;
        let ids = stmt.query_map([], |r| r.get(0))?;
        ids.collect::<rusqlite::Result<_>>()?
    };
    let already: i64 =
        project.conn().query_row("SELECT count(DISTINCT candidate_id) FROM assignments", [], |r| r.get(0))?;
    rows.sort_by_key(|id| stable_key(seed, id));
    let order = pair_order(people.len());
    let mut counts = vec![0u32; people.len()];
    let at = now();
    let tx = project.conn_mut().transaction()?;
    {
        let mut insert = tx.prepare(
            "INSERT INTO assignments (candidate_id, slot, annotator_id, seed, assigned_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for (i, id) in rows.iter().enumerate() {
            let (a, b) = order[i % order.len()];
            // Which of the two is "A" (slot 1) alternates by a seeded coin per row.
            let (first, second) = if stable_key(seed ^ 0x5107, id)[0] & 1 == 0 { (a, b) } else { (b, a) };
            insert.execute(params![id, 1, people[first].id, seed as i64, at])?;
            insert.execute(params![id, 2, people[second].id, seed as i64, at])?;
            counts[a] += 1;
            counts[b] += 1;
        }
    }
    tx.commit()?;
    let mut per_annotator: Vec<(i64, String, u32)> =
        people.iter().zip(&counts).map(|(p, n)| (p.id, p.name.clone(), *n)).collect();
    per_annotator.sort();
    Ok(AssignReport {
        seed,
        assigned: rows.len() as u64,
        already_assigned: already as u64,
        per_annotator: per_annotator.into_iter().map(|(_, n, c)| (n, c)).collect(),
    })
}

/// The two annotators of a row, slot 1 then slot 2, if assigned.
pub fn annotators_of(project: &Project, candidate_id: &str) -> Result<Option<(String, String)>> {
    let candidate_id: &str = &crate::input::id_key(candidate_id)?;
    Ok(project
        .conn()
        .query_row(
            "SELECT a1.name, a2.name FROM assignments s1
             JOIN assignments s2 ON s2.candidate_id = s1.candidate_id AND s2.slot = 2
             JOIN annotators a1 ON a1.id = s1.annotator_id
             JOIN annotators a2 ON a2.id = s2.annotator_id
             WHERE s1.candidate_id = ?1 AND s1.slot = 1",
            [candidate_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?)
}

/// Moves one slot of a row from one annotator to another, recording who decided it and why.
/// The only way to change an assignment once its row has labels.
pub fn reassign(
    project: &mut Project,
    candidate_id: &str,
    from: &str,
    to: &str,
    decided_by: &str,
    reason: &str,
) -> Result<()> {
    if crate::input::is_blank(reason) {
        return Err(Error::ReasonRequired("a reassignment needs a reason".into()));
    }
    let candidate_id: &str = &crate::input::id_key(candidate_id)?;
    let decided_by: &str = &crate::input::name_key(decided_by)?;
    let from = roster::require(project, from)?;
    let to = roster::require(project, to)?;
    let tx = project.conn_mut().transaction()?;
    // Whose labels a row's agreement counts is part of its labels: frozen once it is adjudicated.
    crate::rowstate::guard_labels(&tx, candidate_id)?;
    let slot: Option<i64> = tx
        .query_row(
            "SELECT slot FROM assignments WHERE candidate_id = ?1 AND annotator_id = ?2",
            params![candidate_id, from.id],
            |r| r.get(0),
        )
        .optional()?;
    let slot =
        slot.ok_or_else(|| Error::NotAssigned(format!("`{}` is not assigned to row `{candidate_id}`", from.name)))?;
    let taken: bool = tx.query_row(
        "SELECT EXISTS (SELECT 1 FROM assignments WHERE candidate_id = ?1 AND annotator_id = ?2)",
        params![candidate_id, to.id],
        |r| r.get(0),
    )?;
    if taken {
        return Err(Error::AlreadyDone(format!("`{}` already annotates row `{candidate_id}`", to.name)));
    }
    tx.execute(
        "UPDATE assignments SET annotator_id = ?1, assigned_at = ?2 WHERE candidate_id = ?3 AND slot = ?4",
        params![to.id, now(), candidate_id, slot],
    )?;
    tx.execute(
        "INSERT INTO reassignments (candidate_id, slot, from_annotator_id, to_annotator_id, decided_by, reason, at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![candidate_id, slot, from.id, to.id, decided_by, reason.trim(), now()],
    )?;
    tx.commit()?;
    Ok(())
}

/// The order in which an annotator sees rows: a shuffle fixed by project, annotator and row id,
/// so it reveals nothing of provenance or import order.
pub fn annotator_order(project_id: &str, annotator: &str, ids: &mut [String]) {
    let seed = annotator_seed(project_id, annotator);
    ids.sort_by_cached_key(|id| stable_key(seed, id));
}

/// The seed of an annotator's shuffle ([`annotator_order`] sorts by `stable_key(seed, id)`).
pub(crate) fn annotator_seed(project_id: &str, annotator: &str) -> u64 {
    u64::from_be_bytes(Sha256::digest(format!("{project_id}\n{annotator}")).as_slice()[..8].try_into().unwrap())
}
