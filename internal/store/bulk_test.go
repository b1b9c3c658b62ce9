package store_test

import (
	"context"
	"iter"
	"maps"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/store/storetest"
	"github.com/flagshipctf/flagship/internal/transfer"
)

func openTemp(t *testing.T) *store.DB { return storetest.Open(t) }

func bulkFixture(attempts int) *store.Bulk {
	at := time.Date(2025, 6, 6, 8, 0, 0, 0, time.UTC)
	b := &store.Bulk{
		Users: []ctf.User{
			{ID: "u1", Username: "alice", Email: "Alice@Example.org", Role: ctf.RolePlayer, CreatedAt: at},
			{ID: "u2", Username: "bob", Role: ctf.RolePlayer, CreatedAt: at},
			{ID: "u3", Username: "root", Role: ctf.RoleAdmin, CreatedAt: at},
		},
		Challenges: []ctf.Challenge{
			{ID: "c1", Slug: "warmup", Title: "Warmup", Categories: []string{"misc"}, Difficulty: ctf.Easy, Points: 100,
				Flags: []ctf.Flag{{Kind: "static", Content: "flag{w}"}}, AuthorID: "u3", CreatedAt: at},
			{ID: "c2", Slug: "next", Title: "Next", Categories: []string{"web", "crypto"}, Difficulty: ctf.Hard, Points: 400,
				Flags:    []ctf.Flag{{Kind: "regex", Content: `flag\{n[0-9]+\}`}, {Kind: "static", Content: "FLAG{N}", CaseInsensitive: true}},
				Requires: []string{"c1"}, CreatedAt: at.Add(time.Minute)},
		},
		Solves: []ctf.Solve{
			{ID: "s1", UserID: "u1", ChallengeID: "c1", Flag: "flag{w}", At: at.Add(time.Hour)},
			{ID: "s2", UserID: "u1", ChallengeID: "c2", Flag: "flag{n1}", At: at.Add(2 * time.Hour)},
		},
		Reviews:  []ctf.Review{{ID: "r1", UserID: "u1", ChallengeID: "c1", Stars: 4, Difficulty: 2, CreatedAt: at.Add(time.Hour)}},
		Writeups: []ctf.Writeup{{ID: "w1", UserID: "u1", ChallengeID: "c1", Title: "T", Content: "C", Status: ctf.WriteupApproved, CreatedAt: at, UpdatedAt: at}},
		APIKeys:  []ctf.APIKey{{ID: "k1", UserID: "u1", Name: "k", Prefix: "fsk_aaaaaaaa", Hash: "00", CreatedAt: at}},
	}
	b.Attempts = func(yield func(store.Attempt) bool) {
		for i := 0; i < attempts; i++ {
			if !yield(store.Attempt{ID: "a" + strconv.Itoa(i), UserID: "u2",
				ChallengeID: "c1", Flag: "nope", At: at.Add(time.Duration(i) * time.Second)}) {
				return
			}
		}
	}
	return b
}

func TestBulkLoad(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	defer store.SetBulkTxRows(1000)()
	const attempts = 2345 // crosses transaction boundaries
	rep, err := db.BulkLoad(ctx, bulkFixture(attempts))
	if err != nil {
		t.Fatal(err)
	}
	want := store.BulkReport{Users: 3, Challenges: 2, Flags: 3, Prerequisites: 1, Solves: 2, Attempts: attempts, Reviews: 1, Writeups: 1, APIKeys: 1}
	if rep != want {
		t.Fatalf("report %+v, want %+v", rep, want)
	}
	snap, err := db.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Revision != 1 || len(snap.Users) != 3 || len(snap.Solves) != 2 || snap.WrongAttempts["c1"] != attempts {
		t.Fatalf("snapshot: revision %d, %d users, %d solves, attempts %v", snap.Revision, len(snap.Users), len(snap.Solves), snap.WrongAttempts)
	}
	var c2 ctf.Challenge
	for _, c := range snap.Challenges {
		if c.ID == "c2" {
			c2 = c
		}
	}
	if len(c2.Flags) != 2 || !c2.CheckFlag("flag{n42}") || !c2.CheckFlag("flag{n}") || len(c2.Requires) != 1 || len(c2.Categories) != 2 {
		t.Fatalf("challenge c2 read back as %+v", c2)
	}
	if u, err := db.Accounts().UserByUsername(ctx, "alice"); err != nil || u.Email != "Alice@Example.org" {
		t.Fatalf("alice: %+v %v", u, err)
	}
	if len(snap.Writeups) != 1 || snap.Writeups[0].ChallengeID != "c1" {
		t.Fatalf("writeups: %+v", snap.Writeups)
	}
	// The writer connection is back to normal: foreign keys are enforced.
	if err := db.ExecSQL(ctx, "INSERT INTO api_keys (id, user_id, name, key_prefix, key_hash, created_at) VALUES ('k2', 'nobody', 'x', 'fsk_bbbbbbbb', '00', 0)"); err == nil {
		t.Fatal("a key of an unknown user was accepted after the bulk load")
	}
	// Only into an empty database.
	if _, err := db.BulkLoad(ctx, bulkFixture(0)); ctf.ErrorCode(err) != ctf.Conflict {
		t.Fatalf("second load: %v", err)
	}
}

