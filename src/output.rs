//! Files and folders the tool writes where a person told it to (`--out`, `export DIR`): written
//! whole or not at all, never through a name someone else could have planted, never over a
//! ForceBench project, and with spreadsheet formulas in CSV cells made inert.
//!
//! **Atomic files.** [`write_file`] writes into a temporary sibling with a name nobody can
//! predict (`.NAME.<random>.forcebench-tmp.EXT`), created exclusively (an existing entry at that name,
//! a symlink included, makes creation fail instead of being followed), syncs it, and renames it
//! over `NAME`. A rename replaces a symlink at `NAME` itself, never the file it points to, so
//! nothing outside the target's folder is ever written.
//!
//! **Overwriting.** [`check_target`] is the policy of every `--out`: an existing file is
//! replaced only when the person said so (`--force`), and a ForceBench project (or one of its
//! SQLite companions, `-wal`, `-shm`, `-journal`) never is. Without `force`, [`write_file`] puts
//! the file in place with a rename that refuses an existing name, so a file that appears between
//! the check and the rename is not replaced either.
//!
//! **Inert CSV.** [`inert_cell`] neutralises a cell a spreadsheet would read as a formula, as
//! OWASP recommends (a single quote in front); [`literal_cell`] undoes it.
//!
//! **Renames.** [`exchange`] swaps two folders in one step (Linux `renameat2` with
//! `RENAME_EXCHANGE`); the split export uses it to put a new export folder in place.

use std::borrow::Cow;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Makes a write past the process's file size limit (`ulimit -f`) fail with an error instead of
/// ending the process. By default the system sends SIGXFSZ, which kills the process in the middle
/// of a write and leaves its temporary files behind; ignored, the write fails with EFBIG, which
/// every writer here reports (naming the file it was asked for) after removing what it wrote.
/// Called first thing by the command line and the app. An ignored signal stays ignored in
/// processes they start, as it does through `exec`.
pub fn ignore_file_size_signal() {
    #[cfg(unix)]
    // SAFETY: SIG_IGN is a valid disposition for SIGXFSZ; changing it touches no Rust state.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// A name nobody can predict for a temporary sibling of `path`: `.NAME.<random>.<kind>`.
pub(crate) fn temp_sibling(path: &Path, kind: &str) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let random = uuid::Uuid::new_v4().simple().to_string();
    path.with_file_name(format!(".{name}.{}.{kind}", &random[..16]))
}

/// Whether `path` is a ForceBench project file, or the `-wal`, `-shm` or `-journal` file SQLite
/// keeps beside one (replacing those would damage the project as surely).
pub fn is_project(path: &Path) -> bool {
    // Regular files only: opening a FIFO to read its header would wait forever.
    let project = |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.is_file()) && crate::db::check_header(p).is_ok();
    if project(path) {
        return true;
    }
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    ["-wal", "-shm", "-journal"].iter().any(|suffix| {
        name.strip_suffix(suffix).is_some_and(|base| !base.is_empty() && project(&path.with_file_name(base)))
    })
}

/// Refuses to write `path` when it names a folder or a ForceBench project, or an existing file
/// and `force` is false.
pub fn check_target(path: &Path, force: bool) -> Result<()> {
    // First, so that a project's `-wal` file is refused even while it does not exist.
    if is_project(path) {
        return Err(Error::OutputIsProject { path: path.to_path_buf() });
    }
    let meta = match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(path, e)),
        Ok(meta) => meta,
    };
    if meta.is_dir() {
        return Err(Error::BadOutputPath(format!(
            "{} is a folder; name a file to write (nothing was written)",
            path.display()
        )));
    }
    // A device or a pipe (`/dev/null`, a FIFO) would be replaced by the rename, not written to.
    if !meta.is_file() && !meta.file_type().is_symlink() {
        return Err(Error::BadOutputPath(format!(
            "{} is not a regular file (a device or a pipe); name a file to write (nothing was written)",
            path.display()
        )));
    }
    if !force {
        return Err(Error::OutputExists { path: path.to_path_buf() });
    }
    Ok(())
}

