//! Quality control of final labels.
//!
//! Every adjudicated `accept_force_gap` row gets these checks on its final fields:
//!
//! | check | severity | fails when |
//! |---|---|---|
//! | `span_present` | error | the evidence span is missing or blank |
//! | `span_verbatim` | error | the span's text is not the passage's text at its offsets |
//! | `claims_differ` | error | the two claims are the same (ignoring case and spacing) |
//! | `axis_valid` | error | no primary axis |
//! | `severity_valid` | error | severity missing or outside 1-3 |
//! | `repair_present` | error | no repair |
//! | `checklist_<item>` | error / warning | the adjudicator answered no (error) or did not answer (warning) |
//! | `locality_new_entities` | warning | the raised claim names something the calibrated one does not |
//! | `locality_new_numbers` | warning | the raised claim has a number the calibrated one does not |
//! | `locality_changed_dates` | warning | years or month names differ between the claims |
//! | `locality_large_rewrite` | warning | more than half the words changed (word edit distance) |
//!
//! A row is accepted when it is adjudicated `accept_force_gap` and no error check fails
//! (warnings are for the locality audit). Results are rewritten whenever the row's adjudication
//! changes, and by [`run`] for every row.

use rusqlite::{Connection, OptionalExtension};
use serde::Serialize;
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::BTreeSet;
use ts_rs::TS;

use crate::annotate::{Field, Span};
use crate::error::Result;
use crate::project::{now, Project};
use crate::vocab::{Axis, Decision};

/// Share of changed words above which a raised claim is flagged as a large rewrite.
pub const REWRITE_THRESHOLD: f64 = 0.5;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }

    fn parse(s: &str) -> std::result::Result<Severity, String> {
        match s {
            "error" => Ok(Severity::Error),
            "warning" => Ok(Severity::Warning),
            other => Err(format!("`{other}` is not a check's severity")),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct QcResult {
    pub check: String,
    pub severity: Severity,
    pub passed: bool,
    /// What failed, for people.
    pub detail: Option<String>,
}

/// Whether these results hold a row back: an error check failed. (A failed warning never does.)
pub fn holds_back(results: &[QcResult]) -> bool {
    results.iter().any(|r| !r.passed && r.severity == Severity::Error)
}

fn result(check: &str, severity: Severity, failure: Option<String>) -> QcResult {
    QcResult { check: check.to_string(), severity, passed: failure.is_none(), detail: failure }
}

/// Lower-cased words (letters and digits). A word with no capital in plain ASCII is borrowed:
/// a bulk step checks every accepted row, and most words need no copy.
fn words(s: &str) -> Vec<Cow<'_, str>> {
    words_as_written(s)
        .map(|w| {
            if w.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase()) {
                Cow::Borrowed(w)
            } else {
                Cow::Owned(w.to_lowercase())
            }
        })
        .collect()
}

/// The words of `s` as written (letters and digits).
fn words_as_written(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty())
}

/// Capitalised words not at the start of a sentence, and all-caps words: a rough stand-in for
/// named entities that needs no model.
pub fn entities(s: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut sentence_start = true;
    for token in s.split_whitespace() {
        let word = token.trim_matches(|c: char| !c.is_alphanumeric());
        let first = word.chars().next();
        let acronym =
            word.chars().filter(|c| c.is_alphabetic()).count() >= 2 && word.chars().all(|c| !c.is_lowercase());
        if first.is_some_and(char::is_uppercase) && (!sentence_start || acronym) {
            out.insert(word.to_string());
        }
        if !word.is_empty() {
            sentence_start = token.ends_with(['.', '!', '?']);
        }
    }
    out
}

