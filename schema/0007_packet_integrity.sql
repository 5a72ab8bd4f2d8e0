-- ForceBench Studio project schema, version 7: packets that cannot be confused or forged.
--
-- Every annotation event gets a uid (uuid v4) unique across workspaces and projects. A returned
-- packet carries its events' uids, and merge keeps an event once per uid: two workspaces opened
-- from one packet both number their events from 1, so the workspace-local id (source_event_id)
-- mixed their histories or failed on its unique index. source_event_id stays for events merged
-- before this version; merge no longer writes it.
ALTER TABLE annotation_events ADD COLUMN uid TEXT;

-- Events are append-only, so the backfill lifts the update guard for one statement only.
DROP TRIGGER annotation_events_no_update;
UPDATE annotation_events SET uid =
    lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2)
    || '-' || substr('89ab', 1 + abs(random() % 4), 1) || substr(lower(hex(randomblob(2))), 2)
    || '-' || lower(hex(randomblob(6)));
CREATE TRIGGER annotation_events_no_update BEFORE UPDATE ON annotation_events
BEGIN SELECT RAISE(ABORT, 'annotation events are append-only'); END;

CREATE UNIQUE INDEX annotation_events_uid ON annotation_events(uid);
CREATE TRIGGER annotation_events_need_uid BEFORE INSERT ON annotation_events WHEN NEW.uid IS NULL
BEGIN SELECT RAISE(ABORT, 'every annotation event needs a uid'); END;

-- Merge reads a packet's events once, by packet and row, instead of scanning every event of the
-- packet for each row (the old index was keyed by the workspace-local id).
DROP INDEX annotation_events_packet_source;
CREATE INDEX annotation_events_packet ON annotation_events(packet_id, candidate_id) WHERE packet_id IS NOT NULL;

-- The per-packet secret (hex of 32 random bytes) written into the issued packet; merge checks a
-- return's HMAC-SHA256 with it. NULL for packets issued before this version (not mergeable).
ALTER TABLE packets ADD COLUMN secret TEXT;

-- Which workspace wrote a return, and the file it was merged from, so two returns of one packet
-- that disagree can be named. `checksum` holds the return's HMAC from this version on.
ALTER TABLE packet_returns ADD COLUMN workspace_id TEXT;
ALTER TABLE packet_returns ADD COLUMN file_name TEXT;

-- A workspace's own id (uuid v4), made when it is opened from a packet.
ALTER TABLE workspace ADD COLUMN workspace_id TEXT;
UPDATE workspace SET workspace_id =
    lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2)
    || '-' || substr('89ab', 1 + abs(random() % 4), 1) || substr(lower(hex(randomblob(2))), 2)
    || '-' || lower(hex(randomblob(6)));
