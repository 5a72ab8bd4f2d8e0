//! The protocol's steps before candidacy: cited contexts imported, screened with a reason,
//! drafted into candidate fields (by hand or with a model) and promoted into the candidate pool or
//! excluded with a reason.
//!
//! A context is a question or answer context and the passage it cites, sampled from a cited QA or
//! attribution resource ([`import`]). The lead (or a drafter working in the lead's project) keeps
//! a context whose passage shows a visible local boundary, or drops it with one of the
//! [`ExclusionReason`]s ([`screen`]). A kept context gets at most one current draft, addressed by the
//! context's id ([`draft`]); every suggestion is a record that stays, and a new one replaces the
//! current one. A person promotes a draft into a candidate row (which keeps the context's id) or
//! excludes it with a reason. [`accounting`] counts every step, so the funnel can begin at the
//! contexts; the counts add up by construction and `verify` checks that they do.
//!
//! These are lead steps: refused in an annotator's workspace ([`crate::settings::lead_only`]).
//! To add a step, add its table in a migration and its counts to [`ContextCounts`].

pub mod draft;
pub mod import;
pub mod uptake;

use rusqlite::params;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use ts_rs::TS;

use crate::error::{Error, Result};
use crate::project::{now, Project};

pub use import::{import_bytes, import_file, FIELD_NAMES};

/// Why a context or a draft does not become a candidate: the protocol's exclusion reasons.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ExclusionReason {
    /// The passage shows no visible local boundary on any of the five axes.
    NoVisibleBoundary,
    /// The cited passage is missing, truncated or unreadable.
    PassageUnavailable,
    /// The contrast could only be judged with knowledge the passage does not give.
    NeedsOutsideKnowledge,
    /// The two claims differ in entity or answer target rather than in force.
    ChangesEntityOrTarget,
    /// The stronger claim adds unsupported content instead of raising force.
    OrdinaryAddition,
}

impl ExclusionReason {
    pub const ALL: &'static [ExclusionReason] = &[
        ExclusionReason::NoVisibleBoundary,
        ExclusionReason::PassageUnavailable,
        ExclusionReason::NeedsOutsideKnowledge,
        ExclusionReason::ChangesEntityOrTarget,
        ExclusionReason::OrdinaryAddition,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ExclusionReason::NoVisibleBoundary => "no_visible_boundary",
            ExclusionReason::PassageUnavailable => "passage_unavailable",
            ExclusionReason::NeedsOutsideKnowledge => "needs_outside_knowledge",
            ExclusionReason::ChangesEntityOrTarget => "changes_entity_or_target",
            ExclusionReason::OrdinaryAddition => "ordinary_addition",
        }
    }

    fn expected() -> String {
        ExclusionReason::ALL.iter().map(|r| r.as_str()).collect::<Vec<_>>().join(", ")
    }
}

impl std::str::FromStr for ExclusionReason {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        ExclusionReason::ALL
            .iter()
            .copied()
            .find(|r| r.as_str() == s.trim())
            .ok_or_else(|| format!("`{s}` is not an exclusion reason; expected one of {}", ExclusionReason::expected()))
    }
}

/// A screening decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ScreenDecision {
    Keep,
    Drop,
}

impl ScreenDecision {
    pub fn as_str(self) -> &'static str {
        match self {
            ScreenDecision::Keep => "keep",
            ScreenDecision::Drop => "drop",
        }
    }
}

impl std::str::FromStr for ScreenDecision {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s.trim() {
            "keep" => Ok(ScreenDecision::Keep),
            "drop" => Ok(ScreenDecision::Drop),
            _ => Err(format!("`{s}` is not a screening decision; expected keep or drop")),
        }
    }
}

/// Where a context stands before candidacy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ContextStage {
    /// Imported, not screened yet.
    Unscreened,
    /// Dropped at screening (with a reason).
    Dropped,
    /// Kept, with no draft yet.
    Kept,
    /// Kept and drafted; the draft waits for promotion or exclusion.
    Drafted,
    /// The draft was promoted: the context is a candidate.
    Promoted,
    /// The draft was excluded before candidacy (with a reason).
    Excluded,
}

/// The screening decision in force for a context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ContextScreening {
    pub decision: ScreenDecision,
    pub reason: Option<ExclusionReason>,
    pub note: Option<String>,
    pub by: String,
    pub at: String,
}

