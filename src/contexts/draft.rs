//! Drafts: the candidate fields suggested for a kept context, by hand or by a model, and what
//! becomes of them (promoted into the candidate pool, or excluded with a reason).
//!
//! A draft is addressed by its context's id. Every suggestion is a record with who (a person or
//! a model run), how (`origin`) and when; a new suggestion is a new version and the highest is
//! the current draft; no version is changed or deleted. A draft's origin is `hand` when a
//! person wrote it from nothing (or changed a hand draft), `model` for a model's answer as it
//! came, and `template_edit` once a person changes a model's draft: the candidate's
//! construction family is its current draft's origin.
//!
//! Promotion builds the candidate row from the context (id, group, source, context, passage)
//! and the draft (span, claims, repair, rationale, axis, severity) and checks it as candidate
//! import checks a file's row ([`crate::import`]); one problem refuses the whole promotion.

use rusqlite::{params, OptionalExtension};
use serde::Serialize;
use ts_rs::TS;

use super::{require, who, ContextStage, ExclusionReason, State};
use crate::error::{Error, Result};
use crate::import::{ImportReport, InputFormat, Problems, RawRow};
use crate::problem::InputProblem;
use crate::project::{now, Project};

/// The fields a draft suggests, in candidate order.
pub const DRAFT_FIELDS: &[&str] =
    &["evidence_span", "calibrated_claim", "raised_claim", "repair", "rationale", "axis", "severity"];

/// How a draft was made (its candidate's construction family).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum DraftOrigin {
    Hand,
    Model,
    TemplateEdit,
}

impl DraftOrigin {
    pub fn as_str(self) -> &'static str {
        match self {
            DraftOrigin::Hand => "hand",
            DraftOrigin::Model => "model",
            DraftOrigin::TemplateEdit => "template_edit",
        }
    }

    fn parse(s: &str) -> Result<DraftOrigin> {
        match s {
            "hand" => Ok(DraftOrigin::Hand),
            "model" => Ok(DraftOrigin::Model),
            "template_edit" => Ok(DraftOrigin::TemplateEdit),
            other => Err(Error::Corrupt(format!("a draft has an unknown origin `{other}`"))),
        }
    }
}

/// The suggested fields, as text (a model's severity is kept as it came; promotion checks it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, TS)]
pub struct DraftFields {
    pub evidence_span: Option<String>,
    pub calibrated_claim: Option<String>,
    pub raised_claim: Option<String>,
    pub repair: Option<String>,
    pub rationale: Option<String>,
    pub axis: Option<String>,
    pub severity: Option<String>,
}

impl DraftFields {
    fn slot(&mut self, field: &str) -> Option<&mut Option<String>> {
        Some(match field {
            "evidence_span" => &mut self.evidence_span,
            "calibrated_claim" => &mut self.calibrated_claim,
            "raised_claim" => &mut self.raised_claim,
            "repair" => &mut self.repair,
            "rationale" => &mut self.rationale,
            "axis" => &mut self.axis,
            "severity" => &mut self.severity,
            _ => return None,
        })
    }

    fn values(&self) -> [&Option<String>; 7] {
        [
            &self.evidence_span,
            &self.calibrated_claim,
            &self.raised_claim,
            &self.repair,
            &self.rationale,
            &self.axis,
            &self.severity,
        ]
    }

    /// Sets a field by name (an empty value clears it); `None` for a name that is not a field.
    pub(crate) fn set(&mut self, field: &str, value: Option<String>) -> Option<()> {
        *self.slot(field)? = value.filter(|v| !v.trim().is_empty());
        Some(())
    }
}

/// One suggestion for a context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct Draft {
    pub context_id: String,
    /// From 1; the highest is the current draft.
    #[ts(type = "number")]
    pub version: i64,
    pub origin: DraftOrigin,
    /// The person who wrote it, or the model that answered.
    pub author: String,
    /// The model run it came from (for `model` drafts).
    pub run: Option<String>,
    pub fields: DraftFields,
    pub created_at: String,
}

/// A context's current draft as `draft list` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct DraftRow {
    #[serde(flatten)]
    #[ts(flatten)]
    pub draft: Draft,
    /// `drafted` (waiting), `promoted` or `excluded`.
    pub stage: ContextStage,
    pub excluded_for: Option<ExclusionReason>,
    /// What promotion would refuse in it now (empty when it may be promoted).
    pub problems: Vec<InputProblem>,
}

const DRAFT_COLUMNS: &str =
    "d.context_id, d.version, d.origin, d.author, r.name, d.evidence_span, d.calibrated_claim, \
     d.raised_claim, d.repair, d.rationale, d.axis, d.severity, d.created_at";

