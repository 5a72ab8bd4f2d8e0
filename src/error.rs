//! The core's error type. Every error has a stable machine `code` (the UI and scripts branch on
//! it) and a message for people that names the file, line, row and field involved.

use serde::Serialize;
use std::path::{Path, PathBuf};
use ts_rs::TS;

use crate::problem::{ImportConflict, InputProblem};

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: not a ForceBench project ({why}); nothing was changed")]
    NotAProject { path: PathBuf, why: String },

    #[error(
        "{path} was written by a newer ForceBench (schema version {found}, this build knows up to \
         {known}); update ForceBench to open it. Nothing was changed"
    )]
    NewerVersion { path: PathBuf, found: i64, known: i64 },

    #[error("no project at {path}; create one with `forcebench --project {path} init`")]
    NoProject { path: PathBuf },

    #[error("{path} already exists; choose another path or open it instead")]
    AlreadyExists { path: PathBuf },

    /// An output names an existing file and `--force` was not given.
    #[error("{path} already exists; nothing was written (choose another name, or add --force to replace it)")]
    OutputExists { path: PathBuf },

    /// An output names a ForceBench project, which no output ever replaces.
    #[error(
        "{path} is a ForceBench project; nothing was written (an output never replaces a project, even with --force)"
    )]
    OutputIsProject { path: PathBuf },

    #[error("{}", io_words(.path, .source))]
    Io { path: PathBuf, source: std::io::Error },

    /// A file a step could not write, after which the step undid what it had done (`undone`
    /// says what): a packet that could not be written whole on a full disk.
    #[error("{}; {undone}", io_words(.path, .source))]
    IoUndone { path: PathBuf, source: std::io::Error, undone: String },

    #[error("{}", format_problems(.file, .problems))]
    InvalidInput { file: String, problems: Vec<InputProblem> },

    /// A whole input file cannot be read as text (its kind, size or encoding), in one line.
    #[error("{file} {message}")]
    UnreadableInput { file: String, message: String },

    #[error("{}", format_conflicts(.file, .conflicts))]
    ImportConflict { file: String, conflicts: Vec<ImportConflict> },

    /// An exported file does not match its manifest (`forcebench verify`).
    #[error("{file}: {message}")]
    VerifyFailed { file: String, message: String },

    /// A file offered as a packet is not one at all (a CSV, a project, any other JSON).
    #[error("{file} is not a ForceBench packet: {why}; nothing was imported")]
    NotAPacket { file: String, why: String },

    #[error("no candidate with id `{0}`")]
    CandidateNotFound(String),

    /// An id given to a context or draft step that no imported context has.
    #[error("{0}")]
    ContextNotFound(String),

    /// A value given to a command that it cannot take (an unknown field, a cap of 0, an empty name).
    #[error("{0}")]
    InvalidArgument(String),

    /// An output path that names no writable file or folder (a folder for a file, `.`, a device,
    /// a symbolic link, a missing parent folder).
    #[error("{0}")]
    BadOutputPath(String),

    /// A name that is not on the project's roster.
    #[error("{0}")]
    NotOnRoster(String),

    /// A person whose role does not allow the step (an annotator adjudicating).
    #[error("{0}")]
    WrongRole(String),

    /// A roster too small for the step (assignment needs two annotators).
    #[error("{0}")]
    NotEnoughAnnotators(String),

    /// A row that is not assigned to the named annotator.
    #[error("{0}")]
    NotAssigned(String),

    /// A packet step on a project where no one has assignments.
    #[error("{0}")]
    NothingAssigned(String),

    /// A row that cannot be adjudicated yet: fewer than two finished annotations.
    #[error("{0}")]
    NotDoubleAnnotated(String),

    /// An adjudication that lacks what its decision needs (a rationale, a value, a source).
    #[error("{0}")]
    IncompleteAdjudication(String),

    /// A change that was already made (a name on the roster, an annotator on a row, a mark).
    #[error("{0}")]
    AlreadyDone(String),

    /// A step that needs a row in another state (a locality mark on a row that is not accepted).
    #[error("{0}")]
    WrongRowState(String),

    /// A step that must say why (a reassignment, a nonlocal mark).
    #[error("{0}")]
    ReasonRequired(String),

    /// A split step with no split, or no split of the version named.
    #[error("{0}")]
    NoSplit(String),

    /// Drafting a split with no accepted row to draw from.
    #[error("{0}")]
    NothingToSplit(String),

    /// Locking a split that is locked already.
    #[error("{0}")]
    SplitAlreadyLocked(String),

    /// Locking a draft whose rows changed since it was drawn.
    #[error("{0}")]
    SplitOutOfDate(String),

    /// A workspace step (return a packet) in a project that is not an annotator's workspace.
    #[error("{0}")]
    NotAWorkspace(String),

    /// A lead's step (a setting, an issue) in an annotator's workspace.
    #[error("{0}")]
    LeadOnly(String),

    /// A packet offered for the wrong step: already returned, or for another workspace.
    #[error("{0}")]
    WrongPacket(String),

    /// Stored data this build cannot read (an unknown value in a column): the file was edited
    /// outside ForceBench or is damaged.
    #[error("the project holds a value ForceBench cannot read: {0}")]
    Corrupt(String),

    /// An LLM endpoint refused a judge's request in a way retrying cannot fix (a wrong model, a
    /// missing key, an address that is not an endpoint).
    #[error("{0}")]
    EndpointRefused(String),

    /// A long step that stopped before its end, keeping what it did (a judge run with requests
    /// still unanswered): running it again resumes.
    #[error("{0}")]
    Unfinished(String),

    /// A failure that is neither the user's input nor the disk (the system's random source, a
    /// plot renderer, a serializer).
    #[error("{0}")]
    Internal(String),

    /// A judge run's report (trust, answers) asked for a name with no run on the locked split.
    /// The app shows "no run yet" on this code.
    #[error("{0}")]
    NoJudgeRun(String),

    /// A judge run started under the name of an earlier run with other settings (model,
    /// template, parameters): resuming would mix two judges' answers.
    #[error("{0}")]
    JudgeRunDiffers(String),

    /// The swapped-evidence control on a split whose evaluation rows all come from one group, so
    /// no passage of another group can be swapped in.
    #[error("{0}")]
    NotEnoughGroups(String),

    /// A guideline version label that was never published.
    #[error("{0}")]
    NoGuidelineVersion(String),

    /// A step that needs a locked split (export, evaluation) on a project that has none: no
    /// split, or only a draft. The app shows its "lock a split first" state on this code.
    #[error("{0}")]
    NoLockedSplit(String),

    // --- faithful scoring ---
    /// A judge template that cannot be used: a placeholder no judge may see (the pair's gold
    /// axis, severity, the other claim, any adjudicated field), a placeholder that matches no
    /// field, or no claim to judge.
    #[error("{0}")]
    BadTemplate(String),

    /// An evaluator name with no stored scores on the locked split (remove, panel, paired).
    #[error("{0}")]
    NoEvaluator(String),
    // --- end of faithful scoring ---
    /// A change to a row that a locked split freezes (see `rowstate`).
    #[error(
        "row `{id}` is in locked split v{version}, which freezes it: its annotations, final labels, QC \
         results, locality mark and annotators cannot change, so the split's export stays as it was \
         locked. Nothing was changed"
    )]
    SplitLocked { id: String, version: i64 },

    /// The same refusal raised by the storage itself, for a path that did not ask first.
    #[error("{0}. Nothing was changed")]
    SplitLockedInStorage(String),

    /// A change to an annotator's label on a row already adjudicated: pre-adjudication agreement
    /// counts the labels as they were decided, so the adjudicator must reopen the row first.
    #[error("{0}")]
    RowAdjudicated(String),

    /// Locking a split while its final locality audit or QC is not finished (names the rows).
    #[error("{0}")]
    AuditUnfinished(String),

    // ---- the lock sealed in storage ----
    /// An export of a locked split that would differ from the seal recorded when it was locked.
    #[error("{0}")]
    SealBroken(String),

    /// A project file SQLite finds damaged (truncated, overwritten), with the way back.
    #[error("{0}")]
    Damaged(String),

    /// A change to a project opened read-only (it is on a read-only disk).
    #[error(
        "the project is on a read-only disk: it can be read (status, export, agreement...) but not changed; \
         copy it to a folder you can write to. Nothing was changed"
    )]
    ReadOnlyProject,

    // ---- the leakage audit ----
    /// Locking a split whose evaluation set shares a group, a passage or a raised claim with the
    /// rest of the retained pool.
    #[error("{0}")]
    SplitLeaks(String),

    /// `verify` found an export whose evaluation set shares a group, a passage or a raised claim
    /// with the rest of the benchmark (its leakage audit recomputed).
    #[error("{file}: leakage: {message}")]
    LeakageFound { file: String, message: String },
    // ---- end of the leakage audit ----
    #[error("database error: {0}")]
    Sqlite(rusqlite::Error),

    #[error("schema migration failed: {0}")]
    Migration(#[from] rusqlite_migration::Error),
}