/// One context as `contexts list` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ContextRow {
    pub id: String,
    /// `null` when the file gave none (the context's id is then its group).
    pub group_id: Option<String>,
    pub source_dataset: String,
    pub source_id: String,
    pub context: String,
    pub passage: String,
    pub stage: ContextStage,
    pub screening: Option<ContextScreening>,
    /// The current draft's version (from 1), when there is one.
    #[ts(type = "number | null")]
    pub draft_version: Option<i64>,
    /// Why the draft was excluded, when it was.
    pub excluded_for: Option<ExclusionReason>,
}

/// What `contexts screen` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ContextScreenReport {
    pub context: ContextRow,
    /// False when the same decision (with the same reason and note) was already in force.
    pub changed: bool,
}

fn parse<T: std::str::FromStr<Err = String>>(value: &str) -> Result<T> {
    value.parse().map_err(Error::Corrupt)
}

/// A context's id as given to a command, in its stored form, refused when no context has it.
pub(crate) fn require(conn: &rusqlite::Connection, id: &str) -> Result<String> {
    let id = crate::input::id_key(id)?.into_owned();
    let found: bool = conn.query_row("SELECT EXISTS (SELECT 1 FROM contexts WHERE id = ?1)", [&id], |r| r.get(0))?;
    if !found {
        return Err(Error::ContextNotFound(format!(
            "no context with id `{}` (`forcebench contexts list` shows them)",
            crate::input::escaped(&id)
        )));
    }
    Ok(id)
}

/// The name recorded for who did a step: a person's name, checked as roster names are.
pub(crate) fn who(by: &str) -> Result<String> {
    let name = crate::input::name_key(by)?.into_owned();
    if name.is_empty() {
        return Err(Error::InvalidArgument("--by needs the name of the person doing this step".into()));
    }
    Ok(name)
}

/// A note as given: `None` when absent; refused when it holds no visible character (only
/// spaces, control or invisible characters), since such a note says nothing to its reader.
pub(crate) fn note(text: Option<&str>) -> Result<Option<String>> {
    let Some(text) = text else { return Ok(None) };
    let visible = text
        .chars()
        .any(|c| !c.is_whitespace() && !c.is_control() && crate::input::check_identifier("", &c.to_string()).is_ok());
    if !visible {
        return Err(Error::InvalidArgument(format!(
            "the note `{}` holds no visible character; write what the reader should know, or leave the note out",
            crate::input::escaped(text)
        )));
    }
    Ok(Some(text.trim().to_string()))
}

/// Every context in import order, with where it stands.
pub fn list(project: &Project) -> Result<Vec<ContextRow>> {
    rows(project.conn(), None)
}

/// One context, with where it stands.
pub fn get(project: &Project, id: &str) -> Result<ContextRow> {
    let id = require(project.conn(), id)?;
    Ok(rows(project.conn(), Some(&id))?.pop().expect("the context exists"))
}

