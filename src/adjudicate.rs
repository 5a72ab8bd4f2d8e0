//! Adjudication: two independent annotations become one final, traceable label per row.
//!
//! The two annotations of a row are "A" and "B" in roster order (the annotator added first is A),
//! as in the agreement report. For every final field the adjudicator takes A's value, B's value,
//! the suggestion, or writes a new one; the source recorded is derived from the value itself
//! (`both` when A and B gave it, then `a`, `b`, `suggestion`, else `edited`), so it cannot
//! disagree with the data. A final value that neither annotator gave overrides both of them and
//! needs a rationale.
//!
//! Each adjudication writes the current final label (`adjudications`, `adjudication_fields`) and
//! appends every change to `adjudication_events`, so reopening a row keeps its history. Quality
//! control for the row runs in the same transaction ([`crate::qc`]), so a row's QC results always
//! describe its current final label.

use rusqlite::{params, OptionalExtension, Transaction};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use ts_rs::TS;

use crate::annotate::{Annotation, Field};
use crate::candidate::{self, Candidate};
use crate::error::{Error, Result};
use crate::import::InputProblem;
pub(crate) use crate::label::{all_final_fields, load_in};
pub use crate::label::{get, needed, Adjudication, Checklist, FinalField, FinalFields, Source, FIELDS};
use crate::project::{now, Project};
use crate::qc::{self, QcResult};
use crate::roster::Role;
use crate::vocab::Decision;

mod affirm;
mod history;
mod page;
mod reopen;
mod stored;
mod writer;
pub use affirm::{affirm_preview, confirm_and_affirm, AffirmReport};
use history::Event;
pub use page::{page, AdjudicationFacets, AdjudicationPage, AdjudicationQuery, PAGE_LIMIT_MAX};
pub use reopen::{reopen, reopenings, Reopening};
use writer::{event, Writer};

/// Why a row is where it is in the adjudication queue (the queue's order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// The annotators' decisions differ.
    DecisionDisagreement,
    /// Both said `needs_discussion`.
    NeedsDiscussion,
    /// Same decision, but a field it needs differs.
    FieldDisagreement,
    /// Same decision and every field it needs: confirm.
    FullAgreement,
}

impl Category {
    pub const ALL: [Category; 4] = [
        Category::DecisionDisagreement,
        Category::NeedsDiscussion,
        Category::FieldDisagreement,
        Category::FullAgreement,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            Category::DecisionDisagreement => "decision_disagreement",
            Category::NeedsDiscussion => "needs_discussion",
            Category::FieldDisagreement => "field_disagreement",
            Category::FullAgreement => "full_agreement",
        }
    }
}

/// Classifies a pair of finished annotations; returns the category and the fields that differ
/// (all fields for a decision disagreement, else the fields the shared decision needs).
pub fn classify(a: &Annotation, b: &Annotation) -> (Category, Vec<Field>) {
    let all: Vec<Field> = FIELDS[1..].iter().copied().filter(|f| a.stored_ref(*f) != b.stored_ref(*f)).collect();
    match (a.decision, b.decision) {
        (Some(x), Some(y)) => categorize(x, y, all),
        _ => {
            let mut d = vec![Field::Decision];
            d.extend(all);
            (Category::DecisionDisagreement, d)
        }
    }
}

/// The rule of [`classify`] on two decisions and the fields of `FIELDS[1..]` whose stored values
/// differ (the queue applies it to the annotations' stored fields read in bulk).
pub(crate) fn categorize(x: Decision, y: Decision, all: Vec<Field>) -> (Category, Vec<Field>) {
    if x != y {
        let mut d = vec![Field::Decision];
        d.extend(all);
        return (Category::DecisionDisagreement, d);
    }
    if x == Decision::NeedsDiscussion {
        return (Category::NeedsDiscussion, all);
    }
    let differing: Vec<Field> = all.into_iter().filter(|f| needed(x).contains(f)).collect();
    if differing.is_empty() {
        (Category::FullAgreement, differing)
    } else {
        (Category::FieldDisagreement, differing)
    }
}

/// A double-annotated row as the adjudicator sees it.
struct Pair {
    candidate: Candidate,
    names: [String; 2],
    a: Annotation,
    b: Annotation,
    suggestion: Annotation,
}

