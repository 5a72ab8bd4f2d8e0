//! Events that only record a row's suggestion, as a packet carries them (format 3).
//!
//! A project stores an event whose values are just the row's suggestion (a `prefill`, or a
//! `confirm` of the suggestion) as the mark `from_suggestion` without values
//! (`annotate::stored`). A packet holds each row's suggestions as its annotator was shown them,
//! so it carries such an event the same way: the mark, and neither value. The side that reads it
//! computes the values from the packet's row with the same rule as the project
//! ([`stored::suggestion_value`]), so the values written into a workspace or merged into the
//! lead's project are exactly the ones the event was made with.
//!
//! An event is written with the mark only when the packet's own row gives back its values: a field
//! the packet's blinding hides (strict: axis, severity) travels with its values as before. A
//! format-2 packet carries no marks, and one that does is refused, as is a mark on an event that
//! is not a `prefill` or `confirm`, one that also carries values, and one on a field the row has no
//! suggestion for.

use rusqlite::params;
use std::borrow::Cow;

use super::{PacketEvent, PacketRow};
use crate::annotate::stored::{self, Suggested};
use crate::annotate::Field;
use crate::error::Result;
use crate::settings::SuggestionMode;

/// The first packet format that carries marks.
pub const SINCE_VERSION: u32 = 3;

/// The suggestions a packet's row shows its annotator.
pub(crate) fn shown(row: &PacketRow) -> Suggested<'_> {
    let s = &row.suggestions;
    Suggested {
        passage: &row.passage,
        evidence_span: s.evidence_span.as_deref(),
        calibrated_claim: &s.calibrated_claim,
        raised_claim: &s.raised_claim,
        axis: s.axis,
        severity: s.severity,
        repair: s.repair.as_deref(),
    }
}

/// The annotator's events on `row` in the project `conn`, oldest first, as a packet of format
/// `version` carries them: each with its uid (an undo naming the uid of the event it undoes), and,
/// from format 3, the mark instead of the values where the project holds the mark and the row's
/// suggestions in the packet give back the same values. An event's suggestion mode and guideline
/// version are left out when they are the packet's (`packet_mode`, `packet_guideline`), which is
/// how every reader takes them when absent: repeated on every event they were a fifth of a return.
pub(crate) fn events_of(
    conn: &rusqlite::Connection,
    row: &PacketRow,
    annotator_id: i64,
    version: u32,
    (packet_mode, packet_guideline): (SuggestionMode, Option<&str>),
) -> Result<Vec<PacketEvent>> {
    let mut stmt = conn.prepare_cached(concat!(
        "SELECT e.uid, e.field, ",
        crate::annotate::stored::old_value_sql!(),
        ", ",
        crate::annotate::stored::new_value_sql!(),
        ", e.at, e.origin, u.uid, e.suggestion_mode, e.guideline_version, e.from_suggestion IS NOT NULL, e.field_set,
             u.field_set
         FROM annotation_events e LEFT JOIN annotation_events u ON u.id = e.undoes
         LEFT JOIN candidates sc ON sc.id = e.candidate_id AND e.from_suggestion = 1
         WHERE e.candidate_id = ?1 AND e.annotator_id = ?2 ORDER BY e.id"
    ))?;
    let marks = version >= SINCE_VERSION;
    let suggested = shown(row);
    let mut candidate = None;
    let mut events = Vec::new();
    let mut rows = stmt.query(params![row.id, annotator_id])?;
    while let Some(r) = rows.next()? {
        let uid = r.get::<_, crate::annotate::stored::ReadUid>(0)?.0;
        // A record travels as the events it stands for, each with its own uid.
        let expanded: Vec<(String, String, Option<String>, Option<String>)> = match r.get::<_, Option<i64>>(10)? {
            Some(bits) => {
                let c = match &candidate {
                    Some(c) => c,
                    None => candidate.insert(
                        crate::candidate::find_in(conn, &row.id)?
                            .ok_or_else(|| crate::error::Error::CandidateNotFound(row.id.clone()))?,
                    ),
                };
                let origin: String = r.get(5)?;
                stored::members(&origin, bits, &c.into())
                    .into_iter()
                    .map(|(f, old, new)| (stored::member_uid(&uid, f, bits), f.as_str().to_string(), old, new))
                    .collect()
            }
            None => vec![(uid, r.get(1)?, r.get(2)?, r.get(3)?)],
        };
        for (uid, field, mut old_value, mut new_value) in expanded {
            let from_suggestion = marks && r.get::<_, bool>(9)? && {
                let shown_value = field.parse::<Field>().ok().and_then(|f| stored::suggestion_value(f, &suggested));
                shown_value.is_some() && shown_value == new_value
            };
            if from_suggestion {
                (old_value, new_value) = (None, None);
            }
            // An undo of an event a record stands for names that event's uid.
            let undoes = match (r.get::<_, Option<crate::annotate::stored::ReadUid>>(6)?, r.get::<_, Option<i64>>(11)?)
            {
                (Some(u), Some(bits)) => {
                    Some(stored::member_uid(&u.0, field.parse().map_err(crate::error::Error::Corrupt)?, bits))
                }
                (u, _) => u.map(|u| u.0),
            };
            events.push(PacketEvent {
                uid,
                field,
                old_value,
                new_value,
                from_suggestion,
                at: r.get(4)?,
                origin: r.get(5)?,
                undoes,
                suggestion_mode: r
                    .get::<_, Option<String>>(7)?
                    .and_then(|m| m.parse().ok())
                    .filter(|m| *m != packet_mode),
                guideline_version: r
                    .get::<_, Option<String>>(8)?
                    .filter(|g| Some(g.as_str()) != packet_guideline.or(Some(crate::guideline::FIRST))),
            });
        }
    }
    Ok(events)
}

