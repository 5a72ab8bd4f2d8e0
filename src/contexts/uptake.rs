//! Suggestions followed through: each finished annotation's value of a suggested field compared
//! with the suggestion the row carried (the drafter's value, which the annotator saw prefilled or
//! beside the field), as acceptance and edit rates per field, per drafter and per construction
//! family: how much of the benchmark a model or a drafter wrote, and how much people changed.
//!
//! A field counts for an annotation when the row has a suggestion for it: the annotator's final
//! value equal to it is an acceptance, anything else (another value, or the field left empty) an
//! edit. Annotations made with suggestions hidden are left out (the annotator never saw them).
//! The drafter of a promoted candidate is its promoted draft's author (a person, or the model of
//! a drafting run); a candidate imported from a file has the drafter `imported`.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use ts_rs::TS;

use crate::error::Result;
use crate::project::Project;

/// The suggested fields compared.
pub const FIELDS: &[&str] = &["evidence_span", "calibrated_claim", "raised_claim", "axis", "severity", "repair"];

/// The drafter named for candidates imported from a file.
pub const IMPORTED: &str = "imported";

/// How often a suggestion was kept.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
pub struct Uptake {
    /// Annotation fields that had a suggestion.
    #[ts(type = "number")]
    pub compared: u64,
    /// Of those, the ones whose final value is the suggestion.
    #[ts(type = "number")]
    pub accepted: u64,
    #[ts(type = "number")]
    pub edited: u64,
    /// accepted / compared (`null` when nothing was compared).
    pub acceptance_rate: Option<f64>,
    pub edit_rate: Option<f64>,
}

impl Uptake {
    fn add(&mut self, kept: bool) {
        self.compared += 1;
        self.accepted += u64::from(kept);
        self.edited += u64::from(!kept);
        self.acceptance_rate = Some(self.accepted as f64 / self.compared as f64);
        self.edit_rate = Some(self.edited as f64 / self.compared as f64);
    }
}

/// The report: per field over all annotations, and per field for each drafter and each
/// construction family.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
pub struct UptakeReport {
    /// Finished annotations compared (suggestions shown).
    #[ts(type = "number")]
    pub annotations: u64,
    /// Finished annotations left out because their suggestions were hidden.
    #[ts(type = "number")]
    pub hidden: u64,
    pub by_field: BTreeMap<String, Uptake>,
    pub by_drafter: BTreeMap<String, BTreeMap<String, Uptake>>,
    /// Construction family (`none` for rows without one) -> field -> uptake.
    pub by_family: BTreeMap<String, BTreeMap<String, Uptake>>,
}

/// The uptake of every suggestion over the project's finished annotations.
pub fn uptake(project: &Project) -> Result<UptakeReport> {
    uptake_in(project.conn())
}

/// [`uptake`] read through a connection (a lock reads it in its transaction).
pub(crate) fn uptake_in(conn: &rusqlite::Connection) -> Result<UptakeReport> {
    // Each candidate: its suggestions, drafter and family.
    let mut rows: HashMap<String, ([Option<String>; 6], String, String)> = HashMap::new();
    {
        let mut stmt = conn.prepare(
            "SELECT c.id, c.evidence_span, c.calibrated_claim, c.raised_claim, c.axis, CAST(c.severity AS TEXT), c.repair,
                    coalesce(c.construction_family, 'none'), d.author
             FROM candidates c
             LEFT JOIN draft_outcomes o ON o.context_id = c.context_id AND o.outcome = 'promoted'
             LEFT JOIN drafts d ON d.id = o.draft_id",
        )?;
        let mut q = stmt.query([])?;
        while let Some(r) = q.next()? {
            let suggestions = [r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?];
            let drafter: Option<String> = r.get(8)?;
            rows.insert(r.get(0)?, (suggestions, drafter.unwrap_or_else(|| IMPORTED.into()), r.get(7)?));
        }
    }
    let mut report = UptakeReport::default();
    let mut stmt = conn.prepare(
        "SELECT a.candidate_id, a.evidence_span, a.calibrated_claim, a.raised_claim, a.axis, CAST(a.severity AS TEXT), a.repair,
                (SELECT e.suggestion_mode FROM annotation_events e WHERE e.id = a.last_event_id)
         FROM annotations a WHERE a.finished = 1",
    )?;
    let mut q = stmt.query([])?;
    while let Some(r) = q.next()? {
        let id: String = r.get(0)?;
        let Some((suggested, drafter, family)) = rows.get(&id) else { continue };
        if r.get::<_, Option<String>>(7)?.as_deref() == Some("hidden") {
            report.hidden += 1;
            continue;
        }
        report.annotations += 1;
        for (i, field) in FIELDS.iter().enumerate() {
            let Some(suggestion) = suggested[i].as_deref().filter(|s| !s.trim().is_empty()) else { continue };
            let value: Option<String> = r.get(i + 1)?;
            let kept = value.as_deref() == Some(suggestion);
            for table in [
                &mut report.by_field,
                report.by_drafter.entry(drafter.clone()).or_default(),
                report.by_family.entry(family.clone()).or_default(),
            ] {
                table.entry(field.to_string()).or_default().add(kept);
            }
        }
    }
    Ok(report)
}
