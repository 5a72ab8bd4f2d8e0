//! Putting an export folder in place in one step: at any instant, a crash included, `DIR` holds
//! either the complete earlier export or the complete new one.
//!
//! [`Staging::prepare`] checks `DIR` (absent, an empty folder, or an earlier export: a folder
//! holding only export files, with a ForceBench manifest; anything else is refused before
//! anything is written) and creates a fresh sibling `.DIRNAME.<random>.forcebench-export` in
//! `DIR`'s parent, exclusively, so no name in it can have been planted. The export is written
//! there. [`Staging::publish`] then puts it in place:
//! - `DIR` absent: one rename of the sibling to `DIR`;
//! - `DIR` present: the two folders are exchanged atomically (Linux `renameat2` with
//!   `RENAME_EXCHANGE`) and the sibling, now holding the earlier export, is deleted. Where the
//!   system cannot exchange folders, `DIR` is first renamed aside to
//!   `.DIRNAME.<random>.forcebench-old` and the new folder renamed in: a crash between those two
//!   renames leaves no `DIR`, and the earlier export whole in that sibling.
//!
//! A crash leaves at most one such sibling; the next export to `DIR` deletes it (unless an export
//! running at the same time holds it locked: it is that export's folder).

use std::path::{Path, PathBuf};

use super::MANIFEST_FORMAT;
use crate::crashpoint::hit;
use crate::error::{Error, Result};
use crate::output;

/// The files an export writes, in writing order.
pub const EXPORT_FILES: [&str; 9] = [
    "eval.jsonl",
    "eval.csv",
    "benchmark.jsonl",
    "annotations.jsonl",
    "adjudications.jsonl",
    "rejected.jsonl",
    "locality_removed.jsonl",
    "DATASHEET.md",
    "manifest.json",
];

/// The suffixes of the siblings an export makes next to `DIR`.
const STAGE_KIND: &str = "forcebench-export";
const ASIDE_KIND: &str = "forcebench-old";

/// A new export being written beside `DIR`.
pub(super) struct Staging {
    dir: PathBuf,
    stage: PathBuf,
    /// The folders above `DIR` this export created, deepest first (removed again if it fails).
    created: Vec<PathBuf>,
    /// An advisory lock on the new folder while the export runs, so that another export to
    /// `DIR` does not take it for a crash's leftover (where folders can be locked).
    _lock: Option<std::fs::File>,
}

impl Staging {
    /// Checks `dir`, deletes what a crashed export left beside it, and creates the folder the
    /// new export is written into.
    pub(super) fn prepare(dir: &Path) -> Result<Staging> {
        let Some(name) = dir.file_name() else {
            return Err(Error::BadOutputPath(format!(
                "{}: name the folder to export into (not `.` or `..`); nothing was written",
                dir.display()
            )));
        };
        let parent = match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        check_replaceable(dir)?;
        let created: Vec<PathBuf> = parent
            .ancestors()
            .take_while(|a| !a.as_os_str().is_empty() && !a.exists())
            .map(Path::to_path_buf)
            .collect();
        std::fs::create_dir_all(&parent).map_err(|e| Error::io(&parent, e))?;
        remove_leftovers(&parent, &name.to_string_lossy());
        let stage = output::temp_sibling(dir, STAGE_KIND);
        let mut staging = Staging { dir: dir.to_path_buf(), stage, created, _lock: None };
        if let Err(e) = std::fs::create_dir(&staging.stage) {
            let err = Error::io(&staging.stage, e);
            staging.discard();
            return Err(err);
        }
        staging._lock = std::fs::File::open(&staging.stage).ok().filter(|f| f.lock().is_ok());
        Ok(staging)
    }

    /// The folder to write the export's files into.
    pub(super) fn path(&self) -> &Path {
        &self.stage
    }

