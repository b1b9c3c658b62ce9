package apitest

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/openapi/contract"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/server"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/store/storetest"
)

// itServeEmpty serves an empty, migrated database like Start does, but with
// the given public URL, so that file links of two servers can be compared.
func itServeEmpty(t *testing.T, publicURL string, now func() time.Time) *Server {
	t.Helper()
	ctx := context.Background()
	dsn := storetest.DSN(t)
	db := storetest.OpenDSN(t, dsn)
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	v, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	s := &Server{T: t, DB: db, DSN: dsn, DBPath: SQLitePath(dsn), Validator: v}
	s.Svc = platform.New(db, platform.Options{PublicURL: publicURL, RateLimit: store.RateLimit{Max: 10, Window: time.Minute}, Logger: log, Now: now})
	if err := s.Svc.Load(ctx); err != nil {
		t.Fatal(err)
	}
	s.HTTP, s.front = Serve(t, s.Svc, server.Options{Log: log})
	s.URL = s.HTTP.URL
	return s
}

func itDumpYAML(t *testing.T, s *Server) []byte {
	t.Helper()
	ds, err := s.DB.Dump(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := dataset.Encode(&buf, ds, "yaml"); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestIntegrationDumpLoadRoundTrip: after live play, `dump | load` into an
// empty database serves byte-identical public responses, and the API keys
// (stored as hashes) still authenticate.
func TestIntegrationDumpLoadRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// Both servers share a clock that moves only when told, so that no key's
	// lastUsedAt is touched again after the dump, however slow the run.
	t0 := time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC)
	var ticks atomic.Int64
	now := func() time.Time { return t0.Add(time.Duration(ticks.Load()) * time.Second) }
	a := itStart(t, Options{Now: now})
	keys := map[string]string{}
	for _, u := range []string{"alice", "bob", "carol", "dave", "erin", "root", "mallory"} {
		keys[u], _ = itKey(t, a, u, "laptop", t0.Add(-time.Hour))
	}
	revoked := itRevokedKey(t, a, "alice")
	// What the use cases add: a read-only key, a rejected writeup's reason.
	_, readOnly, err := a.Svc.CreateAPIKey(ctx, platform.Operator, platform.NewAPIKey{Owner: itUID(t, a, "bob"), Name: "agent", ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	bob, err := a.Svc.AuthenticateKey(ctx, keys["bob"])
	if err != nil {
		t.Fatal(err)
	}
	w, err := a.Svc.SaveWriteup(ctx, bob, "warmup", platform.WriteupInput{Title: "Mine", Content: "Spoilers"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Svc.ModerateWriteup(ctx, platform.Operator, w.ID, false, "Too short"); err != nil {
		t.Fatal(err)
	}
	// Live play: wrong attempts and solves, a regex flag, an Insane first blood.
	for _, p := range []struct{ user, slug, flag string }{
		{"erin", "lost-packets", "nope"}, {"erin", "warmup", " flag{warmup} "}, {"erin", "web-login", "flag{00c0ffee}"},
		{"dave", "kernel-panic", "flag{kernel}"}, {"carol", "warmup", "FLAG{warmup}"}, {"root", "rop-chain", "x"},
	} {
		ticks.Add(1)
		r := itSubmit(a, p.slug, p.flag, Bearer(keys[p.user]))
		if r.Status != 200 && r.Status != 400 && r.Status != 403 {
			t.Fatalf("%s on %s: %d %s", p.user, p.slug, r.Status, r.Body)
		}
	}
	// Every key is used once before the dump, so lastUsedAt is in the dump
	// and within the minute in which it is not touched again.
	for _, k := range keys {
		itGet(t, a, "/api/public/me", Bearer(k))
	}
	// Uses are written off the request path; a running server's watcher
	// writes them within a quarter second.
	a.Svc.FlushTouches(ctx)

	dump, b := itDumpLoad(t, a, now)

	paths := itPublicPaths(t, a, keys, "draft", "nope")
	same := func(path string, h ...string) {
		t.Helper()
		itSame(t, a, b, path, h...)
	}
	for _, p := range paths {
		same(p)
	}
	for _, k := range keys {
		h := Bearer(k)
		for _, p := range append(paths, "/api/public/me", "/api/public/challenges/warmup/writeups", "/api/public/challenges/baby-rsa/writeups") {
			same(p, h)
		}
	}
	// The read-only key is read-only still, the reason still shown.
	if v, err := b.Svc.AuthenticateKey(ctx, readOnly); err != nil || !v.ReadOnly {
		t.Errorf("the read-only key after dump | load: %+v, %v; want it read-only", v, err)
	}
	if !bytes.Contains(dump, []byte("readOnly: true")) || !bytes.Contains(dump, []byte("reason: Too short")) {
		t.Errorf("the dump lacks the key's read-only mark or the writeup's reason:\n%s", dump)
	}
	// And the database says the same thing: dump(load(dump)) = dump.
	if again := itDumpYAML(t, b); !bytes.Equal(itDumpYAML(t, a), again) {
		t.Errorf("the dump of the loaded dump differs:\n%s\n----\n%s", itDumpYAML(t, a), again)
	}
	itError(t, "revoked key after load", b.Do("GET", "/api/public/me", nil, Bearer(revoked)), 401)
	// Live play goes on identically on both.
	for _, s := range []*Server{a, b} {
		itMatch(t, "submit after load", itDecode(t, "submit", itSubmit(s, "lost-packets", "flag{pcap}", Bearer(keys["erin"])).Body),
			`{"result":{"success":true,"points":150,"newBadges":[{"id":"category-forensics"}]}}`)
	}
	same("/api/public/challenges/lost-packets")
}

// itPublicPaths lists the public reads a round trip compares: the lists,
// every challenge of the event and the extra slugs, and the users' profiles.
func itPublicPaths(t *testing.T, s *Server, users map[string]string, slugs ...string) []string {
	t.Helper()
	paths := []string{"/api/public/health", "/api/public/challenges", "/api/public/leaderboard"}
	for _, slug := range append(append([]string{}, listOrder...), slugs...) {
		paths = append(paths, "/api/public/challenges/"+slug)
	}
	for u := range users {
		paths = append(paths, "/api/public/profiles/"+itUID(t, s, u))
	}
	return paths
}

// itSame fails unless a and b answer GET path alike: status, body, ETag.
func itSame(t *testing.T, a, b *Server, path string, h ...string) {
	t.Helper()
	ra, rb := a.Do("GET", path, nil, h...), b.Do("GET", path, nil, h...)
	if ra.Status != rb.Status || !bytes.Equal(ra.Body, rb.Body) {
		t.Errorf("GET %s %v:\n  before dump: %d %s\n  after load:  %d %s", path, h, ra.Status, ra.Body, rb.Status, rb.Body)
	} else if ra.Header.Get("ETag") != rb.Header.Get("ETag") {
		t.Errorf("GET %s %v: ETag %s vs %s", path, h, ra.Header.Get("ETag"), rb.Header.Get("ETag"))
	}
}

// itDumpLoad dumps a and loads the dump into a new server on an empty
// database, twice (the second load changes nothing). The new server
// rebuilds its state as a replica does when it notices the load's revision.
func itDumpLoad(t *testing.T, a *Server, now func() time.Time) ([]byte, *Server) {
	t.Helper()
	dump := itDumpYAML(t, a)
	ds, err := dataset.Decode(dump, filepath.Join(t.TempDir(), "dump.yaml"))
	if err != nil {
		t.Fatalf("decode the dump: %v\n%s", err, dump)
	}
	b := itServeEmpty(t, a.URL, now)
	for range 2 {
		if _, err := b.DB.Load(context.Background(), ds); err != nil {
			t.Fatalf("load the dump: %v", err)
		}
		b.Sync()
	}
	return dump, b
}
