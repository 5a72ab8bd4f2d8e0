//! Shared fixtures: projects in temporary directories and small candidate files.

#![allow(dead_code)]

use forcebench::Project;
use std::path::{Path, PathBuf};

pub const HEADER: &str = "id,group_id,source_dataset,source_id,context,passage,evidence_span,calibrated_claim,raised_claim,repair,rationale,axis,severity";

/// A fresh project file in its own temporary directory (kept alive by the returned guard).
pub fn temp_project() -> (tempfile::TempDir, PathBuf, Project) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("test.forcebench");
    let project = Project::create(&path, "test").unwrap();
    (dir, path, project)
}

/// Writes `contents` to `name` inside `dir` and returns the path.
pub fn write(dir: &Path, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

/// One valid CSV data row with the given id (group `g-<id>`, axis scope, severity 2).
pub fn csv_row(id: &str) -> String {
    format!(
        "{id},g-{id},ExpertQA,src-{id},Does the drug help?,\"In a trial of adults, the drug may reduce pain, the authors said.\",may reduce pain,The drug may reduce pain in adults.,The drug reduces pain.,The drug may reduce pain in adults.,Drops the hedge.,modality,2"
    )
}

pub fn csv_file(rows: &[String]) -> String {
    let mut s = String::from(HEADER);
    s.push('\n');
    for r in rows {
        s.push_str(r);
        s.push('\n');
    }
    s
}

/// A snapshot of every table a project holds, to prove a failed step changed nothing.
pub fn dump(project: &Project) -> String {
    let conn = project.conn();
    let tables: Vec<String> = {
        let mut stmt = conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").unwrap();
        stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
    };
    let mut out = String::new();
    for table in tables {
        let mut stmt = conn.prepare(&format!("SELECT * FROM {table} ORDER BY 1, 2")).unwrap();
        let n = stmt.column_count();
        let rows = stmt
            .query_map([], |r| {
                let mut line = Vec::new();
                for i in 0..n {
                    let v: rusqlite::types::Value = r.get(i)?;
                    line.push(format!("{v:?}"));
                }
                Ok(line.join("|"))
            })
            .unwrap();
        for row in rows {
            out.push_str(&format!("{table}: {}\n", row.unwrap()));
        }
    }
    out
}

/// A project with the sample candidates, the named annotators and assignments (seed 1).
pub fn annotated_project(names: &[&str]) -> (tempfile::TempDir, PathBuf, Project) {
    let (dir, path, mut project) = temp_project();
    forcebench::sample::load_sample(&mut project).unwrap();
    for n in names {
        forcebench::roster::add(&project, n, forcebench::roster::Role::Annotator).unwrap();
    }
    forcebench::assign::assign(&mut project, 1).unwrap();
    (dir, path, project)
}

/// The value a `prefill` event of `field` recorded before schema 17, computed here in Rust from
/// the candidate (independently of the SQL the project reads it with): the span as JSON with the
/// byte offsets of its first occurrence in the passage.
pub fn suggestion_as_16(conn: &rusqlite::Connection, candidate: &str, field: &str) -> Option<String> {
    conn.query_row(
        "SELECT passage, evidence_span, calibrated_claim, raised_claim, axis, severity, repair FROM candidates WHERE id = ?1",
        [candidate],
        |r| {
            let passage: String = r.get(0)?;
            let span: Option<String> = r.get(1)?;
            Ok(match field {
                "evidence_span" => span.and_then(|t| {
                    passage.find(&t).map(|start| {
                        serde_json::json!({"text": t, "start": start, "end": start + t.len()}).to_string()
                    })
                }),
                "calibrated_claim" => r.get(2)?,
                "raised_claim" => r.get(3)?,
                "axis" => r.get(4)?,
                "severity" => r.get::<_, Option<i64>>(5)?.map(|s| s.to_string()),
                "repair" => r.get(6)?,
                other => panic!("no suggestion for {other}"),
            })
        },
    )
    .unwrap()
}

/// Takes out what migration 17 changed (for tests that take a project back to an earlier
/// schema): every marked event gets its values back (computed by [`suggestion_as_16`]), the mark's
/// column goes, and the packet index of 16 is back.
pub fn undo_schema17(conn: &rusqlite::Connection) {
    let marked: Vec<(i64, String, String, String)> = conn
        .prepare("SELECT id, candidate_id, field, origin FROM annotation_events WHERE from_suggestion = 1")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    conn.execute_batch("DROP TRIGGER annotation_events_no_update").unwrap();
    for (id, candidate, field, origin) in &marked {
        let value = suggestion_as_16(conn, candidate, field);
        assert!(value.is_some(), "a marked event stands for a value ({candidate}, {field})");
        let old = if origin == "confirm" { value.clone() } else { None };
        conn.execute(
            "UPDATE annotation_events SET old_value = ?1, new_value = ?2 WHERE id = ?3",
            rusqlite::params![old, value, id],
        )
        .unwrap();
    }
    conn.execute_batch(
        "ALTER TABLE annotation_events DROP COLUMN from_suggestion;
         CREATE TRIGGER annotation_events_no_update BEFORE UPDATE ON annotation_events
         BEGIN SELECT RAISE(ABORT, 'annotation events are append-only'); END;
         CREATE INDEX annotation_events_packet ON annotation_events(packet_id, candidate_id) WHERE packet_id IS NOT NULL;",
    )
    .unwrap();
}

/// SQL giving the uid column `col` of `annotation_events` as text, as schema 17 stored it: a uid
/// kept as 16 bytes (schema 18) is spelled out here as the lowercase hyphenated uuid, with
/// SQLite's own `hex`, independently of the code under test.
pub fn uid_as_text(col: &str) -> String {
    format!(
        "(CASE WHEN typeof({col}) = 'blob' THEN lower(substr(hex({col}), 1, 8) || '-' || substr(hex({col}), 9, 4) || '-' \
         || substr(hex({col}), 13, 4) || '-' || substr(hex({col}), 17, 4) || '-' || substr(hex({col}), 21)) ELSE {col} END)"
    )
}

/// Takes out what migration 18 changed (for tests that take a project back to an earlier
/// schema): the uids are text again (see [`uid_as_text`]), QC results are a rowid table with
/// their key index, written in check order, each carrying its row's run time, and `qc_runs` goes.
pub fn undo_schema18(conn: &rusqlite::Connection) {
    conn.execute_batch(&format!(
        "DROP INDEX annotation_events_uid;
         DROP TRIGGER annotation_events_need_uid;
         DROP TRIGGER annotation_events_no_update;
         ALTER TABLE annotation_events ADD COLUMN uid_text TEXT;
         UPDATE annotation_events SET uid_text = {};
         ALTER TABLE annotation_events DROP COLUMN uid;
         ALTER TABLE annotation_events RENAME COLUMN uid_text TO uid;
         CREATE UNIQUE INDEX annotation_events_uid ON annotation_events(uid);
         CREATE TRIGGER annotation_events_need_uid BEFORE INSERT ON annotation_events WHEN NEW.uid IS NULL
         BEGIN SELECT RAISE(ABORT, 'every annotation event needs a uid'); END;
         CREATE TRIGGER annotation_events_no_update BEFORE UPDATE ON annotation_events
         BEGIN SELECT RAISE(ABORT, 'annotation events are append-only'); END;
         CREATE TABLE qc_results_17 (
             candidate_id TEXT NOT NULL REFERENCES candidates(id),
             check_name   TEXT NOT NULL,
             severity     TEXT NOT NULL CHECK (severity IN ('error', 'warning')),
             passed       INTEGER NOT NULL CHECK (passed IN (0, 1)),
             detail       TEXT,
             run_at       TEXT NOT NULL,
             PRIMARY KEY (candidate_id, check_name)
         ) STRICT;
         INSERT INTO qc_results_17 SELECT q.candidate_id, q.check_name, q.severity, q.passed, q.detail, r.run_at
         FROM qc_results q JOIN qc_runs r ON r.candidate_id = q.candidate_id ORDER BY q.candidate_id, q.ord;
         DROP TABLE qc_results;
         DROP TABLE qc_runs;
         ALTER TABLE qc_results_17 RENAME TO qc_results;
         CREATE TRIGGER qc_results_locked_delete BEFORE DELETE ON qc_results
         WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = OLD.candidate_id)
         BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its QC results cannot change'); END;
         CREATE TRIGGER qc_results_locked_insert BEFORE INSERT ON qc_results
         WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = NEW.candidate_id)
         BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its QC results cannot change'); END;
         CREATE TRIGGER qc_results_locked_update BEFORE UPDATE ON qc_results
         WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = OLD.candidate_id)
         BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its QC results cannot change'); END;",
        uid_as_text("uid")
    ))
    .unwrap();
}

