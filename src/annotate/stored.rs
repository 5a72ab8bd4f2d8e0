//! How an annotation event's values are stored: a value that is the row's own suggestion is not
//! written again in the event.
//!
//! When an annotator starts a row, the fields they are shown pre-filled are recorded as `prefill`
//! events, and confirming a suggestion is a `confirm` event whose old and new values are both that
//! suggestion. Written out, those values repeated the candidate's claims, span, axis, severity and
//! repair for every annotator of every row: most of a project file's bytes. Candidates never
//! change once imported (a re-import with other content is refused), so such an event keeps the
//! mark `from_suggestion = 1` and no values; reading it gives back exactly the values it was
//! written with, computed from the candidate by the same SQL expression that decided the mark.
//!
//! An event is marked only when its values equal that expression's value (a `prefill` with no old
//! value, a `confirm` whose old and new values are the same), so a value that differs from the
//! row's suggestion for any reason is stored as it is. Every statement that writes or reads the
//! values of `annotation_events` goes through the macros below; `schema/0017_suggestions_once.sql`
//! applies the same rule to the events written before.

/// The suggestion the candidate aliased `sc` carries for the annotation field named by the SQL
/// expression `$field`, in the form a `prefill` event records it (the span as its JSON with byte
/// offsets of its first occurrence in the passage, the severity as text); NULL for other fields.
macro_rules! suggestion_sql {
    ($field:literal) => {
        concat!(
            "(CASE ",
            $field,
            " WHEN 'calibrated_claim' THEN sc.calibrated_claim WHEN 'raised_claim' THEN sc.raised_claim",
            " WHEN 'axis' THEN sc.axis WHEN 'severity' THEN CAST(sc.severity AS TEXT) WHEN 'repair' THEN sc.repair",
            " WHEN 'evidence_span' THEN (CASE WHEN instr(CAST(sc.passage AS BLOB), CAST(sc.evidence_span AS BLOB)) > 0",
            " THEN '{\"text\":' || json_quote(sc.evidence_span) || ',\"start\":'",
            " || (instr(CAST(sc.passage AS BLOB), CAST(sc.evidence_span AS BLOB)) - 1) || ',\"end\":'",
            " || (instr(CAST(sc.passage AS BLOB), CAST(sc.evidence_span AS BLOB)) - 1 + length(CAST(sc.evidence_span AS BLOB)))",
            " || '}' END) END)"
        )
    };
}
pub(crate) use suggestion_sql;

/// Whether an event about to be written (its candidate id, field, old value, new value and
/// origin given as SQL parameters or expressions) holds nothing but the row's suggestion: then it
/// is written with the mark and without its values.
macro_rules! from_suggestion_sql {
    ($candidate:literal, $field:literal, $old:literal, $new:literal, $origin:literal) => {
        concat!(
            "((",
            $origin,
            " = 'prefill' AND ",
            $old,
            " IS NULL) OR (",
            $origin,
            " = 'confirm' AND ",
            $old,
            " IS ",
            $new,
            ")) AND ",
            $new,
            " = (SELECT ",
            $crate::annotate::stored::suggestion_sql!($field),
            " FROM candidates sc WHERE sc.id = ",
            $candidate,
            ")"
        )
    };
}
pub(crate) use from_suggestion_sql;

/// An event's new value as written, for a query joining `candidates sc ON sc.id = e.candidate_id`.
macro_rules! new_value_sql {
    () => {
        concat!(
            "(CASE WHEN e.from_suggestion = 1 THEN ",
            $crate::annotate::stored::suggestion_sql!("e.field"),
            " ELSE e.new_value END)"
        )
    };
}
pub(crate) use new_value_sql;

/// An event's old value as written (a confirmation's old value is its new one), for a query
/// joining `candidates sc ON sc.id = e.candidate_id`.
macro_rules! old_value_sql {
    () => {
        concat!(
            "(CASE WHEN e.from_suggestion = 1 AND e.origin = 'confirm' THEN ",
            $crate::annotate::stored::suggestion_sql!("e.field"),
            " ELSE e.old_value END)"
        )
    };
}
pub(crate) use old_value_sql;

/// The suggestions one row carries, borrowed from wherever they are held: the project's candidate
/// or a packet's row (which holds what its annotator was shown, so a field its blinding hides is
/// absent).
pub(crate) struct Suggested<'a> {
    pub passage: &'a str,
    pub evidence_span: Option<&'a str>,
    pub calibrated_claim: &'a str,
    pub raised_claim: &'a str,
    pub axis: Option<crate::vocab::Axis>,
    pub severity: Option<u8>,
    pub repair: Option<&'a str>,
}

impl<'a> From<&'a crate::candidate::Candidate> for Suggested<'a> {
    fn from(c: &'a crate::candidate::Candidate) -> Self {
        Suggested {
            passage: &c.passage,
            evidence_span: c.evidence_span.as_deref(),
            calibrated_claim: &c.calibrated_claim,
            raised_claim: &c.raised_claim,
            axis: c.axis,
            severity: c.severity,
            repair: c.repair.as_deref(),
        }
    }
}

