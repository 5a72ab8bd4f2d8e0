//! Storage: opening project files, connection pragmas and schema migrations.
//!
//! Migrations are the SQL files in `schema/`, embedded at build time and versioned through
//! SQLite's `user_version` (rusqlite_migration); each runs in one transaction. To change the
//! schema, add `schema/000N_*.sql` and append it to [`migrations`]; never edit a released file.
//! The SQLite `application_id` header field marks a file as a ForceBench project, which lets a
//! foreign file be refused by reading its header, before SQLite ever writes to it.

use rusqlite::Connection;
use rusqlite_migration::{Migrations, M};
use serde::Serialize;
use std::io::Read;
use std::path::{Path, PathBuf};
use ts_rs::TS;

use crate::error::{Error, Result};

pub(crate) mod adjudication_records;
pub(crate) mod check_lists;
pub(crate) mod grouped_events;

/// "FBNC" in ASCII: the `application_id` of every ForceBench project file.
pub const APPLICATION_ID: i32 = 0x4642_4E43;

/// How long a connection waits for another writer before giving up. The longest single write
/// transaction measured is a 20,000-row packet merge (4.7-5.8 s on a loaded 2-core machine;
/// `cargo bench --bench merge`), so a save made meanwhile must be able to wait longer than that.
pub const BUSY_TIMEOUT_MS: u32 = 15_000;

const MIGRATION_SQL: &[&str] = &[
    include_str!("../schema/0001_init.sql"),
    include_str!("../schema/0002_workspaces.sql"),
    include_str!("../schema/0003_event_indexes.sql"),
    include_str!("../schema/0004_adjudication_sources.sql"),
    include_str!("../schema/0005_keyed_tables.sql"),
    include_str!("../schema/0006_lock_freezes_rows.sql"),
    include_str!("../schema/0007_packet_integrity.sql"),
    include_str!("../schema/0008_suggestion_mode.sql"),
    include_str!("../schema/0009_judge_runs.sql"),
    include_str!("../schema/0010_guideline_versions.sql"),
    include_str!("../schema/0011_judge_fidelity.sql"),
    include_str!("../schema/0012_lock_seal.sql"),
    include_str!("../schema/0013_construction_family.sql"),
    include_str!("../schema/0014_discussion_needs_a_note.sql"),
    include_str!("../schema/0015_contexts.sql"),
    include_str!("../schema/0016_construction_record.sql"),
    include_str!("../schema/0017_suggestions_once.sql"),
    include_str!("../schema/0018_compact_record.sql"),
    include_str!("../schema/0019_grouped_events.sql"),
    include_str!("../schema/0020_qc_failures.sql"),
    include_str!("../schema/0021_adjudication_records.sql"),
    include_str!("../schema/0022_checks_without_lists.sql"),
];

pub fn migrations() -> Migrations<'static> {
    Migrations::new(
        MIGRATION_SQL
            .iter()
            .enumerate()
            .map(|(i, sql)| match i + 1 {
                // The bundled guideline becomes version 1 in the same step as its table.
                10 => M::up_with_hook(sql, |tx: &rusqlite::Transaction| seed_first_guideline(tx).map_err(Into::into)),
                // A new project gets the paper's guideline as version 2.
                _ if *sql == include_str!("../schema/0013_construction_family.sql") => {
                    M::up_with_hook(sql, |tx: &rusqlite::Transaction| seed_second_guideline(tx).map_err(Into::into))
                }
                // The pre-fills and confirmations already written become records in the same step as the column.
                _ if *sql == include_str!("../schema/0019_grouped_events.sql") => {
                    M::up_with_hook(sql, |tx: &rusqlite::Transaction| grouped_events::collapse(tx).map_err(Into::into))
                }
                // The first values of adjudications already written become records in the same step as the column.
                _ if *sql == include_str!("../schema/0021_adjudication_records.sql") => {
                    M::up_with_hook(sql, |tx: &rusqlite::Transaction| {
                        adjudication_records::collapse(tx).map_err(Into::into)
                    })
                }
                // The CHECKs that listed values are spelled out as comparisons, in the schema's text.
                _ if *sql == include_str!("../schema/0022_checks_without_lists.sql") => {
                    M::up_with_hook(sql, |tx: &rusqlite::Transaction| check_lists::rewrite(tx))
                }
                _ => M::up(sql),
            })
            .collect(),
    )
}

