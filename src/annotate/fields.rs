//! The annotation itself: its fields, the evidence span, and the rules a value and a finished
//! annotation must keep.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::candidate::Candidate;
use crate::settings::SuggestionMode;
use crate::vocab::{Axis, BoundaryType, Decision, SEVERITIES};

/// The fields an annotator writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Field {
    Decision,
    EvidenceSpan,
    CalibratedClaim,
    RaisedClaim,
    Axis,
    Severity,
    BoundaryType,
    Repair,
    Notes,
}

impl Field {
    /// What the field takes in an import file: a number for severity, a span for the evidence
    /// span, text for the rest.
    pub fn value_kind(self) -> crate::input::ValueKind {
        use crate::input::ValueKind;
        match self {
            Field::Severity => ValueKind::WholeNumber,
            Field::EvidenceSpan => ValueKind::Span,
            Field::Decision
            | Field::CalibratedClaim
            | Field::RaisedClaim
            | Field::Axis
            | Field::BoundaryType
            | Field::Repair
            | Field::Notes => ValueKind::Text,
        }
    }
}

impl Field {
    pub const ALL: &'static [Field] = &[
        Field::Decision,
        Field::EvidenceSpan,
        Field::CalibratedClaim,
        Field::RaisedClaim,
        Field::Axis,
        Field::Severity,
        Field::BoundaryType,
        Field::Repair,
        Field::Notes,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Field::Decision => "decision",
            Field::EvidenceSpan => "evidence_span",
            Field::CalibratedClaim => "calibrated_claim",
            Field::RaisedClaim => "raised_claim",
            Field::Axis => "axis",
            Field::Severity => "severity",
            Field::BoundaryType => "boundary_type",
            Field::Repair => "repair",
            Field::Notes => "notes",
        }
    }
}

/// The fields the drafter suggests and an annotator must confirm or change in `prefilled` mode.
/// The two claims are the row under test, not suggestions; candidates carry no boundary type.
pub const SUGGESTED_FIELDS: &[Field] = &[Field::EvidenceSpan, Field::Axis, Field::Severity, Field::Repair];

impl Field {
    /// The field's short name for people ("span", "axis"...).
    pub fn label(self) -> &'static str {
        match self {
            Field::EvidenceSpan => "span",
            Field::CalibratedClaim => "calibrated claim",
            Field::RaisedClaim => "raised claim",
            Field::BoundaryType => "boundary type",
            other => other.as_str(),
        }
    }
}

/// "a", "a and b", "a, b and c".
pub fn join_and(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

impl std::str::FromStr for Field {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        Field::ALL.iter().copied().find(|f| f.as_str() == s).ok_or_else(|| {
            let names: Vec<_> = Field::ALL.iter().map(|f| f.as_str()).collect();
            format!("`{s}` is not an annotation field ({})", names.join(", "))
        })
    }
}

/// A span of the passage: the verbatim text and its byte offsets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Span {
    pub text: String,
    pub start: u32,
    pub end: u32,
}

impl Span {
    /// The text of a stored span value: spans are stored as `{text, start, end}` JSON; a value
    /// that is not (plain text) is its own text.
    pub fn text_of(stored: &str) -> std::borrow::Cow<'_, str> {
        match serde_json::from_str::<Span>(stored) {
            Ok(span) => span.text.into(),
            Err(_) => stored.into(),
        }
    }

    /// The span for `text` at its first occurrence in `passage`.
    pub fn find(passage: &str, text: &str) -> Option<Span> {
        passage.find(text).map(|start| Span {
            text: text.to_string(),
            start: start as u32,
            end: (start + text.len()) as u32,
        })
    }

    /// Checks that the span is non-empty and that `passage[start..end]` is exactly its text.
    pub fn check(&self, passage: &str) -> std::result::Result<(), String> {
        if self.text.trim().is_empty() {
            return Err("the evidence span is empty".into());
        }
        match passage.get(self.start as usize..self.end as usize) {
            Some(found) if found == self.text => Ok(()),
            _ if passage.contains(&self.text) => Err(format!(
                "the evidence span's offsets {}..{} do not point at its text in the passage",
                self.start, self.end
            )),
            _ => Err("the evidence span is not a verbatim substring of the passage".into()),
        }
    }
}

