//! The roster: people on the project and their roles (annotator, adjudicator, lead).
//! Only people with the `annotator` role receive assignments.

use rusqlite::OptionalExtension;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::error::{Error, Result};
use crate::project::{now, Project};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Annotator,
    Adjudicator,
    Lead,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Annotator => "annotator",
            Role::Adjudicator => "adjudicator",
            Role::Lead => "lead",
        }
    }

    /// Who may adjudicate (resolve rows, confirm agreements, mark rows nonlocal): an adjudicator
    /// or the lead. The one statement of the rule; the window receives it as
    /// [`Annotator::may_adjudicate`].
    pub fn may_adjudicate(self) -> bool {
        matches!(self, Role::Adjudicator | Role::Lead)
    }
}

impl std::str::FromStr for Role {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "annotator" => Ok(Role::Annotator),
            "adjudicator" => Ok(Role::Adjudicator),
            "lead" => Ok(Role::Lead),
            other => Err(format!("`{other}` is not a role; expected annotator, adjudicator or lead")),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct Annotator {
    #[ts(type = "number")]
    pub id: i64,
    pub name: String,
    pub role: Role,
    pub created_at: String,
    /// Rows assigned to this person.
    #[ts(type = "number")]
    pub assigned: i64,
    /// Whether this person may adjudicate ([`Role::may_adjudicate`]).
    pub may_adjudicate: bool,
}

/// Adds a person to the roster. Names are unique (compared after trimming, in Unicode
/// normalisation form C, in which they are stored) and may not hold control, invisible or
/// direction-changing characters, nor spaces other than the plain one (two such names look the
/// same).
pub fn add(project: &Project, name: &str, role: Role) -> Result<Annotator> {
    crate::settings::lead_only(project.conn(), "adding people to the roster")?;
    let name = &crate::input::nfc(name.trim());
    if name.is_empty() {
        return Err(Error::InvalidArgument("an annotator needs a non-empty name".into()));
    }
    crate::input::check_identifier("name", name).map_err(Error::InvalidArgument)?;
    // A name stored before names were normalised matches in its normal form too.
    if let Some(same) = list(project)?.into_iter().find(|a| crate::input::nfc(&a.name) == *name) {
        return Err(Error::AlreadyDone(if same.name == *name {
            format!("`{name}` is already on the roster")
        } else {
            format!("`{name}` is already on the roster, written with other Unicode characters that look the same")
        }));
    }
    project
        .conn()
        .execute("INSERT INTO annotators (name, role, created_at) VALUES (?1, ?2, ?3)", (name, role.as_str(), now()))?;
    Ok(find(project, name)?.expect("just inserted"))
}

/// Everyone on the roster, in the order they were added.
pub fn list(project: &Project) -> Result<Vec<Annotator>> {
    let mut stmt = project.conn().prepare(&format!("{SELECT} ORDER BY a.id"))?;
    let rows = stmt.query_map([], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub fn find(project: &Project, name: &str) -> Result<Option<Annotator>> {
    let conn = project.conn();
    let exact = conn.query_row(&format!("{SELECT} WHERE a.name = ?1"), [name.trim()], from_row).optional()?;
    if exact.is_some() {
        return Ok(exact);
    }
    // `José` typed decomposed finds the stored (composed) name.
    let nfc = crate::input::nfc(name.trim());
    Ok(conn.query_row(&format!("{SELECT} WHERE a.name = ?1"), [nfc], from_row).optional()?)
}

/// The named person, or an error saying who is on the roster.
pub fn require(project: &Project, name: &str) -> Result<Annotator> {
    find(project, name)?.ok_or_else(|| {
        let names: Vec<String> = list(project).map(|l| l.into_iter().map(|a| a.name).collect()).unwrap_or_default();
        Error::NotOnRoster(format!(
            "no one named `{}` is on the roster{}",
            name.trim(),
            if names.is_empty() {
                " (it is empty; add people with `forcebench annotators add`)".to_string()
            } else {
                format!(" ({})", names.join(", "))
            }
        ))
    })
}

const SELECT: &str = "SELECT a.id, a.name, a.role, a.created_at,
        (SELECT count(*) FROM assignments s WHERE s.annotator_id = a.id)
     FROM annotators a";

fn from_row(r: &rusqlite::Row) -> rusqlite::Result<Annotator> {
    let role: String = r.get(2)?;
    let role: Role = role
        .parse()
        .map_err(|e: String| rusqlite::Error::FromSqlConversionFailure(2, rusqlite::types::Type::Text, e.into()))?;
    Ok(Annotator {
        id: r.get(0)?,
        name: r.get(1)?,
        role,
        created_at: r.get(3)?,
        assigned: r.get(4)?,
        may_adjudicate: role.may_adjudicate(),
    })
}
