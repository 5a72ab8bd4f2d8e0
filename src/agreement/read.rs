//! Reading every double-annotated row in whole-table scans.
//!
//! A row's two finished annotations are compared with its suggestion (did each annotator keep
//! the suggested claims and span?) and with each other (the same span?). Asked of SQLite row by
//! row, that looked up both annotations and the candidate in their indexes for every row: on a
//! million rows whose annotations lie scattered through a file seven times SQLite's memory map,
//! most of a minute. Here the candidates, the assignments and the annotations are each read once
//! in storage order and joined in memory by row, comparing texts by their SHA-256 digests (only
//! spans that differ are kept as text, for token overlap).

use std::collections::HashMap;

use super::{intern, vocab_index, AnnotatedRows, DoubleAnnotated, SpanPair};
use crate::db::{text, text_or_null};
use crate::error::{Error, Result};
use crate::rowstate::{each_row, IdMap};
use crate::vocab::{Axis, Decision};

/// A text's digest: the first 128 bits of its SHA-256 (equal texts have equal digests; two
/// different texts of a project with equal ones is a SHA-256 collision, which no one has found).
struct Digest;

impl Digest {
    fn new() -> Self {
        Digest
    }

    fn of(&self, text: Option<&str>) -> Option<u128> {
        use sha2::Digest as _;
        text.map(|t| {
            let d = sha2::Sha256::digest(t.as_bytes());
            u128::from_le_bytes(d[..16].try_into().expect("16 bytes"))
        })
    }
}

/// What a row's candidate contributes.
struct Candidate {
    seq: i64,
    source: u32, // index into the scan's sources
    axis: Option<u8>,
    calibrated: Option<u128>,
    raised: Option<u128>,
    span: Option<u128>,
}

/// A row's span as one annotator marked it, against the suggested span.
enum Span {
    Missing,
    /// The suggested span.
    Suggested,
    /// Another span than the suggested one.
    Other(Box<str>),
}

/// One finished annotation by the annotator of an assignment slot.
struct Half {
    decision: Option<u8>,
    axis: Option<u8>,
    severity: Option<u8>,
    kept: [bool; 2],
    span: Span,
}

