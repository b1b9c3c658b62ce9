package apitest

// Bad input to the public API: every malformed body, odd credential and
// strange slug gets the right 4xx as JSON {"error": "<sentence>"}, never a
// 5xx, and writes nothing.

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// TestBadSubmitBodies: every invalid body is a 400 (or 413 for a body over
// the limit) with a JSON error, and nothing is recorded; a flag of exactly
// 1024 bytes is checked (and recorded as a wrong attempt).
func TestBadSubmitBodies(t *testing.T) {
	s := Start(t, biYAML, Options{Now: biFixedNow()})
	key := s.Key("player")
	hdr := cxJSONHeader(key)
	const path = "/api/public/challenges/target/submit"

	long := func(n int) string { return strings.Repeat("a", n) }
	cases := []struct {
		name     string
		body     []byte
		ct       string // Content-Type; "-" for none
		want     []int
		recorded string // the flag recorded as a wrong attempt ("" for none)
	}{
		{name: "malformed JSON", body: []byte(`{"flag": "x"`), want: []int{400}},
		{name: "not JSON at all", body: []byte(`flag=flag{target}`), want: []int{400}},
		{name: "array", body: []byte(`[]`), want: []int{400}},
		{name: "array of object", body: []byte(`[{"flag":"x"}]`), want: []int{400}},
		{name: "null", body: []byte(`null`), want: []int{400}},
		{name: "string", body: []byte(`"flag"`), want: []int{400}},
		{name: "number", body: []byte(`42`), want: []int{400}},
		{name: "flag null", body: []byte(`{"flag": null}`), want: []int{400}},
		{name: "flag number", body: []byte(`{"flag": 123}`), want: []int{400}},
		{name: "flag bool", body: []byte(`{"flag": true}`), want: []int{400}},
		{name: "flag array", body: []byte(`{"flag": ["x"]}`), want: []int{400}},
		{name: "flag object", body: []byte(`{"flag": {"a":1}}`), want: []int{400}},
		{name: "no flag", body: []byte(`{}`), want: []int{400}},
		{name: "other key only", body: []byte(`{"flags": "x"}`), want: []int{400}},
		{name: "empty flag", body: []byte(`{"flag": ""}`), want: []int{400}},
		{name: "whitespace flag", body: []byte(`{"flag": "   \t\n"}`), want: []int{400}},
		{name: "unicode whitespace flag", body: []byte(`{"flag": "\u00a0\u2003\r\n"}`), want: []int{400}},
		{name: "flag of 1025 bytes", body: cxFlagBody(long(1025)), want: []int{400}},
		{name: "flag of 1025 bytes in 2-byte runes", body: cxFlagBody(strings.Repeat("é", 512) + "a"), want: []int{400}},
		{name: "flag of 2000 bytes", body: cxFlagBody(long(2000)), want: []int{400}},
		{name: "invalid UTF-8 in the flag", body: []byte("{\"flag\": \"\xff\xfeabc\"}"), want: []int{400}},
		{name: "invalid UTF-8 after the object", body: []byte("{\"flag\": \"abc\"}\xc3"), want: []int{400}},
		{name: "lone continuation byte", body: []byte("{\"flag\": \"\x80\"}"), want: []int{400}},
		{name: "70 KB body", body: cxFlagBody(long(70 << 10)), want: []int{400, 413}},
		{name: "70 KB of whitespace then an object", body: append(bytes.Repeat([]byte(" "), 70<<10), `{"flag":"x"}`...), want: []int{400, 413}},
		{name: "trailing garbage", body: []byte(`{"flag":"x"} x`), want: []int{400}},
		{name: "two objects", body: []byte(`{"flag":"x"}{"flag":"y"}`), want: []int{400}},
		{name: "two objects on two lines", body: []byte("{\"flag\":\"x\"}\n{\"flag\":\"y\"}"), want: []int{400}},
		{name: "Content-Type text/html", body: []byte(`{"flag":"x"}`), ct: "text/html", want: []int{400}},
		{name: "Content-Type multipart", body: []byte(`{"flag":"x"}`), ct: "multipart/form-data; boundary=x", want: []int{400}},
		{name: "malformed Content-Type", body: []byte(`{"flag":"x"}`), ct: "application/json; charset", want: []int{400}},
		{name: "empty body", body: []byte{}, want: []int{400}},
		{name: "no body, no Content-Type", body: nil, ct: "-", want: []int{400}},
		{name: "whitespace body", body: []byte(" \n\t "), want: []int{400}},

		// The boundary: 1024 bytes after trimming is a flag, checked and
		// recorded as a wrong attempt.
		{name: "flag of exactly 1024 bytes", body: cxFlagBody(long(1024)), want: []int{400}, recorded: long(1024)},
		{name: "flag of 1024 bytes with surrounding whitespace", body: cxFlagBody("  \t" + long(1023) + "b\n "), want: []int{400}, recorded: long(1023) + "b"},
		{name: "flag of 1024 bytes in 2-byte runes", body: cxFlagBody(strings.Repeat("é", 512)), want: []int{400}, recorded: strings.Repeat("é", 512)},
	}
	// The first authenticated request stamps the key's lastUsedAt.
	biSnapshot(t, s, key)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := biSnapshot(t, s, key)
			h := hdr
			switch tc.ct {
			case "":
			case "-":
				h = biWithCT(hdr, "")
			default:
				h = biWithCT(hdr, tc.ct)
			}
			ex := cxSend(s, "POST", path, tc.body, h)
			msg := biCheckError(t, s, tc.name, ex, tc.want...)
			after := biSnapshot(t, s, key)
			if tc.recorded == "" {
				if msg == "wrong flag" {
					t.Errorf("the body was checked as a flag (%q), want an invalid-body error", msg)
				}
				biSameWorld(t, tc.name, before, after)
				return
			}
			// A checked wrong flag: one attempt more, nothing else.
			if msg != "wrong flag" {
				t.Errorf("message %q, want the wrong-flag answer", msg)
			}
			if after.target.AttemptsCount != before.target.AttemptsCount+1 || after.target.SolvesCount != before.target.SolvesCount {
				t.Errorf("attempts %d -> %d, solves %d -> %d; want one more attempt", before.target.AttemptsCount,
					after.target.AttemptsCount, before.target.SolvesCount, after.target.SolvesCount)
			}
			if n := len(after.dump.Attempts); n != len(before.dump.Attempts)+1 {
				t.Errorf("database attempts %d -> %d, want one more", len(before.dump.Attempts), n)
			} else if got := after.dump.Attempts[n-1]; got.Flag != tc.recorded || got.User != "player" || got.Challenge != "target" {
				t.Errorf("recorded attempt %s/%s flag of %d bytes, want player/target and the trimmed flag (%d bytes)",
					got.User, got.Challenge, len(got.Flag), len(tc.recorded))
			}
		})
	}

	// The body is checked before "already solved": an invalid body to a
	// solved challenge is still 400, and a valid one 409; neither writes.
	ok := cxSend(s, "POST", path, cxFlagBody(" flag{target} "), hdr)
	if ok.Status != 200 {
		t.Fatalf("solve: %d %s", ok.Status, ok.Body)
	}
	for _, tc := range []struct {
		name string
		body []byte
		want int
	}{
		{"invalid body after the solve", []byte(`{}`), 400},
		{"1025-byte flag after the solve", cxFlagBody(long(1025)), 400},
		{"wrong flag after the solve", cxFlagBody("nope"), 409},
		{"right flag again", cxFlagBody("flag{target}"), 409},
	} {
		before := biSnapshot(t, s, key)
		biCheckError(t, s, tc.name, cxSend(s, "POST", path, tc.body, hdr), tc.want)
		biSameWorld(t, tc.name, before, biSnapshot(t, s, key))
	}
}