/// Refuses an output folder (`--out DIR` of a writer of several files) that is a symbolic link,
/// or a file: writing through a link would put the files (a packet's key among them)
/// wherever the link points, as `export` already refuses.
pub fn check_out_folder(dir: &Path) -> Result<()> {
    let meta = match std::fs::symlink_metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(dir, e)),
        Ok(meta) => meta,
    };
    if meta.file_type().is_symlink() {
        return Err(Error::BadOutputPath(format!(
            "{} is a symbolic link; write into a real folder (nothing was written)",
            dir.display()
        )));
    }
    if !meta.is_dir() {
        return Err(Error::BadOutputPath(format!("{} is a file, not a folder (nothing was written)", dir.display())));
    }
    Ok(())
}

/// The part of a file name that stands for a person's name: letters, digits, `-` and `_` kept,
/// anything else `_`; a name over 64 bytes is cut there and given 8 hex digits of its sha256, so
/// a 300-character name still makes a file name the system takes, and two long names
/// that begin alike still make two.
pub fn name_for_file(name: &str) -> String {
    use sha2::{Digest, Sha256};
    let safe: String =
        name.chars().map(|c| if c.is_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
    if safe.len() <= 64 {
        return safe;
    }
    let mut cut = 55;
    while !safe.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}-{}", &safe[..cut], &hex::encode(Sha256::digest(name.as_bytes()))[..8])
}

/// Writes `bytes` to `path` atomically (see the module documentation); an existing file is
/// replaced only with `force`, a project never.
pub fn write_file(path: &Path, bytes: &[u8], force: bool) -> Result<()> {
    write_through(path, force, |tmp| {
        let created = std::fs::OpenOptions::new().write(true).create_new(true).open(tmp);
        let mut file = created.map_err(|e| Error::io(tmp, e))?;
        file.write_all(bytes).map_err(|e| Error::io(tmp, e))
    })
}

/// Like [`write_file`], for a writer that needs a path of its own: `fill` writes the file at
/// the temporary path it is given (a name nobody can predict, ending in `path`'s extension, so
/// a writer that picks its format from the extension still can). It is then synced and put in
/// place; on any failure it is deleted and `path` is untouched.
pub fn write_through(path: &Path, force: bool, fill: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
    check_target(path, force)?;
    // Said here, naming the folder, rather than as a failure to create the temporary file. (Not in
    // `check_target`: a writer of several files checks them all before it creates their folder.)
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !parent.is_dir() {
        return Err(Error::BadOutputPath(format!(
            "{}: the folder {} does not exist; create it or name another (nothing was written)",
            path.display(),
            parent.display()
        )));
    }
    let ext = path.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
    let tmp = temp_sibling(path, &format!("forcebench-tmp{ext}"));
    if let Err(e) = fill(&tmp) {
        let _ = std::fs::remove_file(&tmp);
        // Said of the file asked for: the temporary name is nothing a person chose or will find.
        return Err(match e {
            Error::Io { path: failed, source } if failed == tmp => Error::io(path, source),
            other => other,
        });
    }
    let synced = std::fs::File::open(&tmp).and_then(|f| f.sync_all());
    let placed = synced.and_then(|()| if force { std::fs::rename(&tmp, path) } else { rename_no_replace(&tmp, path) });
    if let Err(e) = placed {
        let _ = std::fs::remove_file(&tmp);
        if e.kind() == std::io::ErrorKind::AlreadyExists {
            return Err(Error::OutputExists { path: path.to_path_buf() });
        }
        return Err(Error::io(path, e));
    }
    sync_folder_of(path);
    Ok(())
}

