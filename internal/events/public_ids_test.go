package events_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/store"
)

// pinned is a settable clock.
type pinned struct{ ns atomic.Int64 }

func (c *pinned) set(t time.Time) { c.ns.Store(t.UnixNano()) }
func (c *pinned) now() time.Time  { return time.Unix(0, c.ns.Load()).UTC() }

var liveAfterRE = regexp.MustCompile(`data-live-after="(\d+)"`)

// liveAfter is the stream position a web page was rendered at.
func liveAfter(t *testing.T, s *apitest.Server, path string) string {
	t.Helper()
	r := s.DoRaw("GET", path, nil, "Accept: text/html")
	if r.Status != 200 {
		t.Fatalf("GET %s: %d", path, r.Status)
	}
	m := liveAfterRE.FindSubmatch(r.Body)
	if m == nil {
		t.Fatalf("GET %s: no data-live-after", path)
	}
	return string(m[1])
}

// consecutive checks that ids are first, first+1, …
func consecutive(t *testing.T, what string, msgs []sse, first int64) {
	t.Helper()
	for i, m := range msgs {
		if m.ID != strconv.FormatInt(first+int64(i), 10) {
			var ids []string
			for _, m := range msgs {
				ids = append(ids, m.ID+" "+m.Event)
			}
			t.Fatalf("%s: ids %q, want %d, %d, … with no gap", what, ids, first, first+1)
		}
	}
}

// TestStreamIdsMoveOnlyWithPublicEvents: solves the public may not see
// (an admin's, those held by the freeze) take no number the public sees:
// the ids a client reads stay consecutive, a page's data-live-after does
// not move with them, a resume gets exactly the events after its id, and
// held solves are not streamed when the freeze is lifted. A second
// replica numbers the same events the same.
func TestStreamIdsMoveOnlyWithPublicEvents(t *testing.T) {
	t0 := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	clock := &pinned{}
	clock.set(t0)
	s := apitest.Start(t, event, apitest.Options{Now: clock.now})
	ctx := context.Background()
	freeze, end := t0.Add(time.Hour), t0.Add(3*time.Hour)
	if _, err := s.Svc.Event.Set(ctx, ctf.Operator, ctf.Event{Name: "Test", Start: &t0, End: &end, Freeze: &freeze}); err != nil {
		t.Fatal(err)
	}
	s.Sync()
	keys := map[string]string{}
	for _, u := range []string{"root", "alice", "bob", "carol"} {
		keys[u] = s.Key(u)
	}
	live := connect(t, s.URL+"/api/events")

	clock.set(t0.Add(10 * time.Minute))
	submit(t, s, "warmup", "flag{warm}", keys["alice"])
	s.Sync()
	first := live.next()
	if first.Event != "solve" {
		t.Fatalf("first event %+v, want alice's solve", first)
	}
	before := map[string]string{}
	for _, p := range []string{"/", "/scoreboard"} {
		before[p] = liveAfter(t, s, p)
		if before[p] != first.ID {
			t.Errorf("%s: data-live-after %s, want %s, the last public event", p, before[p], first.ID)
		}
	}

	// The freeze: an admin's solve and three held ones.
	clock.set(freeze.Add(time.Minute))
	submit(t, s, "warmup", "flag{warm}", keys["root"])
	submit(t, s, "warmup", "flag{warm}", keys["bob"])
	submit(t, s, "crypto-one", "flag{c1}", keys["carol"])
	submit(t, s, "crypto-one", "flag{c1}", keys["alice"])
	s.Sync()
	for p, was := range before {
		if got := liveAfter(t, s, p); got != was {
			t.Errorf("%s: data-live-after moved from %s to %s with only hidden solves", p, was, got)
		}
	}
	announce(t, s, "During the freeze", "")
	s.Sync()
	// The freeze is lifted: the held solves are not streamed one by one.
	clock.set(freeze.Add(30 * time.Minute))
	if err := s.Svc.Event.Unfreeze(ctx, ctf.Operator); err != nil {
		t.Fatal(err)
	}
	s.Sync()
	clock.set(freeze.Add(31 * time.Minute))
	submit(t, s, "web-two", "flag{w2}", keys["bob"])
	announce(t, s, "After the freeze", "")
	s.Sync()

	id0, _ := strconv.ParseInt(first.ID, 10, 64)
	seen := []sse{first}
	for range 3 {
		seen = append(seen, live.next())
	}
	consecutive(t, "a client reading throughout", seen, id0)
	var kinds []string
	for _, m := range seen {
		kinds = append(kinds, m.Event)
	}
	if got := strings.Join(kinds, ","); got != "solve,announcement,solve,announcement" {
		t.Fatalf("kinds %s, want alice's solve, the announcement, bob's web-two, the announcement", got)
	}
	if d := decode[solveData](t, seen[2]); d.User.Username != "bob" || d.Challenge.Slug != "web-two" {
		t.Errorf("third event %+v, want bob's web-two", d)
	}
	for _, p := range []string{"/", "/scoreboard"} {
		if got := liveAfter(t, s, p); got != seen[3].ID {
			t.Errorf("%s: data-live-after %s, want %s, the last public event", p, got, seen[3].ID)
		}
	}

	// A resume gets exactly the events after its id.
	for i, m := range seen {
		r := connect(t, s.URL+"/api/events", "Last-Event-ID: "+m.ID)
		for _, want := range seen[i+1:] {
			if got := r.next(); got != want {
				t.Fatalf("after %s: %+v, want %+v", m.ID, got, want)
			}
		}
		r.close()
	}
	from0 := connect(t, s.URL+"/api/events?after=0")
	for _, want := range seen {
		if got := from0.next(); got != want {
			t.Fatalf("after=0: %+v, want %+v", got, want)
		}
	}

	// A second replica, started now, numbers them the same.
	b := s.Replica(store.RateLimit{Max: 10, Window: time.Minute})
	b.Sync()
	onB := connect(t, b.URL+"/api/events?after=0")
	for _, want := range seen {
		if got := onB.next(); got != want {
			t.Fatalf("on the second replica: %+v, want %+v", got, want)
		}
	}
	if got := liveAfter(t, b, "/scoreboard"); got != seen[3].ID {
		t.Errorf("second replica: data-live-after %s, want %s", got, seen[3].ID)
	}
	// And both number what comes next the same.
	live2 := connect(t, b.URL+"/api/events")
	a := announce(t, s, "Sentinel", "")
	s.Sync()
	b.Sync()
	want := fmt.Sprint(id0 + 4)
	for _, c := range []*client{live, live2} {
		if m := c.next(); m.ID != want || !strings.Contains(m.Data, a.ID) {
			t.Errorf("the sentinel: %+v, want id %s", m, want)
		}
	}
}
