-- ForceBench Studio project schema, version 11: judge runs as the ForceBench protocol records them.
--
-- A template now carries a system message beside the user message, kept per request in `system`
-- (NULL for runs made before, whose templates had one message). An answer the reader cannot use
-- (no verdict, a refusal) is asked for again before it counts as missing: `answer_attempts` is
-- how many answers were received for the request, and `rejected_answers` holds the earlier ones
-- (a JSON array of the message texts, NULL when the first answer was used). A run records the
-- version of the answer reader it was read with, the retry budget for unusable answers, and the
-- file or shipped name its template came from.
ALTER TABLE judge_requests ADD COLUMN system TEXT;
ALTER TABLE judge_requests ADD COLUMN answer_attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE judge_requests ADD COLUMN rejected_answers TEXT;
ALTER TABLE judge_runs ADD COLUMN parser_version TEXT;
ALTER TABLE judge_runs ADD COLUMN answer_attempts INTEGER;
ALTER TABLE judge_runs ADD COLUMN template_source TEXT;
