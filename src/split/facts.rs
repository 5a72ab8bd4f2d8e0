//! What the split needs to know of every candidate, read in a few whole-table scans and joined
//! in memory.
//!
//! A split touches every row of a project, and SQLite pays about a microsecond for each index
//! probe, so per-row subqueries (a correlated lookup per final
//! field) cost seconds on a 100,000-row project. Scanning each table once and joining on the
//! row id in a hash map costs tens of milliseconds. [`Standing`] is read off the workflow rule of
//! [`crate::rowstate`], which owns it.

use rusqlite::Connection;
use std::collections::HashMap;

use crate::db::{text, text_or_null};
use crate::error::{Error, Result};
use crate::vocab::{Axis, Decision, WorkflowState};

/// Where a row stands, as far as a split cares (from [`crate::rowstate`]'s rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Standing {
    /// Adjudicated as a force gap, quality control has run and no error check failed.
    Accepted,
    /// Marked nonlocal in the locality audit (whatever else holds).
    LocalityRemoved,
    /// Marked nonlocal, and accepted but for the mark: a draft counts it in its pool and then
    /// removes it, so a row marked before the draft is accounted for as one marked after it.
    LocalityRemovedAccepted,
    /// Anything else: not adjudicated yet, rejected, or held back by quality control.
    Other,
}

/// One candidate as the split sees it.
#[derive(Debug, Clone)]
pub(crate) struct Fact {
    pub id: String,
    pub group: String,
    pub source: String,
    /// The final axis, else the suggested one.
    pub axis: Option<String>,
    /// The final severity (1 to 3), 0 when there is none.
    pub severity: u8,
    pub standing: Standing,
    /// The adjudicator's promotion checklist (a row enters a draft only when every
    /// check is affirmed).
    pub checklist: crate::label::Checklist,
    /// Bulk-confirmed (or bulk-affirmed) rather than decided one by one.
    pub bulk: bool,
    /// Who adjudicated the row ("" before adjudication).
    pub adjudicator: String,
    /// How the candidate was made, when the import said.
    pub family: Option<String>,
}

impl Fact {
    /// The row's axis, which every accepted row has.
    pub fn axis(&self) -> Result<Axis> {
        self.axis
            .as_deref()
            .ok_or_else(|| Error::Corrupt(format!("row `{}` has no axis (neither final nor suggested)", self.id)))?
            .parse()
            .map_err(Error::Corrupt)
    }
}

/// Project-wide counts of the Table 4 style accounting that do not depend on the split.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ProjectCounts {
    pub candidates: u64,
    /// Rows with two finished annotations, or adjudicated.
    pub double_annotated: u64,
    pub adjudicated: u64,
    pub rejected: u64,
}

/// Every candidate, in id order, with an index by id and the locality marks' reasons.
#[derive(Debug, Default)]
pub(crate) struct Facts {
    pub rows: Vec<Fact>,
    by_id: HashMap<String, usize>,
    pub marks: HashMap<String, String>,
    pub counts: ProjectCounts,
    /// Rows a provenance or duplicate check refuses from a draft, with why.
    pub refused: HashMap<String, Vec<String>>,
}

impl Facts {
    pub fn get(&self, id: &str) -> Option<&Fact> {
        self.by_id.get(id).map(|&i| &self.rows[i])
    }

    /// Why an accepted row may not be promoted into a draft (its promotion checks are
    /// not all affirmed, or a provenance check refuses it), or `None` when it may.
    pub fn held_back(&self, f: &Fact) -> Option<String> {
        let mut why = Vec::new();
        if !f.checklist.affirmed() {
            why.push(format!(
                "promotion checks not affirmed ({}){}",
                f.checklist.not_affirmed().join(", "),
                if f.bulk { "; bulk-confirmed without --affirm" } else { "" }
            ));
        }
        if let Some(reasons) = self.refused.get(&f.id) {
            why.extend(reasons.iter().cloned());
        }
        (!why.is_empty()).then(|| why.join("; "))
    }
}

