-- ForceBench Studio project schema, version 4: adjudication sources and QC details.
--
-- A final field whose value both annotators gave is recorded as source 'both' (it was never a
-- choice between them). SQLite cannot alter a CHECK constraint, so the table is rebuilt; no
-- release before this one wrote to it.
CREATE TABLE adjudication_fields_v4 (
    candidate_id   TEXT NOT NULL REFERENCES adjudications(candidate_id),
    field          TEXT NOT NULL,
    value          TEXT,
    source         TEXT NOT NULL CHECK (source IN ('a', 'b', 'both', 'edited', 'suggestion')),
    adjudicator_id INTEGER NOT NULL REFERENCES annotators(id),
    at             TEXT NOT NULL,
    PRIMARY KEY (candidate_id, field)
) STRICT;
INSERT INTO adjudication_fields_v4 SELECT * FROM adjudication_fields;
DROP TABLE adjudication_fields;
ALTER TABLE adjudication_fields_v4 RENAME TO adjudication_fields;

CREATE INDEX adjudication_events_row ON adjudication_events(candidate_id, id);
