package transfer_test

// The known good dataset the `load` tests start from, and their helpers to
// write files, load them and compare dumps.

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/store/storetest"
	"github.com/flagshipctf/flagship/internal/transfer"
)

const (
	aliceID   = "01900000-0000-7000-8000-00000000a11c"
	bobID     = "01900000-0000-7000-8000-000000000b0b"
	warmupID  = "01900000-0000-7000-8000-0000000c0001"
	solveID   = "01900000-0000-7000-8000-0000000d0001"
	keyHashA  = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	keyHashB  = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	keyPrefix = "fsk_aaaaaaaa"
)

// baseUsers, baseAPIKeys and baseRest make the known good dataset the error
// suite starts from; the API key part is separate so some positive tests can
// leave it out.
const baseUsers = `
users:
  - id: ` + aliceID + `
    username: alice
    name: Alice
    email: alice@example.com
    password: s3cret
    createdAt: 2026-01-01T00:00:00Z
`

const baseAPIKeys = `    apiKeys:
      - {id: key-alice-1, name: laptop, keyPrefix: ` + keyPrefix + `, keyHash: ` + keyHashA + `, createdAt: 2026-01-02T00:00:00Z}
`

const baseRest = `  - {id: ` + bobID + `, username: bob, email: bob@example.com, createdAt: 2026-01-01T01:00:00Z}
  - {username: carol, name: Carol, email: carol@example.com, role: admin, createdAt: 2026-01-01T02:00:00Z}
challenges:
  - id: ` + warmupID + `
    slug: warmup
    title: Warm-up
    description: Say hi.
    categories: [misc]
    difficulty: Easy
    points: 50
    flags: ['flag{warm}']
    author: carol
    tags: [intro]
    createdAt: 2026-01-03T00:00:00Z
  - slug: baby-rsa
    title: Baby RSA
    categories: [crypto, math]
    difficulty: Medium
    points: 100
    flags:
      - {type: regex, content: 'flag\{[0-9a-f]{8}\}'}
      - {type: static, content: 'FLAG{RSA}', data: case_insensitive}
    requires: [warmup]
    dockerPort: 1337
    hasInstance: true
    createdAt: 2026-01-03T01:00:00Z
solves:
  - {id: ` + solveID + `, user: alice, challenge: warmup, at: 2026-01-05T10:00:00Z, flag: 'flag{warm}'}
attempts:
  - {user: bob, challenge: warmup, at: 2026-01-05T10:01:00Z, flag: nope}
writeups:
  - {user: alice, challenge: warmup, title: How, content: Said hi., status: approved, createdAt: 2026-01-05T12:00:00Z, updatedAt: 2026-01-05T12:00:00Z}
reviews:
  - {user: alice, challenge: warmup, stars: 5, difficulty: 2, createdAt: 2026-01-05T12:05:00Z}
`

const baseYAML = baseUsers + baseAPIKeys + baseRest

// writeFile writes content to dir/name (creating directories) and returns the path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// openDB opens a fresh migrated database (see storetest).
func openDB(t *testing.T) *store.DB {
	t.Helper()
	return storetest.Open(t)
}

// loadPaths reads paths with dataset.ReadPaths and loads them, as `flagship load` does.
func loadPaths(t *testing.T, db *store.DB, paths ...string) (transfer.LoadReport, error) {
	t.Helper()
	ds, err := dataset.ReadPaths(paths)
	if err != nil {
		return transfer.LoadReport{}, err
	}
	return transfer.Load(context.Background(), db, ds)
}

func mustLoad(t *testing.T, db *store.DB, paths ...string) transfer.LoadReport {
	t.Helper()
	rep, err := loadPaths(t, db, paths...)
	if err != nil {
		t.Fatalf("load %v: %v", paths, err)
	}
	return rep
}

func dump(t *testing.T, db *store.DB) *dataset.Dataset {
	t.Helper()
	d, err := transfer.Dump(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// baseDB is a database holding the known good dataset.
func baseDB(t *testing.T) *store.DB {
	t.Helper()
	db := openDB(t)
	mustLoad(t, db, writeFile(t, t.TempDir(), "base.yaml", baseYAML))
	return db
}

// sameDump fails with the first differing part of two dumps.
func sameDump(t *testing.T, before, after *dataset.Dataset) {
	t.Helper()
	if reflect.DeepEqual(before, after) {
		return
	}
	parts := []struct {
		name string
		a, b any
	}{
		{"users", before.Users, after.Users}, {"challenges", before.Challenges, after.Challenges},
		{"solves", before.Solves, after.Solves}, {"attempts", before.Attempts, after.Attempts},
		{"writeups", before.Writeups, after.Writeups}, {"reviews", before.Reviews, after.Reviews},
		{"hintUnlocks", before.HintUnlocks, after.HintUnlocks},
		{"event", before.Event, after.Event}, {"announcements", before.Announcements, after.Announcements},
		{"webhooks", before.Webhooks, after.Webhooks},
	}
	for _, p := range parts {
		if !reflect.DeepEqual(p.a, p.b) {
			t.Errorf("the database changed: %s differ:\nbefore %+v\nafter  %+v", p.name, p.a, p.b)
		}
	}
}

// counts sums a report's map.
func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
