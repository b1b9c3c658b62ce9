-- A challenge's scoring (ctf.Scoring as JSON; '' for static) and hints
-- (a JSON array of ctf.Hint; '' for none).
ALTER TABLE challenges ADD COLUMN scoring text NOT NULL DEFAULT '';
ALTER TABLE challenges ADD COLUMN hints text NOT NULL DEFAULT '';

-- A player's unlocks of hints. charged: the player had not solved the
-- challenge when unlocking, so the hint's cost is taken from their solve;
-- decided in the unlock's transaction, which the user's submissions to
-- the challenge are serialised with (the same advisory lock).
CREATE TABLE hint_unlocks (
	user_id      text COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	challenge_id text COLLATE "C" NOT NULL REFERENCES challenges (id) ON DELETE CASCADE,
	hint_id      integer NOT NULL,
	unlocked_at  bigint NOT NULL,
	charged      boolean NOT NULL,
	PRIMARY KEY (user_id, challenge_id, hint_id)
);
CREATE INDEX hint_unlocks_challenge ON hint_unlocks (challenge_id);