/// Both finished annotations of a row, A first; an error naming the row if it has fewer.
fn pair_in(conn: &rusqlite::Connection, id: &str) -> Result<Pair> {
    let c = candidate::find_in(conn, id)?.ok_or_else(|| Error::CandidateNotFound(id.into()))?;
    // In the assignment index's order, as `stored::stored_pair_in` reads it.
    let mut stmt = conn.prepare_cached(
        "SELECT a.id, a.name, coalesce(n.finished, 0) FROM assignments s JOIN annotators a ON a.id = s.annotator_id
         LEFT JOIN annotations n ON n.candidate_id = s.candidate_id AND n.annotator_id = s.annotator_id
         WHERE s.candidate_id = ?1 ORDER BY s.annotator_id",
    )?;
    let people: Vec<(i64, String, bool)> =
        stmt.query_map([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect::<rusqlite::Result<_>>()?;
    let finished: Vec<&(i64, String, bool)> = people.iter().filter(|p| p.2).collect();
    if finished.len() < 2 {
        return Err(Error::NotDoubleAnnotated(format!(
            "row `{id}` is not double-annotated ({} of 2 annotations finished); only double-annotated rows can be adjudicated",
            finished.len()
        )));
    }
    let a = crate::annotate::fold(conn, &c, finished[0].0, &finished[0].1)?;
    let b = crate::annotate::fold(conn, &c, finished[1].0, &finished[1].1)?;
    let suggestion = Annotation::prefilled(&c, "suggestion", true);
    Ok(Pair { names: [finished[0].1.clone(), finished[1].1.clone()], a, b, suggestion, candidate: c })
}

/// How the adjudicator settles one field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "take", content = "value", rename_all = "snake_case")]
pub enum Choice {
    A,
    B,
    Suggestion,
    /// A value written by the adjudicator (a span as its verbatim text or `{text,start,end}` JSON).
    Value(Option<String>),
}

/// One adjudication as submitted: choices for some fields (the rest keep the earlier final
/// value, or the annotators' shared value), a rationale and the checklist.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Resolution {
    pub choices: Vec<(Field, Choice)>,
    pub rationale: Option<String>,
    pub checklist: Checklist,
}

/// Problems with a resolution, each naming the field when there is one.
type Problems = Vec<(Option<Field>, String)>;

/// Where a final value of `field` can come from, in the order a source is given to a value:
/// `both` (when A and B gave the same value), then `a`, `b` and the suggestion. A value none of
/// them gives is `edited`.
fn sources(pair: &Pair, field: Field) -> Vec<SourceValue> {
    places(&stored_values(pair, field))
        .map(|(source, value)| SourceValue { source, value: value.as_deref().map(str::to_string) })
        .collect()
}

/// The stored values of a field in A's annotation, B's and the suggestion (borrowed where they
/// are held as stored).
fn stored_values(pair: &Pair, field: Field) -> [Option<Cow<'_, str>>; 3] {
    [pair.a.stored_ref(field), pair.b.stored_ref(field), pair.suggestion.stored_ref(field)]
}

/// A stored value of [`stored_values`], as a final value holds it.
fn owned(value: &Option<Cow<str>>) -> Option<String> {
    value.as_deref().map(str::to_string)
}

/// The places a final value can come from, in the order a value is credited to them: both
/// annotators when they agree, A, B, the suggestion.
fn places<'v, 'p>(
    [a, b, s]: &'v [Option<Cow<'p, str>>; 3],
) -> impl Iterator<Item = (Source, &'v Option<Cow<'p, str>>)> {
    (a == b).then_some((Source::Both, a)).into_iter().chain([(Source::A, a), (Source::B, b), (Source::Suggestion, s)])
}

/// The source recorded for a final value: the first of its field's [`places`] that gives it,
/// else `edited`.
fn source_of(value: &Option<String>, values: &[Option<Cow<str>>; 3]) -> Source {
    places(values).find(|(_, v)| v.as_deref() == value.as_deref()).map_or(Source::Edited, |(source, _)| source)
}

/// One place a final value can come from, and the value it gives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct SourceValue {
    pub source: Source,
    pub value: Option<String>,
}

/// One question of the adjudicator's checklist, as the app asks it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ChecklistQuestion {
    /// The checklist's key (`span_decisive`...).
    pub key: String,
    pub question: String,
}

/// The rules the adjudicate view applies while a row is being decided, sent by the core so the
/// app never restates them: the fields each final decision needs, the sources whose values need
/// a rationale, and the checklist's questions in order. The core checks every resolution again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct Rules {
    pub needed: BTreeMap<Decision, Vec<Field>>,
    pub needs_rationale: Vec<Source>,
    pub checklist: Vec<ChecklistQuestion>,
}

/// The rules (see [`Rules`]).
pub fn rules() -> Rules {
    Rules {
        needed: crate::vocab::Decision::ALL.iter().map(|d| (*d, needed(*d).to_vec())).collect(),
        needs_rationale: [Source::Both, Source::A, Source::B, Source::Suggestion, Source::Edited]
            .into_iter()
            .filter(|s| s.overrides_both())
            .collect(),
        checklist: Checklist::default()
            .items()
            .iter()
            .map(|(key, question, _)| ChecklistQuestion { key: key.to_string(), question: question.to_string() })
            .collect(),
    }
}

