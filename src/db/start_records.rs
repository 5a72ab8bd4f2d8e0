//! Start records (schema 19): the `prefill` events an annotator's start of a row wrote, one per
//! field shown pre-filled, kept as one event naming those fields (src/annotate/stored.rs reads
//! and writes them). Here are the fields' order, which the stored bits follow, and the step that
//! turns the events an earlier schema wrote into such records.

/// The fields a start record can stand for, in the order their `prefill` events were written (the
/// order of the annotation fields); bit `i` of a record's `start_fields` is field `i` here.
/// Stored in every project from schema 19: never reordered.
pub(crate) const FIELDS: [&str; 6] =
    ["evidence_span", "calibrated_claim", "raised_claim", "axis", "severity", "repair"];

/// Turns the `prefill` events already written into start records: for each annotator and row,
/// the leading run of marked pre-fills (one time, mode, guideline and packet, fields in
/// [`FIELDS`] order, none undone) becomes its first event, which keeps its id, uid and time
/// and names the run's fields; the run's other events go, and an annotation whose last event was
/// one of them names the record instead. A run of one is left as it is. Runs in the middle of a
/// row's events, or with a value that is not the row's suggestion, are left as they are too:
/// every reader reads both forms. Runs inside schema 19's migration, before anything else opens
/// the project.
pub(crate) fn collapse_starts(tx: &rusqlite::Connection) -> rusqlite::Result<()> {
    // Deleting an event makes SQLite look for what refers to it (an annotation's last event, an
    // undo): with no index on either reference that is a scan of each table per event, hours at
    // 100,000 rows. Two indexes for the length of this step make each a look-up.
    tx.execute_batch(
        "CREATE TEMP TABLE start_runs (first INTEGER PRIMARY KEY, bits INTEGER NOT NULL) STRICT;
         CREATE TEMP TABLE start_gone (id INTEGER PRIMARY KEY, first INTEGER NOT NULL) STRICT;
         CREATE INDEX start_records_last_event ON annotations(last_event_id);
         CREATE INDEX start_records_undoes ON annotation_events(undoes);",
    )?;
    {
        let mut stmt = tx.prepare(
            "SELECT e.id, e.candidate_id, e.annotator_id, e.field, e.origin IS 'prefill' AND e.from_suggestion IS 1
                    AND e.old_value IS NULL AND e.new_value IS NULL AND e.undoes IS NULL
                    AND NOT EXISTS (SELECT 1 FROM annotation_events u WHERE u.undoes = e.id),
                    e.at, e.suggestion_mode, e.guideline_version, e.packet_return_id, e.packet_id
             FROM annotation_events e ORDER BY e.candidate_id, e.annotator_id, e.id",
        )?;
        let mut put_run = tx.prepare("INSERT INTO temp.start_runs (first, bits) VALUES (?1, ?2)")?;
        let mut put_gone = tx.prepare("INSERT INTO temp.start_gone (id, first) VALUES (?1, ?2)")?;
        type Key = (String, i64);
        type Same = (String, Option<String>, Option<String>, Option<i64>, Option<String>);
        // The run being read: its row and annotator, what its events share, its ids and bits.
        let mut run: Option<(Key, Same, Vec<i64>, i64)> = None;
        // The row and annotator whose leading run has ended (a later pre-fill is not a start).
        let mut past: Option<Key> = None;
        let mut flush = |run: Option<(Key, Same, Vec<i64>, i64)>| -> rusqlite::Result<()> {
            if let Some((_, _, ids, bits)) = run.filter(|r| r.2.len() > 1) {
                put_run.execute(rusqlite::params![ids[0], bits])?;
                for id in &ids[1..] {
                    put_gone.execute(rusqlite::params![id, ids[0]])?;
                }
            }
            Ok(())
        };
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let id: i64 = r.get(0)?;
            let key: Key = (r.get(1)?, r.get(2)?);
            let field: String = r.get(3)?;
            let marked: bool = r.get(4)?;
            let same: Same = (r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?, r.get(9)?);
            let bit = FIELDS.iter().position(|f| *f == field).map(|i| 1i64 << i).filter(|_| marked);
            if let Some((run_key, run_same, ids, bits)) = run.as_mut() {
                if *run_key == key {
                    match bit {
                        Some(b) if *run_same == same && b > *bits => {
                            ids.push(id);
                            *bits |= b;
                        }
                        _ => {
                            past = Some(key);
                            flush(run.take())?;
                        }
                    }
                    continue;
                }
                flush(run.take())?;
            }
            if past.as_ref() == Some(&key) {
                continue;
            }
            past = None;
            match bit {
                Some(b) => run = Some((key, same, vec![id], b)),
                None => past = Some(key),
            }
        }
        flush(run.take())?;
    }
    // The guards are made again in the words schema 1 made them in, so an upgraded project's
    // schema reads as a new one's.
    tx.execute_batch(concat!(
        "DROP TRIGGER annotation_events_no_update;
         DROP TRIGGER annotation_events_no_delete;
         UPDATE annotations SET last_event_id = (SELECT first FROM temp.start_gone g WHERE g.id = annotations.last_event_id)
         WHERE last_event_id IN (SELECT id FROM temp.start_gone);
         DELETE FROM annotation_events WHERE id IN (SELECT id FROM temp.start_gone);
         UPDATE annotation_events SET field = 'suggestions', start_fields = (SELECT bits FROM temp.start_runs r WHERE r.first = annotation_events.id)
         WHERE id IN (SELECT first FROM temp.start_runs);
         DROP TABLE temp.start_runs;
         DROP TABLE temp.start_gone;
         DROP INDEX start_records_last_event;
         DROP INDEX start_records_undoes;\n",
        "CREATE TRIGGER annotation_events_no_update BEFORE UPDATE ON annotation_events\n",
        "BEGIN SELECT RAISE(ABORT, 'annotation events are append-only'); END;\n",
        "CREATE TRIGGER annotation_events_no_delete BEFORE DELETE ON annotation_events\n",
        "BEGIN SELECT RAISE(ABORT, 'annotation events are append-only'); END;\n",
    ))
}
