//! Affirmed promotion: the explicit bulk step that confirms full agreements and
//! affirms the promotion checks of the accepted rows in a named adjudicator's name.

use serde::Serialize;
use ts_rs::TS;

use super::page::{open_agreements, OpenAgreements};
use super::{adjudicator_id, load_in, settle, write, Checklist, Problems, Resolution, Writer};
use crate::error::{Error, Result};
use crate::project::Project;
use crate::vocab::Decision;

/// What `adjudicate confirm-agreements --affirm` does, or would do ([`affirm_preview`]): the
/// explicit bulk step that affirms the promotion checks, naming its author and the checks.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, TS)]
pub struct AffirmReport {
    /// Who affirms (the adjudicator or lead named).
    pub adjudicator: String,
    /// Open full agreements confirmed by this step (accepts and rejects).
    #[ts(type = "number")]
    pub confirmed: u64,
    /// Accepted rows whose promotion checks this step affirms: full agreements confirmed now,
    /// and rows bulk-confirmed earlier with the checklist unanswered.
    #[ts(type = "number")]
    pub affirmed: u64,
    /// Rows bulk-confirmed earlier but frozen by a locked split: left as they are (a locked
    /// split never changes), so a later draft keeps holding them back.
    #[ts(type = "number")]
    pub frozen: u64,
    /// The checks affirmed, by name (`span_decisive`...).
    pub checks: Vec<String>,
}

/// Open full agreements (in queue order, each with its shared decision), and rows bulk-confirmed
/// earlier (in import order).
type Targets = (OpenAgreements, Vec<String>);

/// The rows a bulk affirmation covers: open full agreements, and accepted rows bulk-confirmed
/// earlier whose checklist is not affirmed.
fn affirm_targets(project: &Project) -> Result<Targets> {
    let open = open_agreements(project)?;
    let earlier: Vec<String> = project
        .conn()
        .prepare(
            "SELECT j.candidate_id FROM adjudications j JOIN candidates c ON c.id = j.candidate_id
             WHERE j.bulk_confirmed = 1 AND j.decision = 'accept_force_gap'
               AND NOT (coalesce(j.span_decisive, 0) = 1 AND coalesce(j.calibrated_supported, 0) = 1
                    AND coalesce(j.raised_underwarranted, 0) = 1 AND coalesce(j.one_local_axis, 0) = 1
                    AND coalesce(j.no_unrelated_addition, 0) = 1)
             ORDER BY c.seq",
        )?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    Ok((open, earlier))
}

fn check_names() -> Vec<String> {
    Checklist::default().items().iter().map(|(name, _, _)| name.to_string()).collect()
}

/// What [`confirm_and_affirm`] would do, without writing anything (the app's confirm dialog
/// shows these counts).
pub fn affirm_preview(project: &Project, adjudicator: &str) -> Result<AffirmReport> {
    let adjudicator: &str = &crate::input::name_key(adjudicator)?;
    let (_, name) = adjudicator_id(project.conn(), adjudicator)?;
    let (open, earlier) = affirm_targets(project)?;
    let frozen = crate::rowstate::Frozen::load(project.conn())?;
    let mut accepts = 0;
    for (_, decision) in open.iter() {
        accepts += u64::from(decision == Decision::AcceptForceGap);
    }
    let locked = earlier.iter().filter(|id| frozen.contains(id)).count() as u64;
    Ok(AffirmReport {
        adjudicator: name,
        confirmed: open.len() as u64,
        affirmed: accepts + earlier.len() as u64 - locked,
        frozen: locked,
        checks: check_names(),
    })
}

/// Confirms every open full agreement and affirms, in bulk and in `adjudicator`'s name, every
/// promotion check of the accepted ones and of rows bulk-confirmed earlier with the checklist
/// unanswered. Logged as bulk (the checklist event's source is `bulk`), so the datasheet counts
/// these rows as affirmed in bulk, by this adjudicator. Rejects are confirmed, not affirmed
/// (the checks are about a force gap).
pub fn confirm_and_affirm(project: &mut Project, adjudicator: &str) -> Result<AffirmReport> {
    let adjudicator: &str = &crate::input::name_key(adjudicator)?;
    project.bulk(|project| confirm_and_affirm_in(project, adjudicator))
}

fn confirm_and_affirm_in(project: &mut Project, adjudicator: &str) -> Result<AffirmReport> {
    let (open, earlier) = affirm_targets(project)?;
    let tx = project.conn_mut().transaction()?;
    let w = Writer::new(&tx, adjudicator_id(&tx, adjudicator)?, true)?;
    let frozen = w.frozen.as_ref().expect("a bulk writer reads the frozen rows");
    let mut report = AffirmReport { adjudicator: w.name.clone(), checks: check_names(), ..AffirmReport::default() };
    let incomplete = |id: &str, p: Problems| {
        Error::IncompleteAdjudication(format!(
            "row `{id}`: {}",
            p.into_iter().map(|x| x.1).collect::<Vec<_>>().join("; ")
        ))
    };
    for (id, _) in open.iter() {
        let pair = super::stored::stored_pair_in(&tx, id)?;
        let finals = settle(&pair, None, &Resolution::default()).map_err(|p| incomplete(id, p))?;
        let accept = finals[0].1.as_deref() == Some(Decision::AcceptForceGap.as_str());
        let res = Resolution {
            checklist: if accept { Checklist::all_yes() } else { Checklist::default() },
            ..Resolution::default()
        };
        write(&tx, &w, &pair, None, &finals, &res, true)?;
        report.confirmed += 1;
        report.affirmed += u64::from(accept);
    }
    for id in &earlier {
        if frozen.contains(id) {
            report.frozen += 1;
            continue;
        }
        // The stored annotations, as for the open agreements above (`stored`'s test).
        let pair = super::stored::stored_pair_in(&tx, id)?;
        let before = load_in(&tx, id)?;
        let res = Resolution { checklist: Checklist::all_yes(), ..Resolution::default() };
        let finals = settle(&pair, before.as_ref(), &res).map_err(|p| incomplete(id, p))?;
        write(&tx, &w, &pair, before.as_ref(), &finals, &res, true)?;
        report.affirmed += 1;
    }
    tx.commit()?;
    Ok(report)
}
