package platform

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/synth"
)

// Benchmarks of the hot state at the full event size (10,000 players,
// synth.Default), built in memory: no database is involved at all, which
// is the point (go test -run '^$' -bench . -benchmem ./internal/platform).

var full struct {
	once sync.Once
	ev   *synth.Event
	err  error
}

// fullService returns a service whose hot state holds the synthetic event
// and whose database is nil: a use case that touched it would panic.
func fullService(b *testing.B) (*Service, *synth.Event) {
	b.Helper()
	full.once.Do(func() {
		cfg := synth.Default()
		cfg.Keys = 1000
		full.ev, full.err = synth.Generate(cfg)
	})
	if full.err != nil {
		b.Fatal(full.err)
	}
	ev := full.ev
	snap := &store.Snapshot{Users: ev.Users, Reviews: ev.Reviews, Writeups: ev.Writeups, APIKeys: ev.APIKeys}
	for _, c := range ev.Challenges {
		for i := range c.Flags {
			if err := c.Flags[i].Compile(); err != nil {
				b.Fatal(err)
			}
		}
		snap.Challenges = append(snap.Challenges, c)
	}
	for i, s := range ev.Solves {
		s.Seq = int64(i + 1)
		snap.Solves = append(snap.Solves, s)
	}
	snap.MaxSolveSeq = int64(len(snap.Solves))
	svc := New(nil, Options{PublicURL: "http://bench"})
	svc.st.Store(newState(snap, "http://bench", time.Now()))
	return svc, ev
}

// BenchmarkSignUpApply: what a sign-up costs the hot state of the replica
// that made it (the argon2id hash and the database write excluded).
func BenchmarkSignUpApply(b *testing.B) {
	svc, _ := fullService(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		u := ctf.User{ID: ctf.NewID(), Username: fmt.Sprintf("bench%07d", i), Email: fmt.Sprintf("b%d@example.com", i), Role: ctf.RolePlayer, CreatedAt: time.Now()}
		svc.applyOwn([]int64{int64(i + 1)}, func(st *state, dirty dirtySet) { st.putUser(u, dirty) })
	}
}

// BenchmarkSignUpCatchUp: what another replica's sign-up costs this one's
// hot state, once the change log and the user's row are read.
func BenchmarkSignUpCatchUp(b *testing.B) {
	svc, _ := fullService(b)
	st := svc.state()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		u := ctf.User{ID: ctf.NewID(), Username: fmt.Sprintf("bench%07d", i), Role: ctf.RolePlayer, CreatedAt: time.Now()}
		st.catchUp(store.Entities{Users: []ctf.User{u}}, &store.Delta{}, time.Now(), noObserver{})
	}
}

// BenchmarkAuthenticateKey: a key verified from memory (its SHA-256 and a
// constant-time compare), no database round trip.
func BenchmarkAuthenticateKey(b *testing.B) {
	svc, ev := fullService(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := svc.Accounts.AuthenticateKey(ctx, ev.Keys[i%len(ev.Keys)].Secret); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAuthenticatedMe: a key's owner reads /me's profile, keys
// included, from memory.
func BenchmarkAuthenticatedMe(b *testing.B) {
	svc, ev := fullService(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		v, err := svc.Accounts.AuthenticateKey(ctx, ev.Keys[i%len(ev.Keys)].Secret)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := svc.Accounts.Me(ctx, v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChallengeEditApply: an organiser's edit of the most solved
// challenge's points, applied without a rebuild (every solver's total and
// entry change).
func BenchmarkChallengeEditApply(b *testing.B) {
	svc, _ := fullService(b)
	st := svc.state()
	var top *chal
	for _, c := range st.visible {
		if top == nil || len(c.playerSolves) > len(top.playerSolves) {
			top = c
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		c := top.Challenge
		c.Points = 100 + i%50
		svc.applyOwn(nil, func(st *state, dirty dirtySet) { st.putChallenge(c, dirty) })
	}
	b.ReportMetric(float64(len(top.solves)), "solvers")
}
