-- The PostgreSQL twin of migrations/sqlite/0003_file_chunks.sql.
CREATE TABLE file_chunks (
	sha256 text COLLATE "C" NOT NULL REFERENCES files (sha256) ON DELETE CASCADE,
	n      integer NOT NULL,
	data   bytea NOT NULL,
	PRIMARY KEY (sha256, n)
);
INSERT INTO file_chunks (sha256, n, data)
	SELECT f.sha256, g.n, substring(f.data FROM g.n * 1048576 + 1 FOR 1048576)
	FROM files f, generate_series(0, (length(f.data) - 1) / 1048576) AS g (n)
	WHERE length(f.data) > 0;
ALTER TABLE files ADD COLUMN size bigint NOT NULL DEFAULT 0;
UPDATE files SET size = length(data);
ALTER TABLE files DROP COLUMN data;
-- Chunks are stored as they are: already compressed handouts gain nothing
-- from TOAST's compression, and reading them back costs less.
ALTER TABLE file_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
