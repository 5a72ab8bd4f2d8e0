-- ForceBench Studio project schema, version 1.
--
-- One SQLite file holds one project: the candidate pool and every later workflow step
-- (assignment, packets, annotation events, adjudication, QC, locality audit, splits, evaluator
-- scores). The tables for later steps are designed here so the whole protocol fits one model;
-- later migrations add to it, never rewrite it.
--
-- Pragmas (WAL, foreign keys, synchronous, busy timeout) are set when a connection opens
-- (src/db.rs), not here. The SQLite `application_id` marks the file as a ForceBench project.
--
-- Controlled vocabularies (axes, decisions, boundary types, workflow states) live in the lookup
-- tables below and nowhere else in SQL; the Rust enums in src/vocab.rs are checked against them
-- by a test.

CREATE TABLE project (
    singleton  INTEGER PRIMARY KEY CHECK (singleton = 1),
    id         TEXT NOT NULL,               -- uuid v4
    name       TEXT NOT NULL CHECK (length(trim(name)) > 0),
    created_at TEXT NOT NULL                -- RFC 3339, UTC
) STRICT;

-- Vocabularies ---------------------------------------------------------------------------------

CREATE TABLE axes (
    name        TEXT PRIMARY KEY,
    position    INTEGER NOT NULL UNIQUE,
    description TEXT NOT NULL
) STRICT;
INSERT INTO axes (name, position, description) VALUES
    ('relation', 1, 'association, mention or risk raised to causation, prevention, proof or obligation'),
    ('modality', 2, 'possible, preliminary or conditional evidence raised to certainty or necessity'),
    ('scope',    3, 'a subgroup, jurisdiction, study population or version generalised to a broader class'),
    ('temporal', 4, 'dated, predicted or as-of evidence turned into a current or timeless claim'),
    ('numeric',  5, 'an approximate, ranged or bounded quantity turned into an exact point value');

CREATE TABLE decisions (
    name        TEXT PRIMARY KEY,
    position    INTEGER NOT NULL UNIQUE,
    description TEXT NOT NULL
) STRICT;
INSERT INTO decisions (name, position, description) VALUES
    ('accept_force_gap',     1, 'the passage licenses the calibrated claim, not the raised one, and the contrast is local'),
    ('reject_not_force_gap', 2, 'the row is not a local force gap; a boundary type says why'),
    ('needs_discussion',     3, 'the boundary is genuinely unclear; the adjudicator decides');

CREATE TABLE boundary_types (
    name        TEXT PRIMARY KEY,
    position    INTEGER NOT NULL UNIQUE,
    description TEXT NOT NULL
) STRICT;
INSERT INTO boundary_types (name, position, description) VALUES
    ('unsupported_calibrated_claim', 1,  'the passage does not license even the calibrated claim'),
    ('raised_claim_supported',       2,  'the passage already licenses the raised claim'),
    ('nonlocal_rewrite',             3,  'the raised claim changes the entity, event, time or answer target'),
    ('multiple_force_shifts',        4,  'the raised claim moves on more than one axis with no clear primary one'),
    ('unrelated_addition',           5,  'the raised claim adds an unrelated unsupported fact'),
    ('needs_outside_knowledge',      6,  'deciding needs knowledge beyond the displayed passage'),
    ('no_decisive_span',             7,  'no span of the passage decides the support boundary'),
    ('duplicate',                    8,  'the row repeats another candidate'),
    ('safe_or_underclaimed',         9,  'the raised claim is not stronger than what the passage licenses'),
    ('ambiguous',                    10, 'the force gap is too ambiguous to use');

CREATE TABLE workflow_states (
    name        TEXT PRIMARY KEY,
    position    INTEGER NOT NULL UNIQUE,
    description TEXT NOT NULL
) STRICT;
INSERT INTO workflow_states (name, position, description) VALUES
    ('imported',         1, 'in the candidate pool, not yet assigned'),
    ('assigned',         2, 'assigned to two annotators, no finished annotation yet'),
    ('annotating',       3, 'one of the two annotations is finished'),
    ('double_annotated', 4, 'both independent annotations are finished'),
    ('adjudicated',      5, 'a final label exists but quality control has not passed it'),
    ('accepted',         6, 'adjudicated as a force gap and passed quality control'),
    ('rejected',         7, 'adjudicated as not a force gap'),
    ('locality_removed', 8, 'accepted, then removed by the locality audit');

