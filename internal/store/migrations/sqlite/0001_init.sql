-- Times are integer milliseconds since the Unix epoch, UTC, so the same
-- values and queries serve SQLite and PostgreSQL (bigint).
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
INSERT INTO meta (key, value) VALUES ('revision', '0');

CREATE TABLE users (
	id            TEXT PRIMARY KEY,
	username      TEXT NOT NULL UNIQUE,
	name          TEXT NOT NULL DEFAULT '',
	email         TEXT,
	email_lower   TEXT UNIQUE,
	image         TEXT NOT NULL DEFAULT '',
	password_hash TEXT NOT NULL DEFAULT '',
	role          TEXT NOT NULL DEFAULT 'player' CHECK (role IN ('player', 'admin')),
	banned        INTEGER NOT NULL DEFAULT 0,
	two_factor    INTEGER NOT NULL DEFAULT 0,
	created_at    INTEGER NOT NULL
);

CREATE TABLE files (
	sha256 TEXT PRIMARY KEY,
	data   BLOB NOT NULL
);

CREATE TABLE challenges (
	id              TEXT PRIMARY KEY,
	slug            TEXT NOT NULL UNIQUE,
	title           TEXT NOT NULL,
	description     TEXT NOT NULL DEFAULT '',
	categories      TEXT NOT NULL,   -- JSON array of strings
	difficulty      TEXT NOT NULL CHECK (difficulty IN ('Easy', 'Medium', 'Hard', 'Insane')),
	points          INTEGER NOT NULL CHECK (points >= 0),
	type            TEXT NOT NULL DEFAULT 'standard',
	author_id       TEXT REFERENCES users (id) ON DELETE SET NULL,
	file_name       TEXT NOT NULL DEFAULT '',
	file_sha256     TEXT REFERENCES files (sha256),
	file_url        TEXT NOT NULL DEFAULT '',
	has_instance    INTEGER NOT NULL DEFAULT 0,
	docker_port     INTEGER,
	hidden          INTEGER NOT NULL DEFAULT 0,
	tags            TEXT NOT NULL DEFAULT '[]',
	connection_info TEXT NOT NULL DEFAULT '',
	created_at      INTEGER NOT NULL
);

CREATE TABLE flags (
	challenge_id     TEXT NOT NULL REFERENCES challenges (id) ON DELETE CASCADE,
	position         INTEGER NOT NULL,
	kind             TEXT NOT NULL CHECK (kind IN ('static', 'regex')),
	content          TEXT NOT NULL,
	case_insensitive INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (challenge_id, position)
);

CREATE TABLE prerequisites (
	challenge_id TEXT NOT NULL REFERENCES challenges (id) ON DELETE CASCADE,
	requires_id  TEXT NOT NULL REFERENCES challenges (id) ON DELETE CASCADE,
	PRIMARY KEY (challenge_id, requires_id)
);

-- One row per user and challenge: the unique key is what makes concurrent
-- correct submissions yield exactly one solve.
CREATE TABLE solves (
	seq          INTEGER PRIMARY KEY AUTOINCREMENT,
	id           TEXT NOT NULL UNIQUE,
	user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	challenge_id TEXT NOT NULL REFERENCES challenges (id) ON DELETE CASCADE,
	flag         TEXT,
	solved_at    INTEGER NOT NULL,
	UNIQUE (user_id, challenge_id)
);
CREATE INDEX solves_challenge ON solves (challenge_id, solved_at);

-- Wrong submissions; a correct one is its solve.
CREATE TABLE attempts (
	seq          INTEGER PRIMARY KEY AUTOINCREMENT,
	id           TEXT NOT NULL UNIQUE,
	user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	challenge_id TEXT NOT NULL REFERENCES challenges (id) ON DELETE CASCADE,
	flag         TEXT NOT NULL,
	created_at   INTEGER NOT NULL
);
CREATE INDEX attempts_rate ON attempts (user_id, challenge_id, created_at);
CREATE INDEX attempts_challenge ON attempts (challenge_id);

CREATE TABLE writeups (
	id           TEXT PRIMARY KEY,
	user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	challenge_id TEXT NOT NULL REFERENCES challenges (id) ON DELETE CASCADE,
	title        TEXT NOT NULL,
	content      TEXT NOT NULL,
	images       TEXT NOT NULL DEFAULT '[]',
	status       TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
	created_at   INTEGER NOT NULL,
	updated_at   INTEGER NOT NULL,
	UNIQUE (user_id, challenge_id)
);
CREATE INDEX writeups_challenge ON writeups (challenge_id, created_at);

CREATE TABLE reviews (
	id           TEXT PRIMARY KEY,
	user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	challenge_id TEXT NOT NULL REFERENCES challenges (id) ON DELETE CASCADE,
	stars        INTEGER NOT NULL CHECK (stars BETWEEN 1 AND 5),
	difficulty   INTEGER NOT NULL CHECK (difficulty BETWEEN 1 AND 10),
	created_at   INTEGER NOT NULL,
	UNIQUE (user_id, challenge_id)
);

CREATE TABLE api_keys (
	id           TEXT PRIMARY KEY,
	user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	name         TEXT NOT NULL,
	key_prefix   TEXT NOT NULL UNIQUE,
	key_hash     TEXT NOT NULL,
	created_at   INTEGER NOT NULL,
	last_used_at INTEGER,
	revoked_at   INTEGER
);
CREATE INDEX api_keys_user ON api_keys (user_id, created_at);

CREATE TABLE sessions (
	id_hash    TEXT PRIMARY KEY,
	user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	created_at INTEGER NOT NULL,
	expires_at INTEGER NOT NULL,
	revoked_at INTEGER
);
CREATE INDEX sessions_user ON sessions (user_id);