/// Computes the final label a resolution gives a row, or the problems that stop it.
fn settle(
    pair: &Pair,
    earlier: Option<&Adjudication>,
    res: &Resolution,
) -> std::result::Result<Vec<(Field, Option<String>, Source)>, Problems> {
    let passage = &pair.candidate.passage;
    // Each field's stored values, made once: a span is serialised to make its stored form, and
    // the values are compared both to settle the field and to credit its final value.
    let cache: [std::cell::OnceCell<[Option<Cow<str>>; 3]>; Field::ALL.len()] = Default::default();
    let values = |field: Field| {
        let at = Field::ALL.iter().position(|f| *f == field).expect("every field is in Field::ALL");
        cache[at].get_or_init(|| stored_values(pair, field))
    };
    let mut problems: Problems = Vec::new();
    let mut chosen: std::collections::HashMap<Field, Option<String>> = std::collections::HashMap::new();
    for (field, choice) in &res.choices {
        if !FIELDS.contains(field) {
            problems.push((Some(*field), "this field is not adjudicated".into()));
            continue;
        }
        let value = match choice {
            Choice::A => owned(&values(*field)[0]),
            Choice::B => owned(&values(*field)[1]),
            Choice::Suggestion => owned(&values(*field)[2]),
            Choice::Value(v) => match crate::annotate::normalise(*field, v.as_deref(), passage) {
                Ok(v) => v,
                Err(e) => {
                    problems.push((Some(*field), e));
                    continue;
                }
            },
        };
        chosen.insert(*field, value);
    }
    // Where the final value of a field comes from when the resolution does not choose it.
    let current = |field: Field| -> std::result::Result<Option<String>, String> {
        if let Some(v) = chosen.get(&field) {
            return Ok(v.clone());
        }
        if let Some(e) = earlier {
            if let Some(f) = e.fields.iter().find(|f| f.field == field) {
                return Ok(f.value.clone());
            }
            if field == Field::Decision {
                return Ok(Some(e.decision.as_str().to_string()));
            }
        }
        let [a, b, _] = values(field);
        if a == b {
            Ok(owned(a))
        } else {
            Err(format!(
                "the annotators differ (A: {}, B: {}); take A, take B or give a value",
                shown(field, a.as_deref()),
                shown(field, b.as_deref())
            ))
        }
    };
    let decision = match current(Field::Decision) {
        Ok(Some(d)) => d.parse::<Decision>().map_err(|e| vec![(Some(Field::Decision), e)])?,
        Ok(None) => return Err(vec![(Some(Field::Decision), "a final decision is required".into())]),
        Err(e) => {
            problems.push((Some(Field::Decision), e));
            return Err(problems);
        }
    };
    if decision == Decision::NeedsDiscussion {
        problems.push((
            Some(Field::Decision),
            "the final decision must be accept_force_gap or reject_not_force_gap".into(),
        ));
        return Err(problems);
    }
    let mut finals = vec![(Field::Decision, Some(decision.as_str().to_string()))];
    for field in needed(decision) {
        match current(*field) {
            Ok(v) => finals.push((*field, v)),
            Err(e) => problems.push((Some(*field), e)),
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    // The same rules as an annotation (a span verbatim in the passage, what an accept needs).
    let mut label = Annotation::empty(&pair.candidate, "final");
    for (field, value) in &finals {
        if let Err(e) = label.apply(*field, value.as_deref()) {
            problems.push((Some(*field), e));
        }
    }
    for p in label.problems(passage) {
        problems.push((None, p));
    }
    let with_source: Vec<(Field, Option<String>, Source)> = finals
        .into_iter()
        .map(|(field, value)| {
            let source = source_of(&value, values(field));
            (field, value, source)
        })
        .collect();
    let rationale_given = res.rationale.as_deref().is_some_and(|r| !crate::input::is_blank(r))
        || (res.rationale.is_none() && earlier.is_some_and(|e| e.rationale.is_some()));
    for (field, _, source) in &with_source {
        if source.overrides_both() && !rationale_given {
            problems
                .push((Some(*field), "the final value overrides both annotators, so a rationale is required".into()));
        }
    }
    if problems.is_empty() {
        Ok(with_source)
    } else {
        Err(problems)
    }
}

/// A stored value for people: a span's text, `(empty)` for none.
fn shown(field: Field, value: Option<&str>) -> String {
    match value {
        None => "(empty)".into(),
        Some(v) if field == Field::EvidenceSpan => format!("\"{}\"", crate::annotate::Span::text_of(v)),
        Some(v) => format!("\"{v}\""),
    }
}

fn adjudicator_id(conn: &rusqlite::Connection, name: &str) -> Result<(i64, String)> {
    let found: Option<(i64, String, String)> = conn
        .query_row("SELECT id, name, role FROM annotators WHERE name = ?1", [name.trim()], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .optional()?;
    match found {
        None => Err(Error::NotOnRoster(format!("no one named `{}` is on the roster", name.trim()))),
        Some((id, name, role)) if role.parse::<Role>().is_ok_and(Role::may_adjudicate) => Ok((id, name)),
        Some((_, name, role)) => Err(Error::WrongRole(format!(
            "`{name}` is on the roster as {role}; only an adjudicator or the lead can adjudicate"
        ))),
    }
}

/// Writes a settled label, its events and the row's QC results inside `tx`.
fn write(
    tx: &Transaction,
    w: &Writer,
    pair: &Pair,
    earlier: Option<&Adjudication>,
    finals: &[(Field, Option<String>, Source)],
    res: &Resolution,
    bulk: bool,
) -> Result<()> {
    let id = &pair.candidate.id;
    let who = w.who;
    w.guard(tx, id)?;
    let at = now();
    let decision = finals[0].1.as_deref().expect("decision settled");
    let rationale = match &res.rationale {
        Some(r) if crate::input::is_blank(r) => None,
        Some(r) => Some(r.trim().to_string()),
        None => earlier.and_then(|e| e.rationale.clone()),
    };
    let boundary = finals.iter().find(|f| f.0 == Field::BoundaryType).and_then(|f| f.1.clone());
    let c = &res.checklist;
    // A first adjudication inserts; a later one overwrites the row's label (an upsert looks for
    // the row it may replace first, a cost a bulk step paid on every row for nothing).
    const INSERT: &str = "INSERT INTO adjudications (candidate_id, decision, boundary_type, rationale, adjudicator_id, decided_at,
             bulk_confirmed, span_decisive, calibrated_supported, raised_underwarranted, one_local_axis, no_unrelated_addition,
             guideline_version)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)";
    const OVERWRITE: &str = " ON CONFLICT (candidate_id) DO UPDATE SET decision = excluded.decision, boundary_type = excluded.boundary_type,
             rationale = excluded.rationale, adjudicator_id = excluded.adjudicator_id, decided_at = excluded.decided_at,
             bulk_confirmed = excluded.bulk_confirmed, span_decisive = excluded.span_decisive,
             calibrated_supported = excluded.calibrated_supported, raised_underwarranted = excluded.raised_underwarranted,
             one_local_axis = excluded.one_local_axis, no_unrelated_addition = excluded.no_unrelated_addition,
             guideline_version = excluded.guideline_version";
    let sql: std::borrow::Cow<str> =
        if earlier.is_none() { INSERT.into() } else { format!("{INSERT}{OVERWRITE}").into() };
    tx.prepare_cached(&sql)?.execute(params![
        id,
        decision,
        boundary,
        rationale,
        who,
        at,
        bulk,
        c.span_decisive,
        c.calibrated_supported,
        c.raised_underwarranted,
        c.one_local_axis,
        c.no_unrelated_addition,
        w.guideline
    ])?;
    // A first adjudication starts from an unanswered checklist: an event only when it changed.
    let checklist_change = (earlier.map_or(Checklist::default(), |e| e.checklist) != *c).then(|| {
        let old = earlier.map(|e| serde_json::to_string(&e.checklist).expect("checklist serialises"));
        (old, serde_json::to_string(c).expect("checklist serialises"))
    });
    // The row's history events and final fields are each written by one statement (a statement
    // per value took a statement journal and a B-tree descent each), in the order they happen.
    let mut events: Vec<Event> = Vec::with_capacity(finals.len() + 2);
    let mut changed: Vec<(&'static str, &Option<String>, &'static str)> = Vec::with_capacity(finals.len());
    for (field, value, source) in finals {
        let before = earlier.and_then(|e| e.fields.iter().find(|f| f.field == *field));
        if before.is_some_and(|b| b.value == *value && b.source == *source) {
            continue;
        }
        events.push((field.as_str(), before.and_then(|b| b.value.as_deref()), value.as_deref(), source.as_str()));
        changed.push((field.as_str(), value, source.as_str()));
    }
    // Fields the new decision does not need leave the final label (their history stays).
    let mut dropped = Vec::new();
    if let Some(e) = earlier {
        for f in &e.fields {
            if !finals.iter().any(|x| x.0 == f.field) {
                events.push((f.field.as_str(), f.value.as_deref(), None, "dropped"));
                dropped.push(f.field.as_str());
            }
        }
    }
    if earlier.map(|e| e.rationale.as_deref()) != Some(rationale.as_deref())
        && !(earlier.is_none() && rationale.is_none())
    {
        events.push(("rationale", earlier.and_then(|e| e.rationale.as_deref()), rationale.as_deref(), "edited"));
    }
    if let Some((old, new)) = &checklist_change {
        events.push(("checklist", old.as_deref(), Some(new), if bulk { "bulk" } else { "edited" }));
    }
    w.events(tx, id, &events, &at)?;
    w.fields(tx, id, &changed, &at, earlier.is_some())?;
    for field in dropped {
        tx.execute("DELETE FROM adjudication_fields WHERE candidate_id = ?1 AND field = ?2", params![id, field])?;
    }
    // The row's QC reads the label just written, from the values it was settled to rather than
    // read back.
    let label = Settled { decision: decision.parse().map_err(Error::Corrupt)?, checklist: c, finals };
    // A row with no label before has no QC results to take away (reopening takes them with it).
    qc::run_row_with(tx, &w.check_lists, id, &pair.candidate.passage, &label, earlier.is_some())?;
    Ok(())
}

/// A label as [`write`] settled it, for its QC.
struct Settled<'a> {
    decision: Decision,
    checklist: &'a Checklist,
    finals: &'a [(Field, Option<String>, Source)],
}

