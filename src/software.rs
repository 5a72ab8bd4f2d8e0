//! Which software wrote a file: the version, the git commit it was built from (see `build.rs`)
//! and the project-file schema version it writes. Shown by `forcebench --version`, carried by
//! `status --json` and the app's About box, and recorded in every export's manifest.

use serde::Serialize;
use ts_rs::TS;

/// The version of ForceBench (the core's crate version).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The git commit the core was built from, or `unknown`.
pub const COMMIT: &str = env!("FORCEBENCH_COMMIT");

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct Software {
    pub version: String,
    pub commit: String,
    /// The project-file schema version this build writes (and the newest it opens).
    #[ts(type = "number")]
    pub schema_version: i64,
}

/// This build.
pub fn software() -> Software {
    Software { version: VERSION.into(), commit: COMMIT.into(), schema_version: crate::db::latest_version() }
}

/// One line for people: `0.1.0 (commit 3c0fcd1a2b3c, project schema 8)`.
pub fn describe() -> String {
    let s = software();
    format!("{} (commit {}, project schema {})", s.version, s.commit, s.schema_version)
}
