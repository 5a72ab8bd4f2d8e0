-- ForceBench Studio project schema, version 2: annotator workspaces and packet event provenance.

-- A project file opened from a packet is an annotator's own workspace. This row says which
-- packet it holds; the lead's project never has one.
CREATE TABLE workspace (
    singleton       INTEGER PRIMARY KEY CHECK (singleton = 1),
    packet_id       TEXT NOT NULL,
    lead_project_id TEXT NOT NULL,
    annotator       TEXT NOT NULL,
    blinding        TEXT NOT NULL CHECK (blinding IN ('standard', 'strict')),
    issued_at       TEXT NOT NULL,
    packet_json     TEXT NOT NULL              -- the packet as issued, to build the return from
) STRICT;

-- Events merged from a returned packet remember their id in the annotator's workspace, so a
-- later return of the same packet adds only what is new and keeps every earlier event.
ALTER TABLE annotation_events ADD COLUMN packet_id TEXT REFERENCES packets(id);
ALTER TABLE annotation_events ADD COLUMN source_event_id INTEGER;
CREATE UNIQUE INDEX annotation_events_packet_source
    ON annotation_events(packet_id, source_event_id) WHERE packet_id IS NOT NULL;