/// An event's old and new values.
pub(crate) type Values<'a> = (Option<Cow<'a, str>>, Option<Cow<'a, str>>);

/// An event's old and new values as it was made: its own, or for a marked event the row's
/// suggestion computed from the packet's row. `Err` says why a mark cannot stand (for the
/// caller to name the file, row and event).
pub(crate) fn values<'a>(
    e: &'a PacketEvent,
    field: Field,
    row: &PacketRow,
    version: u32,
) -> std::result::Result<Values<'a>, String> {
    if !e.from_suggestion {
        return Ok((e.old_value.as_deref().map(Cow::Borrowed), e.new_value.as_deref().map(Cow::Borrowed)));
    }
    if version < SINCE_VERSION {
        return Err(format!(
            "`from_suggestion` is set, but a packet of format version {version} carries every event's values \
             (marks came with version {SINCE_VERSION})"
        ));
    }
    if !matches!(e.origin.as_str(), "prefill" | "confirm") {
        return Err(format!(
            "`from_suggestion` is set on a `{}` event; only a `prefill` or a `confirm` can record the row's \
             suggestion alone",
            e.origin
        ));
    }
    if e.old_value.is_some() || e.new_value.is_some() {
        return Err(format!(
            "`from_suggestion` is set and the event also carries `{}`; a marked event's values are the row's \
             suggestion and are not written",
            if e.new_value.is_some() { "new_value" } else { "old_value" }
        ));
    }
    let Some(value) = stored::suggestion_value(field, &shown(row)) else {
        return Err(format!(
            "`from_suggestion` is set on `{}`, but the row has no suggestion for that field in this packet",
            e.field
        ));
    };
    Ok(match e.origin.as_str() {
        "prefill" => (None, Some(Cow::Owned(value))),
        _ => (Some(Cow::Owned(value.clone())), Some(Cow::Owned(value))),
    })
}

/// An event of a packet's row as a record would stand for it ([`stored::runs`]): its field and values as the packet gives them (`old`, `new`), its
/// suggestion mode and guideline version, the packet's where the event leaves them out, and
/// whether a later event of the row (`events`) undoes it.
pub(crate) fn arriving<'a>(
    e: &'a PacketEvent,
    events: &[PacketEvent],
    packet: &'a super::Packet,
    field: Field,
    old: Option<&'a str>,
    new: Option<&'a str>,
) -> stored::Arriving<'a> {
    stored::Arriving {
        field,
        origin: &e.origin,
        old,
        new,
        at: &e.at,
        mode: e.suggestion_mode.unwrap_or(packet.suggestion_mode),
        guideline: e
            .guideline_version
            .as_deref()
            .or(packet.guideline_version.as_deref())
            .unwrap_or(crate::guideline::FIRST),
        undone: events.iter().any(|u| u.undoes.as_deref() == Some(e.uid.as_str())),
    }
}
