//! Project settings the lead chooses: today one, how annotators are shown the drafter's
//! suggestions ([`SuggestionMode`]), stored in the `project` row (schema 0008).
//!
//! A workspace opened from a packet takes the packet's mode and cannot change it: the mode is the
//! lead's choice for the project, and agreement is broken down by it. To add a setting: a column
//! on `project` in a migration, a reader and a setter here, and a `forcebench settings` command.

use rusqlite::OptionalExtension;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::error::{Error, Result};
use crate::project::Project;

/// How the drafter's suggested span, axis, severity and repair reach the annotator. The two
/// claims are the row under test and are always shown; only these four fields are suggestions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SuggestionMode {
    /// The suggestions fill the fields, marked as suggested until the annotator confirms or
    /// changes them; an accept cannot finish before.
    #[default]
    Prefilled,
    /// The fields start empty; each suggestion is shown beside its field, one key copies it in.
    Beside,
    /// The fields start empty and no suggestion is shown.
    Hidden,
}

impl SuggestionMode {
    pub const ALL: &'static [SuggestionMode] =
        &[SuggestionMode::Prefilled, SuggestionMode::Beside, SuggestionMode::Hidden];

    pub fn as_str(self) -> &'static str {
        match self {
            SuggestionMode::Prefilled => "prefilled",
            SuggestionMode::Beside => "beside",
            SuggestionMode::Hidden => "hidden",
        }
    }
}

impl std::str::FromStr for SuggestionMode {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        SuggestionMode::ALL
            .iter()
            .copied()
            .find(|m| m.as_str() == s.trim())
            .ok_or_else(|| format!("`{s}` is not a suggestion mode; expected prefilled, beside or hidden"))
    }
}

/// The suggestion mode in force in a project or workspace.
pub fn suggestion_mode(conn: &rusqlite::Connection) -> Result<SuggestionMode> {
    let stored: Option<String> = conn
        .prepare_cached("SELECT suggestions FROM project WHERE singleton = 1")?
        .query_row([], |r| r.get(0))
        .optional()?;
    stored.map_or(Ok(SuggestionMode::Prefilled), |s| s.parse().map_err(Error::Corrupt))
}

/// Whose file this is: the lead's project, or an annotator's workspace opened from a packet
/// (strict when the packet's blinding hides the suggested axis, severity, rationale and
/// provenance), read from the workspace's own row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Lead,
    Workspace { strict: bool },
}

/// Where the project stands (see [`Place`]).
pub fn place(conn: &rusqlite::Connection) -> Result<Place> {
    let blinding: Option<String> = conn
        .prepare_cached("SELECT blinding FROM workspace WHERE singleton = 1")?
        .query_row([], |r| r.get(0))
        .optional()?;
    Ok(match blinding {
        None => Place::Lead,
        Some(b) => Place::Workspace { strict: b == "strict" },
    })
}

/// Sets the project's suggestion mode (the lead's choice). Refused in an annotator's workspace,
/// whose mode comes from its packet. Rows already started keep the events they have; the new
/// mode applies to what is shown and recorded from now on.
pub fn set_suggestion_mode(project: &mut Project, mode: SuggestionMode) -> Result<SuggestionMode> {
    if place(project.conn())? != Place::Lead {
        return Err(Error::LeadOnly(
            "this is an annotator's workspace: its suggestion mode comes from its packet; the lead sets it in the project".into(),
        ));
    }
    let tx = project.conn_mut().transaction()?;
    tx.execute("UPDATE project SET suggestions = ?1 WHERE singleton = 1", [mode.as_str()])?;
    tx.commit()?;
    Ok(mode)
}

/// Refuses a lead's step (`step`, such as "importing candidates") in an annotator's workspace
///: a workspace holds one packet's rows and its annotator, and what the lead adds to
/// a project belongs in the lead's project.
pub(crate) fn lead_only(conn: &rusqlite::Connection, step: &str) -> Result<()> {
    if place(conn)? == Place::Lead {
        return Ok(());
    }
    Err(Error::LeadOnly(format!(
        "this is an annotator's workspace, made from a packet: {step} is the lead's step, done in the lead's \
         project. Nothing was changed"
    )))
}
