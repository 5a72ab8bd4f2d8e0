-- ForceBench Studio project schema, version 6: a locked split freezes every row its export covers.
--
-- An export of a locked split holds the split's rows and, besides them, every row adjudicated
-- when it was locked: both independent annotations, the final labels with their sources and the
-- adjudicator's checklist, the rejected rows with their boundary types. Until version 6 only the
-- final labels and locality marks of the split's own rows were guarded, and only by the code
-- paths that remembered to ask, so annotation changes, an undo or a re-adjudication of a
-- rejected row changed what a re-export of the same locked version wrote.
--
-- `locked_rows` records, at lock time, each row a locked split covers. Rows listed there refuse
-- every change to what an export reads of them (annotation events and the annotations they fold
-- into, assignments, adjudications, final fields, adjudication events, QC results, locality
-- marks), here in the storage itself, whatever code path tries; the core checks first so that
-- people get a message naming the row and the split. A locked split's own rows and record cannot
-- change either. Every message starts with `split_locked:`, the error code the core reports.
CREATE TABLE locked_rows (
    candidate_id TEXT NOT NULL,
    split_id     INTEGER NOT NULL REFERENCES splits(id),
    PRIMARY KEY (candidate_id, split_id)
) STRICT, WITHOUT ROWID;

-- Splits locked before version 6 are frozen from the upgrade on, as they stand then.
INSERT OR IGNORE INTO locked_rows (candidate_id, split_id)
SELECT r.candidate_id, r.split_id FROM split_rows r JOIN splits s ON s.id = r.split_id WHERE s.status = 'locked';
INSERT OR IGNORE INTO locked_rows (candidate_id, split_id)
SELECT j.candidate_id, s.id FROM adjudications j, splits s WHERE s.status = 'locked';

CREATE TRIGGER locked_rows_no_update BEFORE UPDATE ON locked_rows
BEGIN SELECT RAISE(ABORT, 'split_locked: the rows a locked split covers cannot change'); END;
CREATE TRIGGER locked_rows_no_delete BEFORE DELETE ON locked_rows
BEGIN SELECT RAISE(ABORT, 'split_locked: the rows a locked split covers cannot change'); END;

CREATE TRIGGER splits_locked_no_update BEFORE UPDATE ON splits WHEN OLD.status = 'locked'
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split cannot change'); END;
CREATE TRIGGER splits_locked_no_delete BEFORE DELETE ON splits WHEN OLD.status = 'locked'
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split cannot change'); END;
CREATE TRIGGER split_rows_locked_no_insert BEFORE INSERT ON split_rows
WHEN (SELECT status FROM splits WHERE id = NEW.split_id) = 'locked'
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split cannot change'); END;
CREATE TRIGGER split_rows_locked_no_update BEFORE UPDATE ON split_rows
WHEN (SELECT status FROM splits WHERE id = OLD.split_id) = 'locked'
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split cannot change'); END;
CREATE TRIGGER split_rows_locked_no_delete BEFORE DELETE ON split_rows
WHEN (SELECT status FROM splits WHERE id = OLD.split_id) = 'locked'
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split cannot change'); END;

-- One trigger per table and statement kind that can change what an export reads of a row.
CREATE TRIGGER annotation_events_locked BEFORE INSERT ON annotation_events
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = NEW.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its annotations cannot change'); END;

CREATE TRIGGER annotations_locked_insert BEFORE INSERT ON annotations
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = NEW.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its annotations cannot change'); END;
CREATE TRIGGER annotations_locked_update BEFORE UPDATE ON annotations
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = OLD.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its annotations cannot change'); END;
CREATE TRIGGER annotations_locked_delete BEFORE DELETE ON annotations
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = OLD.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its annotations cannot change'); END;

CREATE TRIGGER assignments_locked_insert BEFORE INSERT ON assignments
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = NEW.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its annotators cannot change'); END;
CREATE TRIGGER assignments_locked_update BEFORE UPDATE ON assignments
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = OLD.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its annotators cannot change'); END;
CREATE TRIGGER assignments_locked_delete BEFORE DELETE ON assignments
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = OLD.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its annotators cannot change'); END;

CREATE TRIGGER adjudications_locked_insert BEFORE INSERT ON adjudications
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = NEW.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its final labels cannot change'); END;
CREATE TRIGGER adjudications_locked_update BEFORE UPDATE ON adjudications
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = OLD.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its final labels cannot change'); END;
CREATE TRIGGER adjudications_locked_delete BEFORE DELETE ON adjudications
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = OLD.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its final labels cannot change'); END;

CREATE TRIGGER adjudication_fields_locked_insert BEFORE INSERT ON adjudication_fields
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = NEW.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its final labels cannot change'); END;
CREATE TRIGGER adjudication_fields_locked_update BEFORE UPDATE ON adjudication_fields
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = OLD.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its final labels cannot change'); END;
CREATE TRIGGER adjudication_fields_locked_delete BEFORE DELETE ON adjudication_fields
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = OLD.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its final labels cannot change'); END;

CREATE TRIGGER adjudication_events_locked BEFORE INSERT ON adjudication_events
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = NEW.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its final labels cannot change'); END;

CREATE TRIGGER qc_results_locked_insert BEFORE INSERT ON qc_results
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = NEW.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its QC results cannot change'); END;
CREATE TRIGGER qc_results_locked_update BEFORE UPDATE ON qc_results
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = OLD.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its QC results cannot change'); END;
CREATE TRIGGER qc_results_locked_delete BEFORE DELETE ON qc_results
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = OLD.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its QC results cannot change'); END;

CREATE TRIGGER locality_marks_locked_insert BEFORE INSERT ON locality_marks
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = NEW.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its locality mark cannot change'); END;
CREATE TRIGGER locality_marks_locked_update BEFORE UPDATE ON locality_marks
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = OLD.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its locality mark cannot change'); END;
CREATE TRIGGER locality_marks_locked_delete BEFORE DELETE ON locality_marks
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = OLD.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its locality mark cannot change'); END;

-- The workflow state is decided in one place, the core's `rowstate` module; this view held a
-- second copy of the rule in SQL.
DROP VIEW candidate_states;
