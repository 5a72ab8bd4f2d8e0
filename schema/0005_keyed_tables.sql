-- ForceBench Studio project schema, version 5: split rows and final fields stored by their key.
--
-- A split of a large project writes and reads tens of thousands of split rows at once, and an
-- export reads every final field. As rowid tables with a separate primary-key index, every insert
-- wrote two B-trees and every read in key order probed the table once per row. WITHOUT
-- ROWID keeps the rows in key order in one B-tree: a scan returns them grouped by row id. The lock
-- check on a single row (`refuse_if_locked`) searches split_rows by (split_id, candidate_id).
--
-- split_rows.candidate_id no longer references candidates(id): the split writes only ids it has
-- just read from candidates in the same transaction, candidates are never deleted, and checking
-- the reference cost a key search per written row (half the time of a large draft).
CREATE TABLE split_rows_v5 (
    split_id     INTEGER NOT NULL REFERENCES splits(id),
    candidate_id TEXT NOT NULL,
    role         TEXT NOT NULL CHECK (role IN ('retained', 'eval', 'capped', 'locality_removed')),
    reason       TEXT,
    PRIMARY KEY (split_id, candidate_id, role)
) STRICT, WITHOUT ROWID;
INSERT INTO split_rows_v5 SELECT split_id, candidate_id, role, reason FROM split_rows;
DROP TABLE split_rows;
ALTER TABLE split_rows_v5 RENAME TO split_rows;

CREATE TABLE adjudication_fields_v5 (
    candidate_id   TEXT NOT NULL REFERENCES adjudications(candidate_id),
    field          TEXT NOT NULL,
    value          TEXT,
    source         TEXT NOT NULL CHECK (source IN ('a', 'b', 'both', 'edited', 'suggestion')),
    adjudicator_id INTEGER NOT NULL REFERENCES annotators(id),
    at             TEXT NOT NULL,
    PRIMARY KEY (candidate_id, field)
) STRICT, WITHOUT ROWID;
INSERT INTO adjudication_fields_v5 SELECT candidate_id, field, value, source, adjudicator_id, at FROM adjudication_fields;
DROP TABLE adjudication_fields;
ALTER TABLE adjudication_fields_v5 RENAME TO adjudication_fields;

-- The final axis and severity of every row, in a narrow index of their own: a split reads them
-- for every row without walking the claims and spans stored beside them.
CREATE INDEX adjudication_fields_axis_severity ON adjudication_fields(field, candidate_id, value)
    WHERE field IN ('axis', 'severity');
