-- ForceBench Studio project schema: what an annotator was shown when they started a row, once.
--
-- Starting a row recorded one `prefill` event per field shown pre-filled (the span, both claims,
-- the axis, the severity, the repair): six events per annotator and row, each with its own uid,
-- time, origin, mode, guideline and two index entries, though all six said one thing. From this
-- version a start is one event: field `suggestions`, the mark `from_suggestion` (its values are
-- the row's suggestions), and `start_fields`, one bit per field it stands for, in the order the
-- events were written (src/annotate/stored.rs, START_FIELDS). Every reader expands it into the
-- events it stands for. The events already written are turned into such records by the code that
-- runs with this migration (src/annotate/stored.rs, collapse_starts), which keeps each start's
-- first uid and time.
ALTER TABLE annotation_events ADD COLUMN start_fields INTEGER
    CHECK (start_fields IS NULL
           OR (start_fields BETWEEN 1 AND 63 AND field = 'suggestions' AND origin = 'prefill' AND from_suggestion IS 1));
CREATE TRIGGER annotation_events_start_needs_fields BEFORE INSERT ON annotation_events
WHEN NEW.field = 'suggestions' AND NEW.start_fields IS NULL
BEGIN SELECT RAISE(ABORT, 'a start record names the fields it stands for'); END;

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
