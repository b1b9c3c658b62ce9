package apitest

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
)

// TestIntegrationDumpLoadRoundTripEvent: the event's clock survives
// `dump | load` into an empty database: settings with every field set,
// scheduled releases (one come, one to come), a freeze an admin lifted,
// practice submissions after the end and two announcements. The loaded
// server answers byte for byte as the first, and its hot state holds the
// same settings and announcements once it notices the load's revision.
func TestIntegrationDumpLoadRoundTripEvent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t0 := time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC)
	var ticks atomic.Int64
	now := func() time.Time { return t0.Add(time.Duration(ticks.Load()) * time.Second) }
	tick := func(to int64) { ticks.Store(to) }
	a := itStart(t, Options{Now: now})
	keys := map[string]string{}
	for _, u := range []string{"alice", "dave", "erin", "root"} {
		keys[u], _ = itKey(t, a, u, "laptop", t0.Add(-time.Hour))
	}

	// Two scheduled challenges, loaded as an organiser would.
	waves, err := dataset.Decode([]byte(fmt.Sprintf(`challenges:
  - {slug: wave-1, title: Wave 1, categories: [misc], points: 10, flags: ['flag{w1}'], releaseAt: %s, createdAt: 2026-01-20T00:00:00Z}
  - {slug: wave-2, title: Wave 2, categories: [misc], points: 20, flags: ['flag{w2}'], releaseAt: %s, createdAt: 2026-01-20T00:00:00Z}
`, t0.Add(5*time.Second).Format(time.RFC3339), t0.Add(time.Hour).Format(time.RFC3339))), "waves.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Svc.Admin.Import(ctx, ctf.Operator, waves); err != nil {
		t.Fatal(err)
	}
	at := func(s int) *time.Time { v := t0.Add(time.Duration(s) * time.Second); return &v }
	if _, err := a.Svc.Event.Set(ctx, ctf.Operator, ctf.Event{Name: "Round Trip CTF", Start: at(-3600), End: at(30), Freeze: at(10),
		UnfreezeAtEnd: true, Practice: true, FlagFormat: "flag{...}"}); err != nil {
		t.Fatal(err)
	}
	root, err := a.Svc.Accounts.AuthenticateKey(ctx, keys["root"])
	if err != nil {
		t.Fatal(err)
	}
	submit := func(user, slug, flag string, want ...int) {
		t.Helper()
		r := itSubmit(a, slug, flag, Bearer(keys[user]))
		if !slices.Contains(want, r.Status) {
			t.Fatalf("%s on %s at %s: %d %s", user, slug, now().Format(time.TimeOnly), r.Status, r.Body)
		}
	}
	tick(1)
	submit("erin", "warmup", "flag{warmup}", 200)
	tick(2)
	if _, err := a.Svc.Event.PostAnnouncement(ctx, ctf.Operator, "Welcome", "Have *fun*.", ""); err != nil {
		t.Fatal(err)
	}
	tick(6)
	if _, err := a.Svc.Event.PostAnnouncement(ctx, root, "Wave 1 is out", "Go.", "wave-1"); err != nil {
		t.Fatal(err)
	}
	submit("alice", "wave-1", "flag{w1}", 200)
	tick(11) // frozen
	submit("dave", "lost-packets", "flag{pcap}", 200)
	tick(20)
	if err := a.Svc.Event.Unfreeze(ctx, ctf.Operator); err != nil {
		t.Fatal(err)
	}
	tick(31) // ended, practice mode
	submit("erin", "lost-packets", "flag{pcap}", 200)
	submit("erin", "kernel-panic", "nope", 200, 400)
	itError(t, "wave-2 before its release", a.Do("GET", "/api/public/challenges/wave-2", nil), 404)
	for _, k := range keys {
		itGet(t, a, "/api/public/me", Bearer(k))
	}
	a.Svc.FlushTouches(ctx)

	dump, b := itDumpLoad(t, a, now)
	for _, want := range []string{"event:", "unfrozen:", "unfreezeAtEnd: true", "flagFormat: flag{...}", "releaseAt:", "practice: true",
		"announcements:", "challenge: wave-1", "author: root"} {
		if !bytes.Contains(dump, []byte(want)) {
			t.Errorf("the dump lacks %q:\n%s", want, dump)
		}
	}
	if ea, eb := a.Svc.Event.Current(), b.Svc.Event.Current(); !reflect.DeepEqual(ea, eb) {
		t.Errorf("the event after dump | load:\n  %+v\nvs %+v", ea, eb)
	} else if ea.Unfrozen == nil || ea.Phase != ctf.Ended || !ea.Practice {
		t.Errorf("the event's clock %+v; want ended, in practice mode, with the unfreeze mark", ea)
	}
	if aa, ab := a.Svc.Event.Announcements(), b.Svc.Event.Announcements(); len(aa) != 2 || !reflect.DeepEqual(aa, ab) {
		t.Errorf("announcements after dump | load:\n  %+v\nvs %+v", aa, ab)
	}

	for _, p := range itPublicPaths(t, a, keys, "draft", "wave-1", "wave-2") {
		itSame(t, a, b, p)
		for _, k := range keys {
			itSame(t, a, b, p, Bearer(k))
		}
	}
	if again := itDumpYAML(t, b); !bytes.Equal(itDumpYAML(t, a), again) {
		t.Errorf("the dump of the loaded dump differs:\n%s\n----\n%s", itDumpYAML(t, a), again)
	}
	// The scheduled release comes on both at its instant.
	tick(3600)
	itGet(t, b, "/api/public/challenges/wave-2")
	itSame(t, a, b, "/api/public/challenges/wave-2")
	itSame(t, a, b, "/api/public/challenges")
}