/// Writes version "1", the guideline that ships with ForceBench (`docs/guideline.md`, the text
/// `guideline::GUIDELINE` holds), into the empty version table the tenth migration creates, so
/// every project, old or new, has it.
fn seed_first_guideline(tx: &rusqlite::Transaction) -> rusqlite::Result<()> {
    use sha2::{Digest, Sha256};
    let text = include_str!("../docs/guideline.md");
    tx.execute(
        "INSERT INTO guideline_versions (label, text, sha256, published_at, published_by, note)
         SELECT '1', ?1, ?2, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), 'ForceBench', 'the guideline that ships with ForceBench'
         WHERE NOT EXISTS (SELECT 1 FROM guideline_versions)",
        rusqlite::params![text, hex::encode(Sha256::digest(text.as_bytes()))],
    )?;
    Ok(())
}

/// Publishes version "2", the team's wording of the ForceBench paper's guideline
/// (`docs/guideline-v2.md`), in a project that holds no candidates yet (a new project). A project
/// with rows keeps the version in force; its lead publishes version 2 when they choose. Labels
/// keep the version they were made under.
fn seed_second_guideline(tx: &rusqlite::Transaction) -> rusqlite::Result<()> {
    use sha2::{Digest, Sha256};
    let text = include_str!("../docs/guideline-v2.md");
    tx.execute(
        "INSERT INTO guideline_versions (label, text, sha256, published_at, published_by, note)
         SELECT '2', ?1, ?2, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), 'ForceBench', ?3
         WHERE NOT EXISTS (SELECT 1 FROM candidates) AND NOT EXISTS (SELECT 1 FROM guideline_versions WHERE label = '2')",
        rusqlite::params![
            text,
            hex::encode(Sha256::digest(text.as_bytes())),
            "the paper's guideline: one dominant axis accepted (several shifts rejected only with no clear primary axis), complete axis definitions, severity 3 for any high-impact or strongly misleading mismatch"
        ],
    )?;
    Ok(())
}

/// The latest schema version that stores the same record in fewer bytes (schema/0018: QC results
/// and event uids; schema/0019: records of grouped events; schema/0020: QC failures only;
/// schema/0021: records of adjudications' first values): an upgrade from before it rewrites the
/// file once.
const COMPACT_RECORD_VERSION: i64 = 21;

/// The schema version this build writes (the number of migrations).
pub fn latest_version() -> i64 {
    MIGRATION_SQL.len() as i64
}

/// The everyday page cache: 64 MiB (negative sizes are in KiB).
pub const CACHE_SIZE: i64 = -65_536;

/// The page cache of one bulk write ([`crate::project::Project::bulk`]): up to 1 GiB, taken only
/// as pages are touched and given back when the write ends.
pub const BULK_CACHE_SIZE: i64 = -1_048_576;

/// Sets the pragmas every connection uses: WAL, enforced foreign keys, fully synchronous commits
/// (a label acknowledged as saved survives a crash or power loss), and a busy timeout.
///
/// Every transaction begins `IMMEDIATE`: it takes the write lock when it starts, waiting up to
/// the busy timeout for another writer. A deferred transaction that reads first and writes later
/// cannot wait (SQLite refuses its upgrade at once with "database is locked", since its snapshot
/// may be stale), so two writers at once failed instead of taking turns.
pub fn configure(conn: &mut Connection) -> Result<()> {
    conn.set_transaction_behavior(rusqlite::TransactionBehavior::Immediate);
    conn.busy_timeout(std::time::Duration::from_millis(BUSY_TIMEOUT_MS as u64))?;
    conn.pragma_update(None, "foreign_keys", true)?;
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") && !mode.eq_ignore_ascii_case("memory") {
        return Err(Error::Internal(format!("could not enable WAL journal (got {mode})")));
    }
    conn.pragma_update(None, "synchronous", "FULL")?;
    // A 64 MiB page cache and memory-mapped reads: the default 2 MiB cache made whole-project
    // reads (agreement, split, export) re-read pages from the OS on every pass.
    conn.pragma_update(None, "cache_size", CACHE_SIZE)?;
    conn.pragma_update(None, "mmap_size", 1_i64 << 30)?;
    Ok(())
}

