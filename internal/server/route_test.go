package server_test

import (
	"bytes"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
)

// TestExactRoutesAnswerAsTheMuxes: the API's reads at a fixed path, which
// the server sends straight to their handler, answer exactly what the two
// muxes answer. A path spelled with a percent-encoded letter is the same
// route to the muxes but not to the shortcut, so each request is sent both
// ways and the answers compared: status, every header but Date, body.
func TestExactRoutesAnswerAsTheMuxes(t *testing.T) {
	t.Parallel()
	s := apitest.StartGolden(t)
	key := apitest.Bearer(s.Key("carol"))
	board := s.DoRaw("GET", "/api/public/leaderboard", nil)
	list := s.DoRaw("GET", "/api/public/challenges", nil)
	for _, c := range []struct {
		method, path string
		headers      []string
	}{
		{"GET", "/api/public/challenges", nil},
		{"HEAD", "/api/public/challenges", nil},
		{"GET", "/api/public/challenges", []string{"Accept-Encoding: gzip"}},
		{"GET", "/api/public/challenges", []string{"If-None-Match: " + list.Header.Get("ETag")}},
		{"GET", "/api/public/challenges", []string{key}},
		{"GET", "/api/public/challenges", []string{key, "Accept-Encoding: gzip"}},
		{"GET", "/api/public/challenges", []string{"Authorization: Bearer fsk_not-a-key"}},
		{"GET", "/api/public/leaderboard", nil},
		{"HEAD", "/api/public/leaderboard", []string{"Accept-Encoding: gzip"}},
		{"GET", "/api/public/leaderboard", []string{"Accept-Encoding: gzip"}},
		{"GET", "/api/public/leaderboard", []string{"If-None-Match: " + board.Header.Get("ETag")}},
		{"GET", "/api/public/leaderboard?limit=2&offset=1", nil},
		{"GET", "/api/public/leaderboard?limit=0", nil},
		{"GET", "/api/public/me", []string{key}},
		{"GET", "/api/public/me", nil},
		{"GET", "/api/public/health", nil},
		{"GET", "/api/public/openapi.json", []string{"Accept-Encoding: gzip"}},
		// Not shortcut: the muxes answer both spellings.
		{"POST", "/api/public/challenges", nil},
		{"OPTIONS", "/api/public/challenges", []string{"Origin: https://elsewhere.example", "Access-Control-Request-Method: GET"}},
	} {
		name := c.method + " " + c.path + " " + strings.Join(c.headers, ", ")
		short := s.DoRaw(c.method, c.path, nil, c.headers...)
		muxed := s.DoRaw(c.method, escapeFirst(c.path), nil, c.headers...)
		short.Header.Del("Date")
		muxed.Header.Del("Date")
		if short.Status != muxed.Status || !reflect.DeepEqual(short.Header, muxed.Header) || !bytes.Equal(short.Body, muxed.Body) {
			t.Errorf("%s:\nshortcut %d %v\n%.200s\nmuxes    %d %v\n%.200s", name, short.Status, short.Header, short.Body,
				muxed.Status, muxed.Header, muxed.Body)
		}
		if c.method == "GET" && c.path == "/api/public/challenges" && len(c.headers) == 0 && short.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: no CORS", name)
		}
	}
}

// escapeFirst percent-encodes the first letter after /api/public/: the
// same route, another spelling.
func escapeFirst(path string) string {
	const digits, at = "0123456789ABCDEF", len("/api/public/")
	return path[:at] + "%" + string([]byte{digits[path[at]>>4], digits[path[at]&15]}) + path[at+1:]
}

// TestExactRoutesAreTheMuxRoutes: a shortcut route reports the pattern the
// API's mux would have matched, which the metrics label requests by.
func TestExactRoutesAreTheMuxRoutes(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, "", apitest.Options{Metrics: true})
	for _, path := range []string{"/api/public/challenges", "/api/public/%63hallenges", "/api/public/leaderboard?limit=1"} {
		if r := s.DoRaw(http.MethodGet, path, nil); r.Status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
		}
	}
	fams, err := s.Metrics.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range fams {
		if f.GetName() != "flagship_http_requests_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			got[strings.Join(labels, ",")] = m.GetCounter().GetValue()
		}
	}
	want := map[string]float64{
		"code=200,method=GET,route=/api/public/challenges":  2,
		"code=200,method=GET,route=/api/public/leaderboard": 1,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("requests by label %v, want %v", got, want)
	}
}
