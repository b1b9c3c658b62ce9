-- Challenge files in chunks of 1 MiB, so a server streams a file into its
-- cache with one chunk in memory, not the whole file. files keeps each
-- file's size; its bytes move to file_chunks.
CREATE TABLE file_chunks (
	sha256 TEXT NOT NULL REFERENCES files (sha256) ON DELETE CASCADE,
	n      INTEGER NOT NULL,
	data   BLOB NOT NULL,
	PRIMARY KEY (sha256, n)
);
WITH RECURSIVE part (sha256, n) AS (
	SELECT sha256, 0 FROM files WHERE length(data) > 0
	UNION ALL
	SELECT p.sha256, p.n + 1 FROM part p JOIN files f ON f.sha256 = p.sha256 WHERE (p.n + 1) * 1048576 < length(f.data)
)
INSERT INTO file_chunks (sha256, n, data)
	SELECT p.sha256, p.n, substr(f.data, p.n * 1048576 + 1, 1048576) FROM part p JOIN files f ON f.sha256 = p.sha256;
ALTER TABLE files ADD COLUMN size INTEGER NOT NULL DEFAULT 0;
UPDATE files SET size = length(data);
ALTER TABLE files DROP COLUMN data;
