-- ForceBench Studio project schema: what one action wrote field by field, kept as one event.
--
-- Starting a row recorded one `prefill` event per field shown pre-filled (the span, both claims,
-- the axis, the severity, the repair), and confirming the suggestions (the view's `y`) one
-- `confirm` event per field still suggested: each repeated the row, the annotator, the time, the
-- origin, the mode and the guideline, with a uid and two index entries of its own, though they
-- said one thing. From this version such a run is one event, a record: field `suggestions`, the
-- mark `from_suggestion` (its values are the row's suggestions), and `field_set`, one bit per
-- field it stands for, in the order the events were written (src/db/grouped_events.rs, FIELDS).
-- Every reader expands a record into the events it stands for, under the record's id; an undo of
-- one of them names the record and, as every undo does, the field. The events already written
-- are turned into records by the code that runs with this migration
-- (src/db/grouped_events.rs, collapse), which keeps each run's first uid and time.
ALTER TABLE annotation_events ADD COLUMN field_set INTEGER
    CHECK (field_set IS NULL
           OR (field_set BETWEEN 1 AND 63 AND field = 'suggestions' AND origin IN ('prefill', 'confirm')
               AND from_suggestion IS 1));
CREATE TRIGGER annotation_events_record_needs_fields BEFORE INSERT ON annotation_events
WHEN NEW.field = 'suggestions' AND NEW.field_set IS NULL
BEGIN SELECT RAISE(ABORT, 'a record of grouped events names the fields it stands for'); END;

-- The packet an event merged from a return came with is that return's (packet_returns.packet_id),
-- and every such event also wrote the packet's 36-character id again. It is read from the return
-- from this version; an event whose column names another packet than its return's, or that has
-- no return (events merged before returns were recorded), keeps it.
DROP TRIGGER annotation_events_no_update;
UPDATE annotation_events SET packet_id = NULL
WHERE packet_id IS NOT NULL
  AND packet_id IS (SELECT r.packet_id FROM packet_returns r WHERE r.id = annotation_events.packet_return_id);
CREATE TRIGGER annotation_events_no_update BEFORE UPDATE ON annotation_events
BEGIN SELECT RAISE(ABORT, 'annotation events are append-only'); END;
