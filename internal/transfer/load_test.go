package transfer_test

// The `load` error suite: bad dataset files fail with a *dataset.Error naming
// the file, the entry and the field, and leave the database exactly as it
// was (one transaction). Plus the positive side: reloading is idempotent and
// reports what changed, and ctfcli challenge directories load.

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
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
		{"event", before.Event, after.Event}, {"announcements", before.Announcements, after.Announcements},
		{"webhooks", before.Webhooks, after.Webhooks},
	}
	for _, p := range parts {
		if !reflect.DeepEqual(p.a, p.b) {
			t.Errorf("the database changed: %s differ:\nbefore %+v\nafter  %+v", p.name, p.a, p.b)
		}
	}
}

type loadErrorCase struct {
	name  string
	file  string // the bad dataset file's content
	entry string // want Entry
	field []string
	// inValidator: rejected by dataset.ReadPaths, so Load never runs.
	inValidator bool
	// prepare runs after the file is written and read, before Load.
	prepare func(t *testing.T, dir string)
}

func loadErrorCases() []loadErrorCase {
	return []loadErrorCase{
		// Cases that pass validation and are caught by the loader. Most
		// start with good entries, so the rollback is tested too.
		{
			name: "solve by an unknown user",
			file: `
users:
  - {username: dave, email: dave@example.com}
solves:
  - {user: bob, challenge: warmup, at: 2026-01-06T00:00:00Z, flag: 'flag{warm}'}
  - {user: mallory, challenge: warmup, at: 2026-01-06T00:01:00Z}
`,
			entry: "solves[1]", field: []string{"user"},
		},
		{
			// Two-factor state and webhooks come before the failure:
			// they are rolled back with the rest.
			name: "two-factor and webhooks, then a solve by an unknown user",
			file: `
users:
  - {username: bob, email: bob@example.com, twoFactor: {secret: JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP, lastStep: 5}}
webhooks:
  - {name: Hook, kind: slack, url: 'https://hooks.slack.com/services/x'}
solves:
  - {user: mallory, challenge: warmup, at: 2026-01-06T00:01:00Z}
`,
			entry: "solves[0]", field: []string{"user"},
		},
		{
			name: "solve of an unknown challenge",
			file: `
solves:
  - {user: bob, challenge: warmup, at: 2026-01-06T00:00:00Z}
  - {user: bob, challenge: no-such-challenge, at: 2026-01-06T00:01:00Z}
`,
			entry: "solves[1]", field: []string{"challenge"},
		},
		{
			name: "username differing only in case from one in the database",
			file: `
users:
  - {username: erin, email: erin@example.com}
  - {username: ALICE, email: other-alice@example.com}
`,
			entry: `users[1] (username "ALICE")`, field: []string{"username"},
		},
		{
			name:        "usernames differing only in case in one file",
			inValidator: true,
			file: `
users:
  - {username: frank, email: frank@example.com}
  - {username: FRANK, email: frank2@example.com}
`,
			entry: `users[1] (username "FRANK")`, field: []string{"username"},
		},
		{
			name: "solve naming a challenge title instead of its slug",
			file: `
solves:
  - {user: bob, challenge: Warm-up}
`,
			entry: "solves[0]", field: []string{"challenge"},
		},
		{
			name: "attempt of an unknown challenge",
			file: `
attempts:
  - {user: bob, challenge: warmup, flag: again, at: 2026-01-06T00:00:00Z}
  - {user: alice, challenge: ghost, flag: boo, at: 2026-01-06T00:01:00Z}
`,
			entry: "attempts[1]", field: []string{"challenge"},
		},
		{
			name: "attempt by an unknown user",
			file: `
attempts:
  - {user: nobody, challenge: warmup, flag: boo}
`,
			entry: "attempts[0]", field: []string{"user"},
		},
		{
			name: "writeup by a user who has not solved the challenge",
			file: `
writeups:
  - {user: alice, challenge: warmup, title: Better title, content: Edited., status: approved}
  - {user: bob, challenge: warmup, title: Mine, content: I did not solve it.}
`,
			entry: "writeups[1]", field: []string{"user"},
		},
		{
			name: "review by a non-solver",
			file: `
reviews:
  - {user: alice, challenge: warmup, stars: 3, difficulty: 4}
  - {user: bob, challenge: warmup, stars: 1, difficulty: 10}
`,
			entry: "reviews[1]", field: []string{"user"},
		},
		{
			name: "review of a challenge solved only by someone else",
			file: `
reviews:
  - {user: bob, challenge: baby-rsa, stars: 4, difficulty: 6}
`,
			entry: "reviews[0]", field: []string{"user"},
		},
		{
			name: "requires an unknown slug",
			file: `
challenges:
  - {slug: pwn-0, title: Pwn 0, categories: [pwn], difficulty: Easy, points: 10, flags: ['flag{p0}']}
  - {slug: pwn-1, title: Pwn 1, categories: [pwn], difficulty: Hard, points: 300, flags: ['flag{p1}'], requires: [pwn-0, no-such-slug]}
`,
			entry: `challenges[1] (slug "pwn-1")`, field: []string{"requires", "requires[1]"},
		},
		{
			name: "author names an unknown user",
			file: `
challenges:
  - {slug: warmup, title: Warm-up renamed, categories: [misc], difficulty: Easy, points: 55, flags: ['flag{warm}']}
  - {slug: web-1, title: Web 1, categories: [web], difficulty: Easy, points: 100, flags: ['flag{w}'], author: nobody}
`,
			entry: `challenges[1] (slug "web-1")`, field: []string{"author"},
		},
		{
			name: "email of another user already in the database",
			file: `
users:
  - {username: dave, email: bob@example.com}
`,
			entry: `users[0] (username "dave")`, field: []string{"email"},
		},
		{
			name: "email of another user in another case",
			file: `
users:
  - {username: erin, email: erin@example.com}
  - {username: dave, email: BOB@Example.COM}
`,
			entry: `users[1] (username "dave")`, field: []string{"email"},
		},
		{
			name: "existing user takes another user's email",
			file: `
users:
  - {username: alice, email: bob@example.com}
`,
			entry: `users[0] (username "alice")`, field: []string{"email"},
		},
		{
			name: "user id of another user",
			file: `
users:
  - {id: ` + aliceID + `, username: dave, email: dave@example.com}
`,
			entry: `users[0] (username "dave")`, field: []string{"id"},
		},
		{
			name: "API key prefix of an existing key",
			file: `
users:
  - username: bob
    email: bob@example.com
    apiKeys:
      - {id: key-bob-1, name: ci, keyPrefix: ` + keyPrefix + `, keyHash: ` + keyHashB + `}
`,
			entry: `users[0] (username "bob")`, field: []string{"apiKeys[0].keyPrefix"},
		},
		{
			name: "API key id of another user's key",
			file: `
users:
  - username: bob
    email: bob@example.com
    apiKeys:
      - {id: key-alice-1, name: stolen, keyPrefix: fsk_bbbbbbbb, keyHash: ` + keyHashB + `}
`,
			entry: `users[0] (username "bob")`, field: []string{"apiKeys[0].id"},
		},
		{
			name: "challenge id of another challenge",
			file: `
challenges:
  - {id: ` + warmupID + `, slug: copycat, title: Copycat, categories: [misc], difficulty: Easy, points: 1, flags: ['flag{c}']}
`,
			entry: `challenges[0] (slug "copycat")`, field: []string{"id"},
		},
		{
			name: "solve id of another solve",
			file: `
solves:
  - {id: ` + solveID + `, user: bob, challenge: warmup}
`,
			entry: "solves[0]", field: []string{"id"},
		},
		{
			name: "challenge file removed after reading the dataset",
			file: `
challenges:
  - {slug: forensics-1, title: Forensics 1, categories: [forensics], difficulty: Easy, points: 10, flags: ['flag{f}'], file: {name: dump.pcap, path: dump.pcap}}
`,
			entry: `challenges[0] (slug "forensics-1")`, field: []string{"file.path"},
			prepare: func(t *testing.T, dir string) {
				if err := os.Remove(filepath.Join(dir, "dump.pcap")); err != nil {
					t.Fatal(err)
				}
			},
		},

		// Cases the dataset validator rejects: Load never runs.
		{
			name: "duplicate username",
			file: `
users:
  - {username: dave, email: dave@example.com}
  - {username: dave, email: dave2@example.com}
`,
			entry: `users[1] (username "dave")`, field: []string{"username"}, inValidator: true,
		},
		{
			name: "review stars 6",
			file: `
reviews:
  - {user: alice, challenge: warmup, stars: 6, difficulty: 3}
`,
			entry: "reviews[0]", field: []string{"stars"}, inValidator: true,
		},
		{
			name: "review difficulty 0",
			file: `
reviews:
  - {user: alice, challenge: warmup, stars: 4, difficulty: 0}
`,
			entry: "reviews[0]", field: []string{"difficulty"}, inValidator: true,
		},
		{
			name: "bad difficulty",
			file: `
challenges:
  - {slug: warmup, title: Warm-up, categories: [misc], difficulty: Extreme, points: 50, flags: ['flag{warm}']}
`,
			entry: `challenges[0] (slug "warmup")`, field: []string{"difficulty"}, inValidator: true,
		},
		{
			name: "negative points",
			file: `
challenges:
  - {slug: warmup, title: Warm-up, categories: [misc], difficulty: Easy, points: -5, flags: ['flag{warm}']}
`,
			entry: `challenges[0] (slug "warmup")`, field: []string{"points"}, inValidator: true,
		},
		{
			name: "duplicate solve",
			file: `
solves:
  - {user: bob, challenge: warmup}
  - {user: bob, challenge: warmup}
`,
			entry: "solves[1]", field: []string{"challenge"}, inValidator: true,
		},
		{
			name: "announcement of an unknown challenge",
			file: `
event: {name: Changed, practice: true}
challenges:
  - {slug: wave-2, title: Wave 2, categories: [misc], points: 10, flags: [f], releaseAt: 2026-02-01T00:00:00Z}
announcements:
  - {title: Wave 2 is out, challenge: Wave 2}
  - {title: Wave 3 is out, challenge: wave-3}
`,
			entry: `announcements[1] (title "Wave 3 is out")`, field: []string{"challenge"},
		},
		{
			name: "announcement naming an ambiguous title",
			file: `
challenges:
  - {slug: warmup-2, title: Warm-up, categories: [misc], points: 10, flags: [f]}
announcements:
  - {title: Hint, challenge: Warm-up}
`,
			entry: `announcements[0] (title "Hint")`, field: []string{"challenge"},
		},
		{
			name: "announcement by an unknown author",
			file: `
announcements:
  - {title: Welcome, author: carol}
  - {title: Hint, author: mallory}
`,
			entry: `announcements[1] (title "Hint")`, field: []string{"author"},
		},
		{
			name: "event ending before it starts",
			file: `
event: {start: 2026-02-01T00:00:00Z, end: 2026-01-01T00:00:00Z}
`,
			entry: "event", field: []string{"end"}, inValidator: true,
		},
		{
			name: "practice solve not a boolean",
			file: `
solves:
  - {user: bob, challenge: warmup, practice: 'no'}
`,
			entry: "solves[0]", field: []string{"practice"}, inValidator: true,
		},
		{
			name: "missing challenge file",
			file: `
challenges:
  - {slug: forensics-2, title: Forensics 2, categories: [forensics], difficulty: Easy, points: 10, flags: ['flag{f}'], file: {name: x.pcap, path: missing.pcap}}
`,
			entry: `challenges[0] (slug "forensics-2")`, field: []string{"file.path"}, inValidator: true,
		},
		{
			// A hash says what checking a password against it costs: t=0
			// made argon2 panic at the first log-in.
			name: "password hash with zero passes",
			file: `
users:
  - {username: dave, email: dave@example.com}
  - {username: alice, email: alice@example.com, passwordHash: '$argon2id$v=19$m=19456,t=0,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g'}
`,
			entry: `users[1] (username "alice")`, field: []string{"passwordHash"}, inValidator: true,
		},
	}
}

