-- ForceBench Studio project schema, version 3: an index for finding whether an event was undone
-- (the undo lookup and every save check it; without it each check scanned all events).
CREATE INDEX annotation_events_undoes ON annotation_events(undoes) WHERE undoes IS NOT NULL;
