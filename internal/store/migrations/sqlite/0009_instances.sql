-- A challenge's instance spec (ctf.InstanceSpec as JSON): how its per-player
-- containers run. NULL for a challenge without instances.
ALTER TABLE challenges ADD COLUMN instance TEXT;

-- The server's secrets, made once and shared by every replica: "instances"
-- keys the per-player flags (ctf.PlayerFlag).
CREATE TABLE secrets (
	name  TEXT PRIMARY KEY,
	value TEXT NOT NULL
);

-- The per-player flags given to players' containers: a flag submitted by
-- another player than its owner is recorded as suspected sharing.
CREATE TABLE issued_flags (
	challenge_id TEXT NOT NULL REFERENCES challenges (id) ON DELETE CASCADE,
	user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	flag         TEXT NOT NULL,
	issued_at    INTEGER NOT NULL,
	PRIMARY KEY (challenge_id, user_id)
);
CREATE INDEX issued_flags_flag ON issued_flags (challenge_id, flag);

-- Suspected sharing: a player (user_id) submitted the per-player flag of
-- another (owner_id).
CREATE TABLE sharing (
	id           TEXT PRIMARY KEY,
	challenge_id TEXT NOT NULL REFERENCES challenges (id) ON DELETE CASCADE,
	user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	owner_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	at           INTEGER NOT NULL,
	door         TEXT NOT NULL DEFAULT '',
	key_id       TEXT
);
CREATE INDEX sharing_at ON sharing (at);

-- Players' instances: a row from the start until it is stopped (then kept,
-- with stopped_at, for the record). user_id is NULL for a shared instance.
-- One live instance per player and challenge, and a port for one live
-- instance at a time, whichever replica starts them.
CREATE TABLE instances (
	id           TEXT PRIMARY KEY,
	challenge_id TEXT NOT NULL REFERENCES challenges (id) ON DELETE CASCADE,
	user_id      TEXT REFERENCES users (id) ON DELETE CASCADE,
	engine       TEXT NOT NULL,
	engine_id    TEXT NOT NULL DEFAULT '',
	host         TEXT NOT NULL DEFAULT '',
	port         INTEGER NOT NULL,
	status       TEXT NOT NULL,
	started_at   INTEGER NOT NULL,
	expires_at   INTEGER NOT NULL,
	max_until    INTEGER NOT NULL,
	stopped_at   INTEGER
);
CREATE UNIQUE INDEX instances_live ON instances (challenge_id, COALESCE(user_id, '')) WHERE stopped_at IS NULL;
CREATE UNIQUE INDEX instances_port ON instances (port) WHERE stopped_at IS NULL;
CREATE INDEX instances_user ON instances (user_id) WHERE stopped_at IS NULL;

-- Leases: one replica at a time does a job (the reaper of expired
-- instances) until its lease runs out or it hands it back.
CREATE TABLE leases (
	name   TEXT PRIMARY KEY,
	holder TEXT NOT NULL,
	until  INTEGER NOT NULL
);