/// Drops every trigger on `tables` (for a rewind that rewrites rows the guards protect) and gives
/// back each one's name and SQL, to be made again after.
fn lift_triggers(conn: &rusqlite::Connection, tables: &[&str]) -> Vec<(String, String)> {
    let mut triggers = Vec::new();
    for table in tables {
        let found: Vec<(String, String)> = conn
            .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?1")
            .unwrap()
            .query_map([table], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        triggers.extend(found);
    }
    for (name, _) in &triggers {
        conn.execute_batch(&format!("DROP TRIGGER {name}")).unwrap();
    }
    triggers
}

/// Takes out what migration 19 changed (for tests that take a project back to an earlier
/// schema): each record is the `prefill` or `confirm` events it stands for again, one per field in the
/// order they were written (the fields spelled out here, not read from the code under test),
/// each with a uid of its own, and the record's column and trigger go; an event merged from a
/// return names the return's packet again. The pre-fills take the ids
/// right behind their record, as schema 18 wrote them (which an upgraded file has free: the
/// migration took those events out); where a later event holds one, every event is numbered eight
/// apart first (and every reference to one with it).
pub fn undo_schema19(conn: &rusqlite::Connection) {
    undo_schema19_with_uids(conn, None)
}

/// [`undo_schema19`], where each pre-fill put back takes the uid (stored as it was) of the event
/// with its id in `was`, the file as it was before the upgrade: the uids migration 19 let go.
/// Only those of `prefill` events may be taken.
pub fn undo_schema19_with_uids(conn: &rusqlite::Connection, was: Option<&rusqlite::Connection>) {
    const ORDER: [&str; 6] = ["evidence_span", "calibrated_claim", "raised_claim", "axis", "severity", "repair"];
    let triggers = lift_triggers(conn, &["annotation_events", "annotations"]);
    let starts = |conn: &rusqlite::Connection| -> Vec<(i64, i64)> {
        conn.prepare("SELECT id, field_set FROM annotation_events WHERE field_set IS NOT NULL")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    let crowded = starts(conn).iter().any(|(id, bits)| {
        let after = id + i64::from(bits.count_ones()) - 1;
        conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM annotation_events WHERE id > ?1 AND id <= ?2)",
            [id, &after],
            |r| r.get::<_, bool>(0),
        )
        .unwrap()
    });
    if crowded {
        conn.execute_batch(
            "PRAGMA foreign_keys = OFF;
             UPDATE annotation_events SET id = -8 * id;
             UPDATE annotation_events SET id = -id, undoes = 8 * undoes;
             UPDATE annotations SET last_event_id = 8 * last_event_id;
             PRAGMA foreign_keys = ON;",
        )
        .unwrap();
    }
    let starts = starts(conn);
    let uid = |id: i64| -> rusqlite::types::Value {
        let Some(was) = was else { return rusqlite::types::Value::Blob(uuid::Uuid::new_v4().as_bytes().to_vec()) };
        let origin: String = was
            .query_row("SELECT origin FROM annotation_events WHERE id = ?1", [id], |r| r.get(0))
            .unwrap_or_else(|e| panic!("event {id} was in the file before the upgrade: {e}"));
        assert!(
            origin == "prefill" || origin == "confirm",
            "event {id}: an upgrade lets go of the uids of pre-fills and confirmations only, not of a `{origin}`"
        );
        // A file from before uids (schema 7) has none to give back; its events' uids are new.
        was.query_row("SELECT uid FROM annotation_events WHERE id = ?1", [id], |r| r.get(0))
            .unwrap_or_else(|_| rusqlite::types::Value::Blob(uuid::Uuid::new_v4().as_bytes().to_vec()))
    };
    for (id, bits) in starts {
        let fields: Vec<&str> =
            ORDER.iter().enumerate().filter(|(i, _)| bits & (1 << i) != 0).map(|(_, f)| *f).collect();
        conn.execute(
            "UPDATE annotation_events SET field = ?1, field_set = NULL WHERE id = ?2",
            rusqlite::params![fields[0], id],
        )
        .unwrap();
        for (k, field) in fields.iter().enumerate().skip(1) {
            conn.execute(
                "INSERT INTO annotation_events (id, candidate_id, annotator_id, field, old_value, new_value, at, origin,
                     packet_return_id, undoes, packet_id, source_event_id, uid, suggestion_mode, guideline_version, from_suggestion)
                 SELECT ?1, candidate_id, annotator_id, ?2, NULL, NULL, at, origin, packet_return_id, NULL, packet_id, NULL, ?3,
                     suggestion_mode, guideline_version, 1
                 FROM annotation_events WHERE id = ?4",
                rusqlite::params![id + k as i64, field, uid(id + k as i64), id],
            )
            .unwrap();
            // An undo of one of a record's events named the record and its field: it names the
            // event again.
            conn.execute(
                "UPDATE annotation_events SET undoes = ?1 WHERE undoes = ?2 AND field = ?3",
                rusqlite::params![id + k as i64, id, field],
            )
            .unwrap();
        }
        // An annotation whose last event was the record's had the last of its events last.
        conn.execute(
            "UPDATE annotations SET last_event_id = ?1 WHERE last_event_id = ?2",
            rusqlite::params![id + i64::from(bits.count_ones()) - 1, id],
        )
        .unwrap();
    }
    // Every merged event names its packet again, as 18 wrote it.
    conn.execute_batch(
        "UPDATE annotation_events SET packet_id = (SELECT r.packet_id FROM packet_returns r WHERE r.id = packet_return_id)
         WHERE packet_id IS NULL AND packet_return_id IS NOT NULL;
         ALTER TABLE annotation_events DROP COLUMN field_set;",
    )
    .unwrap();
    for (name, sql) in &triggers {
        if name != "annotation_events_record_needs_fields" {
            conn.execute_batch(sql).unwrap();
        }
    }
}

