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

/// A start record: what an annotator was shown pre-filled when they started a row, kept as one
/// event where it was one `prefill` event per field. Each of those repeated the row, the
/// annotator, the time, the origin, the suggestion mode and the guideline, with a uid and two
/// index entries of its own: six of them per annotator and row were half of a project's events.
/// The record keeps the fields as a set of bits (in `db::start_records::FIELDS` order) under the field name
/// [`START_FIELD`], with the mark `from_suggestion` (every value is the row's suggestion), and
/// every reader expands it back into the `prefill` events it stands for: same fields, values,
/// time, mode and guideline, in the order they were written, the first with the record's uid and
/// each other with a uid made from it ([`start_uid`]), so a packet carries the same events.
pub(crate) const START_FIELD: &str = "suggestions";

/// The fields a start record stands for, in order.
pub(crate) fn start_fields(bits: i64) -> impl Iterator<Item = super::Field> {
    crate::db::start_records::FIELDS
        .into_iter()
        .enumerate()
        .filter(move |(i, _)| bits & (1 << i) != 0)
        .map(|(_, name)| name.parse().expect("every start record field is an annotation field"))
}

/// The bit of a field in a start record, or `None` for a field no suggestion pre-fills.
pub(crate) fn start_bit(field: super::Field) -> Option<i64> {
    crate::db::start_records::FIELDS.iter().position(|f| *f == field.as_str()).map(|i| 1 << i)
}

/// The uid of the `prefill` event a start record stands for on `field`: the record's own uid for
/// its first field, and for each other a uuid made from the record's uid and the field's name
/// (version 5), the same every time it is read, so a packet issued twice, or returned and merged
/// again, names each event alike.
pub(crate) fn start_uid(record_uid: &str, field: super::Field, first: bool) -> String {
    if first {
        return record_uid.to_string();
    }
    let namespace = uuid::Uuid::try_parse(record_uid).unwrap_or(uuid::Uuid::NAMESPACE_OID);
    uuid::Uuid::new_v5(&namespace, format!("{record_uid}/{}", field.as_str()).as_bytes()).to_string()
}

/// One `prefill` event arriving from elsewhere (a packet), as a start record would have to stand
/// for it: its field, values, time, suggestion mode and guideline version as it will be stored.
pub(crate) struct Arriving<'a> {
    pub field: super::Field,
    pub origin: &'a str,
    pub old: Option<&'a str>,
    pub new: Option<&'a str>,
    pub at: &'a str,
    pub mode: crate::settings::SuggestionMode,
    pub guideline: &'a str,
    /// Whether a later event of the row undoes it (a start record cannot be undone in parts).
    pub undone: bool,
}

/// How many of a row's first arriving events one start record can stand for, and its bits:
/// the leading run of `prefill` events, each holding nothing but the row's suggestion (`s`) for
/// a field in `db::start_records::FIELDS` order, with one time, mode and guideline, none undone. `None`
/// when the first event is not such a pre-fill (then every event is stored as it came).
pub(crate) fn leading_start(events: &[Arriving<'_>], s: &Suggested<'_>) -> Option<(usize, i64)> {
    let first = events.first()?;
    let mut bits = 0i64;
    let mut n = 0;
    for e in events {
        let Some(bit) = start_bit(e.field) else { break };
        let same_start = e.at == first.at && e.mode == first.mode && e.guideline == first.guideline;
        if e.origin != "prefill" || e.old.is_some() || e.undone || !same_start || bit <= bits {
            break;
        }
        if e.new.is_none() || suggestion_value(e.field, s).as_deref() != e.new {
            break;
        }
        bits |= bit;
        n += 1;
    }
    (n > 0).then_some((n, bits))
}

/// Writes a start record standing for the `prefill` events of `bits` (merged with a packet's
/// return, when it names one), and says how many rows it wrote: none when its uid is taken.
#[allow(clippy::too_many_arguments)]
pub(crate) fn insert_start(
    tx: &rusqlite::Connection,
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
             suggestion_mode, guideline_version, from_suggestion, start_fields)
         VALUES (?1, ?2, ?3, ?4, 'prefill', ?5, ?6, ?7, ?8, 1, ?9)
         ON CONFLICT (uid) DO NOTHING",
    )?
    .execute(rusqlite::params![
        candidate_id,
        annotator_id,
        START_FIELD,
        at,
        packet_return,
        StoredUid(uid),
        mode.as_str(),
        guideline,
        bits
    ])
}
