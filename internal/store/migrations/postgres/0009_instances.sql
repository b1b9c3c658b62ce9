-- A challenge's instance spec (ctf.InstanceSpec as JSON): how its per-player
-- containers run. NULL for a challenge without instances.
ALTER TABLE challenges ADD COLUMN instance TEXT;
