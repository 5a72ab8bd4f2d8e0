//! A row's adjudication history as stored from schema 21: the events one adjudication writes
//! for fields that had no value before, from one source, are one record naming those fields
//! (src/db/adjudication_records.rs). A record carries no values: each of its fields was set to
//! the value that follows it, the old value of the field's next event or, with none, the row's
//! final value of that field. Every change to a final field writes the value it replaces (a
//! change, a drop, a reopening), so that value is always there to read.

use rusqlite::Connection;
use std::collections::HashMap;

use super::HistoryEvent;
use crate::db::adjudication_records::{bit, FIELDS, RECORD_FIELD};
use crate::error::{Error, Result};

/// One history event of a row as a step decides it: field, old value, new value, source.
pub(super) type Event<'a> = (&'static str, Option<&'a str>, Option<&'a str>, &'static str);

/// One stored event: field, old value, new value, source, and a record's field bits.
pub(super) type Stored<'a> = (&'static str, Option<&'a str>, Option<&'a str>, &'static str, Option<i64>);

/// The stored form of a row's events, in order: each run of two or more events that set a field
/// with no old value, from one source, fields in [`FIELDS`] order, is one record.
pub(super) fn stored<'a>(events: &[Event<'a>]) -> Vec<Stored<'a>> {
    let opens = |e: &Event| e.1.is_none().then(|| bit(e.0)).flatten();
    let mut out = Vec::with_capacity(events.len());
    let mut i = 0;
    while i < events.len() {
        if let Some(mut bits) = opens(&events[i]) {
            let mut end = i + 1;
            while let Some(b) = events.get(end).filter(|e| e.3 == events[i].3).and_then(opens).filter(|b| *b > bits) {
                bits |= b;
                end += 1;
            }
            if end - i > 1 {
                out.push((RECORD_FIELD, None, None, events[i].3, Some(bits)));
                i = end;
                continue;
            }
        }
        let (field, old, new, source) = &events[i];
        out.push((*field, *old, *new, *source, None));
        i += 1;
    }
    out
}

/// Row `id`'s adjudication history, oldest first, each record expanded into the events it stands
/// for (under its id, in [`FIELDS`] order). A record's field with no value to follow it (no later
/// event of the field, no final value) is a damaged file and refused.
pub(super) fn history(conn: &Connection, id: &str) -> Result<Vec<HistoryEvent>> {
    let mut stmt = conn.prepare_cached(
        "SELECT e.id, e.field, e.old_value, e.new_value, e.source, a.name, e.at, e.field_set FROM adjudication_events e
         JOIN annotators a ON a.id = e.adjudicator_id WHERE e.candidate_id = ?1 ORDER BY e.id",
    )?;
    let mut rows = stmt.query([id])?;
    let mut out: Vec<HistoryEvent> = Vec::new();
    // Which events of `out` a record stands for: their values are read below.
    let mut from_record: Vec<bool> = Vec::new();
    while let Some(r) = rows.next()? {
        let event = HistoryEvent {
            id: r.get(0)?,
            field: r.get(1)?,
            old_value: r.get(2)?,
            new_value: r.get(3)?,
            source: r.get(4)?,
            adjudicator: r.get(5)?,
            at: r.get(6)?,
        };
        match r.get::<_, Option<i64>>(7)? {
            None => {
                out.push(event);
                from_record.push(false);
            }
            Some(bits) => {
                for field in FIELDS.iter().enumerate().filter(|(i, _)| bits & (1 << i) != 0).map(|(_, f)| f) {
                    out.push(HistoryEvent { field: (*field).to_string(), ..event.clone() });
                    from_record.push(true);
                }
            }
        }
    }
    if !from_record.contains(&true) {
        return Ok(out);
    }
    // The value that follows each field, walking back from the final label.
    let mut follows: HashMap<String, Option<String>> = conn
        .prepare_cached("SELECT field, value FROM adjudication_fields WHERE candidate_id = ?1")?
        .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    for (event, recorded) in out.iter_mut().zip(&from_record).rev() {
        if *recorded {
            event.new_value = follows.get(&event.field).cloned().ok_or_else(|| {
                Error::Corrupt(format!(
                    "the adjudication history of row `{id}`: event {} sets `{}`, but no later change and no final value says to what",
                    event.id, event.field
                ))
            })?;
        }
        follows.insert(event.field.clone(), event.old_value.clone());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    /// The stored bits follow the order adjudication writes its fields in: a new field of the
    /// final label goes at the end of both lists, never between.
    #[test]
    fn record_bits_follow_the_order_fields_are_written_in() {
        let written: Vec<&str> = crate::label::FIELDS.iter().map(|f| f.as_str()).collect();
        assert_eq!(written, super::FIELDS);
    }
}
