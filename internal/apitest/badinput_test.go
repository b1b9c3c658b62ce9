package apitest

// Bad input to the public API: every malformed body, odd credential and
// strange slug gets the right 4xx as JSON {"error": "<sentence>"}, never a
// 5xx, and writes nothing.

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/transfer"
)

const biYAML = `
users:
  - {username: player, name: Player One, email: player@example.com}
  - {username: second, email: second@example.com}
challenges:
  - {slug: target, title: Target, categories: [misc], difficulty: Easy, points: 100, flags: ['flag{target}']}
  - {slug: other, title: Other, categories: [misc], difficulty: Easy, points: 50, flags: ['flag{other}']}
`

// biFixedNow pins the server clock so that the only write an authenticated
// read may make (an API key's lastUsedAt, at most once a minute) happens on
// the first request and never again during the test.
func biFixedNow() func() time.Time {
	at := time.Now().UTC().Truncate(time.Millisecond)
	return func() time.Time { return at }
}

// biWorld is what a request could change, as the API and the database see it.
type biWorld struct {
	target, other cxChallenge
	me            []byte // raw /me body
	dump          *dataset.Dataset
}

func biSnapshot(t *testing.T, s *Server, key string) biWorld {
	t.Helper()
	var w biWorld
	w.target = cxGetChallenge(t, s, "target", cxKeyHeader(key))
	w.other = cxGetChallenge(t, s, "other", cxKeyHeader(key))
	ex := cxSend(s, "GET", "/api/public/me", nil, cxKeyHeader(key))
	if ex.Err != nil || ex.Status != 200 {
		t.Fatalf("GET /me: %d %v", ex.Status, ex.Err)
	}
	w.me = ex.Body
	d, err := transfer.Dump(context.Background(), s.DB)
	if err != nil {
		t.Fatal(err)
	}
	w.dump = d
	return w
}

// biSameWorld reports what differs between two snapshots.
func biSameWorld(t *testing.T, what string, before, after biWorld) {
	t.Helper()
	if before.target.AttemptsCount != after.target.AttemptsCount || before.target.SolvesCount != after.target.SolvesCount ||
		before.other.AttemptsCount != after.other.AttemptsCount || before.other.SolvesCount != after.other.SolvesCount {
		t.Errorf("%s: counts changed: target %d/%d -> %d/%d, other %d/%d -> %d/%d (attempts/solves)", what,
			before.target.AttemptsCount, before.target.SolvesCount, after.target.AttemptsCount, after.target.SolvesCount,
			before.other.AttemptsCount, before.other.SolvesCount, after.other.AttemptsCount, after.other.SolvesCount)
	}
	if !bytes.Equal(before.me, after.me) {
		t.Errorf("%s: /me changed:\nbefore %s\nafter  %s", what, truncate(before.me), truncate(after.me))
	}
	if !reflect.DeepEqual(before.dump, after.dump) {
		t.Errorf("%s: the database changed: %d -> %d attempts, %d -> %d solves", what,
			len(before.dump.Attempts), len(after.dump.Attempts), len(before.dump.Solves), len(after.dump.Solves))
	}
}

// biCheckError checks a 4xx cxExchange: status, JSON error body, contract.
func biCheckError(t *testing.T, s *Server, what string, ex cxExchange, want ...int) string {
	t.Helper()
	if ex.Err != nil {
		t.Errorf("%s: %v", what, ex.Err)
		return ""
	}
	ok := false
	for _, w := range want {
		ok = ok || ex.Status == w
	}
	if !ok {
		t.Errorf("%s: status %d, want %v; body %s", what, ex.Status, want, truncate(ex.Body))
	}
	if ex.Status >= 500 {
		t.Errorf("%s: server error %d", what, ex.Status)
	}
	if ct := ex.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("%s: Content-Type %q, want JSON", what, ct)
	}
	msg, err := cxErrorMessage(ex.Body)
	if err != nil {
		t.Errorf("%s: %v", what, err)
	}
	if err := cxValidate(s, ex); err != nil {
		t.Errorf("%s: %v", what, err)
	}
	return msg
}

