//! The seal of a locked split: when a split is locked, the sha256 of every file its
//! export writes and its content hash are recorded (`split_seals`); every later export of that
//! version is compared with them before it is published, and one that would differ is refused
//! with `seal_broken`. The storage's triggers (`schema/0012_lock_seal.sql`) refuse the changes
//! that would make it differ (a frozen row's text, the names its labels carry); the seal catches
//! whatever got past them (a file edited with another tool, triggers dropped).
//!
//! Two of the export's files name the build that wrote them (`manifest.json`, `DATASHEET.md`),
//! so their hashes cannot be compared across builds; everything else they say comes from the
//! manifest stored at the lock (`splits.manifest_json`: the project's name, the lock date, the
//! counts, the agreement at lock). The seal records that text's sha256 too
//! ([`STORED_MANIFEST`]), so an edit of it in storage is refused like an edit of a row.
//!
//! A split locked before seals existed is sealed by its first export after the upgrade that
//! adds the table, as it exports then. Every split locked since is sealed in its lock's own
//! transaction, so a seal missing from one of those was removed outside ForceBench: its export
//! is refused, never sealed again as it stands now.

use rusqlite::{params, Connection, OptionalExtension};
use std::collections::BTreeMap;

use crate::error::{Error, Result};

/// The entry of a seal's file hashes that holds the sha256 of the split's stored manifest (not an
/// export file: no file has this name).
pub(super) const STORED_MANIFEST: &str = "splits.manifest_json";

/// The sha256 of locked split `split_id`'s stored manifest, as its text is stored.
fn stored_manifest_sha256(conn: &Connection, split_id: i64) -> Result<Option<String>> {
    use sha2::{Digest, Sha256};
    let text: Option<String> = conn
        .query_row("SELECT manifest_json FROM splits WHERE id = ?1", [split_id], |r| r.get(0))
        .optional()?
        .flatten();
    Ok(text.map(|t| hex::encode(Sha256::digest(t.as_bytes()))))
}

/// `files` with the stored manifest's hash added under [`STORED_MANIFEST`].
fn with_stored_manifest(
    conn: &Connection,
    split_id: i64,
    files: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, String>> {
    let mut all = files.clone();
    if let Some(sha) = stored_manifest_sha256(conn, split_id)? {
        all.insert(STORED_MANIFEST.to_string(), sha);
    }
    Ok(all)
}

/// Records the seal of locked split `split_id`: the hashes of its export (`files`, name ->
/// sha256, and `content_sha256`, as the export computes them) and of its stored manifest.
pub(super) fn record(
    conn: &Connection,
    split_id: i64,
    files: &BTreeMap<String, String>,
    content_sha256: &str,
) -> Result<()> {
    let files = with_stored_manifest(conn, split_id, files)?;
    conn.execute(
        "INSERT INTO split_seals (split_id, content_sha256, files_json, sealed_at) VALUES (?1, ?2, ?3, ?4)",
        params![
            split_id,
            content_sha256,
            serde_json::to_string(&files).expect("file hashes serialise"),
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
    let split_id = conn.query_row("SELECT id FROM splits WHERE version = ?1", [version], |r| r.get::<_, i64>(0));
    let files = match split_id.map_err(Error::from).and_then(|id| with_stored_manifest(conn, id, files)) {
        Ok(files) => files,
        Err(_) => return,
    };
    let _ = conn.execute(
        "INSERT INTO split_seals (split_id, content_sha256, files_json, sealed_at)
         SELECT id, ?2, ?3, ?4 FROM splits WHERE version = ?1 AND status = 'locked'
           AND id NOT IN (SELECT split_id FROM split_seals)",
        params![version, content, serde_json::to_string(&files).expect("file hashes serialise"), crate::project::now()],
    );
}

/// The export files that name the build that wrote them (its version and commit): a later
/// build's export of the same locked split differs there and nowhere else, so they are left out
/// of the comparison. What they say of the split comes from the sealed files and the lock's own
/// record, which the content hash and the storage's triggers cover. (Comparing them refused every
/// export of a sealed split after the app was updated.)
const NAMES_THE_BUILD: [&str; 2] = ["manifest.json", "DATASHEET.md"];

/// Whether locked split `split_id` was locked by a build that seals every lock in the lock's own
/// transaction. Its stored manifest says so: `by_family` is written by every build since the one
/// after seals came (the one build between wrote seals but not `by_family`; its splits are taken
/// as older, and sealed by their first export as those are).
fn sealed_at_lock(stored: &serde_json::Value) -> bool {
    stored.get("by_family").is_some()
}

/// Refuses an export of locked split `split_id` whose files (`files`, name -> sha256), content
/// hash or stored manifest differ from its seal, and one of a split sealed at its lock whose seal
/// is gone. A split locked before seals existed (not exported since) passes, and is sealed once
/// its export is published ([`seal_if_unsealed`]).
pub(super) fn check(
    conn: &Connection,
    split_id: i64,
    version: i64,
    stored: &serde_json::Value,
    files: &BTreeMap<String, String>,
    content_sha256: &str,
) -> Result<()> {
    let seal: Option<(String, String)> = conn
        .query_row("SELECT content_sha256, files_json FROM split_seals WHERE split_id = ?1", [split_id], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()?;
    let Some((sealed_content, sealed_files)) = seal else {
        if sealed_at_lock(stored) {
            return Err(Error::SealBroken(format!(
                "split v{version} has no seal, though it was sealed when it was locked: the seal was removed outside \
                 ForceBench, and sealing the split again as it stands now would vouch for whatever was changed. \
                 Nothing was written; restore the project from a backup (the `.bak` copies beside it) to export \
                 this version again"
            )));
        }
        return Ok(());
    };
    let sealed: BTreeMap<String, String> = serde_json::from_str(&sealed_files)
        .map_err(|e| Error::Corrupt(format!("the seal of split v{version} cannot be read: {e}")))?;
    let mut differing: Vec<&str> = super::EXPORT_FILES
        .iter()
        .copied()
        .filter(|name| !NAMES_THE_BUILD.contains(name) && files.get(*name) != sealed.get(*name))
        .collect();
    // A seal made before the stored manifest was sealed has no entry for it.
    if let Some(sealed_manifest) = sealed.get(STORED_MANIFEST) {
        if stored_manifest_sha256(conn, split_id)?.as_ref() != Some(sealed_manifest) {
            differing.push(
                "the stored manifest that manifest.json and DATASHEET.md are written from: the project name, the \
                 lock date, the counts, the agreement at lock",
            );
        }
    }
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
