//! The annotation guideline, as versions.
//!
//! The guideline that ships with ForceBench (`docs/guideline.md`, written by the team in its own
//! words) is version "1" of every project. When hard cases call for a clarification, the lead
//! publishes a new version (`forcebench guideline publish FILE --version LABEL --note TEXT`); the
//! latest is in force. Every annotation event, adjudication and adjudication event records the
//! label of the version in force, packets carry the version they were issued under (its text
//! too, so the annotator's app shows it), and a merge says when a newer version was published
//! while a packet was out. Labels made before versions existed read as "1".

use rusqlite::{params, OptionalExtension};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::path::Path;
use ts_rs::TS;

use crate::error::{Error, Result};
use crate::project::{now, Project};

/// The guideline as Markdown: `#`/`##` headings, `-` bullets, numbered steps, paragraphs.
pub const GUIDELINE: &str = include_str!("../docs/guideline.md");

/// The label of the guideline that ships with ForceBench.
pub const FIRST: &str = "1";

/// Version "2", the team's wording of the ForceBench paper's guideline (one dominant
/// axis, complete axis definitions, severity 3 as the paper has it). A new project has it in
/// force; a project that already held rows keeps its version until the lead publishes this one
/// (`forcebench guideline publish docs/guideline-v2.md --version 2`).
pub const GUIDELINE_V2: &str = include_str!("../docs/guideline-v2.md");

/// The label [`GUIDELINE_V2`] is published under.
pub const PAPER: &str = "2";

/// One published version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct Version {
    pub label: String,
    pub text: String,
    pub sha256: String,
    pub published_at: String,
    pub published_by: String,
    /// What changed from the previous version, in the lead's words.
    pub note: Option<String>,
}

/// A version as `guideline list` shows it (without its text).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct VersionSummary {
    pub label: String,
    pub sha256: String,
    pub published_at: String,
    pub published_by: String,
    pub note: Option<String>,
    /// The version in force (the latest).
    pub current: bool,
}