/// Reads [`Facts`] in six scans (candidates, adjudications, two final fields, QC results,
/// locality marks, finished annotations).
pub(crate) fn load(conn: &Connection) -> Result<Facts> {
    let mut facts = Facts::default();
    {
        let mut stmt =
            conn.prepare("SELECT id, group_id, source_dataset, axis, construction_family FROM candidates")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            facts.rows.push(Fact {
                id: r.get(0)?,
                group: r.get(1)?,
                source: r.get(2)?,
                axis: r.get(3)?,
                severity: 0,
                standing: Standing::Other,
                checklist: Default::default(),
                bulk: false,
                adjudicator: String::new(),
                family: r.get(4)?,
            });
        }
    }
    facts.rows.sort_unstable_by(|a, b| a.id.cmp(&b.id));
    facts.by_id = facts.rows.iter().enumerate().map(|(i, f)| (f.id.clone(), i)).collect();
    facts.counts.candidates = facts.rows.len() as u64;

    // Per row: the final decision, finished annotations.
    #[derive(Clone, Copy, Default)]
    struct Flags {
        decision: Option<Decision>,
        finished: u8,
    }
    let mut flags = vec![Flags::default(); facts.rows.len()];
    let index = |id: &str| facts.by_id.get(id).copied();
    {
        let mut stmt = conn.prepare(
            "SELECT j.candidate_id, j.decision, j.bulk_confirmed, a.name, j.span_decisive, j.calibrated_supported,
                    j.raised_underwarranted, j.one_local_axis, j.no_unrelated_addition
             FROM adjudications j JOIN annotators a ON a.id = j.adjudicator_id",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let Some(i) = index(text(r, 0)?) else { continue };
            let decision: Decision = text(r, 1)?.parse().map_err(Error::Corrupt)?;
            let fact = &mut facts.rows[i];
            fact.bulk = r.get(2)?;
            fact.adjudicator = r.get(3)?;
            fact.checklist = crate::label::Checklist {
                span_decisive: r.get(4)?,
                calibrated_supported: r.get(5)?,
                raised_underwarranted: r.get(6)?,
                one_local_axis: r.get(7)?,
                no_unrelated_addition: r.get(8)?,
            };
            flags[i].decision = Some(decision);
            facts.counts.adjudicated += 1;
            facts.counts.rejected += u64::from(decision == Decision::RejectNotForceGap);
        }
    }
    {
        let mut stmt = conn.prepare(
            "SELECT candidate_id, field, value FROM adjudication_fields WHERE field IN ('axis', 'severity')",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let Some(i) = index(text(r, 0)?) else { continue };
            let value = text_or_null(r, 2)?;
            let fact = &mut facts.rows[i];
            if text(r, 1)? == "axis" {
                if let Some(v) = value {
                    fact.axis = Some(v.to_string());
                }
            } else {
                fact.severity = value.and_then(|s| s.parse().ok()).unwrap_or(0);
            }
        }
    }
    {
        let mut stmt = conn.prepare("SELECT candidate_id FROM annotations WHERE finished = 1")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let Some(i) = index(text(r, 0)?) else { continue };
            flags[i].finished = flags[i].finished.saturating_add(1);
        }
    }
    let rule = crate::rowstate::StateRule::load(conn)?;
    for (fact, f) in facts.rows.iter_mut().zip(&flags) {
        let marked = rule.marks.contains_key(&fact.id);
        fact.standing = match f.decision.map(|d| rule.state_unmarked(&fact.id, d)) {
            Some(WorkflowState::Accepted) if marked => Standing::LocalityRemovedAccepted,
            _ if marked => Standing::LocalityRemoved,
            Some(WorkflowState::Accepted) => Standing::Accepted,
            _ => Standing::Other,
        };
        facts.counts.double_annotated += u64::from(f.finished >= 2 || f.decision.is_some());
    }
    facts.marks = rule.marks;
    facts.refused = crate::provenance::refused(conn)?;
    Ok(facts)
}