/// Takes out what migration 20 changed (for tests that take a project back to an earlier
/// schema): every check of a run's list is a result row again, passed unless a failure of it is
/// stored (expanded here with SQLite's own `json_each`, not by the code under test), and a run is
/// its row and time alone.
pub fn undo_schema20(conn: &rusqlite::Connection) {
    let lock = |table: &str, when: &str, row: &str| {
        format!(
            "CREATE TRIGGER {table}_locked_{when} BEFORE {} ON {table}
             WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = {row}.candidate_id)
             BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its QC results cannot change'); END;",
            when.to_uppercase()
        )
    };
    conn.execute_batch(
        "CREATE TABLE qc_results (
             candidate_id TEXT NOT NULL REFERENCES candidates(id),
             check_name   TEXT NOT NULL,
             severity     TEXT NOT NULL CHECK (severity IN ('error', 'warning')),
             passed       INTEGER NOT NULL CHECK (passed IN (0, 1)),
             detail       TEXT,
             ord          INTEGER NOT NULL,
             PRIMARY KEY (candidate_id, check_name)
         ) STRICT, WITHOUT ROWID;
         INSERT INTO qc_results (candidate_id, check_name, severity, passed, detail, ord)
         SELECT r.candidate_id, json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]'), f.candidate_id IS NULL,
                f.detail, j.key + 1
         FROM qc_runs r JOIN qc_check_lists l ON l.id = r.checks JOIN json_each(l.checks) j
         LEFT JOIN qc_failures f ON f.candidate_id = r.candidate_id AND f.ord = j.key + 1;
         CREATE TABLE qc_runs_19 (
             candidate_id TEXT PRIMARY KEY REFERENCES candidates(id),
             run_at       TEXT NOT NULL
         ) STRICT, WITHOUT ROWID;
         INSERT INTO qc_runs_19 SELECT candidate_id, run_at FROM qc_runs;
         DROP TABLE qc_failures;
         DROP TABLE qc_runs;
         DROP TABLE qc_check_lists;
         ALTER TABLE qc_runs_19 RENAME TO qc_runs;",
    )
    .unwrap();
    for table in ["qc_results", "qc_runs"] {
        for (when, row) in [("insert", "NEW"), ("update", "OLD"), ("delete", "OLD")] {
            conn.execute_batch(&lock(table, when, row)).unwrap();
        }
    }
}