fn draft_from(r: &rusqlite::Row) -> rusqlite::Result<(Draft, String)> {
    let origin: String = r.get(2)?;
    Ok((
        Draft {
            context_id: r.get(0)?,
            version: r.get(1)?,
            origin: DraftOrigin::Hand,
            author: r.get(3)?,
            run: r.get(4)?,
            fields: DraftFields {
                evidence_span: r.get(5)?,
                calibrated_claim: r.get(6)?,
                raised_claim: r.get(7)?,
                repair: r.get(8)?,
                rationale: r.get(9)?,
                axis: r.get(10)?,
                severity: r.get(11)?,
            },
            created_at: r.get(12)?,
        },
        origin,
    ))
}

fn finish((mut d, origin): (Draft, String)) -> Result<Draft> {
    d.origin = DraftOrigin::parse(&origin)?;
    Ok(d)
}

/// The current draft of a context, if any.
pub(crate) fn current(conn: &rusqlite::Connection, id: &str) -> Result<Option<Draft>> {
    let sql = format!(
        "SELECT {DRAFT_COLUMNS} FROM drafts d LEFT JOIN draft_runs r ON r.id = d.run_id
         WHERE d.context_id = ?1 ORDER BY d.version DESC LIMIT 1"
    );
    conn.query_row(&sql, [id], draft_from).optional()?.map(finish).transpose()
}

/// Every suggestion for a context, oldest first.
pub fn history(project: &Project, id: &str) -> Result<Vec<Draft>> {
    let id = require(project.conn(), id)?;
    let sql = format!(
        "SELECT {DRAFT_COLUMNS} FROM drafts d LEFT JOIN draft_runs r ON r.id = d.run_id
         WHERE d.context_id = ?1 ORDER BY d.version"
    );
    let mut stmt = project.conn().prepare(&sql)?;
    let rows = stmt.query_map([&id], draft_from)?;
    rows.map(|r| finish(r?)).collect()
}

/// Why a context may not get a new draft (it is not kept, or its draft is decided).
pub(crate) fn refuse_drafting(state: &State, id: &str) -> Option<String> {
    match state.stage(id) {
        ContextStage::Kept | ContextStage::Drafted => None,
        ContextStage::Unscreened => {
            Some(format!("context `{id}` is not screened yet: keep it first (`forcebench contexts screen {id} keep`)"))
        }
        ContextStage::Dropped => {
            Some(format!("context `{id}` was dropped at screening; only a kept context is drafted"))
        }
        ContextStage::Promoted => {
            Some(format!("context `{id}`'s draft was promoted into the candidate pool; it is a candidate now"))
        }
        ContextStage::Excluded => Some(format!("context `{id}`'s draft was excluded before candidacy")),
    }
}

/// Writes a new version of a context's draft in `tx`; returns its version.
pub(crate) fn insert(
    tx: &rusqlite::Connection,
    id: &str,
    origin: DraftOrigin,
    author: &str,
    run_id: Option<i64>,
    f: &DraftFields,
) -> Result<i64> {
    let version: i64 =
        tx.query_row("SELECT coalesce(max(version), 0) + 1 FROM drafts WHERE context_id = ?1", [id], |r| r.get(0))?;
    tx.execute(
        "INSERT INTO drafts (context_id, version, origin, author, run_id, evidence_span, calibrated_claim, raised_claim,
                             repair, rationale, axis, severity, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        params![
            id,
            version,
            origin.as_str(),
            author,
            run_id,
            f.evidence_span,
            f.calibrated_claim,
            f.raised_claim,
            f.repair,
            f.rationale,
            f.axis,
            f.severity,
            now()
        ],
    )?;
    Ok(version)
}

/// What `draft set` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct DraftSetReport {
    pub draft: Draft,
    /// False when the field already held this value (no new version was written).
    pub changed: bool,
}

/// Sets one field of a kept context's draft by hand: a new version of the draft, which starts
/// from the current one. An empty value clears the field.
pub fn set(project: &mut Project, id: &str, field: &str, value: &str, by: &str) -> Result<DraftSetReport> {
    crate::settings::lead_only(project.conn(), "drafting candidates")?;
    let id = require(project.conn(), id)?;
    let by = who(by)?;
    let field = field.trim();
    let state = State::load(project.conn())?;
    if let Some(why) = refuse_drafting(&state, &id) {
        return Err(Error::WrongRowState(why));
    }
    let now_draft = current(project.conn(), &id)?;
    let mut fields = now_draft.as_ref().map(|d| d.fields.clone()).unwrap_or_default();
    if fields.set(field, Some(value.to_string())).is_none() {
        return Err(Error::InvalidArgument(format!(
            "`{field}` is not a draft field; the fields are {}",
            DRAFT_FIELDS.join(", ")
        )));
    }
    if let Some(d) = now_draft.filter(|d| d.fields == fields) {
        return Ok(DraftSetReport { draft: d, changed: false });
    }
    let origin = match current(project.conn(), &id)?.map(|d| d.origin) {
        None | Some(DraftOrigin::Hand) => DraftOrigin::Hand,
        Some(DraftOrigin::Model | DraftOrigin::TemplateEdit) => DraftOrigin::TemplateEdit,
    };
    let tx = project.conn_mut().transaction()?;
    insert(&tx, &id, origin, &by, None, &fields)?;
    tx.commit()?;
    let draft = current(project.conn(), &id)?.expect("just written");
    Ok(DraftSetReport { draft, changed: true })
}

