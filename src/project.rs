//! A project: one SQLite file holding one benchmark's whole protocol.
//!
//! [`Project::create`], [`Project::open`] and [`Project::open_or_create`] are the entry
//! points for files; [`Project::in_memory`] serves tests. Other modules take `&Project` or
//! `&mut Project` and reach the connection through [`Project::conn`].

use chrono::{SecondsFormat, Utc};
use rusqlite::{Connection, OptionalExtension};
use serde::Serialize;
use std::path::{Path, PathBuf};
use ts_rs::TS;

use crate::db;
use crate::error::{Error, Result};

/// Environment variable naming the project file when `--project` is not given.
pub const PROJECT_ENV: &str = "FORCEBENCH_PROJECT";

/// File name of the default project inside the user's data directory.
pub const DEFAULT_FILE: &str = "default.forcebench";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ProjectInfo {
    /// uuid v4, fixed at creation.
    pub id: String,
    pub name: String,
    /// RFC 3339, UTC.
    pub created_at: String,
    /// Absolute path of the project file (`:memory:` for in-memory projects).
    pub path: String,
    #[ts(type = "number")]
    pub schema_version: i64,
    /// Set when opening brought the file up from an earlier schema (a copy of it was kept).
    pub upgraded: Option<db::Upgrade>,
}

pub struct Project {
    conn: Connection,
    info: ProjectInfo,
}

/// The current time as stored in the database: RFC 3339, UTC, millisecond precision.
pub fn now() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true)
}

impl Project {
    /// Creates a new project file; refuses to touch an existing file.
    pub fn create(path: &Path, name: &str) -> Result<Project> {
        let name = name.trim();
        if name.is_empty() {
            return Err(Error::InvalidArgument("a project needs a non-empty name".into()));
        }
        let conn = db::create_new(path)?;
        Self::initialise(conn, name, display_path(path))
    }

    /// Opens an existing project file, applying pending migrations.
    pub fn open(path: &Path) -> Result<Project> {
        if !path.exists() {
            return Err(Error::NoProject { path: path.to_path_buf() });
        }
        let opened = (|| -> Result<Project> {
            let (conn, upgraded) = db::open_existing(path)?;
            let mut info = read_info(&conn, display_path(path))?.ok_or_else(|| Error::NotAProject {
                path: path.to_path_buf(),
                why: "its project record is missing".into(),
            })?;
            info.upgraded = upgraded;
            Ok(Project { conn, info })
        })();
        opened.map_err(|e| e.in_project(path))
    }

    /// Opens the project at `path`, creating it (named after the file) if it does not exist yet.
    /// Returns whether it was created.
    pub fn open_or_create(path: &Path) -> Result<(Project, bool)> {
        if path.exists() {
            Ok((Self::open(path)?, false))
        } else {
            let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("ForceBench project");
            Ok((Self::create(path, name)?, true))
        }
    }

    pub fn in_memory(name: &str) -> Result<Project> {
        Self::initialise(db::in_memory()?, name, ":memory:".into())
    }

    fn initialise(conn: Connection, name: &str, path: String) -> Result<Project> {
        conn.execute(
            "INSERT INTO project (singleton, id, name, created_at) VALUES (1, ?1, ?2, ?3)",
            (uuid::Uuid::new_v4().to_string(), name, now()),
        )?;
        let info = read_info(&conn, path)?.expect("project row just inserted");
        Ok(Project { conn, info })
    }

    pub fn info(&self) -> &ProjectInfo {
        &self.info
    }

    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    pub fn conn_mut(&mut self) -> &mut Connection {
        &mut self.conn
    }

    /// Runs one bulk write (an import, a merge, a QC run...) with the large page cache of
    /// [`db::BULK_CACHE_SIZE`], then gives the memory back.
    ///
    /// A transaction that dirties more pages than the cache holds spills them to the WAL before it
    /// commits, and each later read of such a page looks it up in the WAL's index at a cost that
    /// grows with the WAL. With the everyday 64 MiB cache an annotation import grew as rows^1.28
    /// from 10,000 to 100,000 rows; with this one (and time-ordered event uids), as rows^1.06
    /// (docs/scaling.md).
    ///
    /// Its statement journals (the record of what one statement changed, kept so that a failed
    /// statement is undone without undoing the transaction) stay in memory: SQLite moves one past
    /// 64 KiB to a temporary file, where it stays for the rest of the transaction, and in a long
    /// bulk write one ordinary statement crosses that sooner or later (at 100,000 rows, a fifth of
    /// `adjudicate confirm-agreements` went on writing every later statement's journal there).
    /// `temp_store = MEMORY` keeps them in memory. It keeps any temporary table or sort of the
    /// step in memory too; at 100,000 rows no bulk step's peak private memory grew with it
    /// (docs/benchmarks.md).
    pub fn bulk<T>(&mut self, f: impl FnOnce(&mut Project) -> Result<T>) -> Result<T> {
        self.conn.pragma_update(None, "cache_size", db::BULK_CACHE_SIZE)?;
        self.conn.pragma_update(None, "temp_store", "MEMORY")?;
        let out = f(self);
        // Shrinking the cache frees the pages above the everyday size.
        let restored = self
            .conn
            .pragma_update(None, "cache_size", db::CACHE_SIZE)
            .and_then(|()| self.conn.pragma_update(None, "temp_store", "DEFAULT"));
        let out = out?;
        restored?;
        Ok(out)
    }

    /// A number that changes whenever another connection (another window, a command, a merge)
    /// commits to the project file; this connection's own commits leave it as it is (SQLite's
    /// `PRAGMA data_version`). Views poll it to show the project as it is now.
    pub fn data_version(&self) -> Result<i64> {
        Ok(self.conn.query_row("PRAGMA data_version", [], |r| r.get(0))?)
    }
}

fn display_path(path: &Path) -> String {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()).display().to_string()
}

fn read_info(conn: &Connection, path: String) -> Result<Option<ProjectInfo>> {
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    Ok(conn
        .query_row("SELECT id, name, created_at FROM project WHERE singleton = 1", [], |r| {
            Ok(ProjectInfo {
                id: r.get(0)?,
                name: r.get(1)?,
                created_at: r.get(2)?,
                path: path.clone(),
                schema_version: version,
                upgraded: None,
            })
        })
        .optional()?)
}

/// Where the project lives when none is named: `$FORCEBENCH_PROJECT` if set, else
/// `default.forcebench` in the user's data directory (`~/.local/share/forcebench/` on Linux).
pub fn default_project_path() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os(PROJECT_ENV).filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    let dir = dirs::data_dir().ok_or_else(|| {
        Error::InvalidArgument(format!(
            "cannot find the user's data directory; name a project with --project or {PROJECT_ENV}"
        ))
    })?;
    Ok(dir.join("forcebench").join(DEFAULT_FILE))
}
