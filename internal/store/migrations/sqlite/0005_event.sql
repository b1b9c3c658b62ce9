-- The event's clock and settings (ctf.Event): one row, absent until an
-- organiser sets them. Times are Unix milliseconds; NULL is "not set".
CREATE TABLE event (
	id              INTEGER PRIMARY KEY CHECK (id = 1),
	name            TEXT NOT NULL DEFAULT '',
	starts_at       INTEGER,
	ends_at         INTEGER,
	freeze_at       INTEGER,
	unfreeze_at_end INTEGER NOT NULL DEFAULT 0,
	unfrozen_at     INTEGER,
	practice        INTEGER NOT NULL DEFAULT 0,
	flag_format     TEXT NOT NULL DEFAULT ''
);

-- A scheduled release: the challenge appears at that instant.
ALTER TABLE challenges ADD COLUMN release_at INTEGER;

-- Submissions made after the end in practice mode count nowhere public.
ALTER TABLE solves ADD COLUMN practice INTEGER NOT NULL DEFAULT 0;
ALTER TABLE attempts ADD COLUMN practice INTEGER NOT NULL DEFAULT 0;

CREATE TABLE announcements (
	id           TEXT PRIMARY KEY,
	title        TEXT NOT NULL,
	body         TEXT NOT NULL,
	challenge_id TEXT REFERENCES challenges (id) ON DELETE SET NULL,
	author_id    TEXT REFERENCES users (id) ON DELETE SET NULL,
	created_at   INTEGER NOT NULL
);

-- The live stream (/api/events): what happened, in commit order. seq is
-- not an autoincrement: it is taken from counters('stream') inside the
-- writing transaction, whose row lock makes the numbers dense and the order
-- of numbers the order of commits, so a client resuming after N misses
-- nothing and a replica relays each row once, in order. key makes an event
-- that every replica notices (the start, a release) recorded once.
CREATE TABLE stream (
	seq          INTEGER PRIMARY KEY,
	kind         TEXT NOT NULL,
	key          TEXT UNIQUE,
	user_id      TEXT,
	challenge_id TEXT,
	ref          TEXT NOT NULL DEFAULT '',
	at           INTEGER NOT NULL
);

CREATE TABLE counters (
	name  TEXT PRIMARY KEY,
	value INTEGER NOT NULL
);
-- stream: the last number given; webhooks: the last stream row turned
-- into deliveries.
INSERT INTO counters (name, value) VALUES ('stream', 0), ('webhooks', 0);

-- Webhook targets, set by admins: kind json (signed with secret), discord
-- or slack; events is a JSON array of event kinds.
CREATE TABLE webhooks (
	id         TEXT PRIMARY KEY,
	name       TEXT NOT NULL,
	kind       TEXT NOT NULL CHECK (kind IN ('json', 'discord', 'slack')),
	url        TEXT NOT NULL,
	secret     TEXT NOT NULL DEFAULT '',
	events     TEXT NOT NULL DEFAULT '[]',
	enabled    INTEGER NOT NULL DEFAULT 1,
	created_at INTEGER NOT NULL
);

-- The outbox: one row per target and event, made once per cluster (the
-- unique key), claimed by one replica at a time, retried with backoff.
CREATE TABLE webhook_deliveries (
	seq           INTEGER PRIMARY KEY AUTOINCREMENT,
	webhook_id    TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
	stream_seq    INTEGER NOT NULL,
	kind          TEXT NOT NULL,
	body          TEXT NOT NULL,
	status        TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
	attempts      INTEGER NOT NULL DEFAULT 0,
	next_at       INTEGER NOT NULL,
	claimed_until INTEGER NOT NULL DEFAULT 0,
	created_at    INTEGER NOT NULL,
	delivered_at  INTEGER,
	UNIQUE (webhook_id, stream_seq)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_at);

-- Every try of a delivery: the log admins read.
CREATE TABLE webhook_attempts (
	seq         INTEGER PRIMARY KEY AUTOINCREMENT,
	delivery    INTEGER NOT NULL REFERENCES webhook_deliveries (seq) ON DELETE CASCADE,
	at          INTEGER NOT NULL,
	status_code INTEGER NOT NULL DEFAULT 0,
	error       TEXT NOT NULL DEFAULT '',
	duration_ms INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery);
CREATE INDEX attempts_practice ON attempts (practice, challenge_id);