fn rows(conn: &rusqlite::Connection, only: Option<&str>) -> Result<Vec<ContextRow>> {
    let state = State::load(conn)?;
    let mut stmt = conn.prepare(
        "SELECT id, group_id, source_dataset, source_id, context, passage FROM contexts
         WHERE ?1 IS NULL OR id = ?1 ORDER BY seq",
    )?;
    let rows = stmt
        .query_map([only], |r| Ok((r.get::<_, String>(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)))?;
    let mut out = Vec::new();
    for row in rows {
        let (id, group_id, source_dataset, source_id, context, passage) = row?;
        out.push(ContextRow {
            stage: state.stage(&id),
            screening: state.screenings.get(&id).cloned(),
            draft_version: state.drafts.get(&id).copied(),
            excluded_for: state.outcomes.get(&id).and_then(|o| o.1),
            id,
            group_id,
            source_dataset,
            source_id,
            context,
            passage,
        });
    }
    Ok(out)
}

/// A screening record as read: decision, reason, note, by, at.
type ScreeningRow = (String, Option<String>, Option<String>, String, String);

/// The screening, draft and outcome in force for every context, read in three scans.
pub(crate) struct State {
    pub screenings: HashMap<String, ContextScreening>,
    /// Context -> its current draft's version.
    pub drafts: HashMap<String, i64>,
    /// Context -> (promoted, exclusion reason).
    pub outcomes: HashMap<String, (bool, Option<ExclusionReason>)>,
}

impl State {
    pub(crate) fn load(conn: &rusqlite::Connection) -> Result<State> {
        let mut screenings = HashMap::new();
        let mut stmt = conn.prepare(
            "SELECT context_id, decision, reason, note, screened_by, screened_at FROM context_screenings ORDER BY id",
        )?;
        let mut q = stmt.query([])?;
        while let Some(r) = q.next()? {
            let reason: Option<String> = r.get(2)?;
            screenings.insert(
                r.get::<_, String>(0)?,
                ContextScreening {
                    decision: parse(&r.get::<_, String>(1)?)?,
                    reason: reason.as_deref().map(parse).transpose()?,
                    note: r.get(3)?,
                    by: r.get(4)?,
                    at: r.get(5)?,
                },
            );
        }
        let mut drafts = HashMap::new();
        let mut stmt = conn.prepare("SELECT context_id, max(version) FROM drafts GROUP BY context_id")?;
        let mut q = stmt.query([])?;
        while let Some(r) = q.next()? {
            drafts.insert(r.get::<_, String>(0)?, r.get::<_, i64>(1)?);
        }
        let mut outcomes = HashMap::new();
        let mut stmt = conn.prepare("SELECT context_id, outcome, reason FROM draft_outcomes")?;
        let mut q = stmt.query([])?;
        while let Some(r) = q.next()? {
            let reason: Option<String> = r.get(2)?;
            outcomes.insert(
                r.get::<_, String>(0)?,
                (r.get::<_, String>(1)? == "promoted", reason.as_deref().map(parse).transpose()?),
            );
        }
        Ok(State { screenings, drafts, outcomes })
    }

    /// The state of one context alone, in a few indexed lookups (for a step that visits contexts
    /// one at a time, where loading every context's state each time would be quadratic).
    pub(crate) fn of(conn: &rusqlite::Connection, id: &str) -> Result<State> {
        use rusqlite::OptionalExtension;
        let mut state = State { screenings: HashMap::new(), drafts: HashMap::new(), outcomes: HashMap::new() };
        let screening: Option<ScreeningRow> = conn
            .query_row(
                "SELECT decision, reason, note, screened_by, screened_at FROM context_screenings
                 WHERE context_id = ?1 ORDER BY id DESC LIMIT 1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )
            .optional()?;
        if let Some((decision, reason, note, by, at)) = screening {
            let reason = reason.as_deref().map(parse).transpose()?;
            state.screenings.insert(id.into(), ContextScreening { decision: parse(&decision)?, reason, note, by, at });
        }
        let version: Option<i64> =
            conn.query_row("SELECT max(version) FROM drafts WHERE context_id = ?1", [id], |r| r.get(0))?;
        if let Some(v) = version {
            state.drafts.insert(id.into(), v);
        }
        let outcome: Option<(String, Option<String>)> = conn
            .query_row("SELECT outcome, reason FROM draft_outcomes WHERE context_id = ?1", [id], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()?;
        if let Some((outcome, reason)) = outcome {
            state.outcomes.insert(id.into(), (outcome == "promoted", reason.as_deref().map(parse).transpose()?));
        }
        Ok(state)
    }

    pub(crate) fn stage(&self, id: &str) -> ContextStage {
        match self.outcomes.get(id) {
            Some((true, _)) => return ContextStage::Promoted,
            Some((false, _)) => return ContextStage::Excluded,
            None => {}
        }
        match self.screenings.get(id).map(|s| s.decision) {
            None => ContextStage::Unscreened,
            Some(ScreenDecision::Drop) => ContextStage::Dropped,
            Some(ScreenDecision::Keep) if self.drafts.contains_key(id) => ContextStage::Drafted,
            Some(ScreenDecision::Keep) => ContextStage::Kept,
        }
    }
}

/// Keeps or drops a context. A drop needs a reason; a keep takes none. A context that has a
/// draft keeps its screening (the draft is excluded instead, with `draft exclude`).
pub fn screen(
    project: &mut Project,
    id: &str,
    decision: ScreenDecision,
    reason: Option<ExclusionReason>,
    note_text: Option<&str>,
    by: &str,
) -> Result<ContextScreenReport> {
    crate::settings::lead_only(project.conn(), "screening contexts")?;
    let id = require(project.conn(), id)?;
    let by = who(by)?;
    let note = note(note_text)?;
    match (decision, reason) {
        (ScreenDecision::Drop, None) => {
            return Err(Error::ReasonRequired(format!(
                "dropping context `{id}` needs a reason (--reason): one of {}",
                ExclusionReason::expected()
            )))
        }
        (ScreenDecision::Keep, Some(r)) => {
            return Err(Error::InvalidArgument(format!(
                "a kept context takes no reason (`{}` is a reason to drop it); leave --reason out, or drop it",
                r.as_str()
            )))
        }
        _ => {}
    }
    let state = State::load(project.conn())?;
    let current = state.screenings.get(&id);
    let same = current.is_some_and(|s| s.decision == decision && s.reason == reason && s.note == note);
    if same {
        // The decision in force, asked again (a script run twice): nothing to record.
        return Ok(ContextScreenReport { context: get(project, &id)?, changed: false });
    }
    match state.stage(&id) {
        ContextStage::Drafted | ContextStage::Promoted | ContextStage::Excluded => {
            let what = match state.stage(&id) {
                ContextStage::Promoted => "its draft was promoted into the candidate pool".to_string(),
                ContextStage::Excluded => "its draft was excluded".to_string(),
                _ => format!(
                    "it has a draft (version {}); to leave it out, exclude the draft with `forcebench draft exclude {id} --reason R`",
                    state.drafts[&id]
                ),
            };
            return Err(Error::WrongRowState(format!("context `{id}` keeps its screening: {what}")));
        }
        _ => {}
    }
    project.conn().execute(
        "INSERT INTO context_screenings (context_id, decision, reason, note, screened_by, screened_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![id, decision.as_str(), reason.map(ExclusionReason::as_str), note, by, now()],
    )?;
    Ok(ContextScreenReport { context: get(project, &id)?, changed: true })
}

/// Counts of one source dataset before candidacy.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize, TS)]
pub struct ContextSourceCounts {
    #[ts(type = "number")]
    pub imported: i64,
    #[ts(type = "number")]
    pub kept: i64,
    #[ts(type = "number")]
    pub dropped: i64,
    #[ts(type = "number")]
    pub drafted: i64,
    #[ts(type = "number")]
    pub excluded: i64,
    #[ts(type = "number")]
    pub promoted: i64,
}

/// The accounting before candidacy: how many contexts reached each step. It adds up:
/// `imported = unscreened + dropped + kept`, `kept = awaiting_draft + drafted`,
/// `drafted = pending + excluded + promoted`, and each `*_by_reason` sums to its total.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize, TS)]
pub struct ContextCounts {
    #[ts(type = "number")]
    pub imported: i64,
    #[ts(type = "number")]
    pub unscreened: i64,
    /// Dropped at screening.
    #[ts(type = "number")]
    pub dropped: i64,
    #[ts(type = "number")]
    pub kept: i64,
    /// Kept, with no draft yet.
    #[ts(type = "number")]
    pub awaiting_draft: i64,
    /// Kept and drafted (whatever became of the draft since).
    #[ts(type = "number")]
    pub drafted: i64,
    /// Drafted, neither promoted nor excluded yet.
    #[ts(type = "number")]
    pub pending: i64,
    /// Drafts excluded before candidacy.
    #[ts(type = "number")]
    pub excluded: i64,
    /// Drafts promoted into the candidate pool.
    #[ts(type = "number")]
    pub promoted: i64,
    /// Contexts dropped at screening per reason (every reason present).
    #[ts(as = "BTreeMap<String, u32>")]
    pub dropped_by_reason: BTreeMap<String, i64>,
    /// Drafts excluded per reason (every reason present).
    #[ts(as = "BTreeMap<String, u32>")]
    pub excluded_by_reason: BTreeMap<String, i64>,
    /// The same counts per source dataset.
    #[serde(default)]
    pub by_source: BTreeMap<String, ContextSourceCounts>,
}

impl ContextCounts {
    /// The sentences saying which of the counts' identities do not hold (none when they add up).
    pub fn mismatches(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut check = |what: &str, left: i64, right: i64, parts: &str| {
            if left != right {
                out.push(format!("{what} is {left}, but {parts} add up to {right}"));
            }
        };
        check("imported", self.imported, self.unscreened + self.dropped + self.kept, "unscreened + dropped + kept");
        check("kept", self.kept, self.awaiting_draft + self.drafted, "awaiting_draft + drafted");
        check("drafted", self.drafted, self.pending + self.excluded + self.promoted, "pending + excluded + promoted");
        check("dropped", self.dropped, self.dropped_by_reason.values().sum(), "dropped_by_reason");
        check("excluded", self.excluded, self.excluded_by_reason.values().sum(), "excluded_by_reason");
        if !self.by_source.is_empty() {
            let sum = |f: fn(&ContextSourceCounts) -> i64| self.by_source.values().map(f).sum::<i64>();
            check("imported", self.imported, sum(|s| s.imported), "by_source imported");
            check("kept", self.kept, sum(|s| s.kept), "by_source kept");
            check("promoted", self.promoted, sum(|s| s.promoted), "by_source promoted");
        }
        out
    }
}

/// The accounting before candidacy, or `None` in a project with no contexts (whose funnel
/// begins at the candidates, as before contexts existed).
pub fn accounting(conn: &rusqlite::Connection) -> Result<Option<ContextCounts>> {
    let any: bool = conn.query_row("SELECT EXISTS (SELECT 1 FROM contexts)", [], |r| r.get(0))?;
    if !any {
        return Ok(None);
    }
    let state = State::load(conn)?;
    let every = || ExclusionReason::ALL.iter().map(|r| (r.as_str().to_string(), 0)).collect::<BTreeMap<_, _>>();
    let mut c = ContextCounts { dropped_by_reason: every(), excluded_by_reason: every(), ..Default::default() };
    let mut stmt = conn.prepare("SELECT id, source_dataset FROM contexts")?;
    let mut q = stmt.query([])?;
    while let Some(r) = q.next()? {
        let id: String = r.get(0)?;
        let source = c.by_source.entry(r.get(1)?).or_default();
        let stage = state.stage(&id);
        c.imported += 1;
        source.imported += 1;
        let kept = matches!(
            stage,
            ContextStage::Kept | ContextStage::Drafted | ContextStage::Promoted | ContextStage::Excluded
        );
        let drafted = matches!(stage, ContextStage::Drafted | ContextStage::Promoted | ContextStage::Excluded);
        c.kept += i64::from(kept);
        source.kept += i64::from(kept);
        c.drafted += i64::from(drafted);
        source.drafted += i64::from(drafted);
        match stage {
            ContextStage::Unscreened => c.unscreened += 1,
            ContextStage::Dropped => {
                c.dropped += 1;
                source.dropped += 1;
                let reason = state.screenings[&id].reason.map_or("", ExclusionReason::as_str);
                *c.dropped_by_reason.entry(reason.to_string()).or_insert(0) += 1;
            }
            ContextStage::Kept => c.awaiting_draft += 1,
            ContextStage::Drafted => c.pending += 1,
            ContextStage::Promoted => {
                c.promoted += 1;
                source.promoted += 1;
            }
            ContextStage::Excluded => {
                c.excluded += 1;
                source.excluded += 1;
                let reason = state.outcomes[&id].1.map_or("", ExclusionReason::as_str);
                *c.excluded_by_reason.entry(reason.to_string()).or_insert(0) += 1;
            }
        }
    }
    Ok(Some(c))
}

/// The lines of the funnel before candidacy, for people: `(step, count)` in order, with the
/// reasons indented under the steps they explain.
pub fn funnel_lines(c: &ContextCounts) -> Vec<(String, i64)> {
    let mut out = vec![("contexts imported".to_string(), c.imported)];
    if c.unscreened > 0 {
        out.push(("  not screened yet".into(), c.unscreened));
    }
    out.push(("  dropped at screening".into(), c.dropped));
    out.extend(c.dropped_by_reason.iter().filter(|(_, n)| **n > 0).map(|(r, n)| (format!("    {r}"), *n)));
    out.push(("kept".into(), c.kept));
    if c.awaiting_draft > 0 {
        out.push(("  not drafted yet".into(), c.awaiting_draft));
    }
    out.push(("drafted".into(), c.drafted));
    if c.pending > 0 {
        out.push(("  awaiting promotion".into(), c.pending));
    }
    out.push(("  excluded before candidacy".into(), c.excluded));
    out.extend(c.excluded_by_reason.iter().filter(|(_, n)| **n > 0).map(|(r, n)| (format!("    {r}"), *n)));
    out.push(("promoted to candidates".into(), c.promoted));
    out
}

/// The screening history of a context, oldest first.
pub fn screenings(project: &Project, id: &str) -> Result<Vec<ContextScreening>> {
    let id = require(project.conn(), id)?;
    let mut stmt = project.conn().prepare(
        "SELECT decision, reason, note, screened_by, screened_at FROM context_screenings WHERE context_id = ?1 ORDER BY id",
    )?;
    let rows = stmt.query_map([&id], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (decision, reason, note, by, at) = row?;
        out.push(ContextScreening {
            decision: parse(&decision)?,
            reason: reason.as_deref().map(parse).transpose()?,
            note,
            by,
            at,
        });
    }
    Ok(out)
}
