-- The change log: every write of the use cases (a user, a key, a session,
-- a review, a writeup, a challenge) adds a row in its transaction, so
-- every replica applies the change to its in-memory state without
-- rebuilding it. kind names the entity, entity its id (for sessions, the
-- user whose sessions changed). Old rows are pruned.
CREATE TABLE changes (
	seq    INTEGER PRIMARY KEY AUTOINCREMENT,
	kind   TEXT NOT NULL,
	entity TEXT NOT NULL,
	at     INTEGER NOT NULL
);
CREATE INDEX changes_at ON changes (at);

-- Two-factor authentication (TOTP, RFC 6238): the confirmed secret, an
-- enrolment waiting for its first code, and the last time step accepted,
-- so that a code is accepted once. two_factor (0001) says it is on.
ALTER TABLE users ADD COLUMN totp_secret TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN totp_pending TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN totp_step INTEGER NOT NULL DEFAULT 0;

-- One-time recovery codes, stored hashed.
CREATE TABLE recovery_codes (
	user_id   TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	code_hash TEXT NOT NULL,
	used_at   INTEGER,
	PRIMARY KEY (user_id, code_hash)
);

ALTER TABLE api_keys ADD COLUMN read_only INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN last_seen_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN user_agent TEXT NOT NULL DEFAULT '';
-- Why a writeup was rejected, shown to its author.
ALTER TABLE writeups ADD COLUMN reason TEXT NOT NULL DEFAULT '';

-- Failed logins, counted per account (the name as typed, lowercased, so
-- unknown names count too) and per client address: the throttle holds
-- across replicas.
CREATE TABLE login_failures (
	seq     INTEGER PRIMARY KEY AUTOINCREMENT,
	account TEXT NOT NULL,
	address TEXT NOT NULL,
	at      INTEGER NOT NULL
);
CREATE INDEX login_failures_account ON login_failures (account, at);
CREATE INDEX login_failures_address ON login_failures (address, at);

-- Every admin action: who (NULL actor_id: the operator's CLI), what, when.
CREATE TABLE audit_log (
	seq      INTEGER PRIMARY KEY AUTOINCREMENT,
	actor_id TEXT,
	actor    TEXT NOT NULL,
	action   TEXT NOT NULL,
	target   TEXT NOT NULL,
	detail   TEXT NOT NULL DEFAULT '',
	at       INTEGER NOT NULL
);
