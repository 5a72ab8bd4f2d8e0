-- ForceBench Studio project schema (issue 28): how a candidate was made.
--
-- `construction_family` names the way a candidate was constructed (which generator, template or
-- editor produced it), as NEI-CAP records for every example, so a split can be counted and
-- audited by it. It is optional: rows imported before it existed, or without it, hold NULL.
ALTER TABLE candidates ADD COLUMN construction_family TEXT;
