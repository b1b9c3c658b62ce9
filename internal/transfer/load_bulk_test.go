package transfer_test

// The load's two ways of writing: new rows into an empty table go in
// multi-row INSERTs without looking anything up; into a table that holds
// rows, each entry is looked up and a stored one upserted row by row. Both
// must give the same database, the same report, and the same messages.

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/transfer"
)

// everyKeyYAML uses every key of the format. Every entry has an id and a
// time, so that two loads of it give equal dumps, but for two attempts
// without an id: the second is the first given again, and is not loaded.
const everyKeyYAML = `
event: {name: Every Key CTF, start: 2026-01-04T00:00:00Z, end: 2026-01-09T00:00:00Z, freeze: 2026-01-08T00:00:00Z, practice: true, flagFormat: 'flag{...}'}
users:
  - id: 01900000-0000-7000-8000-00000000a11c
    username: alice
    name: Alice
    email: Alice@Example.com
    passwordHash: '$argon2id$v=19$m=65536,t=1,p=2$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g'
    createdAt: 2026-01-01T00:00:00Z
    apiKeys:
      - {id: key-alice-1, name: laptop, keyPrefix: fsk_aaaaaaaa, keyHash: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, createdAt: 2026-01-02T00:00:00Z, lastUsedAt: 2026-01-05T00:00:00Z}
      - {id: key-alice-2, name: ci, keyPrefix: fsk_bbbbbbbb, keyHash: bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb, createdAt: 2026-01-02T00:00:00Z, revokedAt: 2026-01-03T00:00:00Z, readOnly: true}
  - {id: 01900000-0000-7000-8000-000000000b0b, username: bob, email: bob@example.com, createdAt: 2026-01-01T01:00:00Z}
  - {id: 01900000-0000-7000-8000-000000000ca0, username: carol, name: Carol, role: admin, createdAt: 2026-01-01T02:00:00Z}
  - {id: 01900000-0000-7000-8000-000000000e0e, username: mallory, banned: true, createdAt: 2026-01-01T03:00:00Z}
  - {id: 01900000-0000-7000-8000-00000000a6e7, username: robo, kind: agent, owner: bob, model: some-model, harness: some-harness,
     createdAt: 2026-01-01T04:00:00Z}
challenges:
  - id: 01900000-0000-7000-8000-0000000c0001
    slug: warmup
    title: Warm-up
    description: Say *hi*.
    categories: [misc]
    difficulty: Easy
    points: 50
    flags: ['flag{warm}']
    author: carol
    tags: [intro]
    hints: ['Say hello.', {content: 'It is *hi*.', cost: 10, requires: 1}]
    file: {name: hello.txt, contentBase64: aGVsbG8K}
    connectionInfo: nc warmup 1337
    createdAt: 2026-01-03T00:00:00Z
  - id: 01900000-0000-7000-8000-0000000c0002
    slug: baby-rsa
    title: Baby RSA
    categories: [crypto, math]
    difficulty: Hard
    points: 100
    scoring: {type: dynamic, initial: 100, minimum: 20, decay: 5, function: linear}
    type: dynamic
    hints: [{id: 3, content: Small e., cost: 30}]
    flags:
      - {type: regex, content: 'flag\{[0-9a-f]{8}\}'}
      - {type: static, content: 'FLAG{RSA}', data: case_insensitive}
    requires: [warmup]
    dockerPort: 1337
    hasInstance: true
    file: {name: rsa.zip, url: 'https://files.example.com/rsa.zip'}
    releaseAt: 2026-01-04T12:00:00Z
    createdAt: 2026-01-03T01:00:00Z
  - {id: 01900000-0000-7000-8000-0000000c0003, slug: draft, title: Draft, categories: [web], difficulty: Insane, points: 500,
     flags: ['flag{draft}'], hidden: true, createdAt: 2026-01-03T02:00:00Z}
solves:
  - {id: solve-1, user: alice, challenge: warmup, at: 2026-01-05T10:00:00Z, flag: ' flag{warm} ', door: api, key: key-alice-1}
  - {id: solve-2, user: bob, challenge: warmup, at: 2026-01-05T10:00:01.5Z, flag: 'flag{warm}', door: web}
  - {id: solve-3, user: robo, challenge: baby-rsa, at: 2026-01-05T11:00:00Z, flag: 'flag{0123abcd}', door: mcp}
  - {id: solve-4, user: mallory, challenge: warmup, at: 2026-01-09T11:00:00Z, flag: 'flag{warm}', practice: true}
attempts:
  - {id: attempt-1, user: bob, challenge: baby-rsa, at: 2026-01-05T10:01:00Z, flag: nope, door: web}
  - {id: attempt-2, user: robo, challenge: baby-rsa, at: 2026-01-05T10:02:00Z, flag: 'flag{nope}', door: mcp}
  - {user: alice, challenge: baby-rsa, at: 2026-01-09T10:03:00Z, flag: late, practice: true}
  - {user: alice, challenge: baby-rsa, at: 2026-01-09T10:03:00Z, flag: late, practice: true}
writeups:
  - {id: writeup-1, user: alice, challenge: warmup, title: How, content: Said hi., status: approved, images: ['https://img.example.com/1.png'],
     createdAt: 2026-01-05T12:00:00Z, updatedAt: 2026-01-05T13:00:00Z}
  - {id: writeup-2, user: bob, challenge: warmup, title: Mine, content: Also hi., status: rejected, reason: Too short.,
     createdAt: 2026-01-05T12:30:00Z, updatedAt: 2026-01-05T12:30:00Z}
reviews:
  - {id: review-1, user: alice, challenge: warmup, stars: 5, difficulty: 2, createdAt: 2026-01-05T12:05:00Z}
  - {id: review-2, user: robo, challenge: baby-rsa, stars: 3, difficulty: 8, createdAt: 2026-01-05T12:06:00Z}
hintUnlocks:
  - {user: alice, challenge: warmup, hint: 1, at: 2026-01-05T09:00:00Z}
  - {user: alice, challenge: warmup, hint: 2, at: 2026-01-05T09:30:00Z, charged: true}
  - {user: bob, challenge: warmup, hint: 2, at: 2026-01-05T11:00:00Z}
  - {user: robo, challenge: baby-rsa, hint: 3, at: 2026-01-05T10:30:00Z, charged: false}
announcements:
  - {id: ann-1, title: Welcome, body: Have *fun*., author: carol, createdAt: 2026-01-04T00:00:00Z}
  - {id: ann-2, title: Baby RSA is out, body: Go., challenge: baby-rsa, createdAt: 2026-01-04T12:00:00Z}
`