/// [`suggestion_sql!`] computed in Rust, for values that travel outside a project (a packet's
/// marked events): the same text for the same row, so an event expanded from its mark here and
/// written into a project is stored with the mark again. `None` where the SQL gives NULL (a field
/// with no suggestion, or a span that is not in the passage).
pub(crate) fn suggestion_value(field: super::Field, s: &Suggested<'_>) -> Option<String> {
    use super::Field;
    match field {
        Field::CalibratedClaim => Some(s.calibrated_claim.to_string()),
        Field::RaisedClaim => Some(s.raised_claim.to_string()),
        Field::Axis => s.axis.map(|a| a.as_str().to_string()),
        Field::Severity => s.severity.map(|n| n.to_string()),
        Field::Repair => s.repair.map(str::to_string),
        Field::EvidenceSpan => s
            .evidence_span
            .and_then(|t| super::Span::find(s.passage, t))
            .map(|span| serde_json::to_string(&span).expect("a span serialises")),
        Field::Decision | Field::BoundaryType | Field::Notes => None,
    }
}

/// An event's uid as the project stores it: a uuid in its usual lowercase hyphenated text is
/// kept as its 16 bytes (a 36-character text, repeated in the table and its unique index, was a
/// sixth of the annotation trail), and any other text a packet brought is kept as it came, so
/// every uid reads back exactly as it was written. A uuid has one stored form only (its bytes),
/// so the unique index still keeps each uid once.
pub(crate) struct StoredUid<'a>(pub &'a str);

impl StoredUid<'_> {
    /// The 16 bytes of a uid written in the form it is read back in, else `None`.
    fn bytes(&self) -> Option<[u8; 16]> {
        let u = uuid::Uuid::try_parse(self.0).ok()?;
        let mut buf = uuid::Uuid::encode_buffer();
        (u.hyphenated().encode_lower(&mut buf) == self.0).then(|| *u.as_bytes())
    }
}

impl rusqlite::ToSql for StoredUid<'_> {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, Value, ValueRef};
        Ok(match self.bytes() {
            Some(b) => ToSqlOutput::Owned(Value::Blob(b.to_vec())),
            None => ToSqlOutput::Borrowed(ValueRef::Text(self.0.as_bytes())),
        })
    }
}

/// A uid read back from the project: its 16 bytes as the lowercase hyphenated uuid they were
/// written from, or the text it was kept as.
pub(crate) struct ReadUid(pub String);

impl rusqlite::types::FromSql for ReadUid {
    fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
        use rusqlite::types::{FromSqlError, ValueRef};
        match value {
            ValueRef::Blob(b) => uuid::Uuid::from_slice(b)
                .map(|u| ReadUid(u.hyphenated().to_string()))
                .map_err(|e| FromSqlError::Other(Box::new(e))),
            ValueRef::Text(_) => String::column_result(value).map(ReadUid),
            _ => Err(FromSqlError::InvalidType),
        }
    }
}

/// A record of grouped events: what one action wrote as one event per field, kept as one event.
/// Starting a row wrote a `prefill` event for each field shown pre-filled (up to six per
/// annotator and row, half of a project's events), and confirming the suggestions (`y`) a
/// `confirm` event for each field still suggested; each repeated the row, the annotator, the time,
/// the origin, the suggestion mode and the guideline, with a uid and two index entries of its own.
/// A record keeps the fields as a set of bits (`field_set`, in `db::grouped_events::FIELDS`
/// order) under the field name [`RECORD_FIELD`], with its origin and the mark `from_suggestion`
/// (every value is the row's suggestion), and every reader expands it back into the events it
/// stands for ([`members`]): same fields, values, time, origin, mode and guideline, in the order
/// they were written, under the record's id; the first with the record's uid and each other with a
/// uid made from it ([`member_uid`]), so a packet carries the same events. An undo of one of them
/// names the record, and, as every undo does, its field.
pub(crate) const RECORD_FIELD: &str = "suggestions";

/// The fields a record stands for, in order.
pub(crate) fn record_fields(bits: i64) -> impl Iterator<Item = super::Field> {
    crate::db::grouped_events::FIELDS
        .into_iter()
        .enumerate()
        .filter(move |(i, _)| bits & (1 << i) != 0)
        .map(|(_, name)| name.parse().expect("every record field is an annotation field"))
}

/// The bit of a field in a record, or `None` for a field no suggestion fills.
pub(crate) fn record_bit(field: super::Field) -> Option<i64> {
    crate::db::grouped_events::FIELDS.iter().position(|f| *f == field.as_str()).map(|i| 1 << i)
}

