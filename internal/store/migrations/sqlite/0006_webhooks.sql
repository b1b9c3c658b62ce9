-- A webhook gets the events recorded after it was created: after_seq is
-- the live stream's number at its creation. (Comparing event times with
-- created_at would drop a start or a freeze set to an instant before the
-- webhook was made, though recorded after it.)
ALTER TABLE webhooks ADD COLUMN after_seq INTEGER NOT NULL DEFAULT 0;

-- The retry a failed try scheduled (NULL: none), so the log shows the
-- backoff as it was decided.
ALTER TABLE webhook_attempts ADD COLUMN next_at INTEGER;