impl Error {
    /// Stable identifier for the kind of error; documented in the README.
    pub fn code(&self) -> &'static str {
        match self {
            Error::NotAProject { .. } => "not_a_project",
            Error::NewerVersion { .. } => "newer_version",
            Error::NoProject { .. } => "no_project",
            Error::AlreadyExists { .. } => "already_exists",
            Error::OutputExists { .. } => "output_exists",
            Error::OutputIsProject { .. } => "output_is_project",
            Error::Io { .. } | Error::IoUndone { .. } => "io",
            Error::InvalidInput { .. } => "invalid_input",
            Error::UnreadableInput { .. } => "invalid_input",
            Error::ImportConflict { .. } => "import_conflict",
            Error::VerifyFailed { .. } => "verify_failed",
            Error::NotAPacket { .. } => "not_a_packet",
            Error::CandidateNotFound(_) => "not_found",
            Error::ContextNotFound(_) => "context_not_found",
            Error::InvalidArgument(_) => "invalid_argument",
            Error::BadOutputPath(_) => "bad_output_path",
            Error::NotOnRoster(_) => "not_on_roster",
            Error::WrongRole(_) => "wrong_role",
            Error::NotEnoughAnnotators(_) => "not_enough_annotators",
            Error::NotAssigned(_) => "not_assigned",
            Error::NothingAssigned(_) => "nothing_assigned",
            Error::NotDoubleAnnotated(_) => "not_double_annotated",
            Error::IncompleteAdjudication(_) => "incomplete_adjudication",
            Error::AlreadyDone(_) => "already_done",
            Error::WrongRowState(_) => "wrong_row_state",
            Error::ReasonRequired(_) => "reason_required",
            Error::NoSplit(_) => "no_split",
            Error::NothingToSplit(_) => "nothing_to_split",
            Error::SplitAlreadyLocked(_) => "split_already_locked",
            Error::SplitOutOfDate(_) => "split_out_of_date",
            Error::NotAWorkspace(_) => "not_a_workspace",
            Error::LeadOnly(_) => "lead_only",
            Error::WrongPacket(_) => "wrong_packet",
            Error::Corrupt(_) => "corrupt_project",
            Error::EndpointRefused(_) => "endpoint_refused",
            Error::Unfinished(_) => "unfinished",
            Error::Internal(_) => "internal",
            Error::NoLockedSplit(_) => "no_locked_split",
            Error::NoJudgeRun(_) => "no_judge_run",
            Error::JudgeRunDiffers(_) => "judge_run_differs",
            Error::NotEnoughGroups(_) => "not_enough_groups",
            Error::NoGuidelineVersion(_) => "no_guideline_version",
            Error::BadTemplate(_) => "bad_template",
            Error::NoEvaluator(_) => "no_evaluator",
            Error::SplitLocked { .. } | Error::SplitLockedInStorage(_) => "split_locked",
            Error::RowAdjudicated(_) => "row_adjudicated",
            Error::AuditUnfinished(_) => "audit_unfinished",
            Error::SealBroken(_) => "seal_broken",
            Error::Damaged(_) => "damaged_project",
            Error::ReadOnlyProject => "read_only_project",
            Error::SplitLeaks(_) => "split_leaks",
            Error::LeakageFound { .. } => "leakage_found",
            Error::Sqlite(_) => "database",
            Error::Migration(_) => "migration",
        }
    }

    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }

    /// This error as it reads for the project file at `path`: damage SQLite reports in
    /// it ("database disk image is malformed", "file is not a database"), whether at opening or in
    /// any later statement, becomes [`Error::Damaged`], which names the file, says it is damaged and
    /// points at the copies beside it that are the way back. Any other error is returned as it is.
    ///
    /// Applied where a project's path is known: [`crate::Project::open`], the command line's
    /// `main` (for the project its command opened) and the app's calls on its open project.
    pub fn in_project(self, path: &Path) -> Error {
        use rusqlite::ffi::ErrorCode::{DatabaseCorrupt, NotADatabase};
        // A stored text that is not UTF-8 is a damaged page too: SQLite stores what it is given,
        // and ForceBench only ever gives it UTF-8.
        if let Error::Sqlite(e) = &self {
            if let Some(bad) = invalid_utf8(e) {
                return Error::damaged(path, &format!("a stored text is not valid UTF-8: {bad}"));
            }
        }
        let sqlite = match &self {
            Error::Sqlite(s) | Error::Migration(rusqlite_migration::Error::RusqliteError { err: s, .. }) => s,
            _ => return self,
        };
        if let Some(source) = write_failure(sqlite) {
            return Error::IoUndone {
                path: path.to_path_buf(),
                source,
                undone: "nothing was saved, and the project is as it was".into(),
            };
        }
        if !matches!(sqlite.sqlite_error_code(), Some(DatabaseCorrupt | NotADatabase)) {
            return self;
        }
        Error::damaged(path, &format!("SQLite: {sqlite}"))
    }

    /// The project file at `path` found damaged (`what` says how), in the words every damage
    /// refusal uses: the file named, nothing changed, and the copies beside it that are the way
    /// back.
    pub fn damaged(path: &Path, what: &str) -> Error {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let mut copies: Vec<String> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
            .filter(|f| f.starts_with(&format!("{name}.")) && f.ends_with(".bak"))
            .collect();
        copies.sort();
        let way_back = if copies.is_empty() {
            "Restore it from your own backup".to_string()
        } else {
            format!(
                "The copies kept beside it before upgrades ({}) are the way back: copy the latest over it, or \
                 restore it from your own backup",
                copies.join(", ")
            )
        };
        Error::Damaged(format!(
            "{} is damaged ({what}); ForceBench cannot read it, and changed nothing. {way_back}",
            path.display()
        ))
    }

    pub fn payload(&self) -> ErrorPayload {
        ErrorPayload { code: self.code().to_string(), message: self.to_string() }
    }
}

