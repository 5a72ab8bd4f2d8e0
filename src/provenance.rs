//! Provenance and duplicate checks across rows.
//!
//! QC in [`crate::qc`] looks at one final label at a time; these checks compare rows with each
//! other, so they are computed from the whole project whenever they are asked for (the adjudicate
//! view's QC list, `qc run`, a split draft) rather than stored per row:
//!
//! | check | severity | finds |
//! |---|---|---|
//! | `duplicate_exact` | error | rows with the same passage, calibrated claim and raised claim |
//! | `duplicate_normalised` | error | the same, once case, white space and punctuation are ignored |
//! | `raised_claim_reused` | error | one (normalised) raised claim on different passages |
//! | `passage_shared_across_groups` | error | one (normalised) passage in rows of different groups |
//! | `provenance_inconsistent` | error | one (normalised) passage credited to different sources (`source_dataset`/`source_id`) |
//! | `provenance_missing` | warning | a row with no `source_id` |
//!
//! Claims are the final ones once a row is adjudicated, else the imported ones. A row flagged by
//! an error check is refused from a split draft until resolved; a rejected row is out of every
//! comparison, so a duplicate pair is resolved by rejecting one of them (boundary type
//! `duplicate`), which leaves the other clear. A missing `source_id` is only a warning: the
//! candidate format allows it, and the datasheet names the source datasets either way.

use rusqlite::Connection;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use ts_rs::TS;

use crate::error::Result;
use crate::qc::{QcResult, Severity};

/// Text for comparison: lower case, letters and digits only, words joined by one space.
///
/// Written into one buffer: a string per word and then a join made `qc run` spend a fifth of
/// its time at 1,000,000 rows allocating. ASCII text (most of it) is split and lower-cased byte
/// by byte, which gives what the character rules give there.
pub fn normalise(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    if s.is_ascii() {
        for w in s.as_bytes().split(|b| !b.is_ascii_alphanumeric()).filter(|w| !w.is_empty()) {
            if !out.is_empty() {
                out.push(' ');
            }
            out.extend(w.iter().map(|b| char::from(b.to_ascii_lowercase())));
        }
        return out;
    }
    for (k, w) in s.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).enumerate() {
        if k > 0 {
            out.push(' ');
        }
        // A word as a whole: lower-casing a capital sigma depends on where it stands in it.
        out.push_str(&w.to_lowercase());
    }
    out
}

/// One provenance finding: a check, the rows it concerns (in id order) and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct Finding {
    pub check: String,
    pub severity: Severity,
    pub ids: Vec<String>,
    pub detail: String,
}

struct Row {
    id: String,
    group: String,
    source: (String, String),
    passage: String,
    calibrated: String,
    raised: String,
}

fn short(s: &str) -> String {
    let mut out: String = s.chars().take(60).collect();
    if s.chars().count() > 60 {
        out.push('…');
    }
    out
}

