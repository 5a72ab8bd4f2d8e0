-- ForceBench Studio project schema, version 9: LLM judges run from the tool itself.
--
-- A judge run sends every request of a locked split to an OpenAI-compatible chat-completions
-- endpoint. The run records what was asked of which model (base URL, model, the template's text
-- and sha256, the sampling parameters) and, per request, the exact prompt, when it was sent, and
-- the raw answer, each committed as it arrives: a run stopped in any way resumes without sending
-- an answered request again. The API key is never stored (only the name of the environment
-- variable it was read from).
--
-- `control` says what the run measures: 'none' (the evaluator itself, stored in `evaluators`
-- when the run completes), 'swapped_evidence' (each claim judged against another group's
-- passage) or 'order' (a pairwise template asked twice, the claims' order swapped).
CREATE TABLE judge_runs (
    id              INTEGER PRIMARY KEY,
    name            TEXT NOT NULL,
    split_id        INTEGER NOT NULL REFERENCES splits(id),
    control         TEXT NOT NULL CHECK (control IN ('none', 'swapped_evidence', 'order')),
    base_url        TEXT NOT NULL,
    model           TEXT NOT NULL,
    template_name   TEXT NOT NULL,
    template_text   TEXT NOT NULL,
    template_sha256 TEXT NOT NULL,
    label_map       TEXT NOT NULL,
    params_json     TEXT NOT NULL,
    started_at      TEXT NOT NULL,
    finished_at     TEXT,
    UNIQUE (name, split_id, control)
) STRICT;

CREATE TABLE judge_requests (
    run_id       INTEGER NOT NULL REFERENCES judge_runs(id),
    request_id   TEXT NOT NULL,
    -- Position in the run's seeded order (requests are sent in this order).
    seq          INTEGER NOT NULL,
    prompt       TEXT NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    -- When the answer kept was requested, and when it arrived.
    sent_at      TEXT,
    answered_at  TEXT,
    http_status  INTEGER,
    -- The whole response body as received, and the message text read from it (NULL when the body
    -- holds none: malformed JSON, a refusal without text).
    raw_response TEXT,
    content      TEXT,
    -- The last failure (a timeout, a 503...) of a request not answered yet.
    last_error   TEXT,
    PRIMARY KEY (run_id, request_id)
) STRICT, WITHOUT ROWID;
