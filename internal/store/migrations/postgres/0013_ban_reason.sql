-- The PostgreSQL twin of migrations/sqlite/0013_ban_reason.sql.
ALTER TABLE users ADD COLUMN ban_reason text NOT NULL DEFAULT '';
