package live

import (
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
// is the point (go test -run '^$' -bench . -benchmem ./internal/live).

var full struct {
	once sync.Once
	snap *store.Snapshot
	err  error
}

// fullReplica returns a replica whose hot state holds the synthetic event
// and whose database is nil: anything that touched it would panic.
func fullReplica(b *testing.B) *Replica {
	b.Helper()
	full.once.Do(func() {
		cfg := synth.Default()
		cfg.Keys = 1000
		ev, err := synth.Generate(cfg)
		if err != nil {
			full.err = err
			return
		}
		full.snap, full.err = ev.Snapshot()
	})
	if full.err != nil {
		b.Fatal(full.err)
	}
	r := New(nil, Options{PublicURL: "http://bench"})
	r.st.Store(newState(full.snap, "http://bench", time.Now()))
	return r
}

// BenchmarkSignUpApply: what a sign-up costs the hot state of the replica
// that made it (the argon2id hash and the database write excluded).
func BenchmarkSignUpApply(b *testing.B) {
	r := fullReplica(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		u := ctf.User{ID: ctf.NewID(), Username: fmt.Sprintf("bench%07d", i), Email: fmt.Sprintf("b%d@example.com", i), Role: ctf.RolePlayer, CreatedAt: time.Now()}
		r.Apply([]int64{int64(i + 1)}, func(tx *Tx) { tx.PutUser(u) })
	}
}

// BenchmarkSignUpCatchUp: what another replica's sign-up costs this one's
// hot state, once the change log and the user's row are read.
func BenchmarkSignUpCatchUp(b *testing.B) {
	st := fullReplica(b).state()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		u := ctf.User{ID: ctf.NewID(), Username: fmt.Sprintf("bench%07d", i), Role: ctf.RolePlayer, CreatedAt: time.Now()}
		st.catchUp(store.Entities{Users: []ctf.User{u}}, &store.Delta{}, time.Now(), noObserver{})
	}
}

// BenchmarkChallengeEditApply: an organiser's edit of the most solved
// challenge's points, applied without a rebuild (every solver's total and
// entry change).
func BenchmarkChallengeEditApply(b *testing.B) {
	r := fullReplica(b)
	st := r.state()
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
		r.Apply(nil, func(tx *Tx) { tx.PutChallenge(c) })
	}
	b.ReportMetric(float64(len(top.solves)), "solvers")
}