/// Every row not rejected, with its claims (final when adjudicated), in id order.
fn rows(conn: &Connection) -> Result<Vec<Row>> {
    let mut stmt = conn.prepare(
        "SELECT c.id, c.group_id, c.source_dataset, c.source_id, c.passage,
                coalesce(fc.value, c.calibrated_claim), coalesce(fr.value, c.raised_claim)
         FROM candidates c
         LEFT JOIN adjudications j ON j.candidate_id = c.id
         LEFT JOIN adjudication_fields fc ON fc.candidate_id = c.id AND fc.field = 'calibrated_claim'
         LEFT JOIN adjudication_fields fr ON fr.candidate_id = c.id AND fr.field = 'raised_claim'
         WHERE j.decision IS NULL OR j.decision <> 'reject_not_force_gap'
         ORDER BY c.id",
    )?;
    let out = stmt
        .query_map([], |r| {
            Ok(Row {
                id: r.get(0)?,
                group: r.get(1)?,
                source: (r.get(2)?, r.get(3)?),
                passage: r.get(4)?,
                calibrated: r.get(5)?,
                raised: r.get(6)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(out)
}

/// Every finding in the project, by check then first row id.
pub fn findings(conn: &Connection) -> Result<Vec<Finding>> {
    let rows = rows(conn)?;
    let mut out = Vec::new();
    let norm: Vec<(String, String, String)> =
        rows.iter().map(|r| (normalise(&r.passage), normalise(&r.calibrated), normalise(&r.raised))).collect();
    let mut push = |check: &str, severity: Severity, ids: Vec<String>, detail: String| {
        out.push(Finding { check: check.into(), severity, ids, detail });
    };
    // Exact duplicates, then those that match only once normalised.
    let mut exact: BTreeMap<(&str, &str, &str), Vec<usize>> = BTreeMap::new();
    let mut loose: BTreeMap<(&str, &str, &str), Vec<usize>> = BTreeMap::new();
    for (i, r) in rows.iter().enumerate() {
        exact.entry((&r.passage, &r.calibrated, &r.raised)).or_default().push(i);
        loose.entry((&norm[i].0, &norm[i].1, &norm[i].2)).or_default().push(i);
    }
    let ids = |at: &[usize]| at.iter().map(|&i| rows[i].id.clone()).collect::<Vec<_>>();
    let mut exact_sets: BTreeSet<Vec<usize>> = BTreeSet::new();
    for at in exact.values().filter(|v| v.len() > 1) {
        exact_sets.insert(at.clone());
        push(
            "duplicate_exact",
            Severity::Error,
            ids(at),
            format!(
                "{} rows have the same passage and claims; reject all but one with the boundary type `duplicate`",
                at.len()
            ),
        );
    }
    for at in loose.values().filter(|v| v.len() > 1 && !exact_sets.contains(*v)) {
        push(
            "duplicate_normalised",
            Severity::Error,
            ids(at),
            format!(
                "{} rows have the same passage and claims once case, spacing and punctuation are ignored; reject all but one with the boundary type `duplicate`",
                at.len()
            ),
        );
    }
    // One raised claim on different passages.
    let mut by_raised: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, n) in norm.iter().enumerate() {
        if !n.2.is_empty() {
            by_raised.entry(&n.2).or_default().push(i);
        }
    }
    for at in by_raised.values() {
        let passages: BTreeSet<&str> = at.iter().map(|&i| norm[i].0.as_str()).collect();
        if passages.len() > 1 {
            push(
                "raised_claim_reused",
                Severity::Error,
                ids(at),
                format!(
                    "the raised claim \"{}\" is used on {} different passages",
                    short(&rows[at[0]].raised),
                    passages.len()
                ),
            );
        }
    }
    // One passage in several groups, or credited to several sources.
    let mut by_passage: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, n) in norm.iter().enumerate() {
        if !n.0.is_empty() {
            by_passage.entry(&n.0).or_default().push(i);
        }
    }
    for at in by_passage.values().filter(|v| v.len() > 1) {
        let groups: BTreeSet<&str> = at.iter().map(|&i| rows[i].group.as_str()).collect();
        if groups.len() > 1 {
            push(
                "passage_shared_across_groups",
                Severity::Error,
                ids(at),
                format!(
                    "the same passage is in {} groups ({}): rows sharing a passage belong in one group, or all but one should be rejected",
                    groups.len(),
                    groups.into_iter().collect::<Vec<_>>().join(", ")
                ),
            );
        }
        let sources: BTreeSet<(&str, &str)> = at
            .iter()
            .map(|&i| (rows[i].source.0.as_str(), rows[i].source.1.as_str()))
            .filter(|s| !s.1.is_empty())
            .collect();
        if sources.len() > 1 {
            push(
                "provenance_inconsistent",
                Severity::Error,
                ids(at),
                format!(
                    "the same passage is credited to {} sources ({})",
                    sources.len(),
                    sources.into_iter().map(|(d, i)| format!("{d}/{i}")).collect::<Vec<_>>().join(", ")
                ),
            );
        }
    }
    for r in rows.iter().filter(|r| r.source.1.trim().is_empty()) {
        push(
            "provenance_missing",
            Severity::Warning,
            vec![r.id.clone()],
            format!("no source_id: the row cannot be traced back to its item in {}", r.source.0),
        );
    }
    Ok(out)
}

/// Row id -> the error findings that refuse it from a draft (each check's detail).
pub fn refused(conn: &Connection) -> Result<HashMap<String, Vec<String>>> {
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    for f in findings(conn)?.into_iter().filter(|f| f.severity == Severity::Error) {
        for id in &f.ids {
            out.entry(id.clone()).or_default().push(format!("{}: {}", f.check, f.detail));
        }
    }
    Ok(out)
}

/// The findings that concern one row, as QC results (the adjudicate view's QC list): one result
/// per check that flagged it, naming the other rows.
pub fn row_results(conn: &Connection, id: &str) -> Result<Vec<QcResult>> {
    Ok(findings(conn)?
        .into_iter()
        .filter(|f| f.ids.iter().any(|x| x == id))
        .map(|f| {
            let others: Vec<&str> = f.ids.iter().map(String::as_str).filter(|x| *x != id).collect();
            let detail =
                if others.is_empty() { f.detail } else { format!("{} (with {})", f.detail, others.join(", ")) };
            QcResult { check: f.check, severity: f.severity, passed: false, detail: Some(detail) }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::normalise;

    /// What `normalise` did before it wrote into one buffer: the reference it must agree with.
    fn word_by_word(s: &str) -> String {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn normalising_agrees_with_lower_casing_word_by_word() {
        for s in [
            "",
            "   ",
            "May HELP, in 40-60% of cases.",
            "--a--",
            "ΟΔΟΣ ΣΟΦΟΣ: Σ alone",
            "İstanbul DİYARBAKIR ß STRASSE",
            "x² + ٣ and Ⅻ",
            "Cafe\u{301} CAFÉ",
            "中文，句子。ＡＢＣ",
            "tab\tnew\nline\r\0nul",
        ] {
            assert_eq!(normalise(s), word_by_word(s), "{s:?}");
        }
        // Generated strings (a fixed xorshift sequence, up to 23 characters each): over a pool of
        // characters whose case and class rules differ, then over ASCII alone, where the byte
        // path runs.
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mixed: Vec<char> = "aZ09 .,-_'\t\nΣσςΟİıßẞÉé\u{301}²٣Ⅻ中Ａｂ🙂\u{0}".chars().collect();
        let ascii: Vec<char> = (0u8..128).map(char::from).collect();
        for pool in [&mixed, &ascii] {
            for _ in 0..20_000 {
                let len = next() % 24;
                let s: String = (0..len).map(|_| pool[(next() % pool.len() as u64) as usize]).collect();
                assert_eq!(normalise(&s), word_by_word(&s), "{s:?}");
            }
        }
    }
}