// TestLoadErrors runs every bad file against a database holding the known
// good dataset.
func TestLoadErrors(t *testing.T) {
	for _, tc := range loadErrorCases() {
		t.Run(tc.name, func(t *testing.T) {
			db := baseDB(t)
			before := dump(t, db)
			dir := t.TempDir()
			if tc.prepare != nil {
				writeFile(t, dir, "dump.pcap", "pcap bytes")
			}
			path := writeFile(t, dir, "bad.yaml", tc.file)

			ds, err := dataset.ReadPaths([]string{path})
			if tc.inValidator {
				if err == nil {
					t.Fatalf("dataset.ReadPaths accepted the file; want a validation error")
				}
			} else {
				if err != nil {
					t.Fatalf("dataset.ReadPaths: %v; this case must reach the loader", err)
				}
				if tc.prepare != nil {
					tc.prepare(t, dir)
				}
				_, err = transfer.Load(context.Background(), db, ds)
				if err == nil {
					t.Fatalf("Load succeeded; want an error")
				}
			}
			var de *dataset.Error
			if !errors.As(err, &de) {
				t.Fatalf("error %T %q is not a *dataset.Error", err, err)
			}
			if de.File != path {
				t.Errorf("File %q, want %q", de.File, path)
			}
			if de.Entry != tc.entry {
				t.Errorf("Entry %q, want %q", de.Entry, tc.entry)
			}
			okField := false
			for _, f := range tc.field {
				okField = okField || de.Field == f
			}
			if !okField {
				t.Errorf("Field %q, want %q (message: %q)", de.Field, strings.Join(tc.field, `" or "`), de.Msg)
			}
			if strings.TrimSpace(de.Msg) == "" {
				t.Errorf("empty message")
			}
			if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, tc.entry) {
				t.Errorf("message %q does not name the file and the entry", msg)
			}
			sameDump(t, before, dump(t, db))
		})
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

// TestLoadTwiceUnchanged: loading the same file twice creates and updates
// nothing the second time and reports every entry unchanged.
func TestLoadTwiceUnchanged(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       map[string]int
	}{
		{"with API keys", baseYAML, map[string]int{"users": 3, "apiKeys": 1, "challenges": 2, "solves": 1, "attempts": 1, "writeups": 1, "reviews": 1}},
		{"without API keys", baseUsers + baseRest, map[string]int{"users": 3, "challenges": 2, "solves": 1, "attempts": 1, "writeups": 1, "reviews": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openDB(t)
			path := writeFile(t, t.TempDir(), "event.yaml", tc.yaml)
			first := mustLoad(t, db, path)
			if !reflect.DeepEqual(first.Created, tc.want) || total(first.Updated) != 0 || total(first.Unchanged) != 0 {
				t.Errorf("first load: created %v updated %v unchanged %v; want created %v only", first.Created, first.Updated, first.Unchanged, tc.want)
			}
			before := dump(t, db)
			second := mustLoad(t, db, path)
			if total(second.Created) != 0 || total(second.Updated) != 0 {
				t.Errorf("second load: created %v, updated %v; want nothing", second.Created, second.Updated)
			}
			if !reflect.DeepEqual(second.Unchanged, tc.want) {
				t.Errorf("second load: unchanged %v, want %v", second.Unchanged, tc.want)
			}
			sameDump(t, before, dump(t, db))
		})
	}
}