/// Numbers written with digits (a decimal point or thousands comma kept), e.g. `12.5`, `1,000`.
pub fn numbers(s: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    // Digits, points and commas are ASCII, and an ASCII byte is never part of a longer UTF-8
    // character: walking the bytes finds what walking the characters would, without a copy.
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let start = i;
            while i < bytes.len()
                && (bytes[i].is_ascii_digit()
                    || ((bytes[i] == b'.' || bytes[i] == b',') && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)))
            {
                i += 1;
            }
            out.insert(s[start..i].replace(',', ""));
        } else {
            i += 1;
        }
    }
    out
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// Years (1000-2099) and month names. "may" counts only when capitalised.
pub fn dates(s: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for token in words_as_written(s) {
        let year = token.len() == 4
            && token.chars().all(|c| c.is_ascii_digit())
            && (token.starts_with('1') || token.starts_with("20"));
        // Month names are ASCII, and no other character lower-cases to one of their letters.
        let month = token.is_ascii()
            && MONTHS.iter().any(|m| m.eq_ignore_ascii_case(token))
            && (!token.eq_ignore_ascii_case("may") || token.starts_with('M'));
        if year || month {
            out.insert(token.to_ascii_lowercase());
        }
    }
    out
}

/// Word-level edit distance divided by the longer claim's length in words.
pub fn rewrite_share(a: &str, b: &str) -> f64 {
    share_changed(&words(a), &words(b))
}

/// [`rewrite_share`] of two claims' words.
fn share_changed(a: &[Cow<str>], b: &[Cow<str>]) -> f64 {
    let longest = a.len().max(b.len());
    if longest == 0 {
        return 0.0;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, x) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(x != y)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()] as f64 / longest as f64
}

fn listed(set: &BTreeSet<String>) -> String {
    set.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
}

/// How the dates of the two claims differ, in words (an empty set is "no date", never `{}`).
fn changed_dates(calibrated: &BTreeSet<String>, raised: &BTreeSet<String>) -> String {
    match (calibrated.is_empty(), raised.is_empty()) {
        (false, true) => {
            format!("the raised claim leaves out the date of the calibrated claim ({})", listed(calibrated))
        }
        (true, false) => {
            format!("the raised claim adds a date the calibrated claim does not have ({})", listed(raised))
        }
        _ => format!(
            "the dates differ: the calibrated claim has {}, the raised claim {}",
            listed(calibrated),
            listed(raised)
        ),
    }
}

/// The locality warnings for a raised claim against its calibrated claim.
pub fn locality(calibrated: &str, raised: &str) -> Vec<QcResult> {
    locality_of((calibrated, &words(calibrated)), (raised, &words(raised)))
}

/// [`locality`] of two claims, each with its words.
fn locality_of((calibrated, cal): (&str, &[Cow<str>]), (raised, rai): (&str, &[Cow<str>])) -> Vec<QcResult> {
    let cal_words: BTreeSet<&str> = cal.iter().map(|w| w.as_ref()).collect();
    let new_entities: BTreeSet<String> =
        entities(raised).into_iter().filter(|e| words(e).iter().any(|w| !cal_words.contains(w.as_ref()))).collect();
    let new_numbers: BTreeSet<String> = numbers(raised).difference(&numbers(calibrated)).cloned().collect();
    let (dc, dr) = (dates(calibrated), dates(raised));
    let share = share_changed(cal, rai);
    vec![
        result(
            "locality_new_entities",
            Severity::Warning,
            (!new_entities.is_empty())
                .then(|| format!("the raised claim names {} not in the calibrated claim", listed(&new_entities))),
        ),
        result(
            "locality_new_numbers",
            Severity::Warning,
            (!new_numbers.is_empty())
                .then(|| format!("the raised claim has {} not in the calibrated claim", listed(&new_numbers))),
        ),
        result("locality_changed_dates", Severity::Warning, (dc != dr).then(|| changed_dates(&dc, &dr))),
        result(
            "locality_large_rewrite",
            Severity::Warning,
            (share > REWRITE_THRESHOLD).then(|| format!("{:.0}% of the words changed", share * 100.0)),
        ),
    ]
}

/// What QC reads of a final label: its decision, its checklist and its fields' values. A label
/// just settled is checked from the values it was settled to, without building the stored
/// label's copy of each (with its adjudicator and time) first.
pub trait FinalLabel {
    fn decision(&self) -> Decision;
    fn checklist(&self) -> &crate::label::Checklist;
    fn value(&self, field: Field) -> Option<&str>;
}

