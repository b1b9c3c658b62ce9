package api

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/testtime"
)

// readBoard GETs path from h and checks that the answer is a complete,
// valid body: plain or gzip as asked, its length as announced, its ETag
// the bytes' own. It returns the plain bytes (nil on 304).
func readBoard(t testing.TB, h http.Handler, path string, gz bool, ifNoneMatch string) ([]byte, string) {
	t.Helper()
	var headers []string
	if gz {
		headers = append(headers, "Accept-Encoding: gzip")
	}
	if ifNoneMatch != "" {
		headers = append(headers, "If-None-Match: "+ifNoneMatch)
	}
	w := serve(h, "GET", path, headers...)
	tag := w.Header().Get("ETag")
	if w.Code == http.StatusNotModified && ifNoneMatch != "" {
		return nil, tag
	}
	if w.Code != http.StatusOK {
		t.Errorf("GET %s: status %d: %s", path, w.Code, w.Body.Bytes())
		return nil, ""
	}
	body := w.Body.Bytes()
	if n, _ := strconv.Atoi(w.Header().Get("Content-Length")); n != len(body) {
		t.Errorf("GET %s: Content-Length %d, body %d bytes", path, n, len(body))
	}
	plain := body
	if w.Header().Get("Content-Encoding") == "gzip" {
		plain = gunzip(t, body)
	}
	if !json.Valid(plain) {
		t.Errorf("GET %s: not JSON: %.200s", path, plain)
	}
	if want := codedTag(ETag(plain), w.Header().Get("Content-Encoding") == "gzip"); tag != want {
		t.Errorf("GET %s: ETag %s, the bytes' is %s", path, tag, want)
	}
	return plain, tag
}

// serve sends h a request with headers ("Name: value") and returns the
// answer.
func serve(h http.Handler, method, path string, headers ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, nil)
	for _, hd := range headers {
		k, v, _ := strings.Cut(hd, ":")
		r.Header.Add(k, strings.TrimSpace(v))
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// TestBoardBurstCoalesces fires bursts of solves from several goroutines
// while others read the leaderboard (plain, gzip, revalidating, pages):
// every read is a complete, valid version; a burst costs no more builds
// than the board moved (readers wait for the build in progress); and once
// the solves stop
// the board comes to equal a whole encoding of the service's board with no
// reader asking for it. Deadlines only bound the waits.
func TestBoardBurstCoalesces(t *testing.T) {
	t.Parallel()
	f := newBoardFixture(t, 200)
	h := New(f.svc, slog.New(slog.DiscardHandler))
	h.board.every = testEvery
	const path = "/api/public/leaderboard"
	readBoard(t, h, path, false, "") // the first read builds; from then on moves do

	burst := func(seed uint64, solves int) {
		var stop atomic.Bool
		var readers, solvers sync.WaitGroup
		for i := range 4 {
			readers.Add(1)
			go func() {
				defer readers.Done()
				tag := ""
				for n := 0; !stop.Load(); n++ {
					p := path
					if n%3 == 2 {
						p += "?offset=" + strconv.Itoa(n%20) + "&limit=" + strconv.Itoa(1+n%50)
					}
					inm := ""
					if n%4 == 3 {
						inm = tag
					}
					if _, got := readBoard(t, h, p, (n+i)%2 == 0, inm); p == path && (n+i)%2 == 0 {
						tag = got
					}
				}
			}()
		}
		for i := range 4 {
			solvers.Add(1)
			go func() {
				defer solvers.Done()
				rng := rand.New(rand.NewPCG(seed, uint64(i)))
				for range solves / 4 {
					f.solve(rng)
				}
			}()
		}
		solvers.Wait()
		stop.Store(true)
		readers.Wait()
	}
	// settled waits, reading as any client would, until the board served is
	// a whole encoding of the service's board.
	settled := func(what string) {
		t.Helper()
		deadline := time.Now().Add(testtime.Scale(30 * time.Second))
		for {
			whole, _ := wholeBoard(f.svc)
			got, _ := readBoard(t, h, path, true, "")
			if bytes.Equal(got, whole) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the board served still differs from the service's board", what)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	// At the default interval, builds follow the solves on their own.
	burst(1, 80)
	settled("after a burst at the default interval")

	// An interval longer than any burst: no scheduled build runs, the
	// readers build what they find stale, one build at a time, and never
	// more builds than the board moved.
	h.SetLeaderboardInterval(time.Hour)
	before, moves := h.board.builds.Load(), f.svc.Scoreboard.LeaderboardVersion()
	burst(2, 80)
	if n, m := h.board.builds.Load()-before, f.svc.Scoreboard.LeaderboardVersion()-moves; uint64(n) > m {
		t.Errorf("a burst built the board %d times for %d moves", n, m)
	}
	h.SetLeaderboardInterval(0)
	settled("after a burst inside one interval")
	if err := h.WaitLeaderboard(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestBoardReadsItsWrites: a read right after a solve shows it, whatever
// the interval of the scheduled builds: a client that was told 200 finds
// its solve on the board at once.
func TestBoardReadsItsWrites(t *testing.T) {
	t.Parallel()
	f := newBoardFixture(t, 60)
	h := New(f.svc, slog.New(slog.DiscardHandler))
	h.board.every = testEvery
	h.SetLeaderboardInterval(time.Hour)
	const path = "/api/public/leaderboard"
	rng := rand.New(rand.NewPCG(3, 3))
	for i := range 40 {
		f.solve(rng)
		whole, _ := wholeBoard(f.svc)
		got, _ := readBoard(t, h, path, i%2 == 0, "")
		if !bytes.Equal(got, whole) {
			t.Fatalf("step %d: the board read right after a solve is not the service's board", i)
		}
	}
}
