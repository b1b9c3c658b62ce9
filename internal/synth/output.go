package synth

import (
	"context"
	"iter"
	"math/rand/v2"
	"time"

	"github.com/flagshipctf/flagship/internal/store"
)

// What a generated event gives its users: attempts, rows for the
// database, load-test targets.

// Attempts yields the event's wrong submissions, player by player; the
// sequence is the same on every iteration. Each is on a visible challenge
// that was unlocked for the player at the time, before they solved it.
func (e *Event) Attempts() iter.Seq[store.Attempt] {
	return func(yield func(store.Attempt) bool) {
		var buf []byte
		// Ids are minted in the order the rows are written, as a live
		// server mints them when it records an attempt, so the unique index
		// on them grows at its end instead of taking inserts everywhere
		// (that alone halves the time to write the event).
		idTime := e.Start
		for _, p := range e.players {
			if p.attempts == 0 {
				continue
			}
			rng := rand.New(rand.NewPCG(e.Config.Seed, 0xa77e_0000+uint64(p.idx)))
			for k := 0; k < p.attempts; k++ {
				x, lo, hi := e.attemptTarget(rng, p)
				at := e.Start.Add(time.Duration(lo+rng.Int64N(hi-lo)) * time.Millisecond)
				buf = append(buf[:0], "flag{"...)
				for n := 6 + rng.IntN(10); n > 0; n-- {
					buf = append(buf, "abcdefghijklmnopqrstuvwxyz0123456789_"[rng.IntN(37)])
				}
				buf = append(buf, '}')
				idTime = idTime.Add(time.Millisecond)
				if !yield(store.Attempt{ID: newID(rng, idTime), UserID: p.user.ID, ChallengeID: x.c.ID, Flag: string(buf), At: at}) {
					return
				}
			}
		}
	}
}

// attemptTarget picks the challenge of a wrong attempt and the window (ms
// offsets, lo < hi) it can fall in: after the player's start and their
// solves of its prerequisites, before their own solve of it.
func (e *Event) attemptTarget(rng *rand.Rand, p *player) (*chal, int64, int64) {
	for try := 0; ; try++ {
		x := e.chals[e.attemptPick.pick(rng)]
		if try > 50 {
			x = e.chals[0] // unlocked for everyone, from the start
		}
		lo, hi := p.start, eventMillis
		ok := true
		for _, r := range x.requires {
			t, solved := p.solvedAt[r]
			if !solved {
				ok = false
				break
			}
			lo = max(lo, t+1)
		}
		if t, solved := p.solvedAt[x.idx]; solved {
			hi = t
		}
		if ok && hi > lo {
			return x, lo, hi
		}
		if try > 50 {
			// The sanity check, solved at the player's very first
			// millisecond: attempt right after the start instead.
			return x, p.start, p.start + 1
		}
	}
}

// Bulk returns the event as rows for store.BulkLoad.
func (e *Event) Bulk() *store.Bulk {
	return &store.Bulk{Users: e.Users, Challenges: e.Challenges, Solves: e.Solves, Reviews: e.Reviews,
		Writeups: e.Writeups, APIKeys: e.APIKeys, Attempts: e.Attempts()}
}

// Write stores the event in an empty, migrated database.
func (e *Event) Write(ctx context.Context, db *store.DB) (store.BulkReport, error) {
	return db.BulkLoad(ctx, e.Bulk())
}

// Targets lists, for each keyed player in key order, up to perKey
// challenges they can submit to (visible, unlocked, unsolved), with a
// correct flag; interleaved by round so consecutive targets belong to
// different players.
func (e *Event) Targets(perKey int) []Target {
	lists := make([][]Target, len(e.Keys))
	for ki, k := range e.Keys {
		p := e.players[ki]
		for _, x := range e.chals {
			if len(lists[ki]) >= perKey {
				break
			}
			if _, solved := p.solvedAt[x.idx]; solved {
				continue
			}
			unlocked := true
			for _, r := range x.requires {
				if _, ok := p.solvedAt[r]; !ok {
					unlocked = false
				}
			}
			if unlocked {
				lists[ki] = append(lists[ki], Target{Key: k.Secret, UserID: k.UserID, Slug: x.c.Slug, ChallengeID: x.c.ID, Flag: x.flag})
			}
		}
	}
	var out []Target
	for round := 0; round < perKey; round++ {
		for _, l := range lists {
			if round < len(l) {
				out = append(out, l[round])
			}
		}
	}
	return out
}

// SolvedBy lists, for each keyed player in key order, the slugs of the
// challenges they solved.
func (e *Event) SolvedBy() [][]string {
	out := make([][]string, len(e.Keys))
	for ki := range e.Keys {
		p := e.players[ki]
		for _, x := range e.chals {
			if _, ok := p.solvedAt[x.idx]; ok {
				out[ki] = append(out[ki], x.c.Slug)
			}
		}
	}
	return out
}
