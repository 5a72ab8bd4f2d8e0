//! The largest counts a person may ask for. A count typed on the command line (or sent by the
//! app) sizes memory and time directly: `--bootstrap 4294967295` asked for a 34 GB allocation and
//! aborted the process, `sample generate --rows 1000000000000` the same. Each count is checked
//! here, before anything is read or written, and refused in words that give the largest allowed.
//!
//! To bound another count, add its maximum and a checker here and call it first thing in the core
//! function that takes the count (not in the command line), so the app is bounded the same way.

use crate::error::{Error, Result};

/// The most bootstrap replicates an interval may use. 100,000 replicates of the largest
/// evaluation or agreement sample measured take seconds; the default is 1,000 (the intervals'
/// Monte Carlo error at 1,000 is already well under their width), and nothing gains from more.
pub const MAX_BOOTSTRAP_REPS: u32 = 100_000;

/// Refuses a bootstrap of more than [`MAX_BOOTSTRAP_REPS`] replicates (`None`, or 0 replicates,
/// skips the interval and passes).
pub fn bootstrap(plan: Option<(u32, u64)>) -> Result<()> {
    match plan {
        Some((reps, _)) if reps > MAX_BOOTSTRAP_REPS => Err(Error::InvalidArgument(format!(
            "--bootstrap {reps} is more replicates than ForceBench runs: at most {MAX_BOOTSTRAP_REPS} (the default \
             is 1000; 0 skips the intervals). Nothing was computed"
        ))),
        _ => Ok(()),
    }
}

/// The most synthetic rows `sample generate` writes: its file stays under the size an import
/// reads ([`crate::input::MAX_FILE_BYTES`]), since a file nothing can import is of no use.
pub const MAX_GENERATED_ROWS: usize = 200_000;

/// Refuses a synthetic file of no rows or of more than [`MAX_GENERATED_ROWS`].
pub fn generated_rows(rows: usize) -> Result<()> {
    if rows == 0 || rows > MAX_GENERATED_ROWS {
        return Err(Error::InvalidArgument(format!(
            "--rows {rows} is not a number of rows ForceBench generates: from 1 to {MAX_GENERATED_ROWS} (a larger \
             file would be over the size an import reads). Nothing was written"
        )));
    }
    Ok(())
}

/// Refuses a simulation of no rows (`sample annotate --rows 0` would report that it did nothing).
/// A number over the project's rows simulates every row, so no maximum is needed.
pub fn simulated_rows(rows: usize) -> Result<()> {
    if rows == 0 {
        return Err(Error::InvalidArgument(
            "--rows 0 simulates nothing: give the number of rows to simulate, at least 1. Nothing was changed".into(),
        ));
    }
    Ok(())
}

/// The longest first wait before a judge's request is retried: the minute the waits double up to.
/// A longer one (`--retry-wait-ms 18446744073709551615`) overflowed the clock and ended the run.
pub const MAX_RETRY_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

/// Refuses a first retry wait over [`MAX_RETRY_WAIT`].
pub fn retry_wait(wait: std::time::Duration) -> Result<()> {
    if wait > MAX_RETRY_WAIT {
        return Err(Error::InvalidArgument(format!(
            "--retry-wait-ms {} is longer than ForceBench waits before a retry: at most {} (a minute; the \
             waits double from it up to a minute). Nothing was sent",
            wait.as_millis(),
            MAX_RETRY_WAIT.as_millis()
        )));
    }
    Ok(())
}
