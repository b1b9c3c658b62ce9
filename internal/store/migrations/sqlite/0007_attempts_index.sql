-- Every wrong submission writes each index of attempts, and at the rate of
-- a busy event each index is a page written to the log per submission.
-- attempts_practice (practice, challenge_id) answers what attempts_challenge
-- did (the count per challenge at start-up, grouped by practice first).
DROP INDEX attempts_challenge;