impl qc::FinalLabel for Settled<'_> {
    fn decision(&self) -> Decision {
        self.decision
    }
    fn checklist(&self) -> &Checklist {
        self.checklist
    }
    fn value(&self, field: Field) -> Option<&str> {
        self.finals.iter().find(|f| f.0 == field).and_then(|f| f.1.as_deref())
    }
}

/// Adjudicates one row (or changes its final label again): durable when this returns. To let
/// the annotators change their own labels, the row is reopened instead ([`reopen`]).
pub fn resolve(project: &mut Project, id: &str, adjudicator: &str, res: &Resolution) -> Result<RowView> {
    let id: &str = &crate::input::id_key(id)?;
    let adjudicator: &str = &crate::input::name_key(adjudicator)?;
    let tx = project.conn_mut().transaction()?;
    let w = Writer::new(&tx, adjudicator_id(&tx, adjudicator)?, false)?;
    let pair = pair_in(&tx, id)?;
    let earlier = load_in(&tx, id)?;
    let finals = settle(&pair, earlier.as_ref(), res).map_err(|problems| {
        Error::IncompleteAdjudication(format!(
            "row `{id}` cannot be adjudicated: {}",
            problems
                .iter()
                .map(|(f, m)| match f {
                    Some(f) => format!("field `{}`: {m}", f.as_str()),
                    None => m.clone(),
                })
                .collect::<Vec<_>>()
                .join("; ")
        ))
    })?;
    write(&tx, &w, &pair, earlier.as_ref(), &finals, res, false)?;
    tx.commit()?;
    row_view(project, id, false)
}

