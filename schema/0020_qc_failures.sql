-- ForceBench Studio project schema: a QC run keeps what failed, and the checks it made once.
--
-- QC wrote one result per check (fifteen for an accepted row) and nearly all of them passed:
-- 97% of the results of the bench project, each repeating its row's 36-character id, the
-- check's name and its severity. A row's run now names, in `qc_runs.checks`, a list of the
-- checks it made (each with its severity, in the order they ran) kept once in `qc_check_lists`
-- for every run that made the same checks: a project holds a handful of such lists. Only failed
-- checks are rows, in `qc_failures`, with their place in that list (`ord`, from 1) and their
-- detail; a check of the list without a failure passed. `failed` counts the run's failures and
-- `blocked` says whether one of them is an error (the row is held back), so the row states read
-- one small row per row; a reader that finds the failures and the count disagree refuses the
-- file (src/qc.rs).
CREATE TABLE qc_check_lists (
    id     INTEGER PRIMARY KEY,
    checks TEXT NOT NULL UNIQUE CHECK (json_valid(checks) AND json_type(checks) = 'array')
) STRICT;
CREATE TRIGGER qc_check_lists_no_update BEFORE UPDATE ON qc_check_lists
BEGIN SELECT RAISE(ABORT, 'QC check lists are append-only: runs share them'); END;
CREATE TRIGGER qc_check_lists_no_delete BEFORE DELETE ON qc_check_lists
BEGIN SELECT RAISE(ABORT, 'QC check lists are append-only: runs share them'); END;

-- Each row's run as schema 19 stored it: the checks in order, the failures counted. The list's
-- text is the one src/qc.rs writes: `[["name","severity"],...]`, with no spaces.
CREATE TEMP TABLE qc_runs_19 AS
SELECT r.candidate_id, r.run_at,
       (SELECT json_group_array(json_array(q.check_name, q.severity) ORDER BY q.ord)
        FROM qc_results q WHERE q.candidate_id = r.candidate_id) AS checks,
       (SELECT count(*) FROM qc_results q WHERE q.candidate_id = r.candidate_id AND q.passed = 0) AS failed,
       (SELECT count(*) FROM qc_results q
        WHERE q.candidate_id = r.candidate_id AND q.passed = 0 AND q.severity = 'error') > 0 AS blocked
FROM qc_runs r;
INSERT INTO qc_check_lists (checks) SELECT DISTINCT checks FROM qc_runs_19 ORDER BY checks;

-- Dropping a table drops its lock triggers; they are made again below for both new tables.
DROP TABLE qc_runs;
CREATE TABLE qc_runs (
    candidate_id TEXT PRIMARY KEY REFERENCES candidates(id),
    run_at       TEXT NOT NULL,
    checks       INTEGER NOT NULL REFERENCES qc_check_lists(id),
    failed       INTEGER NOT NULL CHECK (failed >= 0),
    blocked      INTEGER NOT NULL CHECK (blocked IN (0, 1) AND (blocked = 0 OR failed > 0))
) STRICT, WITHOUT ROWID;
INSERT INTO qc_runs (candidate_id, run_at, checks, failed, blocked)
SELECT r.candidate_id, r.run_at, l.id, r.failed, r.blocked
FROM qc_runs_19 r JOIN qc_check_lists l ON l.checks = r.checks ORDER BY r.candidate_id;

CREATE TABLE qc_failures (
    candidate_id TEXT NOT NULL REFERENCES qc_runs(candidate_id),
    check_name   TEXT NOT NULL,
    severity     TEXT NOT NULL CHECK (severity IN ('error', 'warning')),
    detail       TEXT,
    ord          INTEGER NOT NULL CHECK (ord >= 1),   -- the check's place in its run's list
    PRIMARY KEY (candidate_id, check_name)
) STRICT, WITHOUT ROWID;
INSERT INTO qc_failures (candidate_id, check_name, severity, detail, ord)
SELECT candidate_id, check_name, severity, detail, ord FROM qc_results WHERE passed = 0 ORDER BY candidate_id, check_name;
DROP TABLE qc_results;
DROP TABLE qc_runs_19;

-- A failed error check is only written under a run that says it holds the row back.
CREATE TRIGGER qc_failures_error_blocks BEFORE INSERT ON qc_failures
WHEN NEW.severity = 'error' AND NOT EXISTS (SELECT 1 FROM qc_runs WHERE candidate_id = NEW.candidate_id AND blocked = 1)
BEGIN SELECT RAISE(ABORT, 'a failed error check needs a QC run that holds its row back'); END;

CREATE TRIGGER qc_failures_locked_insert BEFORE INSERT ON qc_failures
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = NEW.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its QC results cannot change'); END;
CREATE TRIGGER qc_failures_locked_update BEFORE UPDATE ON qc_failures
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = OLD.candidate_id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its QC results cannot change'); END;
CREATE TRIGGER qc_failures_locked_delete BEFORE DELETE ON qc_failures
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
