-- ForceBench Studio project schema: the protocol's steps before candidacy.
--
-- A lab samples cited contexts (a question or answer context and the passage it cites) from
-- cited QA and attribution resources, keeps those whose passage shows a visible local boundary,
-- drafts each kept context into the candidate fields (by hand or with a model), and either
-- promotes the draft into the candidate pool or excludes it with a reason. Every step is kept
-- here so that the accounting can start at the contexts, not at the candidates.
--
-- Contexts and candidates are separate tables; a promoted candidate keeps the id of its context
-- (`candidates.context_id`). Screening decisions and drafts are records that are never changed:
-- a later decision or draft for the same context is a new row, and the latest one is in force.

CREATE TABLE context_imports (
    id             INTEGER PRIMARY KEY,
    file_name      TEXT NOT NULL,
    file_sha256    TEXT NOT NULL,
    imported_at    TEXT NOT NULL,
    rows_read      INTEGER NOT NULL,
    rows_inserted  INTEGER NOT NULL,
    rows_unchanged INTEGER NOT NULL
) STRICT;

CREATE TABLE contexts (
    id             TEXT PRIMARY KEY,
    seq            INTEGER NOT NULL UNIQUE,  -- import order
    group_id       TEXT,                     -- NULL: the context's own id is its group
    source_dataset TEXT NOT NULL,
    source_id      TEXT NOT NULL,
    context        TEXT NOT NULL,
    passage        TEXT NOT NULL,
    content_sha256 TEXT NOT NULL,
    import_id      INTEGER NOT NULL REFERENCES context_imports(id)
) STRICT;

-- The exclusion reasons of the protocol, as one controlled vocabulary for screening and drafts.
CREATE TABLE exclusion_reasons (
    name        TEXT PRIMARY KEY,
    ord         INTEGER NOT NULL UNIQUE,
    description TEXT NOT NULL
) STRICT;
INSERT INTO exclusion_reasons (name, ord, description) VALUES
    ('no_visible_boundary',       1, 'the passage shows no visible local boundary on any axis'),
    ('passage_unavailable',       2, 'the cited passage is missing, truncated or unreadable'),
    ('needs_outside_knowledge',   3, 'the contrast can only be judged with knowledge outside the passage'),
    ('changes_entity_or_target',  4, 'the claims differ in entity or answer target, not in force'),
    ('ordinary_addition',         5, 'the stronger claim adds unsupported content rather than raising force');

CREATE TABLE context_screenings (
    id          INTEGER PRIMARY KEY,
    context_id  TEXT NOT NULL REFERENCES contexts(id),
    decision    TEXT NOT NULL CHECK (decision IN ('keep', 'drop')),
    reason      TEXT REFERENCES exclusion_reasons(name),
    note        TEXT,
    screened_by TEXT NOT NULL,
    screened_at TEXT NOT NULL,
    CHECK ((decision = 'drop') = (reason IS NOT NULL))
) STRICT;
CREATE INDEX context_screenings_context ON context_screenings(context_id, id);

-- A model drafting run: what was asked of which model, with which prompt.
CREATE TABLE draft_runs (
    id            INTEGER PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE,
    base_url      TEXT NOT NULL,
    model         TEXT NOT NULL,
    prompt_source TEXT NOT NULL,
    prompt_text   TEXT NOT NULL,
    prompt_sha256 TEXT NOT NULL,
    params_json   TEXT NOT NULL,
    started_at    TEXT NOT NULL,
    finished_at   TEXT
) STRICT;

-- One request of a run per context, with the raw answer as received.
CREATE TABLE draft_requests (
    run_id       INTEGER NOT NULL REFERENCES draft_runs(id),
    context_id   TEXT NOT NULL REFERENCES contexts(id),
    seq          INTEGER NOT NULL,
    prompt       TEXT NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    sent_at      TEXT,
    answered_at  TEXT,
    http_status  INTEGER,
    raw_response TEXT,
    content      TEXT,
    last_error   TEXT,
    PRIMARY KEY (run_id, context_id)
) STRICT, WITHOUT ROWID;

-- Every suggestion for a context, numbered per context; the highest version is the current
-- draft. `origin` is how it was made: 'hand' (typed by a person), 'model' (a model's answer as
-- it came), 'template_edit' (a person's change to a model's draft).
CREATE TABLE drafts (
    id               INTEGER PRIMARY KEY,
    context_id       TEXT NOT NULL REFERENCES contexts(id),
    version          INTEGER NOT NULL,
    origin           TEXT NOT NULL CHECK (origin IN ('hand', 'model', 'template_edit')),
    author           TEXT NOT NULL,
    run_id           INTEGER REFERENCES draft_runs(id),
    evidence_span    TEXT,
    calibrated_claim TEXT,
    raised_claim     TEXT,
    repair           TEXT,
    rationale        TEXT,
    axis             TEXT,
    severity         TEXT,
    created_at       TEXT NOT NULL,
    UNIQUE (context_id, version)
) STRICT;

-- What became of a context's draft: promoted into the candidate pool, or excluded with a reason.
CREATE TABLE draft_outcomes (
    context_id  TEXT PRIMARY KEY REFERENCES contexts(id),
    draft_id    INTEGER NOT NULL REFERENCES drafts(id),
    outcome     TEXT NOT NULL CHECK (outcome IN ('promoted', 'excluded')),
    reason      TEXT REFERENCES exclusion_reasons(name),
    note        TEXT,
    decided_by  TEXT NOT NULL,
    decided_at  TEXT NOT NULL,
    CHECK ((outcome = 'excluded') = (reason IS NOT NULL))
) STRICT;

-- No foreign key on the column: the core sets it only when it promotes a context's draft, and a
-- plain column can be dropped again (tests that rewind a project's schema do).
ALTER TABLE candidates ADD COLUMN context_id TEXT;

-- The records are kept as they were written.
CREATE TRIGGER contexts_no_update BEFORE UPDATE ON contexts
BEGIN SELECT RAISE(ABORT, 'a context is kept as imported'); END;
CREATE TRIGGER contexts_no_delete BEFORE DELETE ON contexts
BEGIN SELECT RAISE(ABORT, 'a context is kept as imported'); END;
CREATE TRIGGER context_screenings_no_update BEFORE UPDATE ON context_screenings
BEGIN SELECT RAISE(ABORT, 'a screening decision is a record; screen again to change it'); END;
CREATE TRIGGER context_screenings_no_delete BEFORE DELETE ON context_screenings
BEGIN SELECT RAISE(ABORT, 'a screening decision is a record; screen again to change it'); END;
CREATE TRIGGER drafts_no_update BEFORE UPDATE ON drafts
BEGIN SELECT RAISE(ABORT, 'a draft is a record; a new draft replaces it'); END;
CREATE TRIGGER drafts_no_delete BEFORE DELETE ON drafts
BEGIN SELECT RAISE(ABORT, 'a draft is a record; a new draft replaces it'); END;
CREATE TRIGGER draft_outcomes_no_update BEFORE UPDATE ON draft_outcomes
BEGIN SELECT RAISE(ABORT, 'a promoted or excluded draft stays so'); END;
CREATE TRIGGER draft_outcomes_no_delete BEFORE DELETE ON draft_outcomes
BEGIN SELECT RAISE(ABORT, 'a promoted or excluded draft stays so'); END;
