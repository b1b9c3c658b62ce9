package platform

import (
	"context"
	"sync"
	"testing"

	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/synth"
)

// Benchmarks of the use cases that read the hot state at the full event
// size (10,000 players, synth.Default), with no database behind them
// (go test -run '^$' -bench . -benchmem ./internal/platform; the hot
// state's own are in internal/live).

var full struct {
	once sync.Once
	ev   *synth.Event
	snap *store.Snapshot
	err  error
}

// snapStore is a database that only gives a snapshot (and an empty
// stream): a use case that touched it further would panic.
type snapStore struct {
	Store
	snap *store.Snapshot
}

func (s snapStore) Snapshot(context.Context) (*store.Snapshot, error) { return s.snap, nil }
func (s snapStore) StreamAfter(context.Context, int64, int) ([]store.StreamRow, error) {
	return nil, nil
}

// fullService returns a service whose hot state holds the synthetic event.
func fullService(b *testing.B) (*Service, *synth.Event) {
	b.Helper()
	full.once.Do(func() {
		cfg := synth.Default()
		cfg.Keys = 1000
		if full.ev, full.err = synth.Generate(cfg); full.err == nil {
			full.snap, full.err = full.ev.Snapshot()
		}
	})
	if full.err != nil {
		b.Fatal(full.err)
	}
	svc := newService(snapStore{snap: full.snap}, Options{PublicURL: "http://bench"})
	if err := svc.Load(context.Background()); err != nil {
		b.Fatal(err)
	}
	return svc, full.ev
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
