-- ForceBench Studio project schema, version 5: split rows stored by their key.
--
-- A split of a large project writes and reads tens of thousands of rows at once. As a rowid table
-- with a separate primary-key index, every insert wrote two B-trees and every ordered read of a
-- split probed the table once per row; WITHOUT ROWID keeps the rows in key order in one B-tree.
-- The lock check on a single row (`refuse_if_locked`) searches it by (split_id, candidate_id).
CREATE TABLE split_rows_v5 (
    split_id     INTEGER NOT NULL REFERENCES splits(id),
    candidate_id TEXT NOT NULL REFERENCES candidates(id),
    role         TEXT NOT NULL CHECK (role IN ('retained', 'eval', 'capped', 'locality_removed')),
    reason       TEXT,
    PRIMARY KEY (split_id, candidate_id, role)
) STRICT, WITHOUT ROWID;
INSERT INTO split_rows_v5 SELECT split_id, candidate_id, role, reason FROM split_rows;
DROP TABLE split_rows;
ALTER TABLE split_rows_v5 RENAME TO split_rows;
