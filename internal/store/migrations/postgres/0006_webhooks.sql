-- The PostgreSQL twin of migrations/sqlite/0006_webhooks.sql.
ALTER TABLE webhooks ADD COLUMN after_seq bigint NOT NULL DEFAULT 0;
ALTER TABLE webhook_attempts ADD COLUMN next_at bigint;