// TestBadSlugs: unknown slugs made of odd characters are 404 JSON on every
// slug route (401 first on the routes that need a key), and nothing is
// written.
func TestBadSlugs(t *testing.T) {
	s := Start(t, biYAML, Options{Now: biFixedNow()})
	key := s.Key("player")
	slugs := map[string]string{
		"NUL":               "%00",
		"NUL in a word":     "tar%00get",
		"dot-dot slash":     "..%2f..",
		"dot-dot slash up":  "..%2F..%2F..%2Fetc%2Fpasswd",
		"encoded slash":     "target%2Fsubmit",
		"encoded dots":      "%2e%2e",
		"500 characters":    strings.Repeat("a", 500),
		"5000 characters":   strings.Repeat("x", 5000),
		"invalid UTF-8":     "%ff%fe",
		"non-ASCII":         "t%C3%A4rget",
		"upper case":        "TARGET",
		"space":             "target%20",
		"quote and bracket": "%22%3Cscript%3E",
		"SQL":               "target'%20OR%20'1'='1",
		"percent":           "%25",
		"newline":           "target%0A",
	}
	biSnapshot(t, s, key)
	for name, slug := range slugs {
		t.Run(name, func(t *testing.T) {
			before := biSnapshot(t, s, key)
			base := "/api/public/challenges/" + slug
			for _, tc := range []struct {
				method, path string
				hdr          http.Header
				body         []byte
				want         int
			}{
				{"GET", base, nil, nil, 404},
				{"GET", base, cxKeyHeader(key), nil, 404},
				{"POST", base + "/submit", cxJSONHeader(key), cxFlagBody("flag{target}"), 404},
				{"POST", base + "/submit", cxJSONHeader(key), []byte(`{`), 404},
				{"POST", base + "/submit", biWithCT(http.Header{}, "application/json"), cxFlagBody("x"), 401},
				{"GET", base + "/writeups", cxKeyHeader(key), nil, 404},
				{"GET", base + "/writeups", nil, nil, 401},
				{"GET", base + "/hints", nil, nil, 404},
				{"GET", base + "/hints", cxKeyHeader(key), nil, 404},
				{"POST", base + "/hints/1/unlock", cxKeyHeader(key), nil, 404},
				{"POST", base + "/hints/1/unlock", nil, nil, 401},
			} {
				ex := cxSend(s, tc.method, tc.path, tc.body, tc.hdr)
				biCheckError(t, s, tc.method+" "+name, ex, tc.want)
			}
			biSameWorld(t, name, before, biSnapshot(t, s, key))
		})
	}
}
