package api

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/httpx"
)

// TestLeaderboardPages: limit and offset give the slice of the whole board,
// byte for byte, plain and gzip, with ETags and 304s like the board's; bad
// values are 400 with a sentence naming the parameter.
func TestLeaderboardPages(t *testing.T) {
	t.Parallel()
	f := newBoardFixture(t, 150)
	h := New(f.svc, slog.New(slog.DiscardHandler))
	h.board.every = testEvery
	const board = "/api/public/leaderboard"
	whole, entries := wholeBoard(f.svc)
	n := len(entries)
	if n < 20 {
		t.Fatalf("%d ranked players: too few for the test", n)
	}

	valid := []struct {
		query  string
		lo, hi int
	}{
		{"", 0, n},
		{"?limit=1", 0, 1},
		{"?limit=10", 0, 10},
		{"?limit=10&offset=5", 5, 15},
		{"?offset=5&limit=10", 5, 15},
		{"?offset=0", 0, n},
		{"?offset=3", 3, n},
		{"?offset=007&limit=003", 7, 10},
		{"?limit=1000", 0, n},
		{"?limit=1000&offset=0", 0, n},
		{"?offset=" + strconv.Itoa(n-2) + "&limit=5", n - 2, n},
		{"?offset=" + strconv.Itoa(n), n, n},
		{"?offset=" + strconv.Itoa(n+1) + "&limit=7", n, n},
		{"?offset=99999999999999999999999999", n, n},
		{"?page=2", 0, n},                  // other parameters are ignored, as before
		{"?limit=4&_=1700000000", 0, 4},    // a cache buster
		{"?limit=2&offset=1&page=9", 1, 3}, // likewise
	}
	for _, c := range valid {
		t.Run("valid "+c.query, func(t *testing.T) {
			want := pageOf(entries, c.lo, c.hi)
			if c.lo == 0 && c.hi == n && !bytes.Equal(want, whole) {
				t.Fatal("the whole page is not the board")
			}
			plain, tag := readBoard(t, h, board+c.query, false, "")
			if !bytes.Equal(plain, want) {
				t.Fatalf("GET %s:\n got %.300s\nwant %.300s", c.query, plain, want)
			}
			if c.lo == 0 && c.hi == n && !bytes.Equal(plain, whole) {
				t.Fatalf("GET %s is not the whole board", c.query)
			}
			if gz, gzTag := readBoard(t, h, board+c.query, true, ""); !bytes.Equal(gz, want) {
				t.Fatalf("GET %s gzip: other bytes", c.query)
			} else if len(want) >= gzipMin && gzTag != codedTag(tag, true) {
				t.Fatalf("GET %s gzip: ETag %s, want %s", c.query, gzTag, codedTag(tag, true))
			}
			for _, inm := range []string{tag, codedTag(tag, true), `"other", ` + tag} {
				if got, _ := readBoard(t, h, board+c.query, true, inm); got != nil {
					t.Errorf("GET %s with If-None-Match %s: not 304", c.query, inm)
				}
			}
			if got, _ := readBoard(t, h, board+c.query, false, `"stale"`); !bytes.Equal(got, want) {
				t.Errorf("GET %s with a stale If-None-Match: other bytes", c.query)
			}
			head := serve(h, "HEAD", board+c.query, "Accept-Encoding: gzip")
			get := serve(h, "GET", board+c.query, "Accept-Encoding: gzip")
			if head.Code != 200 || head.Body.Len() != 0 || head.Header().Get("ETag") != get.Header().Get("ETag") ||
				head.Header().Get("Content-Length") != get.Header().Get("Content-Length") {
				t.Errorf("HEAD %s: %d, %d body bytes, ETag %s, length %s; GET: ETag %s, length %s", c.query, head.Code, head.Body.Len(),
					head.Header().Get("ETag"), head.Header().Get("Content-Length"), get.Header().Get("ETag"), get.Header().Get("Content-Length"))
			}
		})
	}

	invalid := []struct{ query, names string }{
		{"?limit=0", "limit"},
		{"?limit=1001", "limit"},
		{"?limit=-1", "limit"},
		{"?limit=abc", "limit"},
		{"?limit=", "limit"},
		{"?limit=1.5", "limit"},
		{"?limit=%2B5", "limit"},
		{"?limit=%205", "limit"},
		{"?limit=1e3", "limit"},
		{"?limit=0x10", "limit"},
		{"?limit=99999999999999999999999999", "limit"},
		{"?offset=-1", "offset"},
		{"?offset=x", "offset"},
		{"?offset=", "offset"},
		{"?offset=1.0", "offset"},
		{"?limit=1&limit=2", "limit"},
		{"?offset=1&offset=1", "offset"},
		{"?offset=-1&limit=5", "offset"},
	}
	for _, c := range invalid {
		t.Run("invalid "+c.query, func(t *testing.T) {
			w := serve(h, "GET", board+c.query)
			var body struct {
				Error string `json:"error"`
			}
			if w.Code != http.StatusBadRequest || json.Unmarshal(w.Body.Bytes(), &body) != nil || body.Error == "" {
				t.Fatalf("GET %s: %d %s, want 400 {\"error\"}", c.query, w.Code, w.Body.Bytes())
			}
			if ct := w.Header().Get("Content-Type"); ct != httpx.ContentTypeJSON {
				t.Errorf("GET %s: Content-Type %q", c.query, ct)
			}
			if !strings.HasPrefix(body.Error, c.names+" ") {
				t.Errorf("GET %s: error %q does not name %s first", c.query, body.Error, c.names)
			}
		})
	}

	t.Run("a page follows the board", func(t *testing.T) {
		const page = board + "?offset=0&limit=10"
		_, tag := readBoard(t, h, page, false, "")
		rng := rand.New(rand.NewPCG(3, 3))
		before := string(pageOf(entries, 0, 10))
		for i := 0; i < 200; i++ {
			f.solve(rng)
			if err := h.WaitLeaderboard(context.Background()); err != nil {
				t.Fatal(err)
			}
			_, entries = wholeBoard(f.svc)
			if string(pageOf(entries, 0, 10)) != before {
				break
			}
		}
		want := pageOf(entries, 0, 10)
		if string(want) == before {
			t.Fatal("200 solves did not change the top 10")
		}
		if got, _ := readBoard(t, h, page, false, tag); !bytes.Equal(got, want) {
			t.Errorf("the top 10 after it changed, revalidated with the old ETag: got %.200s", got)
		}
	})
}