// TestLoadEditPoints: changing one challenge's points and reloading reports
// exactly one updated challenge, and only that changes. (The dataset has no
// API keys: their reload report is checked by TestLoadTwiceUnchanged.)
func TestLoadEditPoints(t *testing.T) {
	db := openDB(t)
	dir := t.TempDir()
	yaml := baseUsers + baseRest
	path := writeFile(t, dir, "event.yaml", yaml)
	mustLoad(t, db, path)
	before := dump(t, db)

	edited := strings.Replace(yaml, "points: 100", "points: 150", 1)
	if edited == yaml {
		t.Fatal("edit did not apply")
	}
	writeFile(t, dir, "event.yaml", edited)
	rep := mustLoad(t, db, path)
	if total(rep.Created) != 0 {
		t.Errorf("created %v, want nothing", rep.Created)
	}
	if !reflect.DeepEqual(rep.Updated, map[string]int{"challenges": 1}) {
		t.Errorf("updated %v, want exactly one challenge", rep.Updated)
	}
	if rep.Unchanged["challenges"] != 1 || rep.Unchanged["users"] != 3 || rep.Unchanged["solves"] != 1 {
		t.Errorf("unchanged %v, want the other challenge, the users and the solve", rep.Unchanged)
	}
	after := dump(t, db)
	for i := range after.Challenges {
		c := after.Challenges[i]
		if c.Slug == "baby-rsa" {
			if c.Points != 150 {
				t.Errorf("baby-rsa has %d points after the edit, want 150", c.Points)
			}
			after.Challenges[i].Points = 100 // the only expected difference
		}
	}
	sameDump(t, before, after)
}

