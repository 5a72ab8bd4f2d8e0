-- ForceBench Studio project schema, version 8: how annotators are shown the drafter's suggestions.
--
-- `project.suggestions` is the lead's choice: 'prefilled' (suggested span, axis, severity and
-- repair fill the fields and must be confirmed or changed), 'beside' (fields start empty, each
-- suggestion is shown beside its field) or 'hidden' (fields start empty, no suggestion shown).
-- Existing projects keep today's behaviour. A workspace takes its packet's mode.
ALTER TABLE project ADD COLUMN suggestions TEXT NOT NULL DEFAULT 'prefilled'
    CHECK (suggestions IN ('prefilled', 'beside', 'hidden'));

-- The mode in force when each event was made, so agreement can be broken down by it. NULL for
-- events made before this version (when suggestions were always pre-filled and taken unconfirmed).
ALTER TABLE annotation_events ADD COLUMN suggestion_mode TEXT
    CHECK (suggestion_mode IN ('prefilled', 'beside', 'hidden'));
