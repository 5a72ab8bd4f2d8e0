-- ForceBench Studio project schema: an adjudication's first values, kept as one event.
--
-- Adjudicating a row wrote a history event per final field (seven for an accept: the decision,
-- the span, both claims, the axis, the severity, the repair), each repeating the row, the
-- source, the adjudicator, the time and the guideline beside a value the row's final fields
-- hold too. From this version the events one adjudication writes for fields that had no value
-- before, from one source (a bulk confirmation's `both`), are one event, a record: field
-- `fields`, no values, and `field_set`, one bit per field it stands for, in the order the events
-- were written (src/db/adjudication_records.rs, FIELDS). Each field of a record was set to the
-- value that follows it: the old value of the field's next event (every later change, drop or
-- reopening writes the value it replaces) or, with none, the row's final value of that field.
-- The history expands a record into the events it stands for, under the record's id. The
-- events already written are turned into records by the code that runs with this migration
-- (src/db/adjudication_records.rs, collapse).
ALTER TABLE adjudication_events ADD COLUMN field_set INTEGER
    CHECK (field_set IS NULL
           OR (field = 'fields' AND field_set BETWEEN 3 AND 255 AND (field_set & (field_set - 1)) <> 0
               AND old_value IS NULL AND new_value IS NULL));
CREATE TRIGGER adjudication_events_record_needs_fields BEFORE INSERT ON adjudication_events
WHEN NEW.field = 'fields' AND NEW.field_set IS NULL
BEGIN SELECT RAISE(ABORT, 'a record of an adjudication''s values names the fields it stands for'); END;
