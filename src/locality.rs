//! The locality audit: a last pass over accepted rows that removes those whose raised claim
//! changes more than force (new content, another entity, another time). A removed row keeps its
//! adjudication; the mark, with its reason, who made it and when, is kept and exported.
//!
//! A row with a locality warning is *reviewed* once it is marked nonlocal or kept ([`keep`]: the
//! reviewer looked and it stays, recorded with who and when). A split is not locked while a
//! selected row is unreviewed ([`unreviewed`]) unless the lead says so and the manifest records it.

use rusqlite::{params, OptionalExtension};
use serde::Serialize;
use ts_rs::TS;

use crate::error::{Error, Result};
use crate::project::{now, Project};
use crate::vocab::WorkflowState;

/// An accepted row for the audit, with the locality warnings QC raised on it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct AuditRow {
    pub id: String,
    pub axis: Option<String>,
    pub calibrated_claim: Option<String>,
    pub raised_claim: Option<String>,
    /// Failed locality checks (`locality_*`), with their details.
    pub warnings: Vec<crate::qc::QcResult>,
    /// Set when the row has been marked nonlocal.
    pub mark: Option<Mark>,
    /// Set when a reviewer kept the row despite its warnings.
    pub keep: Option<Keep>,
}

/// A review that keeps a row with locality warnings in the benchmark.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct Keep {
    pub id: String,
    pub kept_by: String,
    pub note: Option<String>,
    pub at: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct Mark {
    pub id: String,
    pub reason: String,
    pub marked_by: String,
    pub at: String,
}

/// Accepted and removed rows, those with locality warnings first, then in import order.
pub fn audit_rows(project: &Project) -> Result<Vec<AuditRow>> {
    let conn = project.conn();
    let states = crate::rowstate::States::load(conn)?;
    let mut stmt = conn.prepare(
        "SELECT c.id,
                (SELECT value FROM adjudication_fields f WHERE f.candidate_id = c.id AND f.field = 'axis'),
                (SELECT value FROM adjudication_fields f WHERE f.candidate_id = c.id AND f.field = 'calibrated_claim'),
                (SELECT value FROM adjudication_fields f WHERE f.candidate_id = c.id AND f.field = 'raised_claim')
         FROM candidates c JOIN adjudications j ON j.candidate_id = c.id ORDER BY c.seq",
    )?;
    type Row = (String, Option<String>, Option<String>, Option<String>);
    let rows: Vec<Row> =
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?.collect::<rusqlite::Result<_>>()?;
    let mut out = Vec::with_capacity(rows.len());
    for (id, axis, calibrated_claim, raised_claim) in rows {
        if !matches!(states.get(&id), Some(WorkflowState::Accepted | WorkflowState::LocalityRemoved)) {
            continue;
        }
        let warnings = crate::qc::results(conn, &id)?
            .into_iter()
            .filter(|r| r.check.starts_with("locality_") && !r.passed)
            .collect();
        out.push(AuditRow {
            mark: get(project, &id)?,
            keep: kept_in(conn, &id)?,
            id,
            axis,
            calibrated_claim,
            raised_claim,
            warnings,
        });
    }
    out.sort_by_key(|r| r.warnings.is_empty());
    Ok(out)
}

pub fn get(project: &Project, id: &str) -> Result<Option<Mark>> {
    let id: &str = &crate::input::id_key(id)?;
    Ok(project
        .conn()
        .prepare_cached("SELECT candidate_id, reason, marked_by, at FROM locality_marks WHERE candidate_id = ?1")?
        .query_row([id], |r| Ok(Mark { id: r.get(0)?, reason: r.get(1)?, marked_by: r.get(2)?, at: r.get(3)? }))
        .optional()?)
}

/// Every nonlocal mark, in import order.
pub fn list(project: &Project) -> Result<Vec<Mark>> {
    let mut stmt = project.conn().prepare(
        "SELECT l.candidate_id, l.reason, l.marked_by, l.at FROM locality_marks l
         JOIN candidates c ON c.id = l.candidate_id ORDER BY c.seq",
    )?;
    let rows =
        stmt.query_map([], |r| Ok(Mark { id: r.get(0)?, reason: r.get(1)?, marked_by: r.get(2)?, at: r.get(3)? }))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Marks an accepted row nonlocal. The reason is required.
pub fn mark(project: &mut Project, id: &str, reason: &str, by: &str) -> Result<Mark> {
    let id: &str = &crate::input::id_key(id)?;
    let by: &str = &crate::input::name_key(by)?;
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(Error::ReasonRequired(format!(
            "marking row `{id}` nonlocal needs a reason (what the raised claim adds or changes)"
        )));
    }
    let tx = project.conn_mut().transaction()?;
    match crate::rowstate::state(&tx, id)? {
        None => return Err(Error::CandidateNotFound(id.into())),
        Some(WorkflowState::Accepted) => {}
        Some(WorkflowState::LocalityRemoved) => {
            return Err(Error::AlreadyDone(format!("row `{id}` is already marked nonlocal")));
        }
        Some(other) => {
            return Err(Error::WrongRowState(format!(
                "row `{id}` is {}; the locality audit marks accepted rows only",
                other.as_str()
            )))
        }
    }
    crate::rowstate::guard(&tx, id)?;
    let at = now();
    tx.execute(
        "INSERT INTO locality_marks (candidate_id, reason, marked_by, at) VALUES (?1, ?2, ?3, ?4)",
        params![id, reason, by.trim(), at],
    )?;
    tx.commit()?;
    Ok(Mark { id: id.to_string(), reason: reason.to_string(), marked_by: by.trim().to_string(), at })
}