/// Gives back the pages of the project file that reads mapped into this process.
///
/// SQLite reads the file through a memory map ([`configure`]), and every page a read touched
/// stays mapped, counted in the process's resident memory, for as long as the connection is open:
/// after a whole-table read (the status, agreement, the adjudication queue, QC, an export) that is
/// the whole of those tables, where what the caller keeps is far smaller (docs/benchmarks.md).
/// Setting the map's size to 0 and back unmaps it (SQLite does so when no page of it is in use, as
/// once every statement has finished); the pages stay in the system's file cache, and the next
/// read maps what it touches again, at the cost of a minor page fault per page.
pub fn unmap_pages(conn: &Connection) -> Result<()> {
    use rusqlite::OptionalExtension;
    // A database in memory has no map, and the pragma then answers no row.
    let size: Option<i64> = conn.query_row("PRAGMA mmap_size", [], |r| r.get(0)).optional()?;
    if let Some(size) = size.filter(|&s| s > 0) {
        conn.pragma_update(None, "mmap_size", 0)?;
        conn.pragma_update(None, "mmap_size", size)?;
    }
    Ok(())
}

/// Reads a file's first 100 bytes (the SQLite header) and refuses anything that is not a
/// ForceBench project, without opening it through SQLite (so nothing is written to it).
pub fn check_header(path: &Path) -> Result<()> {
    let not_project = |why: &str| Error::NotAProject { path: path.to_path_buf(), why: why.to_string() };
    // A pipe would be waited on for a writer, a device read without end: only a regular file
    // (or a link to one) is opened.
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if !meta.is_file() && !meta.is_dir() {
        return Err(not_project("it is a pipe, a socket or a device, not a regular file"));
    }
    let mut file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut header = [0u8; 100];
    let mut read = 0;
    while read < header.len() {
        match file.read(&mut header[read..]).map_err(|e| Error::io(path, e))? {
            0 => break,
            n => read += n,
        }
    }
    if read == 0 {
        return Err(not_project("the file is empty"));
    }
    if read < 100 || &header[..16] != b"SQLite format 3\0" {
        return Err(not_project("it is not an SQLite database"));
    }
    let app_id = i32::from_be_bytes([header[68], header[69], header[70], header[71]]);
    if app_id != APPLICATION_ID {
        return Err(not_project("it is an SQLite database of another application"));
    }
    Ok(())
}

/// A project file brought up to this build's schema on opening, and the copy kept of it as it was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct Upgrade {
    #[ts(type = "number")]
    pub from: i64,
    #[ts(type = "number")]
    pub to: i64,
    /// The copy of the file as it was before the upgrade, beside it.
    pub backup: String,
    /// Why the file was not compacted after an upgrade that frees space, if it was not: the
    /// upgrade itself is committed and the project works; it keeps the freed pages inside it.
    pub not_compacted: Option<String>,
}

impl std::fmt::Display for Upgrade {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "upgraded the project from schema {} to {}; the file as it was is kept as {}",
            self.from, self.to, self.backup
        )?;
        match &self.not_compacted {
            Some(why) => write!(
                f,
                ". The upgraded file could not be compacted ({why}): it works as it is, and keeps the space the upgrade freed inside it"
            ),
            None => Ok(()),
        }
    }
}

