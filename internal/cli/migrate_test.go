package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/flagshipctf/flagship/internal/demo"
	"github.com/flagshipctf/flagship/internal/store/storetest"
)

// TestDumpSQLiteLoadBackend moves an event out of a SQLite file into the
// backend under test (PostgreSQL in the PostgreSQL run: the migration
// README documents) and back, and expects the same dataset every time.
func TestDumpSQLiteLoadBackend(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "demo.yaml")
	if err := os.WriteFile(src, demo.Dataset, 0o600); err != nil {
		t.Fatal(err)
	}
	sqlite := "sqlite:" + filepath.Join(dir, "src.db")
	if code, _, e := run(t, "", "--db", sqlite, "load", src); code != 0 {
		t.Fatalf("load demo: %s", e)
	}
	if code, _, e := run(t, "", "--db", sqlite, "apikey", "create", "--user", "demo", "--name", "laptop"); code != 0 {
		t.Fatalf("apikey: %s", e)
	}
	_, dump1, _ := run(t, "", "--db", sqlite, "dump")
	file := filepath.Join(dir, "event.yaml")
	if err := os.WriteFile(file, []byte(dump1), 0o600); err != nil {
		t.Fatal(err)
	}

	target := storetest.DSN(t)
	if code, _, e := run(t, "", "--db", target, "load", file); code != 0 {
		t.Fatalf("load into %s: %s", storetest.Backend(), e)
	}
	_, dump2, _ := run(t, "", "--db", target, "dump")
	if dump2 != dump1 {
		t.Fatalf("dump from %s differs from the SQLite dump it was loaded from", storetest.Backend())
	}
	// And back into a fresh SQLite file.
	back := "sqlite:" + filepath.Join(dir, "back.db")
	if err := os.WriteFile(file, []byte(dump2), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, e := run(t, "", "--db", back, "load", file); code != 0 {
		t.Fatalf("load back: %s", e)
	}
	if _, dump3, _ := run(t, "", "--db", back, "dump"); dump3 != dump1 {
		t.Fatal("the round trip back to SQLite lost something")
	}
}