-- Candidate pool ---------------------------------------------------------------------------------

CREATE TABLE imports (
    id            INTEGER PRIMARY KEY,
    file_name     TEXT NOT NULL,
    file_sha256   TEXT NOT NULL,
    imported_at   TEXT NOT NULL,
    rows_read     INTEGER NOT NULL,
    rows_inserted INTEGER NOT NULL,
    rows_unchanged INTEGER NOT NULL
) STRICT;

-- Imported rows. The suggestion columns are pre-annotation drafts; final values come only from
-- adjudication. content_sha256 covers the canonical fields (src/candidate.rs) and lets later
-- steps (packets, merge, split) detect a changed row.
CREATE TABLE candidates (
    id               TEXT PRIMARY KEY,
    seq              INTEGER NOT NULL UNIQUE,  -- import order
    group_id         TEXT NOT NULL,
    source_dataset   TEXT NOT NULL,
    source_id        TEXT NOT NULL,
    context          TEXT NOT NULL,
    passage          TEXT NOT NULL,
    evidence_span    TEXT,
    calibrated_claim TEXT NOT NULL,
    raised_claim     TEXT NOT NULL,
    repair           TEXT,
    rationale        TEXT,
    axis             TEXT REFERENCES axes(name),
    severity         INTEGER CHECK (severity BETWEEN 1 AND 3),
    content_sha256   TEXT NOT NULL,
    import_id        INTEGER NOT NULL REFERENCES imports(id)
) STRICT;
CREATE INDEX candidates_group ON candidates(group_id);

-- People and assignment ------------------------------------------------------------------------------

CREATE TABLE annotators (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE CHECK (length(trim(name)) > 0),
    role       TEXT NOT NULL CHECK (role IN ('annotator', 'adjudicator', 'lead')),
    created_at TEXT NOT NULL
) STRICT;

-- Every candidate goes to exactly two distinct annotators (slots 1 and 2).
CREATE TABLE assignments (
    candidate_id TEXT NOT NULL REFERENCES candidates(id),
    slot         INTEGER NOT NULL CHECK (slot IN (1, 2)),
    annotator_id INTEGER NOT NULL REFERENCES annotators(id),
    seed         INTEGER NOT NULL,
    assigned_at  TEXT NOT NULL,
    PRIMARY KEY (candidate_id, slot),
    UNIQUE (candidate_id, annotator_id)
) STRICT;

-- An assignment changes after labels exist only through an explicit, recorded reassignment.
CREATE TABLE reassignments (
    id                INTEGER PRIMARY KEY,
    candidate_id      TEXT NOT NULL REFERENCES candidates(id),
    slot              INTEGER NOT NULL CHECK (slot IN (1, 2)),
    from_annotator_id INTEGER NOT NULL REFERENCES annotators(id),
    to_annotator_id   INTEGER NOT NULL REFERENCES annotators(id),
    decided_by        TEXT NOT NULL,
    reason            TEXT NOT NULL CHECK (length(trim(reason)) > 0),
    at                TEXT NOT NULL
) STRICT;

-- Packets and their returns ----------------------------------------------------------------------------

CREATE TABLE packets (
    id           TEXT PRIMARY KEY,             -- uuid v4
    annotator_id INTEGER NOT NULL REFERENCES annotators(id),
    blinding     TEXT NOT NULL CHECK (blinding IN ('standard', 'strict')),
    issued_at    TEXT NOT NULL,
    checksum     TEXT NOT NULL                 -- sha256 of the issued packet's contents
) STRICT;

CREATE TABLE packet_rows (
    packet_id      TEXT NOT NULL REFERENCES packets(id),
    candidate_id   TEXT NOT NULL REFERENCES candidates(id),
    content_sha256 TEXT NOT NULL,              -- the row's hash when issued
    PRIMARY KEY (packet_id, candidate_id)
) STRICT;

CREATE TABLE packet_returns (
    id        INTEGER PRIMARY KEY,
    packet_id TEXT NOT NULL REFERENCES packets(id),
    checksum  TEXT NOT NULL,                   -- sha256 of the returned file's contents
    merged_at TEXT NOT NULL,
    UNIQUE (packet_id, checksum)
) STRICT;

-- Annotation: append-only events, current values derived -------------------------------------------