impl FinalLabel for crate::label::Adjudication {
    fn decision(&self) -> Decision {
        self.decision
    }
    fn checklist(&self) -> &crate::label::Checklist {
        &self.checklist
    }
    fn value(&self, field: Field) -> Option<&str> {
        crate::label::Adjudication::value(self, field)
    }
}

/// Every check on one final label (accepts only; rejects get none).
pub fn checks(passage: &str, adjudication: &impl FinalLabel) -> Vec<QcResult> {
    if adjudication.decision() != Decision::AcceptForceGap {
        return Vec::new();
    }
    let value = |f: Field| adjudication.value(f).filter(|v| !v.trim().is_empty());
    let span: Option<Span> = value(Field::EvidenceSpan).and_then(|v| serde_json::from_str(v).ok());
    let mut out = vec![
        result(
            "span_present",
            Severity::Error,
            span.as_ref()
                .is_none_or(|s| s.text.trim().is_empty())
                .then(|| "the evidence span is missing or blank".to_string()),
        ),
        result(
            "span_verbatim",
            Severity::Error,
            span.as_ref()
                .and_then(|s| s.check(passage).err())
                .or_else(|| span.is_none().then(|| "no span to check".into())),
        ),
    ];
    let (cal, raised) = (value(Field::CalibratedClaim), value(Field::RaisedClaim));
    // Each claim split into words once, for this check and the locality checks.
    let claims = cal.zip(raised).map(|(c, r)| ((c, words(c)), (r, words(r))));
    out.push(result(
        "claims_differ",
        Severity::Error,
        match &claims {
            // Words hold no spaces: the same words are the same claim up to case and spacing.
            Some(((_, c), (_, r))) if c == r => Some("the calibrated and raised claims are the same".into()),
            Some(_) => None,
            None => Some("a claim is missing".into()),
        },
    ));
    out.push(result(
        "axis_valid",
        Severity::Error,
        match value(Field::Axis).map(str::parse::<Axis>) {
            Some(Ok(_)) => None,
            Some(Err(e)) => Some(e),
            None => Some("no primary axis".into()),
        },
    ));
    out.push(result(
        "severity_valid",
        Severity::Error,
        match value(Field::Severity).map(str::parse::<i64>) {
            Some(Ok(n)) if crate::vocab::SEVERITIES.contains(&n) => None,
            Some(_) => Some("severity is not 1, 2 or 3".into()),
            None => Some("no severity".into()),
        },
    ));
    out.push(result(
        "repair_present",
        Severity::Error,
        value(Field::Repair).is_none().then(|| "no repair".to_string()),
    ));
    for (name, question, answer) in adjudication.checklist().items() {
        let check = format!("checklist_{name}");
        out.push(match answer {
            Some(true) => result(&check, Severity::Error, None),
            Some(false) => result(&check, Severity::Error, Some(format!("the adjudicator answered no: {question}"))),
            None => result(&check, Severity::Warning, Some(format!("not answered: {question}"))),
        });
    }
    if let Some(((c, cw), (r, rw))) = &claims {
        out.extend(locality_of((c, cw), (r, rw)));
    }
    out
}

/// Re-runs QC for one row inside a transaction (results replace the row's earlier ones).
fn run_row(conn: &Connection, lists: &CheckLists, id: &str) -> Result<Vec<QcResult>> {
    let Some(adjudication) = crate::label::load_in(conn, id)? else {
        forget(conn, id)?;
        return Ok(Vec::new());
    };
    let passage: String =
        conn.prepare_cached("SELECT passage FROM candidates WHERE id = ?1")?.query_row([id], |r| r.get(0))?;
    run_row_with(conn, lists, id, &passage, &adjudication, true)
}

