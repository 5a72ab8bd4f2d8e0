-- ForceBench Studio project schema: the lock sealed in storage (issue 29).
--
-- Version 6 froze what an export reads of a locked split's rows in the annotation, adjudication,
-- QC and locality tables, but an export also reads two tables it did not guard: `candidates` (a
-- row's text, context and group) and `annotators` (the names `annotations.jsonl` and
-- `adjudications.jsonl` carry). A change there changed a re-export of the locked version.
--
-- Two guards close that:
-- 1. `split_seals` records, when a split is locked, the sha256 of every file its export writes
--    and the content hash; an export that would differ from the seal is refused (code
--    `seal_broken`) before anything is published. A split locked before this version is sealed
--    by its first export after the upgrade, as it exports then.
-- 2. Triggers refuse, in the storage itself, a change to a frozen row's candidate text and a
--    change of the name of anyone whose labels a frozen row carries. Every message starts with
--    `split_locked:`, the error code the core reports.
CREATE TABLE split_seals (
    split_id       INTEGER PRIMARY KEY REFERENCES splits(id),
    content_sha256 TEXT NOT NULL,
    -- file name -> sha256 of the file, as the export's manifest lists them (JSON object).
    files_json     TEXT NOT NULL,
    sealed_at      TEXT NOT NULL
) STRICT;

CREATE TRIGGER split_seals_no_update BEFORE UPDATE ON split_seals
BEGIN SELECT RAISE(ABORT, 'split_locked: the seal of a locked split cannot change'); END;
CREATE TRIGGER split_seals_no_delete BEFORE DELETE ON split_seals
BEGIN SELECT RAISE(ABORT, 'split_locked: the seal of a locked split cannot change'); END;
-- A seal is written once, for a locked split that has none.
CREATE TRIGGER split_seals_locked_only BEFORE INSERT ON split_seals
WHEN (SELECT status FROM splits WHERE id = NEW.split_id) IS NOT 'locked'
BEGIN SELECT RAISE(ABORT, 'split_locked: only a locked split is sealed'); END;

-- A frozen row's candidate: every column an export or a packet reads (not `seq` or `import_id`).
CREATE TRIGGER candidates_locked_update BEFORE UPDATE ON candidates
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = OLD.id)
 AND (OLD.id IS NOT NEW.id OR OLD.group_id IS NOT NEW.group_id OR OLD.source_dataset IS NOT NEW.source_dataset
      OR OLD.source_id IS NOT NEW.source_id OR OLD.context IS NOT NEW.context OR OLD.passage IS NOT NEW.passage
      OR OLD.evidence_span IS NOT NEW.evidence_span OR OLD.calibrated_claim IS NOT NEW.calibrated_claim
      OR OLD.raised_claim IS NOT NEW.raised_claim OR OLD.repair IS NOT NEW.repair
      OR OLD.rationale IS NOT NEW.rationale OR OLD.axis IS NOT NEW.axis OR OLD.severity IS NOT NEW.severity
      OR OLD.content_sha256 IS NOT NEW.content_sha256)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its text cannot change'); END;
CREATE TRIGGER candidates_locked_delete BEFORE DELETE ON candidates
WHEN EXISTS (SELECT 1 FROM locked_rows WHERE candidate_id = OLD.id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split holds this row; its text cannot change'); END;

-- A person whose annotation, assignment or adjudication a frozen row carries keeps their name.
CREATE TRIGGER annotators_locked_rename BEFORE UPDATE OF name ON annotators
WHEN OLD.name IS NOT NEW.name AND (
    EXISTS (SELECT 1 FROM assignments a JOIN locked_rows l ON l.candidate_id = a.candidate_id WHERE a.annotator_id = OLD.id)
 OR EXISTS (SELECT 1 FROM annotations n JOIN locked_rows l ON l.candidate_id = n.candidate_id WHERE n.annotator_id = OLD.id)
 OR EXISTS (SELECT 1 FROM adjudications j JOIN locked_rows l ON l.candidate_id = j.candidate_id WHERE j.adjudicator_id = OLD.id))
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split carries this person''s labels; their name cannot change'); END;
CREATE TRIGGER annotators_locked_delete BEFORE DELETE ON annotators
WHEN EXISTS (SELECT 1 FROM assignments a JOIN locked_rows l ON l.candidate_id = a.candidate_id WHERE a.annotator_id = OLD.id)
 OR EXISTS (SELECT 1 FROM annotations n JOIN locked_rows l ON l.candidate_id = n.candidate_id WHERE n.annotator_id = OLD.id)
 OR EXISTS (SELECT 1 FROM adjudications j JOIN locked_rows l ON l.candidate_id = j.candidate_id WHERE j.adjudicator_id = OLD.id)
BEGIN SELECT RAISE(ABORT, 'split_locked: a locked split carries this person''s labels; their name cannot change'); END;
