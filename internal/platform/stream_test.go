package platform

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/testtime"
)

// streamOf reads every event after 0 as svc relays them.
func streamOf(t *testing.T, svc *Service) []live.StreamEvent {
	t.Helper()
	if err := svc.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	evs, err := svc.Stream.EventsAfter(context.Background(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func describe(evs []live.StreamEvent) []string {
	var out []string
	for _, e := range evs {
		s := fmt.Sprintf("%d %s", e.Seq, e.Kind)
		switch {
		case !e.Public:
			s += " (private)"
		case e.Solve != nil:
			s += fmt.Sprintf(" %s %s #%d", e.Solve.Username, e.Solve.Slug, e.Solve.Rank)
		case e.Announcement != nil:
			s += " " + e.Announcement.Title
		}
		out = append(out, s)
	}
	return out
}

// TestStreamIsOneOrderOnEveryReplica: solves made concurrently on two
// replicas, an announcement and the moves of the clock are numbered densely,
// each once, and both replicas relay the same events in the same order;
// an admin's solve and a solve held by the freeze take no number (the
// public reads the numbers: they must not count what it may not see).
func TestStreamIsOneOrderOnEveryReplica(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, b := f.svc, f.replica()
	ctx := context.Background()
	start := f.clock.Now().Add(time.Minute)
	if _, err := a.Event.Set(ctx, ctf.Operator, ctf.Event{Start: &start}); err != nil {
		t.Fatal(err)
	}
	if err := b.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	// Both replicas notice the start; it is recorded once.
	f.clock.Add(2 * time.Minute)
	for _, svc := range []*Service{a, b} {
		svc.live.Tick(ctx)
	}
	// Players on both replicas at once.
	var wg sync.WaitGroup
	for _, who := range []struct {
		svc        *Service
		name, chal string
	}{{a, "pat", "a"}, {b, "pam", "b"}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := who.svc.Play.Submit(ctx, f.as(who.name), who.chal, "flag{"+who.chal+"}"); err != nil {
				t.Errorf("%s: %v", who.name, err)
			}
		}()
	}
	wg.Wait()
	if _, err := b.Play.Submit(ctx, f.as("root"), "a", "flag{a}"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Event.PostAnnouncement(ctx, ctf.Operator, "Hint for B", "Look **closer**.", "b"); err != nil {
		t.Fatal(err)
	}
	// A freeze, then a solve it holds.
	f.clock.Add(time.Second)
	now := f.clock.Now()
	ev := a.Event.Current().Event
	ev.Freeze = &now
	if _, err := a.Event.Set(ctx, ctf.Operator, ev); err != nil {
		t.Fatal(err)
	}
	a.live.Tick(ctx)
	f.clock.Add(time.Second)
	if err := b.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	b.live.Tick(ctx)
	if _, err := b.Play.Submit(ctx, f.as("pat"), "b", "flag{b}"); err != nil {
		t.Fatal(err)
	}

	ea, eb := describe(streamOf(t, a)), describe(streamOf(t, b))
	if fmt.Sprint(ea) != fmt.Sprint(eb) {
		t.Fatalf("the replicas relay different streams:\nA %q\nB %q", ea, eb)
	}
	t.Logf("stream: %q", ea)
	count := map[ctf.StreamKind]int{}
	for i, e := range streamOf(t, a) {
		if e.Seq != int64(i+1) {
			t.Errorf("event %d is numbered %d: numbers must be dense", i, e.Seq)
		}
		count[e.Kind]++
	}
	if count[ctf.StreamStarted] != 1 || count[ctf.StreamFrozen] != 1 || count[ctf.StreamAnnouncement] != 1 || count[ctf.StreamSolve] != 2 {
		t.Errorf("kinds %v, want one start, one freeze, one announcement, two solves", count)
	}
	var publicSolves, firstBloods int
	for _, e := range streamOf(t, a) {
		if !e.Public {
			t.Errorf("event %d %s is numbered but not public", e.Seq, e.Kind)
		}
		if e.Kind == ctf.StreamSolve && e.Public {
			publicSolves++
			if e.Solve.FirstBlood {
				firstBloods++
			}
			if e.Solve.Username == "root" {
				t.Errorf("an admin's solve is public: %+v", e.Solve)
			}
		}
	}
	// pat's a (second after pam's, loaded) and pam's b (first blood);
	// root's a is an admin's, pat's b is held by the freeze: no rows.
	if publicSolves != 2 || firstBloods != 1 {
		t.Errorf("%d public solves and %d first bloods, want 2 and 1", publicSolves, firstBloods)
	}

	// Resuming from any number gives exactly the rest.
	all := streamOf(t, b)
	for n := range len(all) {
		rest, err := b.Stream.EventsAfter(ctx, int64(n), 0)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(describe(rest)) != fmt.Sprint(describe(all[n:])) {
			t.Errorf("after %d: %q, want %q", n, describe(rest), describe(all[n:]))
		}
	}
}

// TestWaitEventsWakes: a waiting client is woken by the relay of a new
// event, and returns when its context ends.
func TestWaitEventsWakes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	last := f.svc.Stream.LastEvent()
	done := make(chan int64, 1)
	go func() {
		n, _ := f.svc.Stream.WaitEvents(ctx, last)
		done <- n
	}()
	if _, err := f.svc.Event.PostAnnouncement(ctx, ctf.Operator, "Welcome", "", ""); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-done:
		if n != last+1 {
			t.Errorf("woken at %d, want %d", n, last+1)
		}
	case <-time.After(testtime.Scale(10 * time.Second)):
		t.Fatal("not woken by a relayed event")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := f.svc.Stream.WaitEvents(cctx, f.svc.Stream.LastEvent()); err == nil {
		t.Error("WaitEvents returned without an event or an error")
	}
}