/// One annotator's current annotation of one row.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Annotation {
    pub candidate_id: String,
    pub annotator: String,
    pub decision: Option<Decision>,
    pub evidence_span: Option<Span>,
    pub calibrated_claim: Option<String>,
    pub raised_claim: Option<String>,
    pub axis: Option<Axis>,
    pub severity: Option<u8>,
    pub boundary_type: Option<BoundaryType>,
    pub repair: Option<String>,
    pub notes: Option<String>,
    /// The decision is set and every field it needs is valid.
    pub finished: bool,
    /// What stops the annotation from being finished, for people.
    pub problems: Vec<String>,
    /// For each of `problems`, in order, what it is about, so a view can show it by that field
    /// without reading its words: a field's name (`decision`, `evidence_span`, `calibrated_claim`,
    /// `raised_claim`, `axis`, `severity`, `boundary_type`, `repair`, `notes`) or `suggested`
    /// (unconfirmed suggestions).
    pub problem_fields: Vec<String>,
    pub seconds_spent: f64,
    /// Number of events behind this annotation.
    #[ts(type = "number")]
    pub events: i64,
    /// Whether there is a change that `undo` would revert.
    pub can_undo: bool,
    /// Fields still holding the drafter's suggestion unconfirmed (`prefilled` mode), in
    /// [`SUGGESTED_FIELDS`] order: an accept cannot finish while any is listed. Confirming
    /// ([`confirm`]) or changing a field takes it off.
    pub suggested: Vec<Field>,
    /// The suggestion mode of the project (or the workspace's packet).
    pub suggestion_mode: SuggestionMode,
}

impl Annotation {
    /// The drafter's suggestions as one annotation, for their values (the adjudicator's
    /// side-by-side view, and the source a final value is credited to). Its problems are not
    /// worked out, nor its fields listed as suggested: nothing reads them.
    pub(crate) fn prefilled(c: &Candidate, annotator: &str, show_axis_severity: bool) -> Annotation {
        Annotation::unchecked(c, annotator, SuggestionMode::Prefilled, show_axis_severity, false)
    }

    /// What an annotator starts from in `mode`: the two claims (the row under test) always; in
    /// `prefilled` mode also the suggested span, axis and severity (unless blinding hides them)
    /// and repair, each listed in `suggested` until confirmed or changed.
    pub(crate) fn starting(
        c: &Candidate,
        annotator: &str,
        mode: SuggestionMode,
        show_axis_severity: bool,
    ) -> Annotation {
        let mut a = Annotation::unchecked(c, annotator, mode, show_axis_severity, true);
        a.refresh(&c.passage);
        a
    }

    /// [`Self::starting`] before its problems are worked out; `suggested`: list the prefilled
    /// fields as suggestions to confirm.
    fn unchecked(
        c: &Candidate,
        annotator: &str,
        mode: SuggestionMode,
        show_axis_severity: bool,
        suggested: bool,
    ) -> Annotation {
        let mut a = Annotation::empty(c, annotator);
        a.suggestion_mode = mode;
        a.calibrated_claim = Some(c.calibrated_claim.clone());
        a.raised_claim = Some(c.raised_claim.clone());
        if mode == SuggestionMode::Prefilled {
            a.evidence_span = c.evidence_span.as_deref().and_then(|t| Span::find(&c.passage, t));
            a.axis = if show_axis_severity { c.axis } else { None };
            a.severity = if show_axis_severity { c.severity } else { None };
            a.repair = c.repair.clone().filter(|r| !r.trim().is_empty());
            if suggested {
                a.suggested = SUGGESTED_FIELDS.iter().copied().filter(|f| a.stored_ref(*f).is_some()).collect();
            }
        }
        a
    }

