-- The PostgreSQL twin of migrations/sqlite/0005_event.sql.
CREATE TABLE event (
	id              integer PRIMARY KEY CHECK (id = 1),
	name            text NOT NULL DEFAULT '',
	starts_at       bigint,
	ends_at         bigint,
	freeze_at       bigint,
	unfreeze_at_end boolean NOT NULL DEFAULT false,
	unfrozen_at     bigint,
	practice        boolean NOT NULL DEFAULT false,
	flag_format     text NOT NULL DEFAULT ''
);

ALTER TABLE challenges ADD COLUMN release_at bigint;

ALTER TABLE solves ADD COLUMN practice boolean NOT NULL DEFAULT false;
ALTER TABLE attempts ADD COLUMN practice boolean NOT NULL DEFAULT false;

CREATE TABLE announcements (
	id           text COLLATE "C" PRIMARY KEY,
	title        text NOT NULL,
	body         text NOT NULL,
	challenge_id text COLLATE "C" REFERENCES challenges (id) ON DELETE SET NULL,
	author_id    text COLLATE "C" REFERENCES users (id) ON DELETE SET NULL,
	created_at   bigint NOT NULL
);

CREATE TABLE stream (
	seq          bigint PRIMARY KEY,
	kind         text COLLATE "C" NOT NULL,
	key          text COLLATE "C" UNIQUE,
	user_id      text COLLATE "C",
	challenge_id text COLLATE "C",
	ref          text COLLATE "C" NOT NULL DEFAULT '',
	at           bigint NOT NULL
);

CREATE TABLE counters (
	name  text COLLATE "C" PRIMARY KEY,
	value bigint NOT NULL
);
INSERT INTO counters (name, value) VALUES ('stream', 0), ('webhooks', 0);

CREATE TABLE webhooks (
	id         text COLLATE "C" PRIMARY KEY,
	name       text NOT NULL,
	kind       text NOT NULL CHECK (kind IN ('json', 'discord', 'slack')),
	url        text NOT NULL,
	secret     text NOT NULL DEFAULT '',
	events     text NOT NULL DEFAULT '[]',
	enabled    boolean NOT NULL DEFAULT true,
	created_at bigint NOT NULL
);

CREATE TABLE webhook_deliveries (
	seq           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	webhook_id    text COLLATE "C" NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
	stream_seq    bigint NOT NULL,
	kind          text NOT NULL,
	body          text NOT NULL,
	status        text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
	attempts      integer NOT NULL DEFAULT 0,
	next_at       bigint NOT NULL,
	claimed_until bigint NOT NULL DEFAULT 0,
	created_at    bigint NOT NULL,
	delivered_at  bigint,
	UNIQUE (webhook_id, stream_seq)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_at);

CREATE TABLE webhook_attempts (
	seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	delivery    bigint NOT NULL REFERENCES webhook_deliveries (seq) ON DELETE CASCADE,
	at          bigint NOT NULL,
	status_code integer NOT NULL DEFAULT 0,
	error       text NOT NULL DEFAULT '',
	duration_ms bigint NOT NULL DEFAULT 0
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery);
CREATE INDEX attempts_practice ON attempts (practice, challenge_id);
