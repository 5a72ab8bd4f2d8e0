-- ForceBench Studio project schema (issue 31): "needs discussion" is finished only with a note.
--
-- The guideline asks an annotator who sends a row to discussion to say what needs discussing;
-- until now a `needs_discussion` annotation counted as finished without a note (only the app
-- asked why). From this version the core refuses to call such an annotation finished: the queue,
-- progress, workflow state and agreement counts leave it open until a note that is not blank is
-- written (a later event refolds `finished` by the same rule).
--
-- Annotations saved before this version that way are marked unfinished here, as the rule now
-- reads them, so they come back in their annotator's queue instead of hiding as done. Rows a
-- locked split froze are left as they are: their export is sealed, and a locked version does
-- not change.
UPDATE annotations SET finished = 0
WHERE finished = 1
  AND decision = 'needs_discussion'
  AND trim(coalesce(notes, ''), ' ' || char(9, 10, 13)) = ''
  AND NOT EXISTS (SELECT 1 FROM locked_rows l WHERE l.candidate_id = annotations.candidate_id);
