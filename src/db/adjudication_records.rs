//! Records of an adjudication's first values (schema 21): the history events one adjudication
//! wrote for fields that had no value before, from one source (the `both` of a bulk
//! confirmation: seven events a row), kept as one event naming those fields. A record carries no
//! values: each of its fields was set to the value that follows it, the old value of the field's
//! next event (every later change, drop or reopening writes the value it replaces) or, when
//! there is none, the row's final value of that field. src/adjudicate/history.rs writes and reads
//! them; here are the fields' order, which the stored bits follow, and the step that turns the
//! events an earlier schema wrote into records.

/// The fields a record can stand for, in the order an adjudication writes their events (the
/// order of `label::FIELDS`); bit `i` of a record's `field_set` is field `i` here. Stored in every
/// project from schema 21: never reordered.
pub(crate) const FIELDS: [&str; 8] =
    ["decision", "evidence_span", "calibrated_claim", "raised_claim", "axis", "severity", "repair", "boundary_type"];

/// The `field` of a record.
pub(crate) const RECORD_FIELD: &str = "fields";

/// Bit of `field` in a record's `field_set`, if a record can stand for it.
pub(crate) fn bit(field: &str) -> Option<i64> {
    FIELDS.iter().position(|f| *f == field).map(|i| 1i64 << i)
}

/// Turns the events already written into records: every run of two or more consecutive events
/// of one row that set a field with no value before (no old value) to the value that follows
/// it, from one source, adjudicator, time and guideline, fields in [`FIELDS`] order, becomes its
/// first event, which keeps its id and time and names the run's fields; the run's other events
/// go (nothing refers to an adjudication event). Any other event is kept as it was written.
/// Runs inside schema 21's migration, before anything else opens the project.
pub(crate) fn collapse(tx: &rusqlite::Connection) -> rusqlite::Result<()> {
    tx.execute_batch(
        "CREATE TEMP TABLE adjudication_runs (first INTEGER PRIMARY KEY, bits INTEGER NOT NULL) STRICT;
         CREATE TEMP TABLE adjudication_gone (id INTEGER PRIMARY KEY) STRICT;",
    )?;
    {
        // Whether an event's value is the one that follows it, as a reader of a record finds it.
        let mut stmt = tx.prepare(
            "SELECT e.id, e.candidate_id, e.field, e.source, e.adjudicator_id, e.at, e.guideline_version,
                    e.old_value IS NULL AND e.field_set IS NULL AND CASE
                      WHEN EXISTS (SELECT 1 FROM adjudication_events n
                                   WHERE n.candidate_id = e.candidate_id AND n.id > e.id AND n.field = e.field)
                        THEN e.new_value IS (SELECT n.old_value FROM adjudication_events n
                                             WHERE n.candidate_id = e.candidate_id AND n.id > e.id AND n.field = e.field
                                             ORDER BY n.id LIMIT 1)
                      WHEN EXISTS (SELECT 1 FROM adjudication_fields f WHERE f.candidate_id = e.candidate_id AND f.field = e.field)
                        THEN e.new_value IS (SELECT f.value FROM adjudication_fields f
                                             WHERE f.candidate_id = e.candidate_id AND f.field = e.field)
                      ELSE 0 END
             FROM adjudication_events e ORDER BY e.id",
        )?;
        let mut put_run = tx.prepare("INSERT INTO temp.adjudication_runs (first, bits) VALUES (?1, ?2)")?;
        let mut put_gone = tx.prepare("INSERT INTO temp.adjudication_gone (id) VALUES (?1)")?;
        // What the events of a run share: row, source, adjudicator, time, guideline.
        type Same = (String, String, i64, String, Option<String>);
        let mut run: Option<(Same, Vec<i64>, i64)> = None;
        let mut flush = |run: Option<(Same, Vec<i64>, i64)>| -> rusqlite::Result<()> {
            if let Some((_, ids, bits)) = run.filter(|r| r.1.len() > 1) {
                put_run.execute(rusqlite::params![ids[0], bits])?;
                for id in &ids[1..] {
                    put_gone.execute([id])?;
                }
            }
            Ok(())
        };
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let id: i64 = r.get(0)?;
            let field: String = r.get(2)?;
            let follows: bool = r.get(7)?;
            let same: Same = (r.get(1)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?);
            let b = bit(&field).filter(|_| follows);
            if let (Some(b), Some((run_same, ids, bits))) = (b, run.as_mut()) {
                if *run_same == same && b > *bits && ids.last() == Some(&(id - 1)) {
                    ids.push(id);
                    *bits |= b;
                    continue;
                }
            }
            flush(run.take())?;
            run = b.map(|b| (same, vec![id], b));
        }
        flush(run.take())?;
    }
    // The guards are made again in the words schema 1 made them in, so an upgraded project's
    // schema reads as a new one's.
    tx.execute_batch(concat!(
        "DROP TRIGGER adjudication_events_no_update;
         DROP TRIGGER adjudication_events_no_delete;
         DELETE FROM adjudication_events WHERE id IN (SELECT id FROM temp.adjudication_gone);
         UPDATE adjudication_events SET field = 'fields', new_value = NULL,
             field_set = (SELECT bits FROM temp.adjudication_runs r WHERE r.first = adjudication_events.id)
         WHERE id IN (SELECT first FROM temp.adjudication_runs);
         DROP TABLE temp.adjudication_runs;
         DROP TABLE temp.adjudication_gone;\n",
        "CREATE TRIGGER adjudication_events_no_update BEFORE UPDATE ON adjudication_events\n",
        "BEGIN SELECT RAISE(ABORT, 'adjudication events are append-only'); END;\n",
        "CREATE TRIGGER adjudication_events_no_delete BEFORE DELETE ON adjudication_events\n",
        "BEGIN SELECT RAISE(ABORT, 'adjudication events are append-only'); END;\n",
    ))
}
