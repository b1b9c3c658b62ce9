package store_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/store/storetest"
)

// TestFileChunksMigration: files stored whole by an older release are cut
// into chunks by the migration, byte for byte, empty ones included.
func TestFileChunksMigration(t *testing.T) {
	ctx := context.Background()
	db := storetest.OpenDSN(t, storetest.DSN(t))
	if err := db.MigrateTo(ctx, "0002_changes_accounts.sql"); err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 2*store.FileChunkSize+12345)
	rand.Read(big)
	exact := bytes.Repeat([]byte("z"), store.FileChunkSize)
	files := [][]byte{big, exact, []byte("small"), {}}
	for _, f := range files {
		if err := db.ExecSQL(ctx, "INSERT INTO files (sha256, data) VALUES (?, ?)", sha(f), f); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		size, err := db.FileSize(ctx, sha(f))
		if err != nil || size != int64(len(f)) {
			t.Fatalf("size %d, %v; want %d", size, err, len(f))
		}
		var got []byte
		chunks := 0
		if err := db.FileChunks(ctx, sha(f), func(c []byte) error {
			if len(c) > store.FileChunkSize {
				t.Errorf("a chunk of %d bytes", len(c))
			}
			chunks++
			got = append(got, c...)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, f) {
			t.Errorf("file of %d bytes read back as %d bytes", len(f), len(got))
		}
		if want := (len(f) + store.FileChunkSize - 1) / store.FileChunkSize; chunks != want {
			t.Errorf("file of %d bytes in %d chunks, want %d", len(f), chunks, want)
		}
	}
}

func sha(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