impl From<rusqlite::Error> for Error {
    /// A refusal by one of the lock's triggers (`schema/0006_lock_freezes_rows.sql`) becomes a
    /// `split_locked` error; anything else stays a database error.
    fn from(e: rusqlite::Error) -> Self {
        if let rusqlite::Error::SqliteFailure(_, Some(message)) = &e {
            if let Some(words) = message.strip_prefix("split_locked: ") {
                return Error::SplitLockedInStorage(words.to_string());
            }
            if let Some(words) = message.strip_prefix("row_adjudicated: ") {
                return Error::RowAdjudicated(format!("{words}. Nothing was changed"));
            }
        }
        if e.sqlite_error_code() == Some(rusqlite::ErrorCode::ReadOnly) {
            return Error::ReadOnlyProject;
        }
        Error::Sqlite(e)
    }
}

/// The text of a column SQLite returned that is not UTF-8, if that is what `e` is.
fn invalid_utf8(e: &rusqlite::Error) -> Option<String> {
    match e {
        rusqlite::Error::Utf8Error(_, u) => Some(u.to_string()),
        rusqlite::Error::FromSqlConversionFailure(_, _, inner) => {
            inner.downcast_ref::<std::str::Utf8Error>().map(|u| u.to_string())
        }
        _ => None,
    }
}