/// The CHECKs that listed three or more values up to schema 21, as migrations wrote them (spelled
/// out here, not read from the code under test): table, column, values.
pub const LISTED: [(&str, &str, &[&str]); 7] = [
    ("adjudication_fields", "source", &["a", "b", "both", "edited", "suggestion"]),
    ("annotation_events", "suggestion_mode", &["prefilled", "beside", "hidden"]),
    ("annotators", "role", &["annotator", "adjudicator", "lead"]),
    ("drafts", "origin", &["hand", "model", "template_edit"]),
    ("judge_runs", "control", &["none", "swapped_evidence", "order"]),
    ("project", "suggestions", &["prefilled", "beside", "hidden"]),
    ("split_rows", "role", &["retained", "eval", "capped", "locality_removed"]),
];

/// Takes out schema 22: the CHECKs that list their values are written as lists again (what
/// migrations up to 21 wrote), in the schema's text, as the migration rewrote them.
pub fn undo_schema22(conn: &rusqlite::Connection) {
    let cookie: i64 = conn.query_row("PRAGMA schema_version", [], |r| r.get(0)).unwrap();
    conn.pragma_update(None, "writable_schema", true).unwrap();
    for (table, column, values) in LISTED {
        let compared = values.iter().map(|v| format!("{column} = '{v}'")).collect::<Vec<_>>().join(" OR ");
        let listed = values.iter().map(|v| format!("'{v}'")).collect::<Vec<_>>().join(", ");
        let changed = conn
            .execute(
                "UPDATE sqlite_schema SET sql = replace(sql, ?1, ?2) WHERE type = 'table' AND name = ?3 AND instr(sql, ?1) > 0",
                rusqlite::params![format!("({compared})"), format!("{column} IN ({listed})"), table],
            )
            .unwrap();
        assert_eq!(changed, 1, "{table}: no rewritten check to take out");
    }
    conn.pragma_update(None, "schema_version", cookie + 1).unwrap();
    conn.pragma_update(None, "writable_schema", "RESET").unwrap();
}