/// Opens an existing project database: header check, version check, pragmas, pending migrations.
/// A file of an earlier schema is first copied beside itself (see [`backup_before_upgrade`]).
///
/// One process upgrades a file at a time: an upgrade is done holding an exclusive lock
/// on a lock file beside the project ([`upgrade_lock`]); a process that finds the file out of
/// date waits for that lock, then reads the version again, and opens the file as the process
/// before it left it (upgraded) instead of upgrading it a second time.
pub fn open_existing(path: &Path) -> Result<(Connection, Option<Upgrade>)> {
    check_header(path)?;
    if on_read_only_disk(path) {
        return open_read_only(path).map(|conn| (conn, None));
    }
    let (mut conn, mut found) = open_and_read_version(path)?;
    let lock = if found < latest_version() {
        let lock = upgrade_lock(path)?;
        // Another process may have upgraded the file while this one waited: look again, on a
        // fresh connection (the file's journal mode may have changed too).
        drop(conn);
        (conn, found) = open_and_read_version(path)?;
        Some(lock)
    } else {
        None
    };
    // The upgrade's steps; whatever happens, the lock is given up (and its file removed) after.
    let upgraded = (|| -> Result<Option<Upgrade>> {
        let upgrade = if found < latest_version() {
            check_tables(&conn, path, found)?;
            let backup = backup_before_upgrade(&conn, path, found)?;
            crate::crashpoint::hit("upgrade-after-backup");
            Some(Upgrade {
                from: found,
                to: latest_version(),
                backup: backup.display().to_string(),
                not_compacted: None,
            })
        } else {
            None
        };
        configure(&mut conn)?;
        migrations().to_latest(&mut conn).map_err(|e| match e {
            // A statement of a migration that fails as SQL (no such table, a table already
            // there, a constraint) means the tables are not those of the version the file
            // claims. Anything else is left as SQLite's own error, so a full disk, damage or a
            // busy file reads as such (see `Error::in_project`).
            rusqlite_migration::Error::RusqliteError { err, .. } => {
                use rusqlite::ErrorCode::{ConstraintViolation, TypeMismatch, Unknown};
                if matches!(err.sqlite_error_code(), Some(Unknown | ConstraintViolation | TypeMismatch)) {
                    Error::damaged(
                        path,
                        &format!("its tables are not those of schema version {found}, the version it claims: {err}"),
                    )
                } else {
                    Error::Sqlite(err)
                }
            }
            // A step that reads the schema's own text found a definition ForceBench did not write.
            rusqlite_migration::Error::Hook(why) => Error::damaged(path, &why),
            other => Error::Migration(other),
        })?;
        // Migrations 18 and 19 store the same record in fewer bytes, but SQLite keeps the pages it
        // frees inside the file; an upgrade across either rewrites the file once, so it shrinks.
        // The upgrade is committed by then: a compaction SQLite refuses (a full disk: it needs a
        // second copy's room) is said beside the upgrade, never made the open's failure, or the
        // notice naming the backup would be lost and the next open would not compact either.
        crate::crashpoint::hit("upgrade-before-compact");
        let mut upgrade = upgrade;
        if let Some(u) = upgrade.as_mut().filter(|u| u.from < COMPACT_RECORD_VERSION) {
            let compacted = if crate::crashpoint::fails("upgrade-compact") {
                Err(rusqlite::Error::SqliteFailure(
                    rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_FULL),
                    Some("database or disk is full".into()),
                ))
            } else {
                conn.execute_batch("VACUUM")
            };
            if let Err(e) = compacted {
                u.not_compacted = Some(e.to_string());
            }
        }
        Ok(upgrade)
    })();
    if let Some(lock) = lock {
        lock.done();
    }
    Ok((conn, upgraded?))
}