/// A write SQLite could not make, as the system error it most likely was: a full disk
/// (`SQLITE_FULL`), or a failed write (`SQLITE_IOERR`), which under a file size limit (`ulimit
/// -f`) is the file growing past it (SQLite reports EFBIG as a plain I/O error).
pub(crate) fn write_failure(e: &rusqlite::Error) -> Option<std::io::Error> {
    use rusqlite::ffi::ErrorCode::{DiskFull, SystemIoFailure};
    use std::io::ErrorKind;
    match e.sqlite_error_code()? {
        // A write cut short by the limit reads to SQLite as a full disk, one refused outright as
        // an I/O error: under a limit, either is most likely the limit.
        DiskFull | SystemIoFailure if file_size_limited() => Some(ErrorKind::FileTooLarge.into()),
        DiskFull => Some(ErrorKind::StorageFull.into()),
        SystemIoFailure => Some(std::io::Error::other(format!("{e}: it could not be written"))),
        _ => None,
    }
}

/// Whether this process runs under a file size limit (`ulimit -f`).
fn file_size_limited() -> bool {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: `limit` is a valid out-parameter for getrlimit.
        unsafe { libc::getrlimit(libc::RLIMIT_FSIZE, &mut limit) == 0 && limit.rlim_cur != libc::RLIM_INFINITY }
    }
    #[cfg(not(unix))]
    false
}