-- Every change an annotator makes is one event. Nothing here is ever updated or deleted; undo is
-- a new event that restores the old value (undoes points at the event undone).
CREATE TABLE annotation_events (
    id               INTEGER PRIMARY KEY,
    candidate_id     TEXT NOT NULL REFERENCES candidates(id),
    annotator_id     INTEGER NOT NULL REFERENCES annotators(id),
    field            TEXT NOT NULL,
    old_value        TEXT,
    new_value        TEXT,
    at               TEXT NOT NULL,
    origin           TEXT NOT NULL,            -- 'app', 'import', 'packet'
    packet_return_id INTEGER REFERENCES packet_returns(id),
    undoes           INTEGER REFERENCES annotation_events(id)
) STRICT;
CREATE INDEX annotation_events_row ON annotation_events(candidate_id, annotator_id, id);

CREATE TRIGGER annotation_events_no_update BEFORE UPDATE ON annotation_events
BEGIN SELECT RAISE(ABORT, 'annotation events are append-only'); END;
CREATE TRIGGER annotation_events_no_delete BEFORE DELETE ON annotation_events
BEGIN SELECT RAISE(ABORT, 'annotation events are append-only'); END;

-- The current annotation of one annotator on one row: a cache of the events' fold, rewritten in
-- the same transaction as each event, so it can always be rebuilt from annotation_events.
CREATE TABLE annotations (
    candidate_id     TEXT NOT NULL REFERENCES candidates(id),
    annotator_id     INTEGER NOT NULL REFERENCES annotators(id),
    decision         TEXT REFERENCES decisions(name),
    evidence_span    TEXT,
    span_start       INTEGER,                  -- byte offsets of the span in the passage
    span_end         INTEGER,
    calibrated_claim TEXT,
    raised_claim     TEXT,
    axis             TEXT REFERENCES axes(name),
    severity         INTEGER CHECK (severity BETWEEN 1 AND 3),
    boundary_type    TEXT REFERENCES boundary_types(name),
    repair           TEXT,
    notes            TEXT,
    finished         INTEGER NOT NULL DEFAULT 0 CHECK (finished IN (0, 1)),
    seconds_spent    REAL NOT NULL DEFAULT 0,
    last_event_id    INTEGER REFERENCES annotation_events(id),
    updated_at       TEXT NOT NULL,
    PRIMARY KEY (candidate_id, annotator_id)
) STRICT;

-- Adjudication -------------------------------------------------------------------------------------------

CREATE TABLE adjudications (
    candidate_id   TEXT PRIMARY KEY REFERENCES candidates(id),
    decision       TEXT NOT NULL REFERENCES decisions(name),
    boundary_type  TEXT REFERENCES boundary_types(name),
    rationale      TEXT,
    adjudicator_id INTEGER NOT NULL REFERENCES annotators(id),
    decided_at     TEXT NOT NULL,
    bulk_confirmed INTEGER NOT NULL DEFAULT 0 CHECK (bulk_confirmed IN (0, 1)),
    -- the adjudicator's checklist
    span_decisive          INTEGER CHECK (span_decisive IN (0, 1)),
    calibrated_supported   INTEGER CHECK (calibrated_supported IN (0, 1)),
    raised_underwarranted  INTEGER CHECK (raised_underwarranted IN (0, 1)),
    one_local_axis         INTEGER CHECK (one_local_axis IN (0, 1)),
    no_unrelated_addition  INTEGER CHECK (no_unrelated_addition IN (0, 1))
) STRICT;

-- Each final field with where it came from, who decided it and when.
CREATE TABLE adjudication_fields (
    candidate_id   TEXT NOT NULL REFERENCES adjudications(candidate_id),
    field          TEXT NOT NULL,
    value          TEXT,
    source         TEXT NOT NULL CHECK (source IN ('a', 'b', 'edited', 'suggestion')),
    adjudicator_id INTEGER NOT NULL REFERENCES annotators(id),
    at             TEXT NOT NULL,
    PRIMARY KEY (candidate_id, field)
) STRICT;

