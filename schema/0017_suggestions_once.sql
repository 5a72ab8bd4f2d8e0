-- ForceBench Studio project schema: a row's suggestions stored once, in the row.
--
-- When an annotator starts a row, each field shown pre-filled is recorded as a `prefill` event,
-- and confirming a suggestion is a `confirm` event whose old and new values are that suggestion.
-- Those values repeated the candidate's claims, span, axis, severity and repair for every
-- annotator of every row, and were most of a project file. Candidates never change once imported,
-- so from this version such an event carries the mark `from_suggestion = 1` instead of the values,
-- and reading it computes them from the candidate (src/annotate/stored.rs holds the expression the
-- code writes and reads with; the same one is written out below). An event is marked only when its
-- values equal that expression's, so what every reader gets back is what was written.
ALTER TABLE annotation_events ADD COLUMN from_suggestion INTEGER CHECK (from_suggestion = 1);

-- Events are append-only: the update guard is lifted for this one statement.
DROP TRIGGER annotation_events_no_update;
UPDATE annotation_events SET from_suggestion = 1, old_value = NULL, new_value = NULL
WHERE ((origin = 'prefill' AND old_value IS NULL) OR (origin = 'confirm' AND old_value IS new_value))
  AND new_value = (
    SELECT CASE annotation_events.field
        WHEN 'calibrated_claim' THEN sc.calibrated_claim
        WHEN 'raised_claim' THEN sc.raised_claim
        WHEN 'axis' THEN sc.axis
        WHEN 'severity' THEN CAST(sc.severity AS TEXT)
        WHEN 'repair' THEN sc.repair
        WHEN 'evidence_span' THEN (CASE WHEN instr(CAST(sc.passage AS BLOB), CAST(sc.evidence_span AS BLOB)) > 0
            THEN '{"text":' || json_quote(sc.evidence_span) || ',"start":'
                 || (instr(CAST(sc.passage AS BLOB), CAST(sc.evidence_span AS BLOB)) - 1) || ',"end":'
                 || (instr(CAST(sc.passage AS BLOB), CAST(sc.evidence_span AS BLOB)) - 1 + length(CAST(sc.evidence_span AS BLOB)))
                 || '}' END)
        END
    FROM candidates sc WHERE sc.id = annotation_events.candidate_id);
CREATE TRIGGER annotation_events_no_update BEFORE UPDATE ON annotation_events
BEGIN SELECT RAISE(ABORT, 'annotation events are append-only'); END;

-- Merge finds a packet's events through its rows and the row index; this index on the packet's
-- uuid, repeated in every merged event, was written on every insert and read by nothing else.
DROP INDEX annotation_events_packet;
