package webhook_test

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/golden"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/testtime"
	"github.com/flagshipctf/flagship/internal/webhook"
)

// TestGoldenBodies: what each kind of webhook is sent (headers and body)
// for a first blood, an announcement and a freeze in the golden event is
// the golden files byte for byte: the signed JSON for the Bot, the chat
// messages for Discord and Slack. -update rewrites the files.
func TestGoldenBodies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := apitest.StartGolden(t)
	hooks := []struct{ name, id string }{
		{"Bot", "0190a000-0000-7000-8000-000000000701"},
		{"Discord", "0190a000-0000-7000-8000-000000000702"},
		{"Slack", "0190a000-0000-7000-8000-000000000703"}, // no freeze: it takes first bloods and announcements
	}
	// The watcher makes the deliveries from the live stream, as on a
	// running server; each step waits for its own, so that they come in
	// the same order every run.
	watchCtx, stop := context.WithCancel(ctx)
	watched := make(chan struct{})
	go func() { defer close(watched); s.Svc.Watch(watchCtx, 5*time.Millisecond) }()
	defer func() { stop(); <-watched }()
	delivered := func(step string, want ...int) {
		t.Helper()
		for deadline := time.Now().Add(testtime.Scale(10 * time.Second)); ; time.Sleep(5 * time.Millisecond) {
			var got []int
			for _, h := range hooks {
				_, ds, err := s.Svc.Webhooks.Deliveries(ctx, ctf.Operator, h.id, 100)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, len(ds))
			}
			if slices.Equal(got, want) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: deliveries to %v: %v, want %v", step, hooks, got, want)
			}
		}
	}

	// A first blood through the API, on a challenge whose title has
	// markup and angle brackets.
	r := s.Do("POST", "/api/public/challenges/forensics-1/submit", []byte(`{"flag":"flag{bits}"}`),
		apitest.Bearer(s.Key("erin")), "Content-Type: application/json")
	if r.Status != 200 {
		t.Fatalf("first blood: %d %s", r.Status, r.Body)
	}
	delivered("first blood", 1, 1, 1)
	if _, err := s.Svc.Event.PostAnnouncement(ctx, ctf.Operator, "Hint: *look* <closer> @everyone",
		"Try `strings` & **grep**.\nThen <ask>.", "forensics-1"); err != nil {
		t.Fatal(err)
	}
	delivered("announcement", 2, 2, 2)
	start, end, freeze := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC), time.Date(2026, 1, 20, 9, 0, 0, 0, time.UTC), apitest.GoldenNow
	if _, err := s.Svc.Event.Set(ctx, ctf.Operator, ctf.Event{Name: "Golden CTF", Start: &start, End: &end, Freeze: &freeze}); err != nil {
		t.Fatal(err)
	}
	delivered("freeze", 3, 3, 2)

	// The store's clock is the real one: every delivery is due by now.
	claimed, err := s.DB.Hooks().ClaimDeliveries(ctx, time.Now().Add(time.Hour), time.Minute, 100)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(claimed, func(a, b store.Claimed) int { return cmp.Compare(a.Seq, b.Seq) })
	bodies := map[string]*bytes.Buffer{}
	for _, c := range claimed {
		body, h, err := webhook.Request(c, apitest.GoldenNow)
		if err != nil {
			t.Fatalf("delivery %d: %v", c.Seq, err)
		}
		b := bodies[c.Webhook.Name]
		if b == nil {
			b = &bytes.Buffer{}
			bodies[c.Webhook.Name] = b
		}
		fmt.Fprintf(b, "=== %s\n", c.Event)
		for _, k := range slices.Sorted(maps.Keys(h)) {
			for _, v := range h[k] {
				fmt.Fprintf(b, "%s: %s\n", k, v)
			}
		}
		fmt.Fprintf(b, "\n%s\n\n", body)
	}
	for _, h := range hooks {
		if bodies[h.name] == nil {
			t.Errorf("no delivery to %s", h.name)
			continue
		}
		golden.Check(t, "webhook-"+h.name, bodies[h.name].Bytes())
	}
}
