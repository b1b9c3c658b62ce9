-- The PostgreSQL twin of migrations/sqlite/0006_webhook_start.sql.
ALTER TABLE webhooks ADD COLUMN after_seq bigint NOT NULL DEFAULT 0;
