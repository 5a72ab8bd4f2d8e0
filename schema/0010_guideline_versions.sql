-- ForceBench Studio project schema, version 10: the guideline as versions, and the version in
-- force on every label.
--
-- The lead publishes a new version when the guideline is clarified (a hard case, a new example);
-- the latest is in force. Every annotation event, every adjudication and every adjudication
-- event records the label of the version in force when it was made, so agreement can be read
-- per version and annotators shown which version their rows were judged under. Version "1" is the
-- guideline that ships with ForceBench: it is written by this migration (and in a new project),
-- and labels made before versions existed were made under it, so they read as "1".
CREATE TABLE guideline_versions (
    id           INTEGER PRIMARY KEY,
    label        TEXT NOT NULL UNIQUE,
    text         TEXT NOT NULL,
    sha256       TEXT NOT NULL,
    published_at TEXT NOT NULL,
    published_by TEXT NOT NULL,
    -- What changed from the previous version, in the lead's words.
    note         TEXT
) STRICT;

ALTER TABLE annotation_events ADD COLUMN guideline_version TEXT;
ALTER TABLE adjudications ADD COLUMN guideline_version TEXT;
ALTER TABLE adjudication_events ADD COLUMN guideline_version TEXT;
