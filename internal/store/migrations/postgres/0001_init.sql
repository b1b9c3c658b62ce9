-- The PostgreSQL twin of migrations/sqlite/0001_init.sql: same tables,
-- columns, constraints and indexes, so the same queries serve both.
-- Times are bigint milliseconds since the Unix epoch, UTC; flags of yes and
-- no are boolean. Text that is sorted or compared is COLLATE "C": byte
-- order, as SQLite compares, whatever the database's default collation, so
-- both backends list ties in the same order.
CREATE TABLE meta (
	key   text COLLATE "C" PRIMARY KEY,
	value text NOT NULL
);
INSERT INTO meta (key, value) VALUES ('revision', '0');

CREATE TABLE users (
	id            text COLLATE "C" PRIMARY KEY,
	username      text COLLATE "C" NOT NULL UNIQUE,
	name          text COLLATE "C" NOT NULL DEFAULT '',
	email         text COLLATE "C",
	email_lower   text COLLATE "C" UNIQUE,
	image         text NOT NULL DEFAULT '',
	password_hash text NOT NULL DEFAULT '',
	role          text COLLATE "C" NOT NULL DEFAULT 'player' CHECK (role IN ('player', 'admin')),
	banned        boolean NOT NULL DEFAULT false,
	two_factor    boolean NOT NULL DEFAULT false,
	created_at    bigint NOT NULL
);

CREATE TABLE files (
	sha256 text COLLATE "C" PRIMARY KEY,
	data   bytea NOT NULL
);

CREATE TABLE challenges (
	id              text COLLATE "C" PRIMARY KEY,
	slug            text COLLATE "C" NOT NULL UNIQUE,
	title           text COLLATE "C" NOT NULL,
	description     text NOT NULL DEFAULT '',
	categories      text NOT NULL,   -- JSON array of strings
	difficulty      text COLLATE "C" NOT NULL CHECK (difficulty IN ('Easy', 'Medium', 'Hard', 'Insane')),
	points          integer NOT NULL CHECK (points >= 0),
	type            text NOT NULL DEFAULT 'standard',
	author_id       text COLLATE "C" REFERENCES users (id) ON DELETE SET NULL,
	file_name       text NOT NULL DEFAULT '',
	file_sha256     text COLLATE "C" REFERENCES files (sha256),
	file_url        text NOT NULL DEFAULT '',
	has_instance    boolean NOT NULL DEFAULT false,
	docker_port     integer,
	hidden          boolean NOT NULL DEFAULT false,
	tags            text NOT NULL DEFAULT '[]',
	connection_info text NOT NULL DEFAULT '',
	created_at      bigint NOT NULL
);
CREATE INDEX challenges_author ON challenges (author_id);

CREATE TABLE flags (
	challenge_id     text COLLATE "C" NOT NULL REFERENCES challenges (id) ON DELETE CASCADE,
	position         integer NOT NULL,
	kind             text NOT NULL CHECK (kind IN ('static', 'regex')),
	content          text NOT NULL,
	case_insensitive boolean NOT NULL DEFAULT false,
	PRIMARY KEY (challenge_id, position)
);

CREATE TABLE prerequisites (
	challenge_id text COLLATE "C" NOT NULL REFERENCES challenges (id) ON DELETE CASCADE,
	requires_id  text COLLATE "C" NOT NULL REFERENCES challenges (id) ON DELETE CASCADE,
	PRIMARY KEY (challenge_id, requires_id)
);
CREATE INDEX prerequisites_requires ON prerequisites (requires_id);

-- One row per user and challenge: the unique key is what makes concurrent
-- correct submissions yield exactly one solve. seq numbers rows in the
-- order they were inserted (not committed: see RecordSubmission).
CREATE TABLE solves (
	seq          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	id           text COLLATE "C" NOT NULL UNIQUE,
	user_id      text COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	challenge_id text COLLATE "C" NOT NULL REFERENCES challenges (id) ON DELETE CASCADE,
	flag         text,
	solved_at    bigint NOT NULL,
	UNIQUE (user_id, challenge_id)
);
CREATE INDEX solves_challenge ON solves (challenge_id, solved_at);
-- The snapshot reads every solve in (solved_at, seq) order.
CREATE INDEX solves_time ON solves (solved_at, seq);

-- Wrong submissions; a correct one is its solve.
CREATE TABLE attempts (
	seq          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	id           text COLLATE "C" NOT NULL UNIQUE,
	user_id      text COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	challenge_id text COLLATE "C" NOT NULL REFERENCES challenges (id) ON DELETE CASCADE,
	flag         text NOT NULL,
	created_at   bigint NOT NULL
);
CREATE INDEX attempts_rate ON attempts (user_id, challenge_id, created_at);
CREATE INDEX attempts_challenge ON attempts (challenge_id);

CREATE TABLE writeups (
	id           text COLLATE "C" PRIMARY KEY,
	user_id      text COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	challenge_id text COLLATE "C" NOT NULL REFERENCES challenges (id) ON DELETE CASCADE,
	title        text NOT NULL,
	content      text NOT NULL,
	images       text NOT NULL DEFAULT '[]',
	status       text COLLATE "C" NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
	created_at   bigint NOT NULL,
	updated_at   bigint NOT NULL,
	UNIQUE (user_id, challenge_id)
);
CREATE INDEX writeups_challenge ON writeups (challenge_id, created_at);

CREATE TABLE reviews (
	id           text COLLATE "C" PRIMARY KEY,
	user_id      text COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	challenge_id text COLLATE "C" NOT NULL REFERENCES challenges (id) ON DELETE CASCADE,
	stars        integer NOT NULL CHECK (stars BETWEEN 1 AND 5),
	difficulty   integer NOT NULL CHECK (difficulty BETWEEN 1 AND 10),
	created_at   bigint NOT NULL,
	UNIQUE (user_id, challenge_id)
);
CREATE INDEX reviews_challenge ON reviews (challenge_id);

CREATE TABLE api_keys (
	id           text COLLATE "C" PRIMARY KEY,
	user_id      text COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	name         text NOT NULL,
	key_prefix   text COLLATE "C" NOT NULL UNIQUE,
	key_hash     text NOT NULL,
	created_at   bigint NOT NULL,
	last_used_at bigint,
	revoked_at   bigint
);
CREATE INDEX api_keys_user ON api_keys (user_id, created_at);

CREATE TABLE sessions (
	id_hash    text COLLATE "C" PRIMARY KEY,
	user_id    text COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	created_at bigint NOT NULL,
	expires_at bigint NOT NULL,
	revoked_at bigint
);
CREATE INDEX sessions_user ON sessions (user_id);
