//! Evaluation splits. A locked split cannot change: edits to the final labels of its rows are
//! refused with a message naming the split.

use rusqlite::{Connection, OptionalExtension};

use crate::error::{Error, Result};

/// Refuses a change to row `id` when a locked split holds it.
pub fn refuse_if_locked(conn: &Connection, id: &str) -> Result<()> {
    let locked: Option<i64> = conn
        .prepare_cached(
            "SELECT s.version FROM split_rows r JOIN splits s ON s.id = r.split_id
             WHERE r.candidate_id = ?1 AND s.status = 'locked' ORDER BY s.version DESC LIMIT 1",
        )?
        .query_row([id], |r| r.get(0))
        .optional()?;
    match locked {
        Some(version) => Err(Error::InvalidArgument(format!(
            "row `{id}` is in locked split v{version}; its final labels cannot change (draft a new split version to work on the current state)"
        ))),
        None => Ok(()),
    }
}