-- Reopening an adjudication keeps its history here (append-only).
CREATE TABLE adjudication_events (
    id             INTEGER PRIMARY KEY,
    candidate_id   TEXT NOT NULL REFERENCES candidates(id),
    field          TEXT NOT NULL,
    old_value      TEXT,
    new_value      TEXT,
    source         TEXT NOT NULL,
    adjudicator_id INTEGER NOT NULL REFERENCES annotators(id),
    at             TEXT NOT NULL
) STRICT;
CREATE TRIGGER adjudication_events_no_update BEFORE UPDATE ON adjudication_events
BEGIN SELECT RAISE(ABORT, 'adjudication events are append-only'); END;
CREATE TRIGGER adjudication_events_no_delete BEFORE DELETE ON adjudication_events
BEGIN SELECT RAISE(ABORT, 'adjudication events are append-only'); END;

-- Quality control and the locality audit -------------------------------------------------------------------

CREATE TABLE qc_results (
    candidate_id TEXT NOT NULL REFERENCES candidates(id),
    check_name   TEXT NOT NULL,
    severity     TEXT NOT NULL CHECK (severity IN ('error', 'warning')),
    passed       INTEGER NOT NULL CHECK (passed IN (0, 1)),
    detail       TEXT,
    run_at       TEXT NOT NULL,
    PRIMARY KEY (candidate_id, check_name)
) STRICT;

CREATE TABLE locality_marks (
    candidate_id TEXT PRIMARY KEY REFERENCES candidates(id),
    reason       TEXT NOT NULL CHECK (length(trim(reason)) > 0),
    marked_by    TEXT NOT NULL,
    at           TEXT NOT NULL
) STRICT;

-- Splits ---------------------------------------------------------------------------------------------------

CREATE TABLE splits (
    id          INTEGER PRIMARY KEY,
    version     INTEGER NOT NULL UNIQUE,
    status      TEXT NOT NULL CHECK (status IN ('draft', 'locked')),
    params_json TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    locked_at   TEXT,
    manifest_json TEXT
) STRICT;

CREATE TABLE split_rows (
    split_id     INTEGER NOT NULL REFERENCES splits(id),
    candidate_id TEXT NOT NULL REFERENCES candidates(id),
    role         TEXT NOT NULL CHECK (role IN ('retained', 'eval', 'capped', 'locality_removed')),
    reason       TEXT,
    PRIMARY KEY (split_id, candidate_id, role)
) STRICT;

-- Evaluators ---------------------------------------------------------------------------------------------------

CREATE TABLE evaluators (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    split_id    INTEGER NOT NULL REFERENCES splits(id),
    label_map   TEXT NOT NULL,
    imported_at TEXT NOT NULL,
    UNIQUE (name, split_id)
) STRICT;

CREATE TABLE evaluator_outputs (
    evaluator_id INTEGER NOT NULL REFERENCES evaluators(id),
    candidate_id TEXT NOT NULL REFERENCES candidates(id),
    claim        TEXT NOT NULL CHECK (claim IN ('safe', 'raised')),
    score        REAL,                          -- NULL: missing, unparsable or refused
    label        TEXT,
    raw          TEXT,
    PRIMARY KEY (evaluator_id, candidate_id, claim)
) STRICT;

-- Workflow state of each row, derived (never stored, so it cannot drift from the facts).
CREATE VIEW candidate_states AS
SELECT c.id AS candidate_id,
       CASE
         WHEN l.candidate_id IS NOT NULL THEN 'locality_removed'
         WHEN a.decision = 'reject_not_force_gap' THEN 'rejected'
         WHEN a.decision = 'accept_force_gap'
              AND EXISTS (SELECT 1 FROM qc_results q WHERE q.candidate_id = c.id)
              AND NOT EXISTS (SELECT 1 FROM qc_results q
                              WHERE q.candidate_id = c.id AND q.passed = 0 AND q.severity = 'error')
           THEN 'accepted'
         WHEN a.candidate_id IS NOT NULL THEN 'adjudicated'
         WHEN (SELECT count(*) FROM annotations n
               WHERE n.candidate_id = c.id AND n.finished = 1) >= 2 THEN 'double_annotated'
         WHEN EXISTS (SELECT 1 FROM annotations n
                      WHERE n.candidate_id = c.id AND n.finished = 1) THEN 'annotating'
         WHEN EXISTS (SELECT 1 FROM assignments s WHERE s.candidate_id = c.id) THEN 'assigned'
         ELSE 'imported'
       END AS state
FROM candidates c
LEFT JOIN adjudications a ON a.candidate_id = c.id
LEFT JOIN locality_marks l ON l.candidate_id = c.id;