/// [`run_row`] for a label the caller has just written and still holds, with its passage;
/// `replace`: the row may have results already (it had a label before this one).
pub(crate) fn run_row_with(
    conn: &Connection,
    lists: &CheckLists,
    id: &str,
    passage: &str,
    adjudication: &impl FinalLabel,
    replace: bool,
) -> Result<Vec<QcResult>> {
    if replace {
        forget(conn, id)?;
    }
    let results = checks(passage, adjudication);
    if results.is_empty() {
        return Ok(results);
    }
    // The run names its list of checks, kept once for every run that made the same ones (a
    // project has a handful), and only the failed checks are rows of their own (schema 20).
    let list = lists.id_of(conn, &results)?;
    let failed = results.iter().filter(|r| !r.passed).count() as i64;
    conn.prepare_cached(
        "INSERT INTO qc_runs (candidate_id, run_at, checks, failed, blocked) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(rusqlite::params![id, now(), list, failed, holds_back(&results)])?;
    let failures: Vec<(i64, &QcResult, &str)> =
        (1..).zip(&results).filter(|(_, r)| !r.passed).map(|(place, r)| (place, r, r.severity.as_str())).collect();
    if failures.is_empty() {
        return Ok(results);
    }
    let sql = format!(
        "INSERT INTO qc_failures (candidate_id, check_name, severity, detail, ord) VALUES {}",
        vec!["(?, ?, ?, ?, ?)"; failures.len()].join(", ")
    );
    let mut values: Vec<&dyn rusqlite::types::ToSql> = Vec::with_capacity(failures.len() * 5);
    for (place, r, severity) in &failures {
        values.extend([&id as &dyn rusqlite::types::ToSql, &r.check, severity, &r.detail, place]);
    }
    conn.prepare_cached(&sql)?.execute(values.as_slice())?;
    Ok(results)
}

/// The stored lists of checks a transaction has used, with their ids. A project has a handful of
/// lists, and a step over many rows would otherwise serialise and look up its row's list once per
/// row. Kept for one transaction only: a list it added is gone if the transaction rolls back.
#[derive(Default)]
pub(crate) struct CheckLists(RefCell<Vec<(CheckList, i64)>>);

/// A run's checks by name and severity, in order.
type CheckList = Vec<(String, Severity)>;

impl CheckLists {
    /// The id of the stored list of these results' checks (name and severity, in order), added
    /// the first time a run makes them.
    fn id_of(&self, conn: &Connection, results: &[QcResult]) -> Result<i64> {
        let same = |list: &CheckList| {
            list.len() == results.len() && list.iter().zip(results).all(|((c, s), r)| *c == r.check && *s == r.severity)
        };
        if let Some((_, id)) = self.0.borrow().iter().find(|(list, _)| same(list)) {
            return Ok(*id);
        }
        let id = check_list_id(conn, results)?;
        self.0.borrow_mut().push((results.iter().map(|r| (r.check.clone(), r.severity)).collect(), id));
        Ok(id)
    }
}

/// [`CheckLists::id_of`] read from the file: the stored list's id, the list added if it is new.
fn check_list_id(conn: &Connection, results: &[QcResult]) -> Result<i64> {
    let checks: Vec<[&str; 2]> = results.iter().map(|r| [r.check.as_str(), r.severity.as_str()]).collect();
    // The same text SQLite's json_group_array(json_array(..)) gives, which the upgrade wrote.
    let text = serde_json::to_string(&checks).expect("check names serialise");
    let found: Option<i64> = conn
        .prepare_cached("SELECT id FROM qc_check_lists WHERE checks = ?1")?
        .query_row([&text], |r| r.get(0))
        .optional()?;
    match found {
        Some(id) => Ok(id),
        None => Ok(conn
            .prepare_cached("INSERT INTO qc_check_lists (checks) VALUES (?1) RETURNING id")?
            .query_row([&text], |r| r.get(0))?),
    }
}

/// Takes away a row's QC results and the run that wrote them.
pub(crate) fn forget(conn: &Connection, id: &str) -> Result<()> {
    conn.prepare_cached("DELETE FROM qc_failures WHERE candidate_id = ?1")?.execute([id])?;
    conn.prepare_cached("DELETE FROM qc_runs WHERE candidate_id = ?1")?.execute([id])?;
    Ok(())
}

/// The stored QC results of a row, in check order: every check of its run's list, passed unless
/// a failure of it is stored. A failure that is not on the list, or a count or hold-back the
/// failures do not bear out, is a damaged file and refused.
pub fn results(conn: &Connection, id: &str) -> Result<Vec<QcResult>> {
    let run: Option<(String, i64, bool)> = conn
        .prepare_cached(
            "SELECT l.checks, r.failed, r.blocked FROM qc_runs r JOIN qc_check_lists l ON l.id = r.checks
             WHERE r.candidate_id = ?1",
        )?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?;
    let Some((checks, failed, blocked)) = run else { return Ok(Vec::new()) };
    let corrupt = |what: String| crate::error::Error::Corrupt(format!("the QC results of row `{id}`: {what}"));
    let list: Vec<(String, String)> =
        serde_json::from_str(&checks).map_err(|e| corrupt(format!("its list of checks is unreadable: {e}")))?;
    let mut out = Vec::with_capacity(list.len());
    for (check, severity) in list {
        out.push(QcResult {
            severity: Severity::parse(&severity).map_err(corrupt)?,
            check,
            passed: true,
            detail: None,
        });
    }
    let mut stmt = conn.prepare_cached(
        "SELECT ord, check_name, severity, detail FROM qc_failures WHERE candidate_id = ?1 ORDER BY ord",
    )?;
    let mut rows = stmt.query([id])?;
    let mut count = 0;
    while let Some(r) = rows.next()? {
        let (ord, check, severity): (i64, String, String) = (r.get(0)?, r.get(1)?, r.get(2)?);
        let slot = usize::try_from(ord - 1).ok().and_then(|i| out.get_mut(i));
        match slot {
            Some(slot) if slot.check == check && slot.severity.as_str() == severity && slot.passed => {
                slot.passed = false;
                slot.detail = r.get(3)?;
                count += 1;
            }
            _ => return Err(corrupt(format!("the failure of `{check}` (place {ord}) is not a check of its run"))),
        }
    }
    if count != failed || holds_back(&out) != blocked {
        return Err(corrupt(format!(
            "its run counts {failed} failed checks{}, and {count} are stored{}",
            if blocked { " holding the row back" } else { "" },
            if holds_back(&out) { ", one an error" } else { "" }
        )));
    }
    Ok(out)
}

/// A row with at least one failed check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct RowFailures {
    pub id: String,
    /// Whether an error (not only warnings) failed, so the row is not accepted.
    pub blocked: bool,
    pub failed: Vec<QcResult>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct QcReport {
    /// Adjudicated accepts checked.
    #[ts(type = "number")]
    pub rows_checked: u64,
    /// Rows with no failed error check (accepted).
    #[ts(type = "number")]
    pub passed: u64,
    /// Rows held back by a failed error check.
    #[ts(type = "number")]
    pub blocked: u64,
    /// Rows with warnings only.
    #[ts(type = "number")]
    pub warned: u64,
    /// Every row with a failed check, in import order.
    pub rows: Vec<RowFailures>,
}

/// Runs QC on every adjudicated row and reports the failures per row. Rows a locked split
/// freezes are reported from the results they were locked with, not re-run.
pub fn run(project: &mut Project) -> Result<QcReport> {
    project.bulk(run_in)
}

fn run_in(project: &mut Project) -> Result<QcReport> {
    let tx = project.conn_mut().transaction()?;
    let ids: Vec<String> = tx
        .prepare(
            "SELECT j.candidate_id FROM adjudications j JOIN candidates c ON c.id = j.candidate_id ORDER BY c.seq",
        )?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut report = QcReport { rows_checked: 0, passed: 0, blocked: 0, warned: 0, rows: Vec::new() };
    // Rows a locked split freezes keep the results they were locked with.
    let frozen = crate::rowstate::Frozen::load(&tx)?;
    let lists = CheckLists::default();
    for id in ids {
        let results = if frozen.contains(&id) { results(&tx, &id)? } else { run_row(&tx, &lists, &id)? };
        if results.is_empty() {
            continue; // a reject
        }
        report.rows_checked += 1;
        let failed: Vec<QcResult> = results.into_iter().filter(|r| !r.passed).collect();
        let blocked = failed.iter().any(|r| r.severity == Severity::Error);
        if blocked {
            report.blocked += 1;
        } else {
            report.passed += 1;
            if !failed.is_empty() {
                report.warned += 1;
            }
        }
        if !failed.is_empty() {
            report.rows.push(RowFailures { id, blocked, failed });
        }
    }
    tx.commit()?;
    Ok(report)
}
