-- ForceBench Studio project schema: the construction record a lab publishes.
--
-- 1. Agreement is measured on the annotators' labels as they stood before adjudication. Until
--    now an annotator could still change a label after the adjudicator had decided the row, and
--    every pre-adjudication figure (kappa, the other coefficients, the datasheet, the manifest)
--    moved with it. From this version an adjudicated row takes no new annotation event: the
--    core refuses first with a message naming the row, and the trigger below refuses the same
--    write in storage for any path that did not ask. To let the annotators change their labels
--    again, the adjudicator reopens the row, a step recorded in `adjudication_reopens` (who,
--    when, why, and the decision it undid); the row goes back to double-annotated and is
--    adjudicated afresh.
-- 2. The final locality audit reviews every selected row: a row with a locality warning is
--    reviewed once it is marked nonlocal (`locality_marks`) or kept (`locality_keeps`, who and
--    when). A lock refuses while a selected row is unreviewed, unless the lead locks anyway and
--    the manifest says so.
CREATE TABLE IF NOT EXISTS adjudication_reopens (
    id             INTEGER PRIMARY KEY,
    candidate_id   TEXT NOT NULL REFERENCES candidates(id),
    adjudicator_id INTEGER NOT NULL REFERENCES annotators(id),
    reason         TEXT NOT NULL CHECK (length(trim(reason)) > 0),
    decision       TEXT NOT NULL,              -- the final decision the reopening undid
    at             TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS adjudication_reopens_row ON adjudication_reopens(candidate_id, id);
CREATE TRIGGER IF NOT EXISTS adjudication_reopens_no_update BEFORE UPDATE ON adjudication_reopens
BEGIN SELECT RAISE(ABORT, 'adjudication reopenings are append-only'); END;
CREATE TRIGGER IF NOT EXISTS adjudication_reopens_no_delete BEFORE DELETE ON adjudication_reopens
BEGIN SELECT RAISE(ABORT, 'adjudication reopenings are append-only'); END;
CREATE TRIGGER IF NOT EXISTS adjudication_reopens_locked BEFORE INSERT ON adjudication_reopens
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = NEW.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its final labels cannot change'); END;

CREATE TRIGGER IF NOT EXISTS annotation_events_adjudicated BEFORE INSERT ON annotation_events
WHEN EXISTS (SELECT 1 FROM adjudications WHERE candidate_id = NEW.candidate_id)
BEGIN SELECT RAISE(ABORT, 'row_adjudicated: this row is adjudicated, so its annotations are what agreement counts and cannot change; the adjudicator must reopen it first'); END;

CREATE TABLE IF NOT EXISTS locality_keeps (
    candidate_id TEXT PRIMARY KEY REFERENCES candidates(id),
    kept_by      TEXT NOT NULL CHECK (length(trim(kept_by)) > 0),
    note         TEXT,
    at           TEXT NOT NULL
) STRICT;
CREATE TRIGGER IF NOT EXISTS locality_keeps_locked_insert BEFORE INSERT ON locality_keeps
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = NEW.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its locality review cannot change'); END;
CREATE TRIGGER IF NOT EXISTS locality_keeps_locked_update BEFORE UPDATE ON locality_keeps
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = OLD.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its locality review cannot change'); END;
CREATE TRIGGER IF NOT EXISTS locality_keeps_locked_delete BEFORE DELETE ON locality_keeps
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = OLD.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its locality review cannot change'); END;
