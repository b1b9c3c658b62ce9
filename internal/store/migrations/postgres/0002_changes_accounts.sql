-- The PostgreSQL twin of migrations/sqlite/0002_changes_accounts.sql.
CREATE TABLE changes (
	seq    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	kind   text COLLATE "C" NOT NULL,
	entity text COLLATE "C" NOT NULL,
	at     bigint NOT NULL
);
CREATE INDEX changes_at ON changes (at);

ALTER TABLE users ADD COLUMN totp_secret text NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN totp_pending text NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN totp_step bigint NOT NULL DEFAULT 0;

CREATE TABLE recovery_codes (
	user_id   text COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	code_hash text COLLATE "C" NOT NULL,
	used_at   bigint,
	PRIMARY KEY (user_id, code_hash)
);

ALTER TABLE api_keys ADD COLUMN read_only boolean NOT NULL DEFAULT false;
ALTER TABLE sessions ADD COLUMN last_seen_at bigint NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN user_agent text NOT NULL DEFAULT '';
ALTER TABLE writeups ADD COLUMN reason text NOT NULL DEFAULT '';

CREATE TABLE login_failures (
	seq     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	account text COLLATE "C" NOT NULL,
	address text COLLATE "C" NOT NULL,
	at      bigint NOT NULL
);
CREATE INDEX login_failures_account ON login_failures (account, at);
CREATE INDEX login_failures_address ON login_failures (address, at);

CREATE TABLE audit_log (
	seq      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	actor_id text COLLATE "C",
	actor    text NOT NULL,
	action   text COLLATE "C" NOT NULL,
	target   text NOT NULL,
	detail   text NOT NULL DEFAULT '',
	at       bigint NOT NULL
);