/// The current draft of every context that has one, in import order.
pub fn list(project: &Project) -> Result<Vec<DraftRow>> {
    let conn = project.conn();
    let state = State::load(conn)?;
    let sql = format!(
        "SELECT {DRAFT_COLUMNS} FROM drafts d LEFT JOIN draft_runs r ON r.id = d.run_id
         JOIN contexts c ON c.id = d.context_id
         WHERE d.version = (SELECT max(version) FROM drafts e WHERE e.context_id = d.context_id)
         ORDER BY c.seq"
    );
    let mut stmt = conn.prepare(&sql)?;
    let drafts: Vec<Draft> = stmt.query_map([], draft_from)?.map(|r| finish(r?)).collect::<Result<_>>()?;
    let mut out = Vec::with_capacity(drafts.len());
    for draft in drafts {
        let stage = state.stage(&draft.context_id);
        let problems = if stage == ContextStage::Drafted { check(conn, &draft)?.1 } else { Vec::new() };
        out.push(DraftRow {
            excluded_for: state.outcomes.get(&draft.context_id).and_then(|o| o.1),
            stage,
            draft,
            problems,
        });
    }
    Ok(out)
}

/// The candidate a draft would become, checked as candidate import checks a row; the problems
/// name the draft (as `draft ID`) and the field.
fn check(conn: &rusqlite::Connection, d: &Draft) -> Result<(Option<crate::candidate::Candidate>, Vec<InputProblem>)> {
    let (group, source, source_id, context, passage): (Option<String>, String, String, String, String) = conn
        .query_row(
            "SELECT group_id, source_dataset, source_id, context, passage FROM contexts WHERE id = ?1",
            [&d.context_id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )?;
    let mut values: Vec<Option<String>> = vec![
        Some(d.context_id.clone()),
        Some(group.unwrap_or_else(|| d.context_id.clone())),
        Some(source),
        Some(source_id),
        Some(context),
        Some(passage),
    ];
    values.extend(d.fields.values().into_iter().cloned());
    values.push(Some(d.origin.as_str().to_string()));
    let mut problems = Problems { file: format!("draft {}", d.context_id), list: Vec::new() };
    let mut rows = crate::import::validate_all(vec![RawRow { line: 0, values, field_lines: None }], &mut problems);
    // The row's "line" means nothing here: the draft is named in `file`.
    for p in &mut problems.list {
        p.line = None;
    }
    Ok((rows.pop().map(|(_, c)| c), problems.list))
}

/// What `draft promote` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct DraftPromoteReport {
    /// The contexts promoted, now candidates with the same ids.
    pub promoted: Vec<String>,
    /// Of those, the ones whose candidate row was already in the pool with the same content.
    pub already_candidates: Vec<String>,
}

