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
	issued_at    BIGINT NOT NULL,
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
	at           BIGINT NOT NULL,
	door         TEXT NOT NULL DEFAULT '',
	key_id       TEXT
);
CREATE INDEX sharing_at ON sharing (at);
