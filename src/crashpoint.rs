//! Named instants at which a test can make the process die, as `kill -9` would.
//!
//! A step that must survive a crash (an export put in place, a packet merge committed) calls
//! [`hit`] at each instant where a crash would be worst. When the environment variable
//! `FORCEBENCH_CRASH_AT` names that instant, the process aborts there at once: no destructor
//! runs, no buffer is flushed and no transaction is rolled back by the program, exactly as
//! with `kill -9`. Tests run the real `forcebench` command with the variable set, then check
//! what the crash left on disk. Unset (always, outside tests), `hit` costs one cached lookup.

use std::sync::OnceLock;

/// The environment variable naming the instant to crash at.
pub const ENV: &str = "FORCEBENCH_CRASH_AT";

/// Aborts the process if `FORCEBENCH_CRASH_AT` names `point`.
pub fn hit(point: &str) {
    static TARGET: OnceLock<Option<String>> = OnceLock::new();
    if TARGET.get_or_init(|| std::env::var(ENV).ok().filter(|v| !v.is_empty())).as_deref() == Some(point) {
        eprintln!("forcebench: crashing at `{point}` ({ENV})");
        std::process::abort();
    }
}

/// The environment variable naming a step a test makes fail, as a full disk would.
pub const FAIL_ENV: &str = "FORCEBENCH_FAIL_AT";

/// True if `FORCEBENCH_FAIL_AT` names `point`: the caller then takes the path it takes when the
/// step fails for real (one SQLite can refuse at any time, such as a full disk during `VACUUM`),
/// which a test could not otherwise bring about on purpose.
pub fn fails(point: &str) -> bool {
    static TARGET: OnceLock<Option<String>> = OnceLock::new();
    TARGET.get_or_init(|| std::env::var(FAIL_ENV).ok().filter(|v| !v.is_empty())).as_deref() == Some(point)
}