/// Confirms, in bulk, every full agreement not yet adjudicated (the annotators' shared label
/// becomes final; logged as bulk-confirmed, checklist unanswered). Returns how many.
pub fn confirm_agreements(project: &mut Project, adjudicator: &str) -> Result<u64> {
    let adjudicator: &str = &crate::input::name_key(adjudicator)?;
    project.bulk(|project| confirm_agreements_in(project, adjudicator))
}

fn confirm_agreements_in(project: &mut Project, adjudicator: &str) -> Result<u64> {
    let open = page::open_agreements(project)?;
    let tx = project.conn_mut().transaction()?;
    let w = Writer::new(&tx, adjudicator_id(&tx, adjudicator)?, true)?;
    let res = Resolution::default();
    for (id, _) in open.iter() {
        let pair = stored::stored_pair_in(&tx, id)?;
        let finals = settle(&pair, None, &res).map_err(|p| {
            Error::IncompleteAdjudication(format!(
                "row `{id}`: {}",
                p.into_iter().map(|x| x.1).collect::<Vec<_>>().join("; ")
            ))
        })?;
        write(&tx, &w, &pair, None, &finals, &res, true)?;
    }
    tx.commit()?;
    Ok(open.len() as u64)
}

/// One row of the adjudication queue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct QueueItem {
    pub id: String,
    pub category: Category,
    /// Fields where the two annotations differ.
    pub differing: Vec<Field>,
    pub source_dataset: String,
    pub suggested_axis: Option<crate::vocab::Axis>,
    pub annotator_a: String,
    pub annotator_b: String,
    pub decision_a: Decision,
    pub decision_b: Decision,
    pub adjudicated: bool,
    pub final_decision: Option<Decision>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct QueueFilter {
    /// Suggested axis (`none` for rows without one).
    pub axis: Option<String>,
    pub source: Option<String>,
    /// Annotator pair as `NAME+NAME` (either order).
    pub pair: Option<String>,
    /// Leave out rows already adjudicated.
    #[serde(default)]
    pub open_only: bool,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, TS)]
