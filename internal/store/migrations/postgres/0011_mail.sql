-- The PostgreSQL twin of migrations/sqlite/0011_mail.sql.
CREATE TABLE mail_outbox (
	seq           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	kind          text NOT NULL,
	to_addr       text NOT NULL,
	subject       text NOT NULL,
	text_body     text NOT NULL,
	html_body     text NOT NULL DEFAULT '',
	status        text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
	attempts      integer NOT NULL DEFAULT 0,
	last_error    text NOT NULL DEFAULT '',
	next_at       bigint NOT NULL,
	claimed_until bigint NOT NULL DEFAULT 0,
	give_up_at    bigint NOT NULL,
	created_at    bigint NOT NULL,
	sent_at       bigint
);
CREATE INDEX mail_outbox_due ON mail_outbox (status, next_at);

CREATE TABLE password_resets (
	token_hash text COLLATE "C" PRIMARY KEY,
	user_id    text COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	origin     text NOT NULL CHECK (origin IN ('email', 'admin', 'operator')),
	created_at bigint NOT NULL,
	expires_at bigint NOT NULL,
	used_at    bigint
);
CREATE INDEX password_resets_user ON password_resets (user_id);

ALTER TABLE users ADD COLUMN email_unverified boolean NOT NULL DEFAULT false;
CREATE TABLE email_verifications (
	token_hash text COLLATE "C" PRIMARY KEY,
	user_id    text COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	created_at bigint NOT NULL,
	expires_at bigint NOT NULL,
	used_at    bigint
);
CREATE INDEX email_verifications_user ON email_verifications (user_id);
