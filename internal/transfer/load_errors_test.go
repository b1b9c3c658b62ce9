package transfer_test

// The `load` error suite: bad dataset files fail with a *dataset.Error naming
// the file, the entry and the field, and leave the database exactly as it
// was (one transaction).

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/transfer"
)

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
