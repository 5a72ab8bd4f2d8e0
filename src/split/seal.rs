//! The seal of a locked split (issue 29): when a split is locked, the sha256 of every file its
//! export writes and its content hash are recorded (`split_seals`); every later export of that
//! version is compared with them before it is published, and one that would differ is refused
//! with `seal_broken`. The storage's triggers (`schema/0012_lock_seal.sql`) refuse the changes
//! that would make it differ (a frozen row's text, the names its labels carry); the seal catches
//! whatever got past them (a file edited with another tool, triggers dropped).
//!
//! A split locked before seals existed is sealed by its first export after the upgrade that
//! adds the table, as it exports then.

use rusqlite::{params, Connection, OptionalExtension};
use std::collections::BTreeMap;

use crate::error::{Error, Result};

/// Records the seal of locked split `split_id`: the hashes of its export (`files`, name ->
/// sha256, and `content_sha256`, as the export computes them).
pub(super) fn record(
    conn: &Connection,
    split_id: i64,
    files: &BTreeMap<String, String>,
    content_sha256: &str,
) -> Result<()> {
    conn.execute(
        "INSERT INTO split_seals (split_id, content_sha256, files_json, sealed_at) VALUES (?1, ?2, ?3, ?4)",
        params![
            split_id,
            content_sha256,
            serde_json::to_string(files).expect("file hashes serialise"),
            crate::project::now()
        ],
    )?;
    Ok(())
}

/// Seals locked split `version` with the hashes of an export just published, if it has no seal
/// (a split locked before seals existed: its first export after the upgrade seals it). Best
/// effort: a project that cannot be written now (another writer past the busy timeout, a
/// read-only file) is sealed by a later export.
pub(super) fn seal_if_unsealed(conn: &Connection, version: i64, files: &BTreeMap<String, String>, content: &str) {
    let _ = conn.execute(
        "INSERT INTO split_seals (split_id, content_sha256, files_json, sealed_at)
         SELECT id, ?2, ?3, ?4 FROM splits WHERE version = ?1 AND status = 'locked'
           AND id NOT IN (SELECT split_id FROM split_seals)",
        params![version, content, serde_json::to_string(files).expect("file hashes serialise"), crate::project::now()],
    );
}

/// The export files that name the build that wrote them (its version and commit): a later
/// build's export of the same locked split differs there and nowhere else, so they are left out
/// of the comparison. What they say of the split comes from the sealed files and the lock's own
/// record, which the content hash and the storage's triggers cover. (Comparing them refused every
/// export of a sealed split after the app was updated.)
const NAMES_THE_BUILD: [&str; 2] = ["manifest.json", "DATASHEET.md"];

/// Refuses an export of locked split `split_id` whose files (`files`, name -> sha256) or content
/// hash differ from its seal. A split with no seal (locked before seals existed, not exported
/// since) passes, and is sealed once its export is published ([`seal_if_unsealed`]).
pub(super) fn check(
    conn: &Connection,
    split_id: i64,
    version: i64,
    files: &BTreeMap<String, String>,
    content_sha256: &str,
) -> Result<()> {
    let seal: Option<(String, String)> = conn
        .query_row("SELECT content_sha256, files_json FROM split_seals WHERE split_id = ?1", [split_id], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()?;
    let Some((sealed_content, sealed_files)) = seal else { return Ok(()) };
    let sealed: BTreeMap<String, String> = serde_json::from_str(&sealed_files)
        .map_err(|e| Error::Corrupt(format!("the seal of split v{version} cannot be read: {e}")))?;
    let differing: Vec<&str> = super::EXPORT_FILES
        .iter()
        .copied()
        .filter(|name| !NAMES_THE_BUILD.contains(name) && files.get(*name) != sealed.get(*name))
        .collect();
    if differing.is_empty() && content_sha256 == sealed_content {
        return Ok(());
    }
    let named = if differing.is_empty() { "its content hash".to_string() } else { differing.join(", ") };
    Err(Error::SealBroken(format!(
        "split v{version}: this export would differ from the one sealed when the split was locked ({named}); \
         the project was changed outside ForceBench since the lock. Nothing was written (an earlier export \
         in the folder is as it was); restore the project from a backup (the `.bak` copies beside it) to \
         export this version again"
    )))
}