/// Promotes drafts into the candidate pool: the named contexts' drafts, or with `ids` empty and
/// `all` set, every draft waiting. All or nothing: a draft that is not waiting or fails a check
/// of candidate import refuses the whole promotion, naming every problem.
pub fn promote(project: &mut Project, ids: &[String], all: bool, by: &str) -> Result<DraftPromoteReport> {
    crate::settings::lead_only(project.conn(), "promoting drafts into candidates")?;
    let by = who(by)?;
    if all != ids.is_empty() {
        return Err(Error::InvalidArgument(
            "name the contexts whose drafts to promote, or give --all (not both)".into(),
        ));
    }
    let state = State::load(project.conn())?;
    let chosen: Vec<String> = if all {
        list(project)?.into_iter().filter(|r| r.stage == ContextStage::Drafted).map(|r| r.draft.context_id).collect()
    } else {
        let mut out = Vec::new();
        for id in ids {
            let id = require(project.conn(), id)?;
            if state.stage(&id) != ContextStage::Drafted {
                let why = refuse_drafting(&state, &id).unwrap_or_else(|| {
                    format!("context `{id}` has no draft to promote; write one with `forcebench draft set`")
                });
                return Err(Error::WrongRowState(format!("{why}. Nothing was promoted")));
            }
            if !out.contains(&id) {
                out.push(id);
            }
        }
        out
    };
    if chosen.is_empty() {
        return Ok(DraftPromoteReport { promoted: Vec::new(), already_candidates: Vec::new() });
    }
    let mut candidates = Vec::with_capacity(chosen.len());
    let mut problems = Vec::new();
    let mut drafts = Vec::with_capacity(chosen.len());
    for id in &chosen {
        let d = current(project.conn(), id)?.expect("a drafted context has a draft");
        let (candidate, found) = check(project.conn(), &d)?;
        problems.extend(found);
        if let Some(c) = candidate {
            candidates.push((0, c));
        }
        drafts.push(d);
    }
    let file = crate::error::DRAFTS_TO_PROMOTE.to_string();
    if !problems.is_empty() {
        return Err(Error::InvalidInput { file, problems });
    }
    let report = ImportReport {
        file: format!("drafts promoted by {by}"),
        format: InputFormat::Jsonl,
        file_sha256: String::new(),
        rows_read: candidates.len() as u64,
        inserted: 0,
        unchanged: 0,
    };
    let (new_rows, mut report) = match crate::import::new_rows(project, candidates, report) {
        Err(Error::ImportConflict { conflicts, .. }) => {
            let problems = conflicts
                .into_iter()
                .map(|c| InputProblem {
                    file: format!("draft {}", c.id),
                    line: None,
                    field: None,
                    message: format!(
                        "a candidate with this id is already in the pool with other content (it differs in {})",
                        c.fields.join(", ")
                    ),
                })
                .collect();
            return Err(Error::InvalidInput { file, problems });
        }
        other => other?,
    };
    // The import record's hash covers the promoted rows' content hashes, in order.
    report.file_sha256 = {
        use sha2::{Digest, Sha256};
        let joined: Vec<&str> = new_rows.iter().map(|(_, h)| h.as_str()).collect();
        hex::encode(Sha256::digest(joined.join("\n").as_bytes()))
    };
    let inserted: Vec<String> = new_rows.iter().map(|(c, _)| c.id.clone()).collect();
    let tx = project.conn_mut().transaction()?;
    if !new_rows.is_empty() {
        crate::import::insert_rows(&tx, &new_rows, report)?;
    }
    let at = now();
    for d in &drafts {
        tx.execute("UPDATE candidates SET context_id = ?1 WHERE id = ?1 AND context_id IS NULL", [&d.context_id])?;
        let draft_id: i64 = tx.query_row(
            "SELECT id FROM drafts WHERE context_id = ?1 AND version = ?2",
            params![d.context_id, d.version],
            |r| r.get(0),
        )?;
        tx.execute(
            "INSERT INTO draft_outcomes (context_id, draft_id, outcome, reason, note, decided_by, decided_at)
             VALUES (?1, ?2, 'promoted', NULL, NULL, ?3, ?4)",
            params![d.context_id, draft_id, by, at],
        )?;
    }
    tx.commit()?;
    Ok(DraftPromoteReport {
        already_candidates: chosen.iter().filter(|id| !inserted.contains(id)).cloned().collect(),
        promoted: chosen,
    })
}

/// Excludes a context's current draft before candidacy, with a reason (and an optional note).
pub fn exclude(
    project: &mut Project,
    id: &str,
    reason: ExclusionReason,
    note: Option<&str>,
    by: &str,
) -> Result<DraftRow> {
    crate::settings::lead_only(project.conn(), "excluding drafts")?;
    let id = require(project.conn(), id)?;
    let by = who(by)?;
    let note = super::note(note)?;
    let state = State::load(project.conn())?;
    if state.stage(&id) != ContextStage::Drafted {
        let why = refuse_drafting(&state, &id).unwrap_or_else(|| {
            format!("context `{id}` has no draft to exclude (drop the context at screening instead)")
        });
        return Err(Error::WrongRowState(why));
    }
    let d = current(project.conn(), &id)?.expect("a drafted context has a draft");
    let tx = project.conn_mut().transaction()?;
    let draft_id: i64 =
        tx.query_row("SELECT id FROM drafts WHERE context_id = ?1 AND version = ?2", params![id, d.version], |r| {
            r.get(0)
        })?;
    tx.execute(
        "INSERT INTO draft_outcomes (context_id, draft_id, outcome, reason, note, decided_by, decided_at)
         VALUES (?1, ?2, 'excluded', ?3, ?4, ?5, ?6)",
        params![id, draft_id, reason.as_str(), note, by, now()],
    )?;
    tx.commit()?;
    Ok(list(project)?.into_iter().find(|r| r.draft.context_id == id).expect("the draft exists"))
}