pub struct CategoryCount {
    #[ts(type = "number")]
    pub total: u64,
    /// Not yet adjudicated.
    #[ts(type = "number")]
    pub open: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct Queue {
    /// Counts per category over the whole project (filters do not change them).
    #[ts(as = "BTreeMap<Category, CategoryCount>")]
    pub counts: BTreeMap<Category, CategoryCount>,
    pub items: Vec<QueueItem>,
}

/// The adjudication queue: decision disagreements, then needs-discussion rows, then field
/// disagreements, then full agreements; in import order within each. Every item matching the
/// filter: the window asks for a page at a time ([`page`]), from the same classified rows.
pub fn queue(project: &Project, filter: &QueueFilter) -> Result<Queue> {
    let (counts, items) = page::whole(project, filter)?;
    Ok(Queue { counts, items })
}

/// One field of the side-by-side view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct FieldRow {
    pub field: Field,
    pub a: Option<String>,
    pub b: Option<String>,
    pub suggestion: Option<String>,
    /// A and B differ here.
    pub differs: bool,
    /// Where a final value can come from, in the order a value is given its source (a value
    /// none of them gives is `edited`).
    pub sources: Vec<SourceValue>,
    /// The current final value and its source, when adjudicated.
    #[serde(rename = "final")]
    #[ts(rename = "final")]
    pub final_value: Option<FinalField>,
}

/// One change in a row's adjudication history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct HistoryEvent {
    /// The stored event's id: the changes one record stands for (an adjudication's first values,
    /// set at once from one source) share it, each with its own field.
    #[ts(type = "number")]
    pub id: i64,
    pub field: String,
    pub old_value: Option<String>,
    pub new_value: Option<String>,
    pub source: String,
    pub adjudicator: String,
    pub at: String,
}

/// Everything the adjudicate view shows for one row.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct RowView {
    pub candidate: Candidate,
    /// `None` when names are hidden from the adjudicator.
    pub annotator_a: Option<String>,
    pub annotator_b: Option<String>,
    pub category: Category,
    pub a: Annotation,
    pub b: Annotation,
    pub fields: Vec<FieldRow>,
    pub adjudication: Option<Adjudication>,
    pub history: Vec<HistoryEvent>,
    pub qc: Vec<QcResult>,
    /// Whether `qc` holds the row back: an error check failed ([`qc::holds_back`]), so an
    /// accepted row is not accepted.
    pub held_back_by_qc: bool,
    /// What the view needs to know to guide a decision (see [`Rules`]).
    pub rules: Rules,
    /// `A`, `B` or both when that annotation was decided in under [`QUICK_SECONDS`] of time
    /// recorded in the app: worth a second look.
    pub decided_quickly: Vec<String>,
}

/// An annotation finished in less time than this is flagged to the adjudicator.
pub const QUICK_SECONDS: f64 = 2.0;

