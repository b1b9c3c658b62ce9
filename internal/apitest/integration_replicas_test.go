package apitest

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/server"
	"github.com/flagshipctf/flagship/internal/store"
)

// itReplica serves a second service over s's database, as a second
// stateless replica of the event would.
func itReplica(t *testing.T, s *Server, limit store.RateLimit) *Server {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	svc := platform.New(s.DB, platform.Options{PublicURL: s.URL, RateLimit: limit, Logger: log})
	if err := svc.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	hs, front := Serve(t, svc, server.Options{Log: log})
	r := *s
	r.URL, r.Svc, r.HTTP, r.front = hs.URL, svc, hs, front
	return &r
}

// TestIntegrationReplicasConverge: several stateless replicas run on one
// database (docs/product.md). After a player's solve and wrong attempt on
// replica A, replica B, once it has refreshed (its Watch loop calls Refresh
// every second), must serve the same board, counts and profile.
//
// Regression test for a bug this suite found (failed on 3eda590, fixed by
// 9efaa66): B never saw A's submissions, because RecordSubmission
// (internal/store/submit.go) did not bump the revision and Service.Refresh
// (internal/platform/service.go) reloaded only on a new revision.
func TestIntegrationReplicasConverge(t *testing.T) {
	t.Parallel()
	a := itStart(t)
	b := itReplica(t, a, store.RateLimit{Max: 10, Window: time.Minute})
	erin := Bearer(a.Key("erin"))
	itStatus(t, "solve on A", itSubmit(a, "lost-packets", "flag{pcap}", erin), 200)
	itError(t, "wrong on A", itSubmit(a, "warmup", "nope", erin), 400)
	if err := b.Svc.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		h    []string
	}{
		{"/api/public/leaderboard", nil},
		{"/api/public/challenges", nil},
		{"/api/public/challenges/lost-packets", []string{erin}},
		{"/api/public/profiles/" + itUID(t, a, "erin"), nil},
	} {
		ra, rb := a.Do("GET", c.path, nil, c.h...), b.Do("GET", c.path, nil, c.h...)
		if !bytes.Equal(ra.Body, rb.Body) {
			t.Errorf("REGRESSION: GET %s differs between replicas after B refreshed: %s", c.path, itFirstDiff(ra.Body, rb.Body))
		}
	}
	// B's database checks know the solve (before the fix B answered 409
	// while its own detail said solved false).
	itError(t, "resubmit on B", itSubmit(b, "lost-packets", "flag{pcap}", erin), 409)

	// The other way round, and with badges: erin draws first blood on
	// kernel-panic on A; B catches up, so dave's solve there is second: only
	// first-insane. Then A catches up with B.
	itStatus(t, "erin kernel-panic on A", itSubmit(a, "kernel-panic", "flag{kernel}", erin), 200)
	if err := b.Svc.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := itSubmit(b, "kernel-panic", "flag{kernel}", Bearer(a.Key("dave")))
	itStatus(t, "dave kernel-panic on B", r, 200)
	if got := itBadgeIDs(t, "dave on B", itAt(itDecode(t, "submit", r.Body), "result", "newBadges")); len(got) != 1 || got[0] != "first-insane" {
		t.Errorf("dave's newBadges on B %v, want [first-insane] (erin drew first blood on A)", got)
	}
	if err := a.Svc.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/api/public/leaderboard", "/api/public/challenges", "/api/public/profiles/" + itUID(t, a, "dave")} {
		if ra, rb := a.Do("GET", p, nil), b.Do("GET", p, nil); !bytes.Equal(ra.Body, rb.Body) {
			t.Errorf("GET %s differs after both refreshed: %s", p, itFirstDiff(ra.Body, rb.Body))
		}
	}
	// kernel-panic: 2 wrong + erin + dave = 4 attempts, 2 solves, on both.
	itWantCounts(t, "A", a, "kernel-panic", 4, 2)
	itWantCounts(t, "B", b, "kernel-panic", 4, 2)

	// An operator change (revoking an unrelated key) bumps the revision: B
	// rebuilds and still agrees.
	itRevokedKey(t, a, "dave")
	if err := b.Svc.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if ra, rb := a.Do("GET", "/api/public/leaderboard", nil), b.Do("GET", "/api/public/leaderboard", nil); !bytes.Equal(ra.Body, rb.Body) {
		t.Errorf("even after an operator change B differs")
	}
}

// itFirstDiff shows two bodies around their first difference.
func itFirstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	cut := func(p []byte) string {
		lo, hi := max(0, i-80), min(len(p), i+80)
		return "…" + string(p[lo:hi]) + "…"
	}
	return fmt.Sprintf("at byte %d:\n  A: %s\n  B: %s", i, cut(a), cut(b))
}
