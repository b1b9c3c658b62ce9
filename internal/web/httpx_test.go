package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/store"
)

// TestRetryAfterRoundsUpAtEveryDoor: a wait of a fraction of a second more
// than whole seconds is told rounded up, by the web app's flag form as by
// the API, so that a client that waits what it is told is not refused
// again (the web app rounded down once). The page's words agree.
func TestRetryAfterRoundsUpAtEveryDoor(t *testing.T) {
	t.Parallel()
	start := time.Now().UTC().Truncate(time.Millisecond)
	var elapsed atomic.Int64
	now := func() time.Time { return start.Add(time.Duration(elapsed.Load())) }
	s := apitest.Start(t, event, apitest.Options{RateLimit: store.RateLimit{Max: 3, Window: 10 * time.Minute}, Now: now})
	b := newBrowser(t, s)
	b.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})
	for i := range 3 {
		want(t, "wrong flag", b.send("/challenges/warmup/submit", url.Values{"flag": {"flag{guess" + string(rune('0'+i)) + "}"}}), 200, "Wrong flag.")
	}
	// 14.6 s are left of the window: 15 to wait, not 14.
	elapsed.Store(int64(9*time.Minute + 45*time.Second + 400*time.Millisecond))
	p := b.send("/challenges/warmup/submit", url.Values{"flag": {"flag{guess3}"}})
	want(t, "the flag form", p, 200, "wait 15 seconds before the next try")
	if got := p.header.Get("Retry-After"); got != "15" {
		t.Errorf("the flag form: Retry-After %q, want 15", got)
	}
	r := s.Do("POST", "/api/public/challenges/warmup/submit", []byte(`{"flag":"flag{guess3}"}`),
		apitest.Bearer(s.Key("pam")), "Content-Type: application/json")
	if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") != "15" {
		t.Errorf("the API: %d with Retry-After %q, want 429 with 15", r.Status, r.Header.Get("Retry-After"))
	}
}

// TestGzipFollowsTheWeights: pages and static files are gzipped as
// Accept-Encoding's weights say: "gzip;q=0" refuses it (the web app once
// gzipped whatever named gzip), and the wildcard takes it.
func TestGzipFollowsTheWeights(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	b := newBrowser(t, s)
	css := regexp.MustCompile(`/static/[^"]+\.css`).FindString(b.get("/").body)
	if css == "" {
		t.Fatal("the board links no stylesheet")
	}
	for _, path := range []string{"/", css} {
		for _, tc := range []struct {
			accept, coding string
		}{
			{"gzip", "gzip"},
			{"gzip;q=0.5, br", "gzip"},
			{"*", "gzip"},
			{"gzip;q=0", ""},
			{"br, gzip;q=0, *", ""},
			{"*;q=0", ""},
			{"identity", ""},
		} {
			p := b.do("GET", path, nil, "Accept-Encoding: "+tc.accept)
			if p.status != http.StatusOK || p.header.Get("Content-Encoding") != tc.coding {
				t.Errorf("%s with Accept-Encoding %q: %d, Content-Encoding %q; want 200, %q",
					path, tc.accept, p.status, p.header.Get("Content-Encoding"), tc.coding)
			}
		}
	}
}