pub fn row_view(project: &Project, id: &str, hide_names: bool) -> Result<RowView> {
    let id: &str = &crate::input::id_key(id)?;
    let conn = project.conn();
    let pair = pair_in(conn, id)?;
    let adjudication = load_in(conn, id)?;
    let (category, differing) = classify(&pair.a, &pair.b);
    let fields = FIELDS
        .iter()
        .map(|f| FieldRow {
            field: *f,
            a: pair.a.stored(*f),
            b: pair.b.stored(*f),
            suggestion: pair.suggestion.stored(*f),
            sources: sources(&pair, *f),
            differs: differing.contains(f) || (*f == Field::Decision && category == Category::DecisionDisagreement),
            final_value: adjudication.as_ref().and_then(|j| j.fields.iter().find(|x| x.field == *f).cloned()),
        })
        .collect();
    let history = history::history(conn, id)?;
    let decided_quickly = [("A", &pair.a), ("B", &pair.b)]
        .into_iter()
        // No time recorded (a label imported from a file) is not a quick decision.
        .filter(|(_, x)| x.seconds_spent > 0.0 && x.seconds_spent < QUICK_SECONDS)
        .map(|(n, _)| n.to_string())
        .collect();
    // The provenance and duplicate checks that concern this row, after its own.
    let mut qc = qc::results(conn, id)?;
    qc.extend(crate::provenance::row_results(conn, id)?);
    let mut a = pair.a;
    let mut b = pair.b;
    if hide_names {
        a.annotator = "A".into();
        b.annotator = "B".into();
    }
    Ok(RowView {
        annotator_a: (!hide_names).then(|| pair.names[0].clone()),
        annotator_b: (!hide_names).then(|| pair.names[1].clone()),
        candidate: pair.candidate,
        category,
        a,
        b,
        fields,
        adjudication,
        history,
        held_back_by_qc: qc::holds_back(&qc),
        qc,
        rules: rules(),
        decided_quickly,
    })
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct AdjudicationImportReport {
    pub file: String,
    pub adjudicator: String,
    #[ts(type = "number")]
    pub rows: u64,
}

/// Reads adjudications from JSONL (`schema/adjudication.schema.json`): one object per row with
/// the annotation field names plus `rationale` and `checklist`. Keys left out keep the earlier
/// final value, or the value both annotators gave. All or nothing.
pub fn import_jsonl(project: &mut Project, path: &Path, adjudicator: &str) -> Result<AdjudicationImportReport> {
    let adjudicator: &str = &crate::input::name_key(adjudicator)?;
    project.bulk(|project| import_jsonl_in(project, path, adjudicator))
}

fn import_jsonl_in(project: &mut Project, path: &Path, adjudicator: &str) -> Result<AdjudicationImportReport> {
    let (file, objects, mut problems) = crate::import::jsonl_objects(path)?;
    let problem = |line: u64, field: Option<&str>, message: String| InputProblem {
        file: file.clone(),
        line: Some(line),
        field: field.map(String::from),
        message,
    };
    let mut parsed: Vec<(u64, String, Resolution)> = Vec::new();
    let mut seen = std::collections::HashMap::new();
    for (line, map) in objects {
        let Some(id) = map.get("id").and_then(|v| v.as_str()).map(crate::input::nfc) else {
            problems.push(problem(line, Some("id"), "required field is missing or not a string".into()));
            continue;
        };
        if let Err(message) = crate::input::check_identifier("id", &id) {
            problems.push(problem(line, Some("id"), message));
            continue;
        }
        if let Some(first) = seen.insert(id.clone(), line) {
            problems.push(problem(line, Some("id"), format!("duplicate id `{id}` (first used on line {first})")));
            continue;
        }
        let mut res = Resolution::default();
        for (key, value) in map {
            match key.as_str() {
                "id" => {}
                "rationale" => match value {
                    serde_json::Value::String(s) => res.rationale = Some(s),
                    serde_json::Value::Null => res.rationale = Some(String::new()),
                    other => {
                        problems.push(problem(line, Some("rationale"), format!("expected a string, found {other}")))
                    }
                },
                "checklist" => match serde_json::from_value::<Checklist>(value) {
                    Ok(c) => res.checklist = c,
                    Err(e) => problems.push(problem(
                        line,
                        Some("checklist"),
                        format!("expected an object of the five items as true/false: {e}"),
                    )),
                },
                _ => {
                    let field = match key.parse::<Field>() {
                        Ok(f) if FIELDS.contains(&f) => f,
                        Ok(_) => {
                            problems.push(problem(line, Some(&key), "not an adjudicated field".into()));
                            continue;
                        }
                        Err(e) => {
                            problems.push(problem(line, Some(&key), e));
                            continue;
                        }
                    };
                    let value = match crate::input::field_text(field.value_kind(), value) {
                        Ok(v) => v,
                        Err(message) => {
                            problems.push(problem(line, Some(&key), message));
                            continue;
                        }
                    };
                    res.choices.push((field, Choice::Value(value)));
                }
            }
        }
        parsed.push((line, id, res));
    }
    if !problems.is_empty() {
        problems.sort_by_key(|p| p.line);
        return Err(Error::InvalidInput { file, problems });
    }
    let tx = project.conn_mut().transaction()?;
    let w = Writer::new(&tx, adjudicator_id(&tx, adjudicator)?, false)?;
    let name = w.name.clone();
    for (line, id, res) in &parsed {
        // The stored annotations, as confirming agreements reads them: folding each annotator's
        // events again was half of an import's time, for the same pair (`stored`'s test).
        let pair = match stored::stored_pair_in(&tx, id) {
            Ok(p) => p,
            Err(e) => {
                problems.push(problem(*line, Some("id"), plain(e)));
                continue;
            }
        };
        let earlier = load_in(&tx, id)?;
        match settle(&pair, earlier.as_ref(), res) {
            Ok(finals) => {
                if let Err(e) = write(&tx, &w, &pair, earlier.as_ref(), &finals, res, false) {
                    problems.push(problem(*line, None, plain(e)));
                }
            }
            Err(ps) => {
                for (field, message) in ps {
                    problems.push(problem(*line, field.map(Field::as_str), message));
                }
            }
        }
    }
    if !problems.is_empty() {
        return Err(Error::InvalidInput { file, problems });
    }
    tx.commit()?;
    Ok(AdjudicationImportReport { file, adjudicator: name, rows: parsed.len() as u64 })
}

/// An error's message without the kind prefix, for a line of an input-problem list.
fn plain(e: Error) -> String {
    match e {
        Error::InvalidArgument(m) => m,
        Error::CandidateNotFound(id) => format!("no candidate with id `{id}`"),
        other => other.to_string(),
    }
}

/// The final labels of every adjudicated row, for export: one JSON object per row with each
/// final field's value and source.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ExportRow {
    pub id: String,
    pub state: crate::vocab::WorkflowState,
    pub decision: Decision,
    pub evidence_span: Option<String>,
    pub calibrated_claim: Option<String>,
    pub raised_claim: Option<String>,
    pub axis: Option<String>,
    #[ts(type = "number | null")]
    pub severity: Option<i64>,
    pub repair: Option<String>,
    pub boundary_type: Option<String>,
    pub rationale: Option<String>,
    pub checklist: Checklist,
    pub bulk_confirmed: bool,
    pub adjudicator: String,
    pub decided_at: String,
    /// Field name -> source (`both`, `a`, `b`, `suggestion`, `edited`).
    #[ts(as = "BTreeMap<String, Source>")]
    pub sources: BTreeMap<String, Source>,
    /// Field name -> the annotator whose value it is (`null` for `both`, `suggestion` and `edited`).
    pub annotators: BTreeMap<String, Option<String>>,
}

