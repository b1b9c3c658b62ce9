-- The mail outbox: a message is written in the same transaction as what
-- causes it (a password reset asked for), so a crash loses none; every
-- replica's worker claims due messages with a lease (claimed_until), sends
-- each once, and retries a failed one with backoff until give_up_at.
CREATE TABLE mail_outbox (
	seq           INTEGER PRIMARY KEY AUTOINCREMENT,
	kind          TEXT NOT NULL,
	to_addr       TEXT NOT NULL,
	subject       TEXT NOT NULL,
	text_body     TEXT NOT NULL,
	html_body     TEXT NOT NULL DEFAULT '',
	status        TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
	attempts      INTEGER NOT NULL DEFAULT 0,
	last_error    TEXT NOT NULL DEFAULT '',
	next_at       INTEGER NOT NULL,
	claimed_until INTEGER NOT NULL DEFAULT 0,
	give_up_at    INTEGER NOT NULL,
	created_at    INTEGER NOT NULL,
	sent_at       INTEGER
);
CREATE INDEX mail_outbox_due ON mail_outbox (status, next_at);

-- Password reset tokens: the SHA-256 of a random secret (the secret is
-- only in the link), single use, valid until expires_at.
CREATE TABLE password_resets (
	token_hash TEXT PRIMARY KEY,
	user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	origin     TEXT NOT NULL CHECK (origin IN ('email', 'admin', 'operator')),
	created_at INTEGER NOT NULL,
	expires_at INTEGER NOT NULL,
	used_at    INTEGER
);
CREATE INDEX password_resets_user ON password_resets (user_id);

-- serve --require-email-verification: an account signed up under it stays
-- unverified (and cannot submit) until its address is confirmed by a link
-- (the SHA-256 of its secret is kept, as for resets). Every other account
-- (loaded, made by an admin, older) counts as verified.
ALTER TABLE users ADD COLUMN email_unverified INTEGER NOT NULL DEFAULT 0;
CREATE TABLE email_verifications (
	token_hash TEXT PRIMARY KEY,
	user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	created_at INTEGER NOT NULL,
	expires_at INTEGER NOT NULL,
	used_at    INTEGER
);
CREATE INDEX email_verifications_user ON email_verifications (user_id);
