package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
)

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
