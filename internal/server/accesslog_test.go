package server

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/clientaddr"
)

// TestAccessLineAsSlogWritesIt: the line put together by hand is, byte for
// byte, what slog's text and JSON handlers write for the same request, over
// odd methods, paths, peers (behind a trusted proxy or not), statuses,
// durations, times and zones; the values they would quote or escape go
// through the handler itself.
func TestAccessLineAsSlogWritesIt(t *testing.T) {
	t.Parallel()
	methods := []string{"GET", "PROPFIND", "BAD=METHOD"}
	paths := []string{"/api/public/challenges", "/", "", "/a b", "/a=b", `/"q"`, `/back\slash`, "/ü", "/tab\t", "/\x7f", "/~!$&'()*+,;:@"}
	peers := []string{"127.0.0.1:40000", "[::1]:443", "[::ffff:10.1.2.3]:80", "[fe80::1%eth0]:80", "203.0.113.9", "pipe", ""}
	zones := []*time.Location{time.UTC, time.FixedZone("IST", 5*3600+1800), time.FixedZone("PST", -8*3600), time.Local}
	ends := []time.Time{
		time.Date(2026, 11, 26, 9, 1, 2, 0, time.UTC),
		time.Date(2026, 11, 26, 9, 1, 2, 999_999_999, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 100_000, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Now(), // with a monotonic reading, as the middleware's
	}
	durations := []time.Duration{0, 1, 999, time.Microsecond, 152_300, 1_500_000, 2 * time.Second, time.Hour + 2*time.Minute + 3400*time.Millisecond, -5}
	trusted, err := clientaddr.Parse("127.0.0.0/8, ::1")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, json := range []bool{false, true} {
		for _, proxies := range []bool{false, true} {
			// One log for every line, as serve's: what it keeps from a
			// line (the second of its time) must not show in the next.
			var got bytes.Buffer
			l := newAccessLog(AccessLog{Out: &got, JSON: json}, proxies)
			for i, path := range paths {
				for j, peer := range peers {
					r := httptest.NewRequest("GET", "/", nil)
					r.Method, r.URL.Path, r.RemoteAddr = methods[(i+j)%len(methods)], path, peer
					r.Header.Set("X-Forwarded-For", "198.51.100.7")
					if proxies {
						trusted.Middleware(http.HandlerFunc(func(_ http.ResponseWriter, req *http.Request) { r = req })).ServeHTTP(nil, r)
					}
					for k, end := range ends {
						end = end.In(zones[(i+k)%len(zones)])
						rec := &recorder{status: []int{0, 200, 404}[(j+k)%3], bytes: 8449 * k}
						took := durations[(i+j+k)%len(durations)]
						var want bytes.Buffer
						var h slog.Handler = slog.NewTextHandler(&want, nil)
						if json {
							h = slog.NewJSONHandler(&want, nil)
						}
						got.Reset()
						l.log(r, rec, end, took)
						logRequest(h, r, rec, end, took)
						if got.String() != want.String() {
							t.Errorf("json %v, proxies %v:\ngot  %q\nwant %q", json, proxies, got.String(), want.String())
						}
						n++
					}
				}
			}
		}
	}
	// A well-formed request's line is made by hand: the comparison above
	// is of that, not of the handler with itself.
	l := newAccessLog(AccessLog{Out: &bytes.Buffer{}}, false)
	for _, peer := range []string{"127.0.0.1:40000", "[::1]:443", "[fe80::1%eth0]:80"} {
		r := httptest.NewRequest("GET", "/api/public/leaderboard?limit=10", nil)
		r.RemoteAddr = peer
		if _, ok := l.appendLine(nil, r, &recorder{status: 200}, time.Now(), time.Millisecond); !ok {
			t.Errorf("GET /api/public/leaderboard from %s: the handler's line", peer)
		}
	}
	t.Logf("%d lines compared", n)
}