/// Refuses a file whose tables are not those of the schema version it claims (`found`): a file
/// whose `user_version` was edited (a schema-6 file claiming 13 would be "upgraded" to the
/// latest with tables missing), or whose schema was changed outside ForceBench. The file must
/// hold every table version `found` has, and none that only a later version adds. Checked before
/// an upgrade, which would otherwise build on tables that are not there.
fn check_tables(conn: &Connection, path: &Path, found: i64) -> Result<()> {
    let tables = |c: &Connection| -> rusqlite::Result<std::collections::BTreeSet<String>> {
        c.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")?
            .query_map([], |r| r.get(0))?
            .collect()
    };
    let at = |version: i64| -> Result<std::collections::BTreeSet<String>> {
        let mut c = Connection::open_in_memory()?;
        migrations()
            .to_version(&mut c, version as usize)
            .map_err(|e| Error::Internal(format!("the schema of version {version} cannot be built: {e}")))?;
        Ok(tables(&c)?)
    };
    let have = tables(conn)?;
    let want = if found > 0 { at(found)? } else { Default::default() };
    let later: Vec<String> = at(latest_version())?.difference(&want).filter(|t| have.contains(*t)).cloned().collect();
    let missing: Vec<&String> = want.difference(&have).collect();
    if missing.is_empty() && later.is_empty() {
        return Ok(());
    }
    let mut why = Vec::new();
    if !missing.is_empty() {
        why.push(format!("it lacks {}", missing.iter().map(|t| format!("`{t}`")).collect::<Vec<_>>().join(", ")));
    }
    if !later.is_empty() {
        why.push(format!(
            "it holds {}, which only later versions have",
            later.iter().map(|t| format!("`{t}`")).collect::<Vec<_>>().join(", ")
        ));
    }
    Err(Error::damaged(
        path,
        &format!(
            "its schema version says {found}, but its tables are not those of version {found}: {}; the version was \
             edited or the file changed outside ForceBench",
            why.join(", and ")
        ),
    ))
}

/// Whether the file system holding `path` is mounted read-only.
fn on_read_only_disk(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else { return false };
        let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
        // SAFETY: `c` is a valid NUL-terminated path and `stat` a valid out-parameter.
        if unsafe { libc::statvfs(c.as_ptr(), &mut stat) } != 0 {
            return false;
        }
        stat.f_flag & libc::ST_RDONLY != 0
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        false
    }
}

/// Opens a project on a read-only disk for the commands that only read it: as an
/// immutable file (SQLite then needs no `-wal` or `-shm` beside it, which it could not make), with
/// writes refused. A file of an earlier schema cannot be upgraded there, and is refused.
fn open_read_only(path: &Path) -> Result<Connection> {
    use rusqlite::OpenFlags;
    let mut uri = String::from("file:");
    for c in path.to_string_lossy().chars() {
        match c {
            '?' | '#' | '%' => uri.push_str(&format!("%{:02X}", c as u32)),
            _ => uri.push(c),
        }
    }
    uri.push_str("?immutable=1");
    let conn = Connection::open_with_flags(uri, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI)?;
    conn.pragma_update(None, "query_only", true)?;
    let found: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if found > latest_version() {
        return Err(Error::NewerVersion { path: path.to_path_buf(), found, known: latest_version() });
    }
    if found < latest_version() {
        return Err(Error::InvalidArgument(format!(
            "{} is on a read-only disk and was written by an earlier ForceBench (schema {found}); it must be \
             upgraded before this version reads it: copy it to a folder you can write to and open the copy",
            path.display()
        )));
    }
    Ok(conn)
}

/// Opens `path` (a checked project file) and reads its schema version, refusing a newer one
/// before anything writes (journal mode or migrations).
fn open_and_read_version(path: &Path) -> Result<(Connection, i64)> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(std::time::Duration::from_millis(BUSY_TIMEOUT_MS as u64))?;
    let found: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if found > latest_version() {
        return Err(Error::NewerVersion { path: path.to_path_buf(), found, known: latest_version() });
    }
    Ok((conn, found))
}

/// The exclusive lock one upgrade of a project file holds: `.NAME.upgrade-lock` beside it,
/// locked with `flock` (which SQLite's own locks never touch); waiting for it blocks.
pub(crate) struct UpgradeLock {
    file: std::fs::File,
    path: PathBuf,
}

impl UpgradeLock {
    /// The upgrade is over (done or failed): the lock file is removed, then released, so none
    /// is left beside the project. A process still waiting on it sees, once it has it, that the
    /// file is gone and takes the one at the path ([`upgrade_lock`]), so a waiter and a newcomer
    /// never hold two different locks at once; it then reads the version again.
    fn done(self) {
        let _ = std::fs::remove_file(&self.path);
        drop(self.file);
    }
}