    /// Puts the written export in place at `DIR` (see the module documentation).
    pub(super) fn publish(self) -> Result<()> {
        output::sync_folder(&self.stage);
        hit("export:staged");
        let placed = match std::fs::symlink_metadata(&self.dir) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::rename(&self.stage, &self.dir).map_err(|e| Error::io(&self.dir, e)).map(|()| None)
            }
            _ => check_replaceable(&self.dir).and_then(|()| self.swap()).map(Some),
        };
        let old = match placed {
            Ok(old) => old,
            Err(e) => {
                self.discard();
                return Err(e);
            }
        };
        output::sync_folder_of(&self.dir);
        if let Some(old) = old {
            hit("export:exchanged");
            // The earlier export: out of place already, so failing to delete it harms nothing
            // (the next export deletes it).
            let _ = std::fs::remove_dir_all(old);
        }
        hit("export:placed");
        Ok(())
    }

    /// Exchanges the new folder with `DIR`; returns where the earlier export now is.
    fn swap(&self) -> Result<PathBuf> {
        match output::exchange(&self.stage, &self.dir) {
            Ok(()) => return Ok(self.stage.clone()),
            Err(e) if !cannot_exchange(&e) => return Err(Error::io(&self.dir, e)),
            Err(_) => {}
        }
        let aside = output::temp_sibling(&self.dir, ASIDE_KIND);
        std::fs::rename(&self.dir, &aside).map_err(|e| Error::io(&self.dir, e))?;
        hit("export:set-aside");
        if let Err(e) = std::fs::rename(&self.stage, &self.dir) {
            // Put the earlier export back.
            let _ = std::fs::rename(&aside, &self.dir);
            return Err(Error::io(&self.dir, e));
        }
        Ok(aside)
    }

    /// Deletes the new folder, and the folders above `DIR` the export created, after a failure;
    /// `DIR` was never touched.
    pub(super) fn discard(self) {
        let _ = std::fs::remove_dir_all(&self.stage);
        for folder in &self.created {
            // Only while empty: whatever else appeared there stays.
            let _ = std::fs::remove_dir(folder);
        }
    }
}

/// Whether an exchange failed only because the system or file system cannot do it.
fn cannot_exchange(e: &std::io::Error) -> bool {
    if e.kind() == std::io::ErrorKind::Unsupported {
        return true;
    }
    #[cfg(target_os = "linux")]
    return matches!(e.raw_os_error(), Some(libc::EINVAL) | Some(libc::ENOSYS));
    #[cfg(not(target_os = "linux"))]
    false
}

/// Refuses `dir` unless it is absent, an empty folder, or an earlier export: only export files
/// (regular files, none of them a project) and a ForceBench manifest. Another person's files
/// are never swapped away.
fn check_replaceable(dir: &Path) -> Result<()> {
    let meta = match std::fs::symlink_metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(dir, e)),
        Ok(meta) => meta,
    };
    let refuse = |why: String| Err(Error::BadOutputPath(format!("{}: {why}; nothing was written", dir.display())));
    if meta.file_type().is_symlink() {
        return refuse("is a symbolic link; export into a real folder".into());
    }
    if !meta.is_dir() {
        return refuse("is a file, not a folder; name a new folder or an earlier export's".into());
    }
    let mut foreign = Vec::new();
    let mut any = false;
    for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let regular = entry.file_type().is_ok_and(|t| t.is_file());
        // An earlier export's evaluation release (a real folder, never a symlink) goes with it.
        if name == super::RELEASE_DIR && entry.file_type().is_ok_and(|t| t.is_dir()) {
            any = true;
            continue;
        }
        if !regular || !EXPORT_FILES.contains(&name.as_str()) || output::is_project(&entry.path()) {
            foreign.push(name);
        }
        any = true;
    }
    if !foreign.is_empty() {
        foreign.sort();
        let shown: Vec<String> = foreign.iter().take(5).map(|n| format!("`{n}`")).collect();
        let more = if foreign.len() > 5 { format!(" and {} more", foreign.len() - 5) } else { String::new() };
        return refuse(format!(
            "holds files that are not part of a ForceBench export ({}{more}); export into a new or empty folder, or into an earlier export's folder",
            shown.join(", ")
        ));
    }
    if any && !has_our_manifest(dir) {
        return refuse("is not an earlier ForceBench export (its manifest.json is missing or not a ForceBench split manifest); export into a new or empty folder".into());
    }
    Ok(())
}

fn has_our_manifest(dir: &Path) -> bool {
    std::fs::read(dir.join("manifest.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .is_some_and(|m| m["format"] == MANIFEST_FORMAT)
}

/// Deletes the folders crashed exports to `DIR` left in `parent` (named
/// `.DIRNAME.<16 hex digits>.forcebench-export` or `.forcebench-old`; folders only, never
/// followed through a symlink), leaving any that a running export holds locked.
fn remove_leftovers(parent: &Path, name: &str) {
    let Ok(entries) = std::fs::read_dir(parent) else { return };
    let prefix = format!(".{name}.");
    for entry in entries.flatten() {
        let file_name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = file_name.strip_prefix(&prefix) else { continue };
        let ours = [STAGE_KIND, ASIDE_KIND].iter().any(|kind| {
            rest.strip_suffix(kind)
                .and_then(|r| r.strip_suffix('.'))
                .is_some_and(|random| random.len() == 16 && random.bytes().all(|b| b.is_ascii_hexdigit()))
        });
        let in_use = || {
            std::fs::File::open(entry.path())
                .is_ok_and(|f| matches!(f.try_lock(), Err(std::fs::TryLockError::WouldBlock)))
        };
        if ours && entry.file_type().is_ok_and(|t| t.is_dir()) && !in_use() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}