/// How an error crosses to the UI or to `--json` consumers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ErrorPayload {
    pub code: String,
    pub message: String,
}

/// An input or output failure in words a person reads ("No file at packets/ana.json"), with
/// the system's own words kept after it for the rarer cases.
fn io_words(path: &std::path::Path, e: &std::io::Error) -> String {
    use std::io::ErrorKind::*;
    let p = path.display();
    match e.kind() {
        NotFound => format!("No file or folder at {p}"),
        PermissionDenied => format!("{p}: permission denied (this user may not read or write it)"),
        AlreadyExists => format!("{p} already exists"),
        IsADirectory => format!("{p} is a folder, not a file"),
        NotADirectory => format!("{p}: a part of this path is a file, not a folder"),
        StorageFull => format!("{p}: the disk is full"),
        FileTooLarge => format!("{p}: the file would be larger than this process may write (its file size limit)"),
        ReadOnlyFilesystem => format!("{p}: the disk is read-only"),
        _ => format!("{p}: {e}"),
    }
}

/// Most problems are shown; a file with thousands of bad rows is cut short after this many.
pub const MAX_REPORTED_PROBLEMS: usize = 50;

/// The `file` of the problems a promotion of drafts finds: nothing is imported then, but
/// nothing is promoted either, and the message says so.
pub const DRAFTS_TO_PROMOTE: &str = "the drafts to promote";

fn format_problems(file: &str, problems: &[InputProblem]) -> String {
    let mut out = format!(
        "{file}: {} problem{} found; nothing was {}",
        problems.len(),
        if problems.len() == 1 { "" } else { "s" },
        if file == DRAFTS_TO_PROMOTE { "promoted" } else { "imported" }
    );
    for p in problems.iter().take(MAX_REPORTED_PROBLEMS) {
        out.push_str("\n  ");
        out.push_str(&p.to_string());
    }
    if problems.len() > MAX_REPORTED_PROBLEMS {
        out.push_str(&format!("\n  ... and {} more", problems.len() - MAX_REPORTED_PROBLEMS));
    }
    out
}

fn format_conflicts(file: &str, conflicts: &[ImportConflict]) -> String {
    let mut out = format!(
        "{file}: {} row{} already in the project with different content; nothing was imported \
         (existing rows are never overwritten; give changed rows new ids)",
        conflicts.len(),
        if conflicts.len() == 1 { "" } else { "s" }
    );
    for c in conflicts.iter().take(MAX_REPORTED_PROBLEMS) {
        out.push_str(&format!("\n  {file}:{}: id `{}` differs in {}", c.line, c.id, c.fields.join(", ")));
    }
    if conflicts.len() > MAX_REPORTED_PROBLEMS {
        out.push_str(&format!("\n  ... and {} more", conflicts.len() - MAX_REPORTED_PROBLEMS));
    }
    out
}