// seedYAML fills every table a load upserts into with rows of its own, so
// that a load on top of it looks every entry up.
const seedYAML = `
users:
  - {id: 01900000-0000-7000-8000-000000000ded, username: zed, email: zed@example.com, createdAt: 2025-12-01T00:00:00Z}
challenges:
  - {id: 01900000-0000-7000-8000-0000000c0fff, slug: zz, title: ZZ, categories: [misc], points: 1, flags: ['flag{zz}'], hints: [z],
     createdAt: 2025-12-01T00:00:00Z}
solves:
  - {id: solve-zed, user: zed, challenge: zz, at: 2025-12-02T00:00:00Z, flag: 'flag{zz}'}
attempts:
  - {id: attempt-zed, user: zed, challenge: zz, at: 2025-12-02T00:00:00Z, flag: no}
writeups:
  - {id: writeup-zed, user: zed, challenge: zz, title: Z, content: Z., createdAt: 2025-12-03T00:00:00Z}
reviews:
  - {id: review-zed, user: zed, challenge: zz, stars: 1, difficulty: 1, createdAt: 2025-12-03T00:00:00Z}
hintUnlocks:
  - {user: zed, challenge: zz, hint: 1, at: 2025-12-01T12:00:00Z}
`

// withoutSeed removes what seedYAML loaded from a dump.
func withoutSeed(d *dataset.Dataset) *dataset.Dataset {
	out := *d
	out.Users = keep(d.Users, func(u dataset.User) bool { return u.Username != "zed" })
	out.Challenges = keep(d.Challenges, func(c dataset.Challenge) bool { return c.Slug != "zz" })
	out.Solves = keep(d.Solves, func(s dataset.Solve) bool { return s.User != "zed" })
	out.Attempts = keep(d.Attempts, func(a dataset.Attempt) bool { return a.User != "zed" })
	out.Writeups = keep(d.Writeups, func(w dataset.Writeup) bool { return w.User != "zed" })
	out.Reviews = keep(d.Reviews, func(r dataset.Review) bool { return r.User != "zed" })
	out.HintUnlocks = keep(d.HintUnlocks, func(h dataset.HintUnlock) bool { return h.User != "zed" })
	return &out
}

func keep[T any](list []T, ok func(T) bool) []T {
	var out []T
	for _, x := range list {
		if ok(x) {
			out = append(out, x)
		}
	}
	return out
}

// withoutAttemptIDs blanks the ids the load gave to attempts without one.
func withoutAttemptIDs(d *dataset.Dataset) *dataset.Dataset {
	out := *d
	out.Attempts = append([]dataset.Attempt(nil), d.Attempts...)
	for i := range out.Attempts {
		if !strings.HasPrefix(out.Attempts[i].ID, "attempt-") {
			out.Attempts[i].ID = ""
		}
	}
	return &out
}