    pub(crate) fn empty(c: &Candidate, annotator: &str) -> Annotation {
        Annotation {
            candidate_id: c.id.clone(),
            annotator: annotator.to_string(),
            decision: None,
            evidence_span: None,
            calibrated_claim: None,
            raised_claim: None,
            axis: None,
            severity: None,
            boundary_type: None,
            repair: None,
            notes: None,
            finished: false,
            problems: Vec::new(),
            problem_fields: Vec::new(),
            seconds_spent: 0.0,
            events: 0,
            can_undo: false,
            suggested: Vec::new(),
            suggestion_mode: SuggestionMode::Prefilled,
        }
    }

    /// Applies one stored value (already validated) to a field.
    pub(crate) fn apply(&mut self, field: Field, value: Option<&str>) -> std::result::Result<(), String> {
        let text = value.map(str::to_string);
        match field {
            Field::Decision => self.decision = value.map(str::parse).transpose()?,
            Field::EvidenceSpan => {
                self.evidence_span = value.map(serde_json::from_str).transpose().map_err(|e| e.to_string())?
            }
            Field::CalibratedClaim => self.calibrated_claim = text,
            Field::RaisedClaim => self.raised_claim = text,
            Field::Axis => self.axis = value.map(str::parse).transpose()?,
            Field::Severity => self.severity = value.map(parse_severity).transpose()?,
            Field::BoundaryType => self.boundary_type = value.map(str::parse).transpose()?,
            Field::Repair => self.repair = text,
            Field::Notes => self.notes = text,
        }
        Ok(())
    }

    /// The stored (event) form of a field's current value.
    pub(crate) fn stored(&self, field: Field) -> Option<String> {
        self.stored_ref(field).map(Cow::into_owned)
    }

    /// [`Self::stored`], borrowing a value the annotation holds as it is stored (text and
    /// names) rather than copying it.
    pub(crate) fn stored_ref(&self, field: Field) -> Option<Cow<'_, str>> {
        match field {
            Field::Decision => self.decision.map(|d| Cow::Borrowed(d.as_str())),
            Field::EvidenceSpan => {
                self.evidence_span.as_ref().map(|s| Cow::Owned(serde_json::to_string(s).expect("span serialises")))
            }
            Field::CalibratedClaim => self.calibrated_claim.as_deref().map(Cow::Borrowed),
            Field::RaisedClaim => self.raised_claim.as_deref().map(Cow::Borrowed),
            Field::Axis => self.axis.map(|a| Cow::Borrowed(a.as_str())),
            Field::Severity => self.severity.map(|s| Cow::Owned(s.to_string())),
            Field::BoundaryType => self.boundary_type.map(|b| Cow::Borrowed(b.as_str())),
            Field::Repair => self.repair.as_deref().map(Cow::Borrowed),
            Field::Notes => self.notes.as_deref().map(Cow::Borrowed),
        }
    }

    /// Recomputes `problems` and `finished` against the passage.
    pub(super) fn refresh(&mut self, passage: &str) {
        (self.problem_fields, self.problems) =
            self.placed_problems(passage).into_iter().map(|(field, p)| (field.to_string(), p)).unzip();
        self.finished = self.decision.is_some() && self.problems.is_empty();
    }

    /// The validation rules: an accept needs span, both claims, axis, severity and repair, none
    /// of them an unconfirmed suggestion; a reject needs a boundary type; needs discussion needs
    /// a note (not blank) saying what to discuss; a span must be verbatim in the passage.
    pub fn problems(&self, passage: &str) -> Vec<String> {
        self.placed_problems(passage).into_iter().map(|(_, p)| p).collect()
    }

    /// [`Self::problems`], each with what it is about (see [`Annotation::problem_fields`]).
    pub fn placed_problems(&self, passage: &str) -> Vec<(&'static str, String)> {
        let mut out: Vec<(&'static str, String)> = Vec::new();
        let blank = |v: &Option<String>| v.as_deref().is_none_or(crate::input::is_blank);
        if let Some(span) = &self.evidence_span {
            if let Err(e) = span.check(passage) {
                out.push(("evidence_span", e));
            }
        }
        match self.decision {
            None => out.push(("decision", "no decision yet".into())),
            Some(Decision::AcceptForceGap) => {
                if self.evidence_span.is_none() {
                    out.push(("evidence_span", "an accept needs an evidence span".into()));
                }
                if blank(&self.calibrated_claim) {
                    out.push(("calibrated_claim", "an accept needs the calibrated claim".into()));
                }
                if blank(&self.raised_claim) {
                    out.push(("raised_claim", "an accept needs the raised claim".into()));
                }
                if self.axis.is_none() {
                    out.push(("axis", "an accept needs a primary axis".into()));
                }
                if self.severity.is_none() {
                    out.push(("severity", "an accept needs a severity".into()));
                }
                if blank(&self.repair) {
                    out.push(("repair", "an accept needs a repair".into()));
                }
                if !blank(&self.calibrated_claim) && self.calibrated_claim == self.raised_claim {
                    out.push(("raised_claim", "the calibrated and raised claims are identical".into()));
                }
                if !self.suggested.is_empty() {
                    let names: Vec<&str> = self.suggested.iter().map(|f| f.label()).collect();
                    out.push(("suggested", format!("confirm or change the suggested {}", join_and(&names))));
                }
            }
            Some(Decision::RejectNotForceGap) => {
                if self.boundary_type.is_none() {
                    out.push(("boundary_type", "a reject needs a boundary type".into()));
                }
            }
            // The guideline asks why a row needs discussion; without the reason the
            // adjudicator has nothing to discuss, so the row is not finished until it is written.
            Some(Decision::NeedsDiscussion) => {
                if blank(&self.notes) {
                    out.push(("notes", "needs discussion needs a note saying what to discuss".into()));
                }
            }
        }
        out
    }
}