/// Every adjudicated row's final label, in import order. Read in a few whole-table passes, not
/// row by row, so exporting a large project stays fast.
pub fn export_rows(project: &Project) -> Result<Vec<ExportRow>> {
    let conn = project.conn();
    let mut fields = all_final_fields(conn)?;
    // The two annotators of each row, A first (roster order).
    let mut names: HashMap<String, Vec<String>> = HashMap::new();
    {
        let mut stmt = conn.prepare(
            "SELECT n.candidate_id, a.name FROM annotations n JOIN annotators a ON a.id = n.annotator_id
             WHERE n.finished = 1 ORDER BY n.candidate_id, n.annotator_id",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            names.entry(r.get(0)?).or_default().push(r.get(1)?);
        }
    }
    // Each row's state by the rule the split uses, from two scans rather than probes per row.
    let rule = crate::rowstate::StateRule::load(conn)?;
    let mut stmt = conn.prepare(
        "SELECT j.candidate_id, j.decision, j.rationale, a.name, j.decided_at, j.bulk_confirmed,
                j.span_decisive, j.calibrated_supported, j.raised_underwarranted, j.one_local_axis, j.no_unrelated_addition
         FROM adjudications j JOIN candidates c ON c.id = j.candidate_id
         JOIN annotators a ON a.id = j.adjudicator_id ORDER BY c.seq",
    )?;
    let mut rows = stmt.query([])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let id: String = r.get(0)?;
        let finals = fields.take(&id).unwrap_or_default();
        let pair = names.get(&id);
        let value = |f: Field| -> Option<String> {
            finals[FIELDS.iter().position(|x| *x == f).expect("adjudicated field")].as_ref().and_then(|x| x.0.clone())
        };
        let mut sources = BTreeMap::new();
        let mut annotators = BTreeMap::new();
        for (i, f) in FIELDS.iter().enumerate() {
            let Some((_, source)) = &finals[i] else { continue };
            let who = match source {
                Source::A => pair.and_then(|p| p.first().cloned()),
                Source::B => pair.and_then(|p| p.get(1).cloned()),
                _ => None,
            };
            sources.insert(f.as_str().to_string(), *source);
            annotators.insert(f.as_str().to_string(), who);
        }
        let decision: Decision = crate::db::text(r, 1)?.parse().map_err(Error::Corrupt)?;
        out.push(ExportRow {
            state: rule.state(&id, decision),
            decision,
            evidence_span: value(Field::EvidenceSpan).map(|v| crate::annotate::Span::text_of(&v).into_owned()),
            calibrated_claim: value(Field::CalibratedClaim),
            raised_claim: value(Field::RaisedClaim),
            axis: value(Field::Axis),
            severity: value(Field::Severity).and_then(|s| s.parse().ok()),
            repair: value(Field::Repair),
            boundary_type: value(Field::BoundaryType),
            rationale: r.get(2)?,
            adjudicator: r.get(3)?,
            decided_at: r.get(4)?,
            bulk_confirmed: r.get(5)?,
            checklist: Checklist {
                span_decisive: r.get(6)?,
                calibrated_supported: r.get(7)?,
                raised_underwarranted: r.get(8)?,
                one_local_axis: r.get(9)?,
                no_unrelated_addition: r.get(10)?,
            },
            sources,
            annotators,
            id,
        });
    }
    Ok(out)
}
