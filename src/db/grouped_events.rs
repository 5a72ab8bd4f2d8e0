//! Records of grouped events (schema 19): the events one action wrote field by field (the
//! `prefill` events of a row's start, the `confirm` events of confirming its suggestions), kept as
//! one event naming those fields (src/annotate/stored.rs reads and writes them). Here are the
//! fields' order, which the stored bits follow, and the step that turns the events an earlier
//! schema wrote into such records.

/// The fields a record can stand for, in the order their events were written (the order of the
/// annotation fields); bit `i` of a record's `field_set` is field `i` here. Stored in every
/// project from schema 19: never reordered.
pub(crate) const FIELDS: [&str; 6] =
    ["evidence_span", "calibrated_claim", "raised_claim", "axis", "severity", "repair"];

/// Turns the events already written into records: for each annotator and row, every run of two
/// or more marked `prefill` events, or of two or more marked `confirm` events (one time, mode,
/// guideline and packet, fields in [`FIELDS`] order), becomes its first event, which keeps its
/// id, uid and time and names the run's fields. The run's other events go: an annotation whose
/// last event was one of them names the record instead, and an undo of one of them names the
/// record (an undo also names its field). A pre-fill that was undone (no software wrote one),
/// or a value that is not the row's suggestion, ends a run and is kept as it is: every reader
/// reads both forms. Runs inside schema 19's migration, before anything else opens the project.
pub(crate) fn collapse(tx: &rusqlite::Connection) -> rusqlite::Result<()> {
    // Deleting an event makes SQLite look for what refers to it (an annotation's last event, an
    // undo): with no index on either reference that is a scan of each table per event, hours at
    // 100,000 rows. Two indexes for the length of this step make each a look-up.
    tx.execute_batch(
        "CREATE TEMP TABLE grouped_runs (first INTEGER PRIMARY KEY, bits INTEGER NOT NULL) STRICT;
         CREATE TEMP TABLE grouped_gone (id INTEGER PRIMARY KEY, first INTEGER NOT NULL) STRICT;
         CREATE INDEX grouped_events_last_event ON annotations(last_event_id);
         CREATE INDEX grouped_events_undoes ON annotation_events(undoes);",
    )?;
    {
        // The kind of run an event can be part of: 1 a pre-fill, 2 a confirmation, 0 neither.
        let mut stmt = tx.prepare(
            "SELECT e.id, e.candidate_id, e.annotator_id, e.field,
                    CASE WHEN e.from_suggestion IS NOT 1 OR e.old_value IS NOT NULL OR e.new_value IS NOT NULL
                              OR e.undoes IS NOT NULL OR e.field_set IS NOT NULL THEN 0
                         WHEN e.origin = 'confirm' THEN 2
                         WHEN e.origin = 'prefill' AND NOT EXISTS (SELECT 1 FROM annotation_events u WHERE u.undoes = e.id) THEN 1
                         ELSE 0 END,
                    e.at, e.suggestion_mode, e.guideline_version, e.packet_return_id, e.packet_id
             FROM annotation_events e ORDER BY e.candidate_id, e.annotator_id, e.id",
        )?;
        let mut put_run = tx.prepare("INSERT INTO temp.grouped_runs (first, bits) VALUES (?1, ?2)")?;
        let mut put_gone = tx.prepare("INSERT INTO temp.grouped_gone (id, first) VALUES (?1, ?2)")?;
        // What the events of a run share: row, annotator, kind, time, mode, guideline, return, packet.
        type Same = (String, i64, i64, String, Option<String>, Option<String>, Option<i64>, Option<String>);
        let mut run: Option<(Same, Vec<i64>, i64)> = None;
        let mut flush = |run: Option<(Same, Vec<i64>, i64)>| -> rusqlite::Result<()> {
            if let Some((_, ids, bits)) = run.filter(|r| r.1.len() > 1) {
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
            let field: String = r.get(3)?;
            let kind: i64 = r.get(4)?;
            let same: Same = (r.get(1)?, r.get(2)?, kind, r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?, r.get(9)?);
            let bit = FIELDS.iter().position(|f| *f == field).map(|i| 1i64 << i).filter(|_| kind != 0);
            if let (Some(b), Some((run_same, ids, bits))) = (bit, run.as_mut()) {
                if *run_same == same && b > *bits {
                    ids.push(id);
                    *bits |= b;
                    continue;
                }
            }
            flush(run.take())?;
            run = bit.map(|b| (same, vec![id], b));
        }
        flush(run.take())?;
    }
    // An annotation's last event may be one that goes: it names the record instead, which the
    // guards on a locked or adjudicated row's annotation would refuse; they are lifted for that
    // one statement and made again as they were.
    let guards: Vec<(String, String)> = tx
        .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'annotations'")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    for (name, _) in &guards {
        tx.execute_batch(&format!("DROP TRIGGER \"{name}\""))?;
    }
    tx.execute_batch(
        "UPDATE annotations SET last_event_id = (SELECT first FROM temp.grouped_gone g WHERE g.id = annotations.last_event_id)
         WHERE last_event_id IN (SELECT id FROM temp.grouped_gone);",
    )?;
    for (_, sql) in &guards {
        tx.execute_batch(sql)?;
    }
    // The guards are made again in the words schema 1 made them in, so an upgraded project's
    // schema reads as a new one's.
    tx.execute_batch(concat!(
        "DROP TRIGGER annotation_events_no_update;
         DROP TRIGGER annotation_events_no_delete;
         UPDATE annotation_events SET undoes = (SELECT first FROM temp.grouped_gone g WHERE g.id = annotation_events.undoes)
         WHERE undoes IN (SELECT id FROM temp.grouped_gone);
         DELETE FROM annotation_events WHERE id IN (SELECT id FROM temp.grouped_gone);
         UPDATE annotation_events SET field = 'suggestions', field_set = (SELECT bits FROM temp.grouped_runs r WHERE r.first = annotation_events.id)
         WHERE id IN (SELECT first FROM temp.grouped_runs);
         DROP TABLE temp.grouped_runs;
         DROP TABLE temp.grouped_gone;
         DROP INDEX grouped_events_last_event;
         DROP INDEX grouped_events_undoes;\n",
        "CREATE TRIGGER annotation_events_no_update BEFORE UPDATE ON annotation_events\n",
        "BEGIN SELECT RAISE(ABORT, 'annotation events are append-only'); END;\n",
        "CREATE TRIGGER annotation_events_no_delete BEFORE DELETE ON annotation_events\n",
        "BEGIN SELECT RAISE(ABORT, 'annotation events are append-only'); END;\n",
    ))
}