// TestLoadCtfcliDirectory: a directory searched for challenge.yml and
// challenge.yaml files (skipping dot-directories) loads, resolving files and
// prerequisites, and reloading it changes nothing.
func TestLoadCtfcliDirectory(t *testing.T) {
	db := baseDB(t)
	root := t.TempDir()
	writeFile(t, root, "pwn/bof/challenge.yml", `
name: Buffer Overflow 101
author: Jane Doe
category: pwn
description: Smash the stack.
value: 300
type: standard
version: "0.1"
image: ./docker
flags:
  - flag{bof}
  - {type: static, content: 'FLAG{BOF}', data: case_insensitive}
tags: [hard, stack]
files:
  - dist/vuln
requirements:
  - warmup
  - Web Login
connection_info: nc bof.example.com 1337
state: visible
`)
	writeFile(t, root, "pwn/bof/dist/vuln", "\x7fELF fake binary")
	writeFile(t, root, "web/login/challenge.yaml", `
name: Web Login
author: alice
category: web
description: Log in.
type: dynamic
extra: {initial: 500, decay: 10, minimum: 100}
flags:
  - {type: regex, content: 'flag\{admin-[0-9]+\}'}
state: hidden
`)
	writeFile(t, root, ".git/challenge.yml", "this: is not a challenge: [")
	writeFile(t, root, "notes/README.md", "ignored")

	rep := mustLoad(t, db, root)
	if rep.Created["challenges"] != 2 || total(rep.Updated) != 0 {
		t.Errorf("report created %v updated %v, want 2 challenges created", rep.Created, rep.Updated)
	}
	d := dump(t, db)
	bySlug := map[string]dataset.Challenge{}
	for _, c := range d.Challenges {
		bySlug[c.Slug] = c
	}
	bof, ok := bySlug["buffer-overflow-101"]
	if !ok {
		t.Fatalf("no challenge buffer-overflow-101 in %v", bySlug)
	}
	if bof.Title != "Buffer Overflow 101" || bof.Points != 300 || !reflect.DeepEqual(bof.Categories, []string{"pwn"}) ||
		bof.Difficulty != ctf.Hard || len(bof.Flags) != 2 || bof.Flags[1].Data != "case_insensitive" ||
		!reflect.DeepEqual(bof.Requires, []string{"warmup", "web-login"}) || bof.ConnectionInfo != "nc bof.example.com 1337" ||
		bof.Hidden || bof.Author != "" {
		t.Errorf("buffer-overflow-101 loaded as %+v", bof)
	}
	if bof.File == nil || bof.File.Name != "vuln" || bof.File.ContentBase64 == "" {
		t.Errorf("buffer-overflow-101 file %+v, want vuln stored in the database", bof.File)
	}
	login, ok := bySlug["web-login"]
	if !ok {
		t.Fatalf("no challenge web-login")
	}
	if login.Points != 500 || !login.Hidden || login.Author != "alice" || login.Type != "dynamic" || login.Flags[0].Type != "regex" {
		t.Errorf("web-login loaded as %+v", login)
	}

	before := dump(t, db)
	again := mustLoad(t, db, root)
	if total(again.Created) != 0 || total(again.Updated) != 0 || again.Unchanged["challenges"] != 2 {
		t.Errorf("reload: created %v updated %v unchanged %v, want 2 challenges unchanged", again.Created, again.Updated, again.Unchanged)
	}
	sameDump(t, before, dump(t, db))
}