/// The bits of a record standing for `fields` with these values, or `None` when one of them is
/// not a field a record can name or its value is not the row's suggestion (`s`): then they are
/// written as events of their own.
pub(crate) fn record_bits<'v>(
    fields: impl IntoIterator<Item = (super::Field, Option<&'v str>)>,
    s: &Suggested<'_>,
) -> Option<i64> {
    fields.into_iter().try_fold(0, |bits, (f, v)| {
        let bit = record_bit(f)?;
        (v.is_some() && suggestion_value(f, s).as_deref() == v).then_some(bits | bit)
    })
}

/// The events a record of `origin` stands for: each field with its old and new value (a pre-fill
/// has no old value; a confirmation's old and new values are the suggestion).
pub(crate) fn members(
    origin: &str,
    bits: i64,
    s: &Suggested<'_>,
) -> Vec<(super::Field, Option<String>, Option<String>)> {
    record_fields(bits)
        .map(|f| {
            let v = suggestion_value(f, s);
            (f, if origin == "confirm" { v.clone() } else { None }, v)
        })
        .collect()
}

/// The uid of the event a record stands for on `field`: the record's own uid for its first
/// field, and for each other a uuid made from the record's uid and the field's name (version 5),
/// the same every time it is read, so a packet issued twice, or returned and merged again, names
/// each event alike.
pub(crate) fn member_uid(record_uid: &str, field: super::Field, bits: i64) -> String {
    if record_fields(bits).next() == Some(field) {
        return record_uid.to_string();
    }
    let namespace = uuid::Uuid::try_parse(record_uid).unwrap_or(uuid::Uuid::NAMESPACE_OID);
    uuid::Uuid::new_v5(&namespace, format!("{record_uid}/{}", field.as_str()).as_bytes()).to_string()
}

/// One event arriving from elsewhere (a packet), as a record would have to stand for it: its
/// field, values, time, suggestion mode and guideline version as it will be stored.
pub(crate) struct Arriving<'a> {
    pub field: super::Field,
    pub origin: &'a str,
    pub old: Option<&'a str>,
    pub new: Option<&'a str>,
    pub at: &'a str,
    pub mode: crate::settings::SuggestionMode,
    pub guideline: &'a str,
    /// Whether a later event of the row undoes it (no software undoes a pre-fill).
    pub undone: bool,
}

impl Arriving<'_> {
    /// The kind of record the event can be part of (its origin), when it holds nothing but the
    /// row's suggestion (`s`) for a field a record can name.
    fn groups(&self, s: &Suggested<'_>) -> Option<&str> {
        record_bit(self.field)?;
        let value = suggestion_value(self.field, s);
        let is_value = |v: Option<&str>| v.is_some() && v == value.as_deref();
        match self.origin {
            "prefill" if self.old.is_none() && !self.undone && is_value(self.new) => Some("prefill"),
            "confirm" if is_value(self.old) && is_value(self.new) => Some("confirm"),
            _ => None,
        }
    }
}

/// The runs of a row's arriving events that records can stand for: (first event, how many, bits),
/// in order. A run is consecutive events of one kind (pre-fills, or confirmations) holding only
/// the row's suggestion (`s`), with one time, mode and guideline, fields in
/// `db::grouped_events::FIELDS` order; a run of pre-fills of any length (as a start is written
/// here), of confirmations two or more (one confirmation is stored as it is).
pub(crate) fn runs(events: &[Arriving<'_>], s: &Suggested<'_>) -> Vec<(usize, usize, i64)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < events.len() {
        let first = &events[i];
        let Some(kind) = first.groups(s) else {
            i += 1;
            continue;
        };
        let mut bits = record_bit(first.field).expect("a grouped field");
        let mut n = 1;
        while let Some(e) = events.get(i + n) {
            let bit = record_bit(e.field).unwrap_or(0);
            let same = e.at == first.at && e.mode == first.mode && e.guideline == first.guideline;
            if e.groups(s) != Some(kind) || !same || bit <= bits {
                break;
            }
            bits |= bit;
            n += 1;
        }
        if kind == "prefill" || n > 1 {
            out.push((i, n, bits));
        }
        i += n;
    }
    out
}

/// Writes a record of `origin` standing for the events of `bits` (merged with a packet's return,
/// when it names one), and says how many rows it wrote: none when its uid is taken.
#[allow(clippy::too_many_arguments)]
pub(crate) fn insert_record(
    tx: &rusqlite::Connection,
    origin: &str,
    candidate_id: &str,
    annotator_id: i64,
    bits: i64,
    at: &str,
    uid: &str,
    mode: crate::settings::SuggestionMode,
    guideline: &str,
    packet_return: Option<i64>,
) -> rusqlite::Result<usize> {
    tx.prepare_cached(
        "INSERT INTO annotation_events (candidate_id, annotator_id, field, at, origin, packet_return_id, uid,
             suggestion_mode, guideline_version, from_suggestion, field_set)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 1, ?10)
         ON CONFLICT (uid) DO NOTHING",
    )?
    .execute(rusqlite::params![
        candidate_id,
        annotator_id,
        RECORD_FIELD,
        at,
        origin,
        packet_return,
        StoredUid(uid),
        mode.as_str(),
        guideline,
        bits
    ])
}
