//! CHECK constraints that list allowed values, spelled out as comparisons (schema 22).
//!
//! SQLite evaluates `x IN ('a', 'b', 'c')` with more than two constant values by building a
//! temporary B-tree of the values. In a query that B-tree is built once per statement; in a CHECK
//! constraint it is built again for every row checked, and it cost half a microsecond per row
//! (700,000 single-column rows: 0.53 s with the list, 0.17 s with comparisons, 0.15 s with no
//! check; SQLite 3.40 and the bundled 3.51 code it the same way). Every table written row by row
//! in bulk had one: the annotation trail, the final fields, the split's rows. A list of one or two
//! values is coded as comparisons already and is left as it is.
//!
//! Comparisons joined by OR allow exactly what the list allowed, NULL included (`NULL = 'a' OR
//! NULL = 'b'` is NULL, which a CHECK lets through, as `NULL IN (...)` is). No stored row changes,
//! so the definitions are rewritten in place, the procedure SQLite's documentation gives for a
//! change to a CHECK constraint: in the migration's transaction, with `writable_schema` on, the
//! schema cookie moved on so other connections read the new definitions, and the connection's own
//! copy of the schema read again after.

use rusqlite::{params, Connection};

/// Each CHECK rewritten: its table, its column and the values it allows, as migrations up to 21
/// wrote them.
const LISTS: [(&str, &str, &[&str]); 7] = [
    ("adjudication_fields", "source", &["a", "b", "both", "edited", "suggestion"]),
    ("annotation_events", "suggestion_mode", &["prefilled", "beside", "hidden"]),
    ("annotators", "role", &["annotator", "adjudicator", "lead"]),
    ("drafts", "origin", &["hand", "model", "template_edit"]),
    ("judge_runs", "control", &["none", "swapped_evidence", "order"]),
    ("project", "suggestions", &["prefilled", "beside", "hidden"]),
    ("split_rows", "role", &["retained", "eval", "capped", "locality_removed"]),
];

/// `column IN ('a', 'b')` as the earlier migrations spelled it.
fn as_list(column: &str, values: &[&str]) -> String {
    format!("{column} IN ({})", values.iter().map(|v| format!("'{v}'")).collect::<Vec<_>>().join(", "))
}

/// The same condition as comparisons: `(column = 'a' OR column = 'b')`.
fn as_comparisons(column: &str, values: &[&str]) -> String {
    format!("({})", values.iter().map(|v| format!("{column} = '{v}'")).collect::<Vec<_>>().join(" OR "))
}

/// Rewrites every CHECK in [`LISTS`] inside the migration's transaction. A table whose
/// definition does not hold its list exactly once is refused (the file was changed outside
/// ForceBench), before anything is written.
pub(crate) fn rewrite(tx: &Connection) -> Result<(), rusqlite_migration::HookError> {
    let mut rewritten = Vec::with_capacity(LISTS.len());
    for (table, column, values) in LISTS {
        let sql: Option<String> = rusqlite::OptionalExtension::optional(tx.query_row(
            "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?1",
            [table],
            |r| r.get(0),
        ))?;
        let list = as_list(column, values);
        match sql {
            Some(sql) if sql.matches(&list).count() == 1 => {
                rewritten.push((table, sql.replacen(&list, &as_comparisons(column, values), 1)))
            }
            _ => {
                return Err(rusqlite_migration::HookError::Hook(format!(
                    "the table `{table}` is not defined as ForceBench made it (its check `{list}` is missing)"
                )))
            }
        }
    }
    let cookie: i64 = tx.query_row("PRAGMA schema_version", [], |r| r.get(0))?;
    tx.pragma_update(None, "writable_schema", true)?;
    for (table, sql) in &rewritten {
        tx.execute("UPDATE sqlite_schema SET sql = ?1 WHERE type = 'table' AND name = ?2", params![sql, table])?;
    }
    tx.pragma_update(None, "schema_version", cookie + 1)?;
    tx.pragma_update(None, "writable_schema", "RESET")?;
    Ok(())
}