// TestLoadCtfcliErrors: a bad challenge.yml in a directory names the file
// and the entry "challenge", and nothing of the directory is loaded.
func TestLoadCtfcliErrors(t *testing.T) {
	for _, tc := range []struct {
		name, yml, field string
		inValidator      bool
	}{
		{"unknown requirement", "name: Needy\ncategory: misc\nvalue: 10\nflags: ['flag{n}']\nrequirements: [no-such-challenge]\n", "requires", false},
		{"no value", "name: Free\ncategory: misc\nflags: ['flag{f}']\n", "value", true},
		{"no flags", "name: Flagless\ncategory: misc\nvalue: 10\n", "flags", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := baseDB(t)
			before := dump(t, db)
			root := t.TempDir()
			writeFile(t, root, "a-good/challenge.yml", "name: Good One\ncategory: misc\nvalue: 10\nflags: ['flag{good}']\n")
			bad := writeFile(t, root, "b-bad/challenge.yml", tc.yml)
			ds, err := dataset.ReadPaths([]string{root})
			if tc.inValidator != (err != nil) {
				t.Fatalf("ReadPaths: %v (want a validation error: %v)", err, tc.inValidator)
			}
			if err == nil {
				_, err = transfer.Load(context.Background(), db, ds)
			}
			var de *dataset.Error
			if !errors.As(err, &de) {
				t.Fatalf("error %T %v, want a *dataset.Error", err, err)
			}
			if de.File != bad || de.Entry != "challenge" || !strings.HasPrefix(de.Field, tc.field) {
				t.Errorf("error names %q / %q / %q, want %q / challenge / %s", de.File, de.Entry, de.Field, bad, tc.field)
			}
			sameDump(t, before, dump(t, db))
		})
	}
}