func biWithCT(h http.Header, ct string) http.Header {
	h = h.Clone()
	if ct == "" {
		h.Del("Content-Type")
	} else {
		h.Set("Content-Type", ct)
	}
	return h
}

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

// TestBadCredentials: every odd Authorization / X-API-Key is a 401 with a
// JSON error on required and optional-auth endpoints alike, and a submission
// carrying it writes nothing; the valid spellings work.
func TestBadCredentials(t *testing.T) {
	s := Start(t, biYAML, Options{Now: biFixedNow()})
	key := s.Key("player")
	otherKey := s.Key("second")
	revoked := s.Key("player")
	ctx := context.Background()
	u, err := s.DB.Accounts().UserByUsername(ctx, "player")
	if err != nil {
		t.Fatal(err)
	}
	keys, err := s.DB.Accounts().APIKeys(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if strings.HasPrefix(revoked, k.Prefix+"_") {
			if _, err := s.Svc.Keys.Revoke(ctx, ctf.Operator, u.ID, k.ID); err != nil {
				t.Fatal(err)
			}
		}
	}

	// flip changes the character of the key at i to another character of
	// the key alphabet (lowercase base32), so the key keeps its shape.
	flip := func(k string, i int) string {
		b := []byte(k)
		if b[i] == 'a' {
			b[i] = 'b'
		} else {
			b[i] = 'a'
		}
		return string(b)
	}
	prefixEnd := strings.LastIndex(key, "_")
	h := func(kv ...string) http.Header {
		hd := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			hd[kv[i]] = append(hd[kv[i]], kv[i+1])
		}
		return hd
	}
	const auth, xkey = "Authorization", "X-Api-Key"
	cases := []struct {
		name string
		hdr  http.Header
		ok   bool // a valid spelling: authenticates as player
		anon bool // no API key presented: anonymous where auth is optional
	}{
		{name: "Bearer alone", hdr: h(auth, "Bearer")},
		{name: "Bearer and spaces", hdr: h(auth, "Bearer  ")},
		{name: "empty Authorization", anon: true, hdr: h(auth, "")},
		{name: "key without scheme", anon: true, hdr: h(auth, key)},
		{name: "Basic", anon: true, hdr: h(auth, "Basic dXNlcjpwYXNz")},
		{name: "Basic with the key", anon: true, hdr: h(auth, "Basic "+key)},
		{name: "Token scheme", anon: true, hdr: h(auth, "Token "+key)},
		{name: "Bearer key extra", hdr: h(auth, "Bearer "+key+" extra")},
		{name: "Bearer key key", hdr: h(auth, "Bearer "+key+" "+key)},
		{name: "10 KB header", hdr: h(auth, "Bearer "+strings.Repeat("k", 10<<10))},
		{name: "10 KB header starting with the key", hdr: h(auth, "Bearer "+key+strings.Repeat("A", 10<<10))},
		{name: "one secret char changed", hdr: h(auth, "Bearer "+flip(key, len(key)-1))},
		{name: "one prefix char changed", hdr: h(auth, "Bearer "+flip(key, prefixEnd-1))},
		{name: "truncated key", hdr: h(auth, "Bearer "+key[:len(key)-1])},
		{name: "upper-cased key", hdr: h(auth, "Bearer "+strings.ToUpper(key))},
		{name: "key of another format", hdr: h(auth, "Bearer sk_live_4eC39HqLyjWDarjtT1zdp7dc")},
		{name: "non-ASCII bytes", hdr: h(auth, "Bearer \xff\xfe\xc3\xa9t\xc3\xa9")},
		{name: "key followed by non-ASCII", hdr: h(auth, "Bearer "+key+"\xc3\xa9")},
		{name: "revoked key", hdr: h(auth, "Bearer "+revoked)},
		{name: "X-API-Key empty", hdr: h(xkey, "")},
		{name: "X-API-Key with Bearer", hdr: h(xkey, "Bearer "+key)},
		{name: "X-API-Key wrong", hdr: h(xkey, flip(key, len(key)-1))},
		{name: "two Authorization headers", hdr: h(auth, "Bearer "+key, auth, "Bearer "+key)},
		{name: "two X-API-Key headers", hdr: h(xkey, key, xkey, key)},
		{name: "Authorization and X-API-Key of two users", hdr: h(auth, "Bearer "+key, xkey, otherKey)},
		{name: "valid Authorization, empty X-API-Key", hdr: h(auth, "Bearer "+key, xkey, "")},

		{name: "Bearer", hdr: h(auth, "Bearer "+key), ok: true},
		{name: "lowercase bearer", hdr: h(auth, "bearer "+key), ok: true},
		{name: "uppercase BEARER", hdr: h(auth, "BEARER "+key), ok: true},
		{name: "two spaces after Bearer", hdr: h(auth, "Bearer  "+key), ok: true},
		{name: "X-API-Key", hdr: h(xkey, key), ok: true},
		{name: "Authorization and X-API-Key agree", hdr: h(auth, "Bearer "+key, xkey, key), ok: true},
		{name: "X-API-Key beside a proxy's Basic credentials", hdr: h(auth, "Basic dXNlcjpwYXNz", xkey, key), ok: true},
	}
	biSnapshot(t, s, key)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := biSnapshot(t, s, key)
			me := cxSend(s, "GET", "/api/public/me", nil, tc.hdr)
			list := cxSend(s, "GET", "/api/public/challenges", nil, tc.hdr)
			detail := cxSend(s, "GET", "/api/public/challenges/target", nil, tc.hdr)
			sh := biWithCT(tc.hdr, "application/json")
			sub := cxSend(s, "POST", "/api/public/challenges/target/submit", cxFlagBody("nope"), sh)
			unknown := cxSend(s, "POST", "/api/public/challenges/no-such-challenge/submit", []byte(`{`), sh)
			after := biSnapshot(t, s, key)
			if tc.anon {
				// Another scheme than Bearer is not a key (a proxy's
				// credentials): anonymous, so 401 only where a key is needed.
				for _, ex := range []cxExchange{me, sub, unknown} {
					biCheckError(t, s, ex.Method+" "+ex.Path, ex, 401)
				}
				for _, ex := range []cxExchange{list, detail} {
					if ex.Status != 200 {
						t.Errorf("%s %s: %d, want 200 as an anonymous caller", ex.Method, ex.Path, ex.Status)
					} else if bytes.Contains(ex.Body, []byte(`"solved":true`)) {
						t.Errorf("%s %s: answered as the key's owner", ex.Method, ex.Path)
					}
				}
				biSameWorld(t, tc.name, before, after)
				return
			}
			if !tc.ok {
				for _, ex := range []cxExchange{me, list, detail, sub, unknown} {
					biCheckError(t, s, ex.Method+" "+ex.Path, ex, 401)
					if ex.Status == 401 && ex.Header.Get("WWW-Authenticate") == "" {
						t.Errorf("%s %s: 401 without WWW-Authenticate", ex.Method, ex.Path)
					}
				}
				biSameWorld(t, tc.name, before, after)
				return
			}
			for _, ex := range []cxExchange{me, list, detail} {
				if ex.Status != 200 {
					t.Errorf("%s %s: %d %s, want 200", ex.Method, ex.Path, ex.Status, truncate(ex.Body))
				}
				if err := cxValidate(s, ex); err != nil {
					t.Error(err)
				}
			}
			var p struct {
				Profile cxProfile `json:"profile"`
			}
			if err := json.Unmarshal(me.Body, &p); err != nil || p.Profile.Username != "player" {
				t.Errorf("/me is %q (%v), want player", p.Profile.Username, err)
			}
			if msg := biCheckError(t, s, "submit", sub, 400); msg != "wrong flag" {
				t.Errorf("submit: %q, want the wrong-flag answer", msg)
			}
			biCheckError(t, s, "submit to an unknown slug", unknown, 404)
			if after.target.AttemptsCount != before.target.AttemptsCount+1 {
				t.Errorf("attemptsCount %d -> %d, want one more (a checked wrong flag)", before.target.AttemptsCount, after.target.AttemptsCount)
			}
		})
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
			} {
				ex := cxSend(s, tc.method, tc.path, tc.body, tc.hdr)
				biCheckError(t, s, tc.method+" "+name, ex, tc.want)
			}
			biSameWorld(t, name, before, biSnapshot(t, s, key))
		})
	}
}