/// Takes the upgrade lock of the project file at `path`, waiting while another process holds it.
pub(crate) fn upgrade_lock(path: &Path) -> Result<UpgradeLock> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "project".into());
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let lock_path = dir.join(format!(".{name}.upgrade-lock"));
    loop {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&lock_path)
            .map_err(|e| Error::io(&lock_path, e))?;
        file.lock().map_err(|e| Error::io(&lock_path, e))?;
        // The process that held it may have removed the file before letting go: a lock on a file
        // no longer at the path excludes no one, so take the one that is there now.
        if same_file(&file, &lock_path) {
            return Ok(UpgradeLock { file, path: lock_path });
        }
    }
}

/// Whether the open `file` is the file now at `path`.
fn same_file(file: &std::fs::File, path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (file.metadata(), std::fs::metadata(path)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (file, path);
        true
    }
}

/// Writes a consistent copy of the project, as it is, beside it: `NAME.schemaN.bak` (N the
/// schema it was written with; `NAME.schemaN.2.bak` and on when such a copy already exists, so
/// no copy is ever replaced). `VACUUM INTO` reads one snapshot, the write-ahead log included;
/// the copy is written under a temporary name, synced, then renamed, so a crash never leaves a
/// half copy under the final name.
fn backup_before_upgrade(conn: &Connection, path: &Path, version: i64) -> Result<PathBuf> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "project".into());
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let backup = (1..)
        .map(|i| {
            dir.join(if i == 1 {
                format!("{name}.schema{version}.bak")
            } else {
                format!("{name}.schema{version}.{i}.bak")
            })
        })
        .find(|p| !p.exists())
        .expect("an unused name");
    let partial = dir.join(format!(".{name}.schema{version}.bak.partial"));
    let _ = std::fs::remove_file(&partial);
    let copied = conn
        .execute("VACUUM INTO ?1", [partial.to_string_lossy()])
        .map_err(|e| match crate::error::write_failure(&e) {
            Some(source) => source,
            None => std::io::Error::other(e.to_string()),
        })
        .and_then(|_| std::fs::File::open(&partial).and_then(|f| f.sync_all()))
        .and_then(|()| std::fs::rename(&partial, &backup));
    if let Err(source) = copied {
        let _ = std::fs::remove_file(&partial);
        // Said of the copy asked for: the partial name is nothing a person chose.
        return Err(Error::IoUndone {
            // Beside the project as the person named it (not `./NAME`).
            path: path.with_file_name(backup.file_name().expect("a file name")),
            source,
            undone: format!(
                "the copy kept before an upgrade could not be written, so {} was not upgraded and is as it \
                 was; make room for a copy of it beside it (or a file size limit that allows it) and open it again",
                path.display()
            ),
        });
    }
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(backup)
}

/// Creates a new project database at `path` (which must not exist) with the latest schema.
pub fn create_new(path: &Path) -> Result<Connection> {
    if path.exists() {
        return Err(Error::AlreadyExists { path: path.to_path_buf() });
    }
    // A symbolic link that points to no file: opening it would create the project
    // wherever it points.
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(Error::BadOutputPath(format!(
            "{} is a symbolic link to a file that does not exist; a project is made only at a real path \
             (nothing was created)",
            path.display()
        )));
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    let mut conn = Connection::open(path)?;
    // application_id first, in rollback-journal mode, so it lands in the main file's header.
    conn.pragma_update(None, "application_id", APPLICATION_ID)?;
    configure(&mut conn)?;
    migrations().to_latest(&mut conn)?;
    Ok(conn)
}

/// An in-memory database with the latest schema, for tests and scratch work.
pub fn in_memory() -> Result<Connection> {
    let mut conn = Connection::open_in_memory()?;
    conn.pragma_update(None, "application_id", APPLICATION_ID)?;
    configure(&mut conn)?;
    migrations().to_latest(&mut conn)?;
    Ok(conn)
}

/// Reads column `i` of a result row as text, borrowed from SQLite (no copy).
pub(crate) fn text<'r>(r: &'r rusqlite::Row<'_>, i: usize) -> rusqlite::Result<&'r str> {
    r.get_ref(i)?
        .as_str()
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, e.into()))
}

/// Reads column `i` of a result row as text or NULL, borrowed from SQLite (no copy).
pub(crate) fn text_or_null<'r>(r: &'r rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Option<&'r str>> {
    r.get_ref(i)?
        .as_str_or_null()
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, e.into()))
}