// TestLoadCtfcliRequirementTitleInDatabase: ctfcli's requirements name
// challenges by name (title); docs/product.md#challenges: requires
// names prerequisite slugs or titles. A challenge.yml loaded on its own whose requirement is the title
// of a challenge already in the database must resolve it, as it would if
// both were loaded together.
func TestLoadCtfcliRequirementTitleInDatabase(t *testing.T) {
	db := baseDB(t)
	root := t.TempDir()
	writeFile(t, root, "crypto/rsa2/challenge.yml", `
name: RSA Two
category: crypto
value: 200
flags: ['flag{rsa2}']
requirements: [Baby RSA]
`)
	rep, err := loadPaths(t, db, root)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if rep.Created["challenges"] != 1 {
		t.Errorf("created %v, want one challenge", rep.Created)
	}
	for _, c := range dump(t, db).Challenges {
		if c.Slug == "rsa-two" && !reflect.DeepEqual(c.Requires, []string{"baby-rsa"}) {
			t.Errorf("rsa-two requires %v, want [baby-rsa]", c.Requires)
		}
	}
}

// TestLoadEditRequires: changing only a challenge's prerequisites changes
// the database, so the report must count that challenge as updated.
func TestLoadEditRequires(t *testing.T) {
	db := openDB(t)
	dir := t.TempDir()
	yaml := baseUsers + baseRest
	path := writeFile(t, dir, "event.yaml", yaml)
	mustLoad(t, db, path)

	edited := strings.Replace(yaml, "    requires: [warmup]\n", "", 1)
	if edited == yaml {
		t.Fatal("edit did not apply")
	}
	writeFile(t, dir, "event.yaml", edited)
	rep := mustLoad(t, db, path)
	for _, c := range dump(t, db).Challenges {
		if c.Slug == "baby-rsa" && len(c.Requires) != 0 {
			t.Fatalf("baby-rsa still requires %v", c.Requires)
		}
	}
	if !reflect.DeepEqual(rep.Updated, map[string]int{"challenges": 1}) || total(rep.Created) != 0 {
		t.Errorf("created %v updated %v, want exactly one updated challenge (its prerequisites changed)", rep.Created, rep.Updated)
	}
}

// TestLoadDumpIntoSameDatabase: `flagship dump | flagship load` into the
// database it came from changes nothing and reports everything unchanged;
// into an empty database it reproduces the same dump.
func TestLoadDumpIntoSameDatabase(t *testing.T) {
	db := baseDB(t)
	// Some live play on top of the loaded event.
	if _, err := db.Play().RecordSubmission(context.Background(), store.Submission{UserID: bobID, ChallengeID: warmupID, Flag: "flag{warm}", Correct: true,
		At: time.Date(2026, 1, 7, 8, 9, 10, 123e6, time.UTC)}, store.RateLimit{}); err != nil {
		t.Fatal(err)
	}
	before := dump(t, db)
	var buf bytes.Buffer
	if err := dataset.Encode(&buf, before, "yaml"); err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, t.TempDir(), "dump.yaml", buf.String())

	rep := mustLoad(t, db, path)
	if total(rep.Created) != 0 || total(rep.Updated) != 0 {
		t.Errorf("reloading the dump: created %v updated %v, want nothing", rep.Created, rep.Updated)
	}
	sameDump(t, before, dump(t, db))

	fresh := openDB(t)
	mustLoad(t, fresh, path)
	sameDump(t, before, dump(t, fresh))
}