/// Takes out what migration 21 changed (for tests that take a project back to an earlier
/// schema): each record of an adjudication's first values is the events it stands for again, one
/// per field in the order they were written (the fields spelled out here, not read from the code
/// under test), each set to the value that follows it: the old value of the field's next event,
/// or the row's final value. Records are expanded newest first, so a later record of a field is
/// already its events when an earlier one reads what follows. The events take the ids right behind
/// their record (an upgraded file has them free: the migration took those events out); where a
/// later event holds one, every event is numbered eight apart first.
pub fn undo_schema21(conn: &rusqlite::Connection) {
    use rusqlite::OptionalExtension;
    const ORDER: [&str; 8] = [
        "decision",
        "evidence_span",
        "calibrated_claim",
        "raised_claim",
        "axis",
        "severity",
        "repair",
        "boundary_type",
    ];
    let triggers = lift_triggers(conn, &["adjudication_events"]);
    let records = |conn: &rusqlite::Connection| -> Vec<(i64, i64)> {
        conn.prepare("SELECT id, field_set FROM adjudication_events WHERE field_set IS NOT NULL ORDER BY id DESC")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    let crowded = records(conn).iter().any(|(id, bits)| {
        conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM adjudication_events WHERE id > ?1 AND id < ?1 + ?2)",
            [id, &i64::from(bits.count_ones())],
            |r| r.get::<_, bool>(0),
        )
        .unwrap()
    });
    if crowded {
        conn.execute_batch("UPDATE adjudication_events SET id = -8 * id; UPDATE adjudication_events SET id = -id;")
            .unwrap();
    }
    for (id, bits) in records(conn) {
        let row: String =
            conn.query_row("SELECT candidate_id FROM adjudication_events WHERE id = ?1", [id], |r| r.get(0)).unwrap();
        let fields: Vec<&str> =
            ORDER.iter().enumerate().filter(|(i, _)| bits & (1 << i) != 0).map(|(_, f)| *f).collect();
        for (k, field) in fields.iter().enumerate() {
            let next: Option<Option<String>> = conn
                .query_row(
                    "SELECT old_value FROM adjudication_events WHERE candidate_id = ?1 AND field = ?2 AND id > ?3
                     ORDER BY id LIMIT 1",
                    rusqlite::params![row, field, id],
                    |r| r.get(0),
                )
                .optional()
                .unwrap();
            let value = next.unwrap_or_else(|| {
                conn.query_row(
                    "SELECT value FROM adjudication_fields WHERE candidate_id = ?1 AND field = ?2",
                    [&row, *field],
                    |r| r.get(0),
                )
                .unwrap_or_else(|e| panic!("row {row}: a record's {field} has a value to follow it: {e}"))
            });
            if k == 0 {
                // The record itself becomes its first field's event.
                conn.execute(
                    "UPDATE adjudication_events SET field = ?2, new_value = ?3, field_set = NULL WHERE id = ?1",
                    rusqlite::params![id, field, value],
                )
                .unwrap();
                continue;
            }
            conn.execute(
                "INSERT INTO adjudication_events (id, candidate_id, field, old_value, new_value, source, adjudicator_id, at, guideline_version)
                 SELECT ?1 + ?2, candidate_id, ?3, NULL, ?4, source, adjudicator_id, at, guideline_version
                 FROM adjudication_events WHERE id = ?1",
                rusqlite::params![id, k as i64, field, value],
            )
            .unwrap();
        }
    }
    conn.execute_batch("ALTER TABLE adjudication_events DROP COLUMN field_set;").unwrap();
    for (name, sql) in &triggers {
        if name != "adjudication_events_record_needs_fields" {
            conn.execute_batch(sql).unwrap();
        }
    }
}