fn sha(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

fn version_from(r: &rusqlite::Row) -> rusqlite::Result<Version> {
    Ok(Version {
        label: r.get(0)?,
        text: r.get(1)?,
        sha256: r.get(2)?,
        published_at: r.get(3)?,
        published_by: r.get(4)?,
        note: r.get(5)?,
    })
}

const SELECT: &str = "SELECT label, text, sha256, published_at, published_by, note FROM guideline_versions";

/// The label of the version in force (the latest published).
pub fn current_label(conn: &rusqlite::Connection) -> Result<String> {
    Ok(conn
        .prepare_cached("SELECT label FROM guideline_versions ORDER BY id DESC LIMIT 1")?
        .query_row([], |r| r.get(0))
        .optional()?
        .unwrap_or_else(|| FIRST.to_string()))
}

/// The version in force.
pub fn current(project: &Project) -> Result<Version> {
    project
        .conn()
        .query_row(&format!("{SELECT} ORDER BY id DESC LIMIT 1"), [], version_from)
        .optional()?
        .ok_or_else(|| Error::Corrupt("the project has no guideline version".into()))
}

/// The version with `label`.
pub fn get(project: &Project, label: &str) -> Result<Version> {
    project
        .conn()
        .query_row(&format!("{SELECT} WHERE label = ?1"), [label.trim()], version_from)
        .optional()?
        .ok_or_else(|| {
            let labels: Vec<String> =
                list(project).map(|l| l.into_iter().map(|v| v.label).collect()).unwrap_or_default();
            Error::NoGuidelineVersion(format!(
                "there is no guideline version `{}` (published: {})",
                label.trim(),
                labels.join(", ")
            ))
        })
}

/// The version published before `label`, if any.
pub fn previous(project: &Project, label: &str) -> Result<Option<Version>> {
    Ok(project
        .conn()
        .query_row(
            &format!(
                "{SELECT} WHERE id < (SELECT id FROM guideline_versions WHERE label = ?1) ORDER BY id DESC LIMIT 1"
            ),
            [label.trim()],
            version_from,
        )
        .optional()?)
}

/// Every version, oldest first.
pub fn list(project: &Project) -> Result<Vec<VersionSummary>> {
    let current = current_label(project.conn())?;
    let mut stmt = project
        .conn()
        .prepare("SELECT label, sha256, published_at, published_by, note FROM guideline_versions ORDER BY id")?;
    let rows = stmt.query_map([], |r| {
        let label: String = r.get(0)?;
        Ok(VersionSummary {
            current: label == current,
            label,
            sha256: r.get(1)?,
            published_at: r.get(2)?,
            published_by: r.get(3)?,
            note: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Publishes the guideline in `file` as version `label`; it is in force from now on. Refused in
/// an annotator's workspace (whose version comes from its packet), for a label already used, and
/// for text identical to the version in force.
pub fn publish(project: &mut Project, file: &Path, label: &str, note: Option<&str>, by: &str) -> Result<Version> {
    let by: &str = &crate::input::name_key(by)?;
    if crate::settings::place(project.conn())? != crate::settings::Place::Lead {
        return Err(Error::LeadOnly(
            "this is an annotator's workspace: its guideline comes from its packet; the lead publishes versions in the project"
                .into(),
        ));
    }
    let label = label.trim();
    if label.is_empty() {
        return Err(Error::InvalidArgument("a guideline version needs a label (--version)".into()));
    }
    crate::input::check_identifier("guideline version", label).map_err(Error::InvalidArgument)?;
    // Read as every input is (UTF-8, no NUL, no line over 1 MiB), and refused in one line that
    // says what was not done: a guideline is published, not imported.
    let (_, text) = crate::input::read_text(file).map_err(|e| match e {
        Error::InvalidInput { problems, .. } if problems.len() == 1 => {
            let p = &problems[0];
            let at = p.line.map_or(String::new(), |l| format!(":{l}"));
            Error::UnreadableInput {
                file: format!("{}{at}:", p.file),
                message: format!("{}; nothing was published", p.message),
            }
        }
        other => other,
    })?;
    if crate::input::is_blank(&text) {
        return Err(Error::InvalidArgument(format!("{}: the guideline is empty", file.display())));
    }
    let tx = project.conn_mut().transaction()?;
    let taken: bool =
        tx.query_row("SELECT EXISTS (SELECT 1 FROM guideline_versions WHERE label = ?1)", [label], |r| r.get(0))?;
    if taken {
        return Err(Error::AlreadyDone(format!(
            "guideline version `{label}` is already published; choose a new label"
        )));
    }
    let (current, current_sha): (String, String) =
        tx.query_row("SELECT label, sha256 FROM guideline_versions ORDER BY id DESC LIMIT 1", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
    if current_sha == sha(&text) {
        return Err(Error::AlreadyDone(format!(
            "{} is the text of version `{current}`, which is in force; nothing was published",
            file.display()
        )));
    }
    let version = Version {
        label: label.to_string(),
        sha256: sha(&text),
        text,
        published_at: now(),
        published_by: by.trim().to_string(),
        note: note.map(str::trim).filter(|n| !n.is_empty()).map(String::from),
    };
    tx.execute(
        "INSERT INTO guideline_versions (label, text, sha256, published_at, published_by, note) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![version.label, version.text, version.sha256, version.published_at, version.published_by, version.note],
    )?;
    tx.commit()?;
    Ok(version)
}

/// One line of the difference between two versions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct DiffLine {
    /// `same`, `added` or `removed`.
    pub change: String,
    pub text: String,
}

/// What changed from the previous version to `label`, line by line (empty for the first).
pub fn changes(project: &Project, label: &str) -> Result<Vec<DiffLine>> {
    let version = get(project, label)?;
    let Some(before) = previous(project, label)? else { return Ok(Vec::new()) };
    Ok(similar::TextDiff::from_lines(&before.text, &version.text)
        .iter_all_changes()
        .map(|c| DiffLine {
            change: match c.tag() {
                similar::ChangeTag::Equal => "same",
                similar::ChangeTag::Insert => "added",
                similar::ChangeTag::Delete => "removed",
            }
            .to_string(),
            text: c.value().trim_end_matches('\n').to_string(),
        })
        .collect())
}

/// Makes `version` the only version of a new annotator's workspace (its packet's).
pub(crate) fn set_for_workspace(tx: &rusqlite::Connection, label: &str, text: &str) -> Result<()> {
    tx.execute("DELETE FROM guideline_versions", [])?;
    tx.execute(
        "INSERT INTO guideline_versions (label, text, sha256, published_at, published_by, note)
         VALUES (?1, ?2, ?3, ?4, 'the lead (from the packet)', NULL)",
        params![label, text, sha(text), now()],
    )?;
    Ok(())
}

/// The guideline as the app shows it: the version in force, and what changed from the one
/// before (empty for the first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct InForce {
    pub version: Version,
    pub previous: Option<String>,
    pub changes: Vec<DiffLine>,
}

/// The version in force with its changes (see [`InForce`]).
pub fn in_force(project: &Project) -> Result<InForce> {
    let version = current(project)?;
    let previous = previous(project, &version.label)?.map(|v| v.label);
    let changes = changes(project, &version.label)?;
    Ok(InForce { version, previous, changes })
}