fn parse_severity(s: &str) -> std::result::Result<u8, String> {
    match s.trim().parse::<i64>() {
        Ok(n) if SEVERITIES.contains(&n) => Ok(n as u8),
        _ => Err(format!("severity `{s}` is not 1, 2 or 3")),
    }
}

/// Validates a new value for a field against the row and returns its stored form.
pub fn normalise(field: Field, value: Option<&str>, passage: &str) -> std::result::Result<Option<String>, String> {
    let Some(value) = value else { return Ok(None) };
    Ok(Some(match field {
        Field::Decision => value.parse::<Decision>()?.as_str().to_string(),
        Field::Axis => value.parse::<Axis>()?.as_str().to_string(),
        Field::BoundaryType => value.parse::<BoundaryType>()?.as_str().to_string(),
        Field::Severity => parse_severity(value)?.to_string(),
        Field::EvidenceSpan => {
            // Either a JSON span {text,start,end} or plain text (first occurrence).
            let span = match serde_json::from_str::<Span>(value) {
                Ok(span) => span,
                Err(_) => Span::find(passage, value)
                    .ok_or_else(|| "the evidence span is not a verbatim substring of the passage".to_string())?,
            };
            span.check(passage)?;
            serde_json::to_string(&span).expect("span serialises")
        }
        Field::CalibratedClaim | Field::RaisedClaim | Field::Repair | Field::Notes => {
            if value.trim().is_empty() {
                return Ok(None);
            }
            value.to_string()
        }
    }))
}

/// Where a change came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    App,
    Import,
    Packet(i64),
}

impl Origin {
    pub(super) fn name(self) -> &'static str {
        match self {
            Origin::App => "app",
            Origin::Import => "import",
            Origin::Packet(_) => "packet",
        }
    }
    pub(super) fn packet_return(self) -> Option<i64> {
        match self {
            Origin::Packet(id) => Some(id),
            _ => None,
        }
    }
}