/// An annotation history as text, with each event's id (which an upgrade or a rewind to an
/// earlier schema renumbers) replaced by its place in the list, and an undo naming the place of
/// the event it undoes (of its field): two histories read alike when they hold the same changes in the same
/// order. The events a record stands for share its id, and each has its own place.
pub fn trail(events: &[forcebench::annotate::AnnotationEvent]) -> String {
    // An undo takes back one field: of the events sharing a record's id, the one of its field.
    let place = |id: i64, field: &str| events.iter().position(|e| e.id == id && e.field == field).map(|p| p as i64);
    let renumbered: Vec<forcebench::annotate::AnnotationEvent> = events
        .iter()
        .enumerate()
        .map(|(i, e)| forcebench::annotate::AnnotationEvent {
            id: i as i64,
            undoes: e.undoes.map(|u| place(u, &e.field).unwrap_or(-1)),
            ..e.clone()
        })
        .collect();
    format!("{renumbered:?}")
}

/// Rewrites a project of the latest schema as schema `to` (16 to 20) stored it, taking out
/// what each later migration changed, newest first, and says `to`, so that opening it runs those
/// migrations on it again; then compacts it, as a file of that schema would be.
pub fn rewind(path: &std::path::Path, to: i64) {
    assert!((16..=20).contains(&to), "rewinds to schema 16 to 20");
    let conn = rusqlite::Connection::open(path).unwrap();
    undo_schema22(&conn);
    undo_schema21(&conn);
    if to < 20 {
        undo_schema20(&conn);
    }
    if to < 19 {
        undo_schema19(&conn);
    }
    if to < 18 {
        undo_schema18(&conn);
    }
    if to < 17 {
        undo_schema17(&conn);
    }
    conn.pragma_update(None, "user_version", to).unwrap();
    conn.execute_batch("VACUUM").unwrap();
}
