package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// FileChunkSize is how much of a challenge file a row holds: what a server
// has in memory at once while it copies a file into its cache.
const FileChunkSize = 1 << 20

// putFile stores a file's bytes in chunks under their SHA-256 (once: the
// same bytes are the same file).
func putFile(ctx context.Context, tx *sqlTx, sha string, data []byte) error {
	res, err := tx.ExecContext(ctx, "INSERT INTO files (sha256, size) VALUES (?, ?) ON CONFLICT (sha256) DO NOTHING", sha, len(data))
	if err != nil {
		return fmt.Errorf("store file %s: %w", sha, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	for n, off := 0, 0; off < len(data); n, off = n+1, off+FileChunkSize {
		end := min(off+FileChunkSize, len(data))
		if _, err := tx.ExecContext(ctx, "INSERT INTO file_chunks (sha256, n, data) VALUES (?, ?, ?)", sha, n, data[off:end]); err != nil {
			return fmt.Errorf("store file %s: %w", sha, err)
		}
	}
	return nil
}

// FileSize returns the size of a stored file, or NotFound.
func (db *DB) FileSize(ctx context.Context, sha string) (int64, error) {
	var size int64
	err := db.r.QueryRowContext(ctx, "SELECT size FROM files WHERE sha256 = ?", sha).Scan(&size)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, errNotFound
	}
	if err != nil {
		return 0, fmt.Errorf("file %s: %w", sha, err)
	}
	return size, nil
}

// FileChunks calls fn with the chunks of a stored file in order, one row
// in memory at a time (fn must not keep a chunk); a file whose chunks do
// not add up to its size is an error.
func (db *DB) FileChunks(ctx context.Context, sha string, fn func([]byte) error) error {
	size, err := db.FileSize(ctx, sha)
	if err != nil {
		return err
	}
	var got int64
	// RawBytes: the driver's buffer, valid until the next row, so that a
	// chunk is not copied (nor allocated) once more per row.
	var chunk sql.RawBytes
	err = eachRow(ctx, db.r, "SELECT data FROM file_chunks WHERE sha256 = ? ORDER BY n", func(sc scanner) error {
		if err := sc.Scan(&chunk); err != nil {
			return err
		}
		got += int64(len(chunk))
		return fn(chunk)
	}, sha)
	if err != nil {
		return fmt.Errorf("file %s: %w", sha, err)
	}
	if got != size {
		return fmt.Errorf("file %s: %d bytes stored of %d", sha, got, size)
	}
	return nil
}

// fileBytes reads a whole stored file (for a dump).
func fileBytes(ctx context.Context, q querier, sha string) ([]byte, error) {
	var data []byte
	err := eachRow(ctx, q, "SELECT data FROM file_chunks WHERE sha256 = ? ORDER BY n", func(sc scanner) error {
		var chunk []byte
		err := sc.Scan(&chunk)
		data = append(data, chunk...)
		return err
	}, sha)
	if data == nil {
		data = []byte{}
	}
	return data, err
}
