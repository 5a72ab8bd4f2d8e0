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
