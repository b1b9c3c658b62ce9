-- The PostgreSQL twin of migrations/sqlite/0008_accounts.sql. With the
-- column's collation "C", lower() folds ASCII letters only, as SQLite's.
CREATE UNIQUE INDEX users_username_lower ON users (lower(username));

CREATE TABLE signups (
	seq     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	address text COLLATE "C" NOT NULL,
	at      bigint NOT NULL
);
CREATE INDEX signups_address ON signups (address, at);