// TestLoadBulkSameAsRowByRow: the dataset that uses every key gives the
// same database and report whether its tables are empty (multi-row
// INSERTs) or hold other rows (every entry looked up first), and its dump
// loads back into the same database, as YAML and as JSON.
func TestLoadBulkSameAsRowByRow(t *testing.T) {
	path := writeFile(t, t.TempDir(), "every.yaml", everyKeyYAML)
	want := map[string]int{"event": 1, "users": 5, "apiKeys": 2, "challenges": 3, "solves": 4, "attempts": 3, "writeups": 2, "reviews": 2,
		"hintUnlocks": 4, "announcements": 2}

	bulk := openDB(t)
	rep := mustLoad(t, bulk, path)
	if !reflect.DeepEqual(rep.Created, want) || total(rep.Updated) != 0 || !reflect.DeepEqual(rep.Unchanged, map[string]int{"attempts": 1}) {
		t.Errorf("into an empty database: created %v updated %v unchanged %v; want created %v and the attempt given twice unchanged",
			rep.Created, rep.Updated, rep.Unchanged, want)
	}
	got := dump(t, bulk)
	if len(got.Users) != 5 || len(got.Challenges) != 3 || len(got.Solves) != 4 || len(got.Attempts) != 3 || len(got.Writeups) != 2 ||
		len(got.Reviews) != 2 || len(got.Announcements) != 2 || got.Event == nil || len(got.Users[0].APIKeys) != 2 {
		t.Fatalf("dump of the loaded dataset misses entries: %d users, %d challenges, %d solves, %d attempts, %d writeups, %d reviews, %d announcements",
			len(got.Users), len(got.Challenges), len(got.Solves), len(got.Attempts), len(got.Writeups), len(got.Reviews), len(got.Announcements))
	}
	if s := got.Solves[0]; s.Flag != "flag{warm}" || s.Door != ctf.DoorAPI || s.Key != "key-alice-1" || got.Users[0].Email != "Alice@Example.com" {
		t.Errorf("first solve %+v, first user %+v", s, got.Users[0])
	}
	// The charges left out are decided by the solves: alice unlocked
	// before solving, bob after.
	var charged []bool
	for _, h := range got.HintUnlocks {
		charged = append(charged, h.Charged != nil && *h.Charged)
	}
	if !reflect.DeepEqual(charged, []bool{true, true, false, false}) || len(got.Challenges[0].Hints) != 2 || got.Challenges[1].Scoring == nil {
		t.Errorf("hint unlocks charged %v, hints %+v, scoring %+v", charged, got.Challenges[0].Hints, got.Challenges[1].Scoring)
	}

	rowByRow := openDB(t)
	mustLoad(t, rowByRow, writeFile(t, t.TempDir(), "seed.yaml", seedYAML))
	rep2 := mustLoad(t, rowByRow, path)
	if !reflect.DeepEqual(rep2, rep) {
		t.Errorf("onto a database with rows: report %+v, want %+v as into an empty one", rep2, rep)
	}
	sameDump(t, withoutAttemptIDs(got), withoutAttemptIDs(withoutSeed(dump(t, rowByRow))))

	for _, format := range []string{"yaml", "json"} {
		var buf bytes.Buffer
		if err := dataset.Encode(&buf, got, format); err != nil {
			t.Fatal(err)
		}
		again := openDB(t)
		mustLoad(t, again, writeFile(t, t.TempDir(), "dump."+format, buf.String()))
		sameDump(t, got, dump(t, again))
		// And once more on top of itself: nothing changes.
		rep, err := loadPaths(t, again, writeFile(t, t.TempDir(), "dump."+format, buf.String()))
		if err != nil || total(rep.Created) != 0 || total(rep.Updated) != 0 {
			t.Errorf("%s dump loaded on itself: %+v, %v", format, rep, err)
		}
		sameDump(t, got, dump(t, again))
	}
}

// bigAttempts is a dataset of n attempts by bob on warmup (the base
// dataset's), in YAML or JSON; the attempt at index bad names user ghost.
func bigAttempts(n, bad int, format string) string {
	var b strings.Builder
	if format == "json" {
		b.WriteString(`{"attempts": [`)
		for i := range n {
			user := "bob"
			if i == bad {
				user = "ghost"
			}
			if i > 0 {
				b.WriteString(",\n")
			}
			fmt.Fprintf(&b, `{"id": "big-%d", "user": %q, "challenge": "warmup", "at": "2026-01-06T00:00:%02d.%03dZ", "flag": "guess-%d"}`,
				i, user, i/1000%60, i%1000, i)
		}
		b.WriteString("]}\n")
		return b.String()
	}
	b.WriteString("attempts:\n")
	for i := range n {
		user := "bob"
		if i == bad {
			user = "ghost"
		}
		fmt.Fprintf(&b, "  - id: big-%d\n    user: %s\n    challenge: warmup\n    at: 2026-01-06T00:00:%02d.%03dZ\n    flag: guess-%d\n",
			i, user, i/1000%60, i%1000, i)
	}
	return b.String()
}

