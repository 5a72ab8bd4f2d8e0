-- ForceBench Studio project schema: the same record in fewer bytes.
--
-- QC results. A row's results were a rowid table with a separate unique index on their key
-- (candidate_id, check_name), so every key was written twice, and each result repeated the time
-- of the run that wrote it, though one run writes all of a row's results at once. The results
-- are now a table keyed by that pair alone (WITHOUT ROWID), `ord` keeps the order the checks were
-- written in (the order reports list them in, which the rowid gave before), and the time of a
-- row's run is kept once, in qc_runs. Every row's results come from one run, so the run's time is
-- the one every result of the row carried.
CREATE TABLE qc_runs (
    candidate_id TEXT PRIMARY KEY REFERENCES candidates(id),
    run_at       TEXT NOT NULL
) STRICT, WITHOUT ROWID;
INSERT INTO qc_runs (candidate_id, run_at) SELECT candidate_id, max(run_at) FROM qc_results GROUP BY candidate_id;

CREATE TABLE qc_results_keyed (
    candidate_id TEXT NOT NULL REFERENCES candidates(id),
    check_name   TEXT NOT NULL,
    severity     TEXT NOT NULL CHECK (severity IN ('error', 'warning')),
    passed       INTEGER NOT NULL CHECK (passed IN (0, 1)),
    detail       TEXT,
    ord          INTEGER NOT NULL,          -- the check's place in its row's run, from 1
    PRIMARY KEY (candidate_id, check_name)
) STRICT, WITHOUT ROWID;
INSERT INTO qc_results_keyed (candidate_id, check_name, severity, passed, detail, ord)
SELECT candidate_id, check_name, severity, passed, detail,
       row_number() OVER (PARTITION BY candidate_id ORDER BY rowid)
FROM qc_results ORDER BY candidate_id, check_name;
-- Dropping the table drops its lock triggers; they are made again below, for both tables.
DROP TABLE qc_results;
ALTER TABLE qc_results_keyed RENAME TO qc_results;

CREATE TRIGGER qc_results_locked_insert BEFORE INSERT ON qc_results
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = NEW.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its QC results cannot change'); END;
CREATE TRIGGER qc_results_locked_update BEFORE UPDATE ON qc_results
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = OLD.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its QC results cannot change'); END;
CREATE TRIGGER qc_results_locked_delete BEFORE DELETE ON qc_results
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = OLD.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its QC results cannot change'); END;
CREATE TRIGGER qc_runs_locked_insert BEFORE INSERT ON qc_runs
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = NEW.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its QC results cannot change'); END;
CREATE TRIGGER qc_runs_locked_update BEFORE UPDATE ON qc_runs
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = OLD.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its QC results cannot change'); END;
CREATE TRIGGER qc_runs_locked_delete BEFORE DELETE ON qc_runs
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = OLD.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its QC results cannot change'); END;

-- Annotation event uids. A uid in the usual lowercase hyphenated text of a uuid (every uid this
-- software makes) is kept as its 16 bytes instead of 36 characters, in the table and in its
-- unique index; a uid in any other text (a packet may carry one) is kept as it is, so the column
-- holds either (ANY) and every uid reads back as written (src/annotate/stored.rs, StoredUid).
-- The column is made anew, so its index and the triggers naming it are made again after; events
-- are append-only, so the update guard is lifted for the copy alone.
DROP INDEX annotation_events_uid;
DROP TRIGGER annotation_events_need_uid;
DROP TRIGGER annotation_events_no_update;
ALTER TABLE annotation_events ADD COLUMN uid_bytes ANY;
UPDATE annotation_events SET uid_bytes = CASE
    WHEN length(uid) = 36 AND substr(uid, 9, 1) = '-' AND substr(uid, 14, 1) = '-' AND substr(uid, 19, 1) = '-'
         AND substr(uid, 24, 1) = '-' AND lower(hex(unhex(replace(uid, '-', '')))) IS replace(uid, '-', '')
    THEN unhex(replace(uid, '-', ''))
    ELSE uid END;
ALTER TABLE annotation_events DROP COLUMN uid;
ALTER TABLE annotation_events RENAME COLUMN uid_bytes TO uid;
CREATE UNIQUE INDEX annotation_events_uid ON annotation_events(uid);
CREATE TRIGGER annotation_events_need_uid BEFORE INSERT ON annotation_events WHEN NEW.uid IS NULL
BEGIN SELECT RAISE(ABORT, 'every annotation event needs a uid'); END;
CREATE TRIGGER annotation_events_no_update BEFORE UPDATE ON annotation_events
BEGIN SELECT RAISE(ABORT, 'annotation events are append-only'); END;

-- A frozen row's construction family: the split exports it, but the guard made before the column
-- existed did not name it, so only the seal caught a change, at the next export.
DROP TRIGGER candidates_locked_update;
CREATE TRIGGER candidates_locked_update BEFORE UPDATE ON candidates
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = OLD.id)
 AND (OLD.id IS NOT NEW.id OR OLD.group_id IS NOT NEW.group_id OR OLD.source_dataset IS NOT NEW.source_dataset
      OR OLD.source_id IS NOT NEW.source_id OR OLD.context IS NOT NEW.context OR OLD.passage IS NOT NEW.passage
      OR OLD.evidence_span IS NOT NEW.evidence_span OR OLD.calibrated_claim IS NOT NEW.calibrated_claim
      OR OLD.raised_claim IS NOT NEW.raised_claim OR OLD.repair IS NOT NEW.repair
      OR OLD.rationale IS NOT NEW.rationale OR OLD.axis IS NOT NEW.axis OR OLD.severity IS NOT NEW.severity
      OR OLD.content_sha256 IS NOT NEW.content_sha256 OR OLD.construction_family IS NOT NEW.construction_family)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its text cannot change'); END;