/// Takes a nonlocal mark back (a mistaken mark); refused once a locked split holds the row.
pub fn unmark(project: &mut Project, id: &str) -> Result<Mark> {
    let id: &str = &crate::input::id_key(id)?;
    let tx = project.conn_mut().transaction()?;
    let Some(mark) = tx
        .query_row(
            "SELECT candidate_id, reason, marked_by, at FROM locality_marks WHERE candidate_id = ?1",
            [id],
            |r| Ok(Mark { id: r.get(0)?, reason: r.get(1)?, marked_by: r.get(2)?, at: r.get(3)? }),
        )
        .optional()?
    else {
        return Err(Error::WrongRowState(format!("row `{id}` is not marked nonlocal")));
    };
    crate::rowstate::guard(&tx, id)?;
    tx.execute("DELETE FROM locality_marks WHERE candidate_id = ?1", [id])?;
    tx.commit()?;
    Ok(mark)
}

fn kept_in(conn: &rusqlite::Connection, id: &str) -> Result<Option<Keep>> {
    Ok(conn
        .prepare_cached("SELECT candidate_id, kept_by, note, at FROM locality_keeps WHERE candidate_id = ?1")?
        .query_row([id], |r| Ok(Keep { id: r.get(0)?, kept_by: r.get(1)?, note: r.get(2)?, at: r.get(3)? }))
        .optional()?)
}

/// Records that an accepted row was reviewed in the locality audit and stays. Refused for a row
/// that is not accepted (a removed row is reviewed by its mark), one kept already, or one a
/// locked split freezes.
pub fn keep(project: &mut Project, id: &str, by: &str, note: Option<&str>) -> Result<Keep> {
    let id: &str = &crate::input::id_key(id)?;
    let by: &str = &crate::input::name_key(by)?;
    let note = note.map(str::trim).filter(|n| !n.is_empty());
    let tx = project.conn_mut().transaction()?;
    match crate::rowstate::state(&tx, id)? {
        None => return Err(Error::CandidateNotFound(id.into())),
        Some(WorkflowState::Accepted) => {}
        Some(WorkflowState::LocalityRemoved) => {
            return Err(Error::WrongRowState(format!(
                "row `{id}` is marked nonlocal; take the mark back first (`forcebench locality unmark {id}`) to keep it"
            )));
        }
        Some(other) => {
            return Err(Error::WrongRowState(format!(
                "row `{id}` is {}; the locality audit reviews accepted rows only",
                other.as_str()
            )))
        }
    }
    if let Some(k) = kept_in(&tx, id)? {
        return Err(Error::AlreadyDone(format!("row `{id}` was already kept by {} at {}", k.kept_by, k.at)));
    }
    crate::rowstate::guard(&tx, id)?;
    let at = now();
    tx.execute(
        "INSERT INTO locality_keeps (candidate_id, kept_by, note, at) VALUES (?1, ?2, ?3, ?4)",
        params![id, by.trim(), note, at],
    )?;
    tx.commit()?;
    Ok(Keep { id: id.to_string(), kept_by: by.trim().to_string(), note: note.map(String::from), at })
}

/// Of rows `ids`, those with a failed locality check that nobody has reviewed (neither marked
/// nonlocal nor kept), each with the checks that failed, in the order given.
pub fn unreviewed(conn: &rusqlite::Connection, ids: &[String]) -> Result<Vec<(String, Vec<String>)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT q.check_name FROM qc_failures q WHERE q.candidate_id = ?1 AND q.check_name LIKE 'locality\\_%' ESCAPE '\\'
           AND NOT EXISTS (SELECT 1 FROM locality_marks m WHERE m.candidate_id = ?1)
           AND NOT EXISTS (SELECT 1 FROM locality_keeps k WHERE k.candidate_id = ?1)
         ORDER BY q.check_name",
    )?;
    let mut out = Vec::new();
    for id in ids {
        let checks: Vec<String> = stmt.query_map([id], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
        if !checks.is_empty() {
            out.push((id.clone(), checks));
        }
    }
    Ok(out)
}