/// Writes several files into `dir` as one step (a report folder, the feedback files, the plots):
/// every target is checked, then every file is written under its temporary name and synced, and
/// only then are they renamed into place. A file that cannot be written (a full disk, a file size
/// limit) stops the step before anything is in place: the temporary files are removed, and so is
/// `dir` if this call created it, so no half set of files is left. The error names the file
/// asked for. An existing file is replaced only with `force`, a project never.
pub fn write_files(dir: &Path, files: &[(PathBuf, Vec<u8>)], force: bool) -> Result<()> {
    for (path, _) in files {
        check_target(path, force)?;
    }
    let made_dir = !dir.exists();
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let undo = |temps: &[PathBuf]| {
        for t in temps {
            let _ = std::fs::remove_file(t);
        }
        if made_dir {
            let _ = std::fs::remove_dir(dir);
        }
    };
    let mut temps: Vec<PathBuf> = Vec::with_capacity(files.len());
    for (path, bytes) in files {
        let tmp = temp_sibling(path, "forcebench-tmp");
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all()));
        if let Err(e) = written {
            if tmp.exists() {
                temps.push(tmp);
            }
            undo(&temps);
            return Err(Error::io(path, e));
        }
        temps.push(tmp);
    }
    for (at, ((path, _), tmp)) in files.iter().zip(&temps).enumerate() {
        let placed = if force { std::fs::rename(tmp, path) } else { rename_no_replace(tmp, path) };
        if let Err(e) = placed {
            for t in &temps[at..] {
                let _ = std::fs::remove_file(t);
            }
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                return Err(Error::OutputExists { path: path.clone() });
            }
            return Err(Error::io(path, e));
        }
    }
    sync_folder(dir);
    Ok(())
}

/// Renames `from` to `to` unless `to` exists (`AlreadyExists` then), in one step.
fn rename_no_replace(from: &Path, to: &Path) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    match renameat2(from, to, libc::RENAME_NOREPLACE) {
        // A file system without the flag falls back to a hard link, which refuses too.
        Err(e) if matches!(e.raw_os_error(), Some(libc::EINVAL) | Some(libc::ENOSYS)) => {}
        other => return other,
    }
    std::fs::hard_link(from, to)?;
    std::fs::remove_file(from)
}

#[cfg(target_os = "linux")]
fn renameat2(from: &Path, to: &Path, flags: libc::c_uint) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| std::ffi::CString::new(p.as_os_str().as_bytes()).map_err(std::io::Error::other);
    let (from, to) = (c(from)?, c(to)?);
    // SAFETY: both are valid NUL-terminated paths that outlive the call.
    let rc = unsafe { libc::renameat2(libc::AT_FDCWD, from.as_ptr(), libc::AT_FDCWD, to.as_ptr(), flags) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Swaps the folders `a` and `b` in one atomic step: afterwards `a` holds what `b` held and the
/// other way round. `Unsupported` where the system cannot do it in one step.
pub(crate) fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    return renameat2(a, b, libc::RENAME_EXCHANGE);
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (a, b);
        Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
    }
}

/// Syncs the folder holding `path`, so a rename in it survives a power cut (best effort: not
/// every system can sync a folder).
pub(crate) fn sync_folder_of(path: &Path) {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    sync_folder(folder);
}

pub(crate) fn sync_folder(folder: &Path) {
    #[cfg(unix)]
    let _ = std::fs::File::open(folder).and_then(|d| d.sync_all());
    #[cfg(not(unix))]
    let _ = folder;
}

/// The characters a spreadsheet reads as the start of a formula (OWASP's list: `=`, `+`, `-`,
/// `@`, tab, carriage return).
pub const FORMULA_START: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// A CSV cell a spreadsheet shows as text: a cell beginning with one of [`FORMULA_START`] gets a
/// single quote in front, and so does a cell already beginning with a single quote (so that
/// [`literal_cell`] gives every text back exactly).
pub fn inert_cell(text: &str) -> Cow<'_, str> {
    if text.starts_with(FORMULA_START) || text.starts_with('\'') {
        Cow::Owned(format!("'{text}"))
    } else {
        Cow::Borrowed(text)
    }
}

/// The text of a cell written by [`inert_cell`].
pub fn literal_cell(cell: &str) -> &str {
    cell.strip_prefix('\'').unwrap_or(cell)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inert_cells_round_trip() {
        for text in ["=1+2", "+1", "-2", "@SUM(A1)", "\tx", "\rx", "'quoted", "''", "plain", "", "a=b"] {
            let cell = inert_cell(text);
            assert!(!cell.starts_with(FORMULA_START), "{text:?} -> {cell:?}");
            assert_eq!(literal_cell(&cell), text);
        }
        assert_eq!(inert_cell("=HYPERLINK(\"x\")"), "'=HYPERLINK(\"x\")");
        assert_eq!(inert_cell("plain"), "plain");
    }
}
