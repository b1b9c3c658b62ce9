package synth

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/store"
)

func small() Config {
	return Config{Players: 300, Challenges: 30, Solves: 2500, Attempts: 12000, Seed: 7, Keys: 10}
}

func TestGenerateIsConsistent(t *testing.T) {
	cfg := small()
	ev, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	players := 0
	users := map[string]*ctf.User{}
	for i := range ev.Users {
		u := &ev.Users[i]
		users[u.ID] = u
		if u.IsPlayer() {
			players++
		}
	}
	if players != cfg.Players || len(ev.Challenges) != cfg.Challenges || len(ev.Solves) != cfg.Solves {
		t.Fatalf("got %d players, %d challenges, %d solves; want %d, %d, %d",
			players, len(ev.Challenges), len(ev.Solves), cfg.Players, cfg.Challenges, cfg.Solves)
	}
	chals := map[string]*ctf.Challenge{}
	cats := map[string]bool{}
	for i := range ev.Challenges {
		c := &ev.Challenges[i]
		chals[c.ID] = c
		for _, cat := range c.Categories {
			cats[cat] = true
		}
	}
	if len(cats) < 4 {
		t.Errorf("only categories %v", cats)
	}
	// Solves: distinct times in order, within the 48 hours, one per user
	// and challenge, by players, after their prerequisites.
	solvedAt := map[[2]string]time.Time{}
	for i, s := range ev.Solves {
		if i > 0 && !s.At.After(ev.Solves[i-1].At) {
			t.Fatalf("solve %d at %v is not after solve %d at %v", i, s.At, i-1, ev.Solves[i-1].At)
		}
		if s.At.Before(ev.Start) || !s.At.Before(ev.End) {
			t.Fatalf("solve at %v outside the event", s.At)
		}
		if u := users[s.UserID]; u == nil || !u.IsPlayer() {
			t.Fatalf("solve by a non-player %q", s.UserID)
		}
		c := chals[s.ChallengeID]
		if !c.CheckFlag(s.Flag) {
			t.Fatalf("solve of %s with a flag %q that %v does not accept", c.Slug, s.Flag, c.Flags)
		}
		k := [2]string{s.UserID, s.ChallengeID}
		if _, dup := solvedAt[k]; dup {
			t.Fatalf("user %s solved %s twice", s.UserID, c.Slug)
		}
		for _, r := range c.Requires {
			if _, ok := solvedAt[[2]string{s.UserID, r}]; !ok {
				t.Fatalf("user %s solved %s before its prerequisite %s", s.UserID, c.Slug, r)
			}
		}
		solvedAt[k] = s.At
	}
	// Attempts: wrong, unlocked at the time, before the user's solve.
	n := 0
	for a := range ev.Attempts() {
		n++
		c := chals[a.ChallengeID]
		if c.CheckFlag(a.Flag) {
			t.Fatalf("attempt %q on %s is a right flag", a.Flag, c.Slug)
		}
		if at, ok := solvedAt[[2]string{a.UserID, a.ChallengeID}]; ok && !a.At.Before(at) {
			t.Fatalf("attempt at %v after the solve at %v", a.At, at)
		}
		for _, r := range c.Requires {
			at, ok := solvedAt[[2]string{a.UserID, r}]
			if !ok || !at.Before(a.At) {
				t.Fatalf("attempt on %s while it was locked", c.Slug)
			}
		}
	}
	if n != cfg.Attempts {
		t.Fatalf("%d attempts, want %d", n, cfg.Attempts)
	}
	if len(ev.Keys) != cfg.Keys || len(ev.APIKeys) != cfg.Keys {
		t.Fatalf("%d keys", len(ev.Keys))
	}
	for _, tg := range ev.Targets(3) {
		if _, solved := solvedAt[[2]string{tg.UserID, tg.ChallengeID}]; solved {
			t.Fatalf("target %s is solved", tg.Slug)
		}
	}
}

func TestGenerateIsDeterministic(t *testing.T) {
	a, err := Generate(small())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Generate(small())
	if !reflect.DeepEqual(a.Users, b.Users) || !reflect.DeepEqual(a.Solves, b.Solves) || !reflect.DeepEqual(a.Reviews, b.Reviews) {
		t.Fatal("same seed, different event")
	}
	var x, y []store.Attempt
	for at := range a.Attempts() {
		x = append(x, at)
	}
	for at := range b.Attempts() {
		y = append(y, at)
	}
	if !reflect.DeepEqual(x, y) {
		t.Fatal("same seed, different attempts")
	}
	cfg := small()
	cfg.Seed++
	c, _ := Generate(cfg)
	if reflect.DeepEqual(a.Solves, c.Solves) {
		t.Fatal("different seeds, same event")
	}
}

func TestWriteRoundTrip(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "synth.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	ev, err := Generate(small())
	if err != nil {
		t.Fatal(err)
	}
	rep, err := ev.Write(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Attempts != int64(small().Attempts) || rep.Solves != int64(len(ev.Solves)) || rep.APIKeys != int64(small().Keys) {
		t.Fatalf("report %+v", rep)
	}
	snap, err := db.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Users) != len(ev.Users) || len(snap.Challenges) != len(ev.Challenges) || len(snap.Solves) != len(ev.Solves) ||
		len(snap.Reviews) != len(ev.Reviews) || snap.Revision < 1 {
		t.Fatalf("snapshot has %d users, %d challenges, %d solves, %d reviews, revision %d",
			len(snap.Users), len(snap.Challenges), len(snap.Solves), len(snap.Reviews), snap.Revision)
	}
	var wrong int64
	for _, n := range snap.WrongAttempts {
		wrong += n
	}
	if wrong != int64(small().Attempts) {
		t.Fatalf("%d wrong attempts in the snapshot", wrong)
	}
	// The key secrets authenticate.
	k, err := db.Accounts().APIKeyByPrefix(ctx, ev.APIKeys[0].Prefix)
	if err != nil || k.UserID != ev.Keys[0].UserID {
		t.Fatalf("key: %+v, %v", k, err)
	}
	// A second load is refused.
	if _, err := ev.Write(ctx, db); ctf.ErrorCode(err) != ctf.Conflict {
		t.Fatalf("second load: %v", err)
	}
}