/// Every row with two finished annotations by its two assigned annotators, in import order
/// (`candidates.seq`), oriented by roster order, with each row's slot annotators (slot 1, slot
/// 2) and the events' facts left to fill in (`mode`, `version`, `week` are 0).
pub(super) fn rows(conn: &rusqlite::Connection) -> Result<(AnnotatedRows, Vec<[i64; 2]>)> {
    let digest = Digest::new();
    let names: HashMap<i64, String> = conn
        .prepare("SELECT id, name FROM annotators")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;

    // The candidates: rows are never deleted, so the last rowid sizes the tables.
    let last: Option<i64> = conn.query_row("SELECT max(rowid) FROM candidates", [], |r| r.get(0))?;
    let capacity = last.unwrap_or(0).clamp(0, 1 << 26) as usize;
    let mut index: IdMap<u32> = IdMap::default();
    index.reserve(capacity);
    let mut candidates: Vec<Candidate> = Vec::with_capacity(capacity);
    let mut sources: Vec<String> = Vec::new();
    {
        let mut stmt = conn.prepare(
            "SELECT id, seq, source_dataset, axis, calibrated_claim, raised_claim, evidence_span FROM candidates",
        )?;
        let mut q = stmt.query([])?;
        while let Some(r) = q.next()? {
            index.insert(text(r, 0)?.into(), candidates.len() as u32);
            let source = text(r, 2)?;
            let source = match sources.iter().position(|s| s == source) {
                Some(i) => i,
                None => {
                    sources.push(source.to_string());
                    sources.len() - 1
                }
            } as u32;
            let digest_of = |c: usize| -> Result<Option<u128>> { Ok(digest.of(text_or_null(r, c)?)) };
            candidates.push(Candidate {
                seq: r.get(1)?,
                source,
                axis: vocab_index(Axis::ALL, r.get(3)?, 3)?,
                calibrated: digest_of(4)?,
                raised: digest_of(5)?,
                span: digest_of(6)?,
            });
        }
    }
    // Each row's annotators, slot 1 and slot 2 (-1: none).
    let mut slots: Vec<[i64; 2]> = vec![[-1; 2]; candidates.len()];
    each_row(conn, "SELECT candidate_id, slot, annotator_id FROM assignments", [], &index, &mut |at, r| {
        let slot: i64 = r.get(1)?;
        slots[at][usize::from(slot == 2)] = r.get(2)?;
        Ok(())
    })?;
    // Each slot's finished annotation.
    let mut halves: Vec<[Option<Half>; 2]> = Vec::new();
    halves.resize_with(candidates.len(), Default::default);
    each_row(
        conn,
        "SELECT candidate_id, annotator_id, decision, axis, severity, calibrated_claim, raised_claim, evidence_span
         FROM annotations WHERE finished = 1",
        [],
        &index,
        &mut |at, r| {
            let annotator: i64 = r.get(1)?;
            let Some(slot) = slots[at].iter().position(|&a| a == annotator) else { return Ok(()) };
            let c = &candidates[at];
            let digest_of = |c: usize| -> Result<Option<u128>> { Ok(digest.of(text_or_null(r, c)?)) };
            let span = match text_or_null(r, 7)? {
                None => Span::Missing,
                Some(s) if c.span.is_some() && digest.of(Some(s)) == c.span => Span::Suggested,
                Some(s) => Span::Other(s.into()),
            };
            halves[at][slot] = Some(Half {
                decision: vocab_index(Decision::ALL, r.get(2)?, 2)?,
                axis: vocab_index(Axis::ALL, r.get(3)?, 3)?,
                severity: r.get::<_, Option<i64>>(4)?.map(|s| (s - 1) as u8),
                kept: [digest_of(5)? == c.calibrated, digest_of(6)? == c.raised],
                span,
            });
            Ok(())
        },
    )?;

    // The double-annotated rows in import order.
    let mut ids: Vec<&str> = vec![""; candidates.len()];
    for (id, &at) in &index {
        ids[at as usize] = id;
    }
    let mut order: Vec<u32> =
        (0..candidates.len() as u32).filter(|&at| halves[at as usize].iter().all(Option::is_some)).collect();
    order.sort_unstable_by_key(|&at| candidates[at as usize].seq);
    let mut out = AnnotatedRows::default();
    let (mut source_index, mut name_index) = (HashMap::new(), HashMap::new());
    let mut row_slots = Vec::with_capacity(order.len());
    let mut suggested_span = conn.prepare_cached("SELECT evidence_span FROM candidates WHERE id = ?1")?;
    for at in order {
        let at = at as usize;
        let (c, id, who) = (&candidates[at], ids[at], slots[at]);
        let [Some(h1), Some(h2)] = &halves[at] else { unreachable!("filtered above") };
        // Roster order: the annotator added first is A.
        let swap = who[0] > who[1];
        let (a, b) = if swap { (h2, h1) } else { (h1, h2) };
        let (wa, wb) = if swap { (who[1], who[0]) } else { (who[0], who[1]) };
        let mut person = |who: i64| -> Result<u32> {
            let name =
                names.get(&who).ok_or_else(|| Error::Corrupt(format!("annotator {who} is not on the roster")))?;
            Ok(intern(&mut out.names, &mut name_index, name.clone()))
        };
        let names = [person(wa)?, person(wb)?];
        let decision = |h: &Half, who: i64| {
            h.decision.ok_or_else(|| {
                Error::Corrupt(format!("the finished annotation of row `{id}` by annotator {who} has no decision"))
            })
        };
        let mut suggested = || -> Result<String> {
            Ok(suggested_span.query_row([id], |r| r.get::<_, Option<String>>(0))?.unwrap_or_default())
        };
        let span = match (&a.span, &b.span) {
            (Span::Missing, _) | (_, Span::Missing) => SpanPair::Missing,
            (Span::Suggested, Span::Suggested) => SpanPair::Same,
            (Span::Other(x), Span::Other(y)) if x == y => SpanPair::Same,
            (Span::Other(x), Span::Other(y)) => SpanPair::Differ(x.to_string(), y.to_string()),
            (Span::Suggested, Span::Other(y)) => SpanPair::Differ(suggested()?, y.to_string()),
            (Span::Other(x), Span::Suggested) => SpanPair::Differ(x.to_string(), suggested()?),
        };
        out.rows.push(DoubleAnnotated {
            id: id.to_string(),
            source: intern(&mut out.sources, &mut source_index, sources[c.source as usize].clone()),
            suggested_axis: c.axis,
            names,
            decision: [decision(a, wa)?, decision(b, wb)?],
            axis: [a.axis, b.axis],
            severity: [a.severity, b.severity],
            span,
            kept: [a.kept, b.kept],
            mode: 0,
            version: 0,
            week: 0,
        });
        row_slots.push(who);
    }
    Ok((out, row_slots))
}
