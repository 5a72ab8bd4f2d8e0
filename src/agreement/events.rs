//! What each label of a double-annotated row takes from its annotation events: the suggestion
//! mode it was started in, the guideline version of its last change, and the week of the later
//! of the two labels. Read in one scan of `annotation_events` in id order (see [`event_facts`]).

use std::collections::HashMap;

use super::DoubleAnnotated;
use crate::error::Result;
use crate::settings::SuggestionMode;

/// What one double-annotated row's two annotations take from their events, by assignment slot.
#[derive(Debug, Clone, Default)]
pub(super) struct EventFacts {
    /// The suggestion mode of each annotation's first event (`None`: no event, or a mode this
    /// version does not know; both read as pre-filled, as do events that predate modes).
    pub mode: [Option<SuggestionMode>; 2],
    /// The guideline version of each annotation's last event (index into `RowEvents::versions`;
    /// `u32::MAX` when it has no event).
    pub version: [u32; 2],
    /// The greatest `at` (as text, as SQLite's `max` compares it) of the two annotations' events.
    pub latest: Option<String>,
}

/// [`EventFacts`] of every row, with the version labels they point into.
pub(super) struct RowEvents {
    pub rows: Vec<EventFacts>,
    pub versions: Vec<String>,
}

/// Reads [`EventFacts`] for `rows` (whose slot annotators are `slots`) in one scan of
/// `annotation_events` in id order: an annotation's first event is the first one seen, its last
/// the last. An annotation's events are written together, so consecutive events mostly belong to
/// one row and the row is looked up once per run of them.
pub(super) fn event_facts(
    conn: &rusqlite::Connection,
    rows: &[DoubleAnnotated],
    slots: &[[i64; 2]],
) -> Result<RowEvents> {
    let index: HashMap<&str, u32, std::hash::BuildHasherDefault<crate::rowstate::IdHasher>> =
        rows.iter().enumerate().map(|(i, r)| (r.id.as_str(), i as u32)).collect();
    let mut facts = vec![EventFacts { version: [u32::MAX; 2], ..EventFacts::default() }; rows.len()];
    let mut versions: Vec<String> = Vec::new();
    let mut stmt = conn.prepare(
        "SELECT candidate_id, annotator_id, coalesce(suggestion_mode, 'prefilled'), coalesce(guideline_version, '1'), at
         FROM annotation_events ORDER BY id",
    )?;
    let mut query = stmt.query([])?;
    // Columns compared as bytes (as SQLite compares text), checked as UTF-8 only when kept.
    // The row of the previous event (`None`: not a double-annotated row).
    let mut last_id: Vec<u8> = Vec::new();
    let mut last_row: Option<usize> = None;
    while let Some(r) = query.next()? {
        let id = bytes(r, 0)?;
        if id != last_id.as_slice() {
            last_id.clear();
            last_id.extend_from_slice(id);
            last_row = index.get(utf8(id, 0)?).map(|&i| i as usize);
        }
        let Some(row) = last_row else { continue };
        let annotator: i64 = r.get(1)?;
        let Some(slot) = slots[row].iter().position(|&a| a == annotator) else { continue };
        let f = &mut facts[row];
        if f.version[slot] == u32::MAX {
            // The annotation's first event.
            f.mode[slot] = crate::db::text(r, 2)?.parse::<SuggestionMode>().ok();
        }
        let version = bytes(r, 3)?;
        let v = match versions.iter().position(|v| v.as_bytes() == version) {
            Some(v) => v,
            None => {
                versions.push(utf8(version, 3)?.to_string());
                versions.len() - 1
            }
        };
        f.version[slot] = v as u32;
        let at = bytes(r, 4)?;
        match &mut f.latest {
            Some(latest) if latest.as_bytes() >= at => {}
            Some(latest) => {
                latest.clear();
                latest.push_str(utf8(at, 4)?);
            }
            None => f.latest = Some(utf8(at, 4)?.to_string()),
        }
    }
    Ok(RowEvents { rows: facts, versions })
}

/// Column `i` of a result row as the bytes of its text, borrowed from SQLite.
fn bytes<'r>(r: &'r rusqlite::Row<'_>, i: usize) -> rusqlite::Result<&'r [u8]> {
    r.get_ref(i)?
        .as_bytes()
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, e.into()))
}

/// Bytes of column `i` as text.
fn utf8(b: &[u8], i: usize) -> rusqlite::Result<&str> {
    std::str::from_utf8(b).map_err(|e| rusqlite::Error::Utf8Error(i, e))
}

/// SQLite's `strftime('%G-W%V', at)`, asked once per day for the timestamps this program writes
/// (`2025-03-10T09:15:02.123Z`, UTC, where the time cannot move the date) and once per value for
/// any other form.
pub(super) struct WeekOf<'c> {
    stmt: rusqlite::CachedStatement<'c>,
    by_day: HashMap<[u8; 10], String>,
}

impl<'c> WeekOf<'c> {
    pub fn new(conn: &'c rusqlite::Connection) -> Result<Self> {
        Ok(WeekOf { stmt: conn.prepare_cached("SELECT strftime('%G-W%V', ?1)")?, by_day: HashMap::new() })
    }

    pub fn of(&mut self, at: &str) -> Result<String> {
        let day = utc_day(at);
        if let Some(week) = day.and_then(|d| self.by_day.get(&d)) {
            return Ok(week.clone());
        }
        let week: Option<String> = self.stmt.query_row([at], |r| r.get(0))?;
        let week = week.unwrap_or_default();
        if let Some(day) = day {
            self.by_day.insert(day, week.clone());
        }
        Ok(week)
    }
}

/// The date of `at` when it is exactly `YYYY-MM-DDTHH:MM:SS[.fff]Z` with a time of day in range.
fn utc_day(at: &str) -> Option<[u8; 10]> {
    let b = at.as_bytes();
    if !(b.len() == 20 || (b.len() == 24 && b[19] == b'.')) || b[b.len() - 1] != b'Z' {
        return None;
    }
    let digits = |range: std::ops::Range<usize>| b[range].iter().all(u8::is_ascii_digit);
    let two = |i: usize| u32::from(b[i] - b'0') * 10 + u32::from(b[i + 1] - b'0');
    let shape = b[4] == b'-' && b[7] == b'-' && b[10] == b'T' && b[13] == b':' && b[16] == b':';
    if !shape
        || !digits(0..4)
        || !digits(5..7)
        || !digits(8..10)
        || !digits(11..13)
        || !digits(14..16)
        || !digits(17..19)
    {
        return None;
    }
    if b.len() == 24 && !digits(20..23) {
        return None;
    }
    if two(11) > 23 || two(14) > 59 || two(17) > 59 {
        return None;
    }
    b[..10].try_into().ok()
}
