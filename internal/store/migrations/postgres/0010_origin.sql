-- A challenge's flag format as players and agents are told it
-- ("csawctf{...}"); empty: derived from its flags, else the event's.
ALTER TABLE challenges ADD COLUMN flag_format TEXT NOT NULL DEFAULT '';

-- Where a benchmark task was loaded from (ctf.Origin): the benchmark
-- ("nyu", "cybench"), the task's path in its checkout and its name in the
-- benchmark's results (NYU's canonical name). Empty for the organiser's
-- own challenges. A load never replaces a challenge of another origin.
ALTER TABLE challenges ADD COLUMN origin TEXT NOT NULL DEFAULT '';
ALTER TABLE challenges ADD COLUMN origin_path TEXT NOT NULL DEFAULT '';
ALTER TABLE challenges ADD COLUMN origin_name TEXT NOT NULL DEFAULT '';