// TestLoadBadEntryLate: a bad entry far into a big input (the 50,000th
// attempt names an unknown user) fails with the message naming the file,
// the entry and the field, after tens of thousands of rows were written in
// the transaction, and leaves the database as it was.
func TestLoadBadEntryLate(t *testing.T) {
	const n, bad = 50_000, 49_999
	for _, format := range []string{"yaml", "json"} {
		t.Run(format, func(t *testing.T) {
			db := baseDB(t)
			before := dump(t, db)
			path := writeFile(t, t.TempDir(), "big."+format, bigAttempts(n, bad, format))
			_, err := loadPaths(t, db, path)
			var de *dataset.Error
			if !errors.As(err, &de) {
				t.Fatalf("error %T %v, want a *dataset.Error", err, err)
			}
			if de.File != path || de.Entry != fmt.Sprintf("attempts[%d]", bad) || de.Field != "user" || !strings.Contains(de.Msg, `"ghost"`) {
				t.Errorf("error %+v, want %s: attempts[%d]: user: ... \"ghost\" ...", de, path, bad)
			}
			sameDump(t, before, dump(t, db))

			// Without the bad entry the same file loads, every attempt.
			path = writeFile(t, t.TempDir(), "big."+format, bigAttempts(n, -1, format))
			rep := mustLoad(t, db, path)
			if rep.Created["attempts"] != n {
				t.Errorf("created %v, want %d attempts", rep.Created, n)
			}
			if got := len(dump(t, db).Attempts); got != n+1 {
				t.Errorf("%d attempts stored, want %d", got, n+1)
			}
		})
	}
}

// TestLoadUpsertsOntoEvent: a load onto a database that holds the event
// upserts by natural key, and reports created, updated and unchanged as
// the row-by-row load did.
func TestLoadUpsertsOntoEvent(t *testing.T) {
	db := baseDB(t)
	path := writeFile(t, t.TempDir(), "more.yaml", `
users:
  - {id: 01900000-0000-7000-8000-000000000b0b, username: bob, name: Bobby, email: bob@example.com, createdAt: 2026-01-01T01:00:00Z}
  - {username: dave, email: dave@example.com, createdAt: 2026-01-02T00:00:00Z}
solves:
  - {id: `+solveID+`, user: alice, challenge: warmup, at: 2026-01-05T10:30:00Z, flag: 'flag{warm}'}
  - {user: bob, challenge: warmup, at: 2026-01-05T11:00:00Z, flag: 'flag{warm}'}
  - {user: dave, challenge: warmup, flag: 'flag{warm}'}
attempts:
  - {user: bob, challenge: warmup, at: 2026-01-05T10:01:00Z, flag: nope}
  - {user: bob, challenge: warmup, at: 2026-01-05T10:02:00Z, flag: nope}
  - {user: dave, challenge: baby-rsa, flag: what}
  - {user: dave, challenge: baby-rsa, flag: what}
reviews:
  - {user: alice, challenge: warmup, stars: 4, difficulty: 2, createdAt: 2026-01-05T12:05:00Z}
  - {user: bob, challenge: warmup, stars: 3, difficulty: 3, createdAt: 2026-01-05T12:06:00Z}
`)
	rep := mustLoad(t, db, path)
	want := transfer.LoadReport{
		Created:   map[string]int{"users": 1, "solves": 2, "attempts": 2, "reviews": 1},
		Updated:   map[string]int{"users": 1, "solves": 1, "reviews": 1},
		Unchanged: map[string]int{"attempts": 2},
	}
	if !reflect.DeepEqual(rep, want) {
		t.Errorf("report %+v, want %+v", rep, want)
	}
	d := dump(t, db)
	if len(d.Solves) != 3 || len(d.Attempts) != 3 || len(d.Users) != 4 || len(d.Reviews) != 2 {
		t.Fatalf("after the load: %d solves, %d attempts, %d users, %d reviews; want 3, 3, 4, 2", len(d.Solves), len(d.Attempts), len(d.Users), len(d.Reviews))
	}
	for _, s := range d.Solves {
		if s.User == "alice" && (s.ID != solveID || s.At.Format("15:04") != "10:30") {
			t.Errorf("alice's solve %+v, want its id kept and its time moved to 10:30", s)
		}
	}
	again := mustLoad(t, db, path)
	if total(again.Created) != 0 || total(again.Updated) != 0 {
		t.Errorf("the same file again: %+v, want nothing created or updated", again)
	}
	sameDump(t, d, dump(t, db))
}