// The snapshot counts players' wrong attempts only: not an admin's, not a
// banned user's, and no entry for a challenge only they attempted.
func TestSnapshotCountsPlayersAttempts(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	b := bulkFixture(0)
	at := time.Date(2025, 6, 6, 9, 0, 0, 0, time.UTC)
	b.Users = append(b.Users, ctf.User{ID: "u4", Username: "mallory", Role: ctf.RolePlayer, Banned: true, CreatedAt: at})
	rows := []store.Attempt{
		{ID: "a1", UserID: "u2", ChallengeID: "c1", Flag: "x", At: at},
		{ID: "a2", UserID: "u2", ChallengeID: "c1", Flag: "y", At: at},
		{ID: "a3", UserID: "u1", ChallengeID: "c1", Flag: "z", At: at},
		{ID: "a4", UserID: "u3", ChallengeID: "c1", Flag: "x", At: at}, // admin
		{ID: "a5", UserID: "u4", ChallengeID: "c1", Flag: "x", At: at}, // banned
		{ID: "a6", UserID: "u3", ChallengeID: "c2", Flag: "x", At: at},
		{ID: "a7", UserID: "u4", ChallengeID: "c2", Flag: "x", At: at},
	}
	b.Attempts = func(yield func(store.Attempt) bool) {
		for _, a := range rows {
			if !yield(a) {
				return
			}
		}
	}
	if _, err := db.BulkLoad(ctx, b); err != nil {
		t.Fatal(err)
	}
	snap, err := db.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.WrongAttempts) != 1 || snap.WrongAttempts["c1"] != 3 {
		t.Fatalf("wrong attempts %v, want map[c1:3]", snap.WrongAttempts)
	}
	// A user's own, for a ban or a promotion: u3 (an admin) made one on
	// each challenge; of rows 1 and 2 (a1, a2: the fresh tables number
	// them in order), u2's minus row 1 is one.
	if got, err := db.WrongBaseline(ctx, "u3", 1<<40, nil); err != nil || !maps.Equal(got, map[string]int64{"c1": 1, "c2": 1}) {
		t.Fatalf("u3's baseline %v, %v", got, err)
	}
	if got, err := db.WrongBaseline(ctx, "u2", 2, []int64{1}); err != nil || !maps.Equal(got, map[string]int64{"c1": 1}) {
		t.Fatalf("u2's baseline up to row 2 less row 1: %v, %v", got, err)
	}
}

func TestBulkLoadRejectsBadRows(t *testing.T) {
	ctx := context.Background()
	for name, spoil := range map[string]func(*store.Bulk){
		"missing parent":  func(b *store.Bulk) { b.Solves[1].ChallengeID = "c9" },
		"duplicate solve": func(b *store.Bulk) { b.Solves[1].ChallengeID = "c1" },
		"bad difficulty":  func(b *store.Bulk) { b.Challenges[0].Difficulty = "Trivial" },
		"bad regex":       func(b *store.Bulk) { b.Challenges[1].Flags[0].Content = "(" },
		"unknown attempt user": func(b *store.Bulk) {
			b.Attempts = iter.Seq[store.Attempt](func(yield func(store.Attempt) bool) {
				yield(store.Attempt{ID: "x", UserID: "ghost", ChallengeID: "c1", Flag: "f", At: time.Now()})
			})
		},
	} {
		t.Run(name, func(t *testing.T) {
			db := openTemp(t)
			b := bulkFixture(10)
			spoil(b)
			if _, err := db.BulkLoad(ctx, b); err == nil {
				t.Fatal("bad rows were accepted")
			}
		})
	}
}

// TestBulkLoadEventColumns: the bulk path writes release times and
// practice marks too.
func TestBulkLoadEventColumns(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	b := bulkFixture(0)
	release := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b.Challenges[1].ReleaseAt = &release
	b.Solves = append(b.Solves, ctf.Solve{ID: "s3", UserID: "u2", ChallengeID: "c1", Flag: "flag{w}", At: release.Add(time.Hour), Practice: true})
	b.Attempts = func(yield func(store.Attempt) bool) {
		yield(store.Attempt{ID: "a1", UserID: "u2", ChallengeID: "c1", Flag: "nope", At: release, Practice: true})
	}
	if _, err := db.BulkLoad(ctx, b); err != nil {
		t.Fatal(err)
	}
	snap, err := db.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range snap.Challenges {
		if (c.ID == "c2") != (c.ReleaseAt != nil) || (c.ReleaseAt != nil && !c.ReleaseAt.Equal(release)) {
			t.Errorf("%s releases at %v", c.Slug, c.ReleaseAt)
		}
	}
	if len(snap.Solves) != 3 || !snap.Solves[2].Practice || snap.Solves[0].Practice {
		t.Errorf("solves %+v; want the third a practice solve", snap.Solves)
	}
	if n := snap.WrongAttempts["c1"]; n != 0 {
		t.Errorf("c1 counts %d wrong attempts; a practice attempt counts nowhere", n)
	}
	d, err := transfer.Dump(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(d.Solves, func(s dataset.Solve) bool { return s.Practice }) ||
		!slices.ContainsFunc(d.Attempts, func(a dataset.Attempt) bool { return a.Practice }) {
		t.Error("the dump lacks the practice marks")
	}
}
