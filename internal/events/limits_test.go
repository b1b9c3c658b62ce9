package events_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/server"
	"github.com/flagshipctf/flagship/internal/store/storetest"
)

// perClient is the number of live streams one client address may hold,
// as the README says.
const perClient = 20

// attempt opens the stream at url with the given headers ("Name: value")
// and returns the response's status; a 200 is returned as a connected
// client (closed when the test ends), anything else with its body read
// and closed.
func attempt(t *testing.T, url string, headers ...string) (*client, *http.Response, []byte) {
	t.Helper()
	resp, cancel := get(t, url, headers...)
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		return nil, resp, body
	}
	c := &client{t: t, resp: resp, msgs: make(chan sse, 1000), cancel: cancel}
	go c.read()
	t.Cleanup(c.close)
	// The first message is sent once the stream holds its slot.
	if m := c.nextAny(); m.Retry == "" {
		t.Fatalf("first message %+v, want retry", m)
	}
	return c, resp, nil
}

// openStreams opens n streams that must all be accepted.
func openStreams(t *testing.T, n int, url string, headers ...string) []*client {
	t.Helper()
	out := make([]*client, 0, n)
	for i := range n {
		c, resp, body := attempt(t, url, headers...)
		if c == nil {
			t.Fatalf("stream %d of %d (%v): %d %s", i+1, n, headers, resp.StatusCode, body)
		}
		out = append(out, c)
	}
	return out
}

// checkRefused checks a refusal: 429, Retry-After in seconds, a JSON error.
func checkRefused(t *testing.T, what string, resp *http.Response, body []byte) {
	t.Helper()
	if resp == nil || resp.StatusCode != http.StatusTooManyRequests {
		status := 200
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("%s: status %d, want 429", what, status)
	}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || s < 1 {
		t.Errorf("%s: Retry-After %q, want whole seconds", what, resp.Header.Get("Retry-After"))
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Errorf("%s: Content-Type %q", what, resp.Header.Get("Content-Type"))
	}
	// A scoreboard on another site reads the refusal, not a CORS error.
	if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "*" {
		t.Errorf("%s: Access-Control-Allow-Origin %q, want *", what, got)
	}
	var e struct{ Error string }
	if err := json.Unmarshal(body, &e); err != nil || e.Error == "" {
		t.Errorf("%s: body %s, want {\"error\": ...}", what, body)
	}
}

// refusedThenFreed waits, bounded, for a slot freed by a closed stream:
// the server notices a closed connection when it next reads or writes, so
// the test asks again until it is let in rather than after a fixed time.
func refusedThenFreed(t *testing.T, url string, headers ...string) *client {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		c, resp, body := attempt(t, url, headers...)
		if c != nil {
			return c
		}
		if resp.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("while waiting for a free slot: %d %s", resp.StatusCode, body)
		}
		if time.Now().After(deadline) {
			t.Fatalf("a closed stream's slot was not freed within %s", wait)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestStreamsPerClientAddress: one address holds at most 20 streams; the
// 21st is 429 with Retry-After and a JSON error, and closing one lets the
// next in.
func TestStreamsPerClientAddress(t *testing.T) {
	s := apitest.Start(t, "")
	url := s.URL + "/api/events"
	streams := openStreams(t, perClient, url)
	_, resp, body := attempt(t, url)
	checkRefused(t, "the 21st stream", resp, body)
	// Resuming does not get around the limit either.
	_, resp, body = attempt(t, url+"?after=0")
	checkRefused(t, "the 21st stream, resuming", resp, body)

	streams[0].close()
	refusedThenFreed(t, url)
	_, resp, body = attempt(t, url)
	checkRefused(t, "the 21st stream after one was replaced", resp, body)
}

// TestStreamsPerClientBehindProxy: behind a trusted proxy each client has
// its own 20, counted by the address the proxy names.
func TestStreamsPerClientBehindProxy(t *testing.T) {
	s := apitest.Start(t, "", apitest.Options{TrustedProxies: "127.0.0.1/32, ::1/128"})
	url := s.URL + "/api/events"
	alice, bob := "X-Forwarded-For: 203.0.113.7", "X-Forwarded-For: 198.51.100.20"
	openStreams(t, perClient, url, alice)
	_, resp, body := attempt(t, url, alice)
	checkRefused(t, "alice's 21st stream", resp, body)
	// bob, behind the same proxy, is another client.
	openStreams(t, perClient, url, bob)
	_, resp, body = attempt(t, url, bob)
	checkRefused(t, "bob's 21st stream", resp, body)
	// A hop alice writes herself left of her address changes nothing.
	_, resp, body = attempt(t, url, "X-Forwarded-For: 192.0.2.1, 203.0.113.7")
	checkRefused(t, "alice with a forged hop", resp, body)
	// An IPv6 client's addresses count as its /64.
	for i := range perClient {
		openStreams(t, 1, url, fmt.Sprintf("X-Forwarded-For: 2001:db8:7:7::%x", i+1))
	}
	_, resp, body = attempt(t, url, "X-Forwarded-For: 2001:db8:7:7:ffff::1")
	checkRefused(t, "another address of a /64 holding 20 streams", resp, body)
	openStreams(t, 1, url, "X-Forwarded-For: 2001:db8:7:8::1")
}

// TestReplayIsTheLastThousandFromMemory: with more than 1,000 events, a
// resume from 0 (or from any older point) gets exactly the newest 1,000,
// in order, without reading the database: a replica started after the
// events, whose database handle is then closed, still replays them.
func TestReplayIsTheLastThousandFromMemory(t *testing.T) {
	const window, made = 1000, 1050
	s := apitest.Start(t, "")
	ctx := context.Background()
	for i := range made {
		if _, err := s.Svc.Event.PostAnnouncement(ctx, ctf.Operator, "News "+strconv.Itoa(i), "", ""); err != nil {
			t.Fatal(err)
		}
	}
	s.Sync()
	head := s.Svc.Stream.LastEvent()
	if head < made {
		t.Fatalf("head %d after %d announcements", head, made)
	}

	// A replica started now, over its own connections to the database,
	// which are closed once it has started.
	db := storetest.OpenDSN(t, s.DSN)
	log := slog.New(slog.DiscardHandler)
	svc := platform.New(db, platform.Options{PublicURL: s.URL, Logger: log, FilesDir: t.TempDir()})
	if err := svc.Load(ctx); err != nil {
		t.Fatal(err)
	}
	replica, _ := apitest.Serve(t, svc, server.Options{Log: log})
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		name, url string
		headers   []string
	}{
		{"after=0, the running server", s.URL + "/api/events?after=0", nil},
		{"after=0, the replica started after the events", replica.URL + "/api/events?after=0", nil},
		{"Last-Event-ID 5, the replica", replica.URL + "/api/events", []string{"Last-Event-ID: 5"}},
		{"after=head-1000, the replica", replica.URL + "/api/events?after=" + strconv.FormatInt(head-window, 10), nil},
	} {
		st := connect(t, c.url, c.headers...)
		for want := head - window + 1; want <= head; want++ {
			m := st.next()
			if m.ID != strconv.FormatInt(want, 10) || m.Event != "announcement" {
				t.Fatalf("%s: event %+v, want announcement %d (the newest %d of %d)", c.name, m, want, window, head)
			}
		}
		st.close()
	}
}
