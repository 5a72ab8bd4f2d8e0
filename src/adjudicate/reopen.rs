//! Reopening an adjudicated row: the adjudicator's recorded step that lets the annotators change
//! their labels again.
//!
//! Once a row is adjudicated its annotators' labels are frozen ([`crate::rowstate::guard_labels`]):
//! they are what every pre-adjudication figure counts. Reopening undoes the decision: the final
//! label, its QC results and a locality keep leave the row (each final field as a `reopened`
//! adjudication event, so the history stays), the step is recorded in `adjudication_reopens`
//! with who, when, why and the decision undone, and the row is double-annotated again. The
//! annotators may then change their labels; the next adjudication freezes them as they stand
//! then, and agreement counts those.

use rusqlite::params;
use serde::Serialize;
use ts_rs::TS;

use super::{adjudicator_id, event, load_in};
use crate::error::{Error, Result};
use crate::project::{now, Project};

/// One reopening of an adjudicated row, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct Reopening {
    pub id: String,
    pub adjudicator: String,
    pub reason: String,
    /// The final decision the reopening undid.
    pub decision: String,
    pub at: String,
}

/// Reopens adjudicated row `id`, durably. Refused for a row that is not adjudicated, one a
/// locked split freezes, one marked nonlocal (the mark is taken back first, so the audit's
/// record does not outlive the label it judged), without a reason, or by someone who may not
/// adjudicate.
pub fn reopen(project: &mut Project, id: &str, adjudicator: &str, reason: &str) -> Result<Reopening> {
    let id: &str = &crate::input::id_key(id)?;
    let adjudicator: &str = &crate::input::name_key(adjudicator)?;
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(Error::ReasonRequired(format!(
            "reopening row `{id}` needs a reason (what the annotators should look at again)"
        )));
    }
    let tx = project.conn_mut().transaction()?;
    if crate::candidate::find_in(&tx, id)?.is_none() {
        return Err(Error::CandidateNotFound(id.into()));
    }
    let (who, name) = adjudicator_id(&tx, adjudicator)?;
    crate::rowstate::guard(&tx, id)?;
    let Some(earlier) = load_in(&tx, id)? else {
        return Err(Error::WrongRowState(format!("row `{id}` is not adjudicated; there is nothing to reopen")));
    };
    let marked: bool =
        tx.query_row("SELECT EXISTS (SELECT 1 FROM locality_marks WHERE candidate_id = ?1)", [id], |r| r.get(0))?;
    if marked {
        return Err(Error::WrongRowState(format!(
            "row `{id}` is marked nonlocal; take the mark back first (`forcebench locality unmark {id}`), then reopen it"
        )));
    }
    let at = now();
    let guideline = crate::guideline::current_label(&tx)?;
    for f in &earlier.fields {
        event(&tx, id, f.field.as_str(), f.value.as_deref(), None, "reopened", who, &at, &guideline)?;
    }
    if let Some(r) = &earlier.rationale {
        event(&tx, id, "rationale", Some(r), None, "reopened", who, &at, &guideline)?;
    }
    let decision = earlier.decision.as_str().to_string();
    tx.execute(
        "INSERT INTO adjudication_reopens (candidate_id, adjudicator_id, reason, decision, at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![id, who, reason, decision, at],
    )?;
    tx.execute("DELETE FROM adjudication_fields WHERE candidate_id = ?1", [id])?;
    tx.execute("DELETE FROM adjudications WHERE candidate_id = ?1", [id])?;
    crate::qc::forget(&tx, id)?;
    tx.execute("DELETE FROM locality_keeps WHERE candidate_id = ?1", [id])?;
    tx.commit()?;
    Ok(Reopening { id: id.to_string(), adjudicator: name, reason: reason.to_string(), decision, at })
}

/// Every reopening of row `id`, oldest first.
pub fn reopenings(project: &Project, id: &str) -> Result<Vec<Reopening>> {
    let id: &str = &crate::input::id_key(id)?;
    let mut stmt = project.conn().prepare_cached(
        "SELECT r.candidate_id, a.name, r.reason, r.decision, r.at FROM adjudication_reopens r
         JOIN annotators a ON a.id = r.adjudicator_id WHERE r.candidate_id = ?1 ORDER BY r.id",
    )?;
    let rows = stmt.query_map([id], |r| {
        Ok(Reopening { id: r.get(0)?, adjudicator: r.get(1)?, reason: r.get(2)?, decision: r.get(3)?, at: r.get(4)? })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
