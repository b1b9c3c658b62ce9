package apitest

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/secret"
)

// itFlip changes the last character of a key's secret, keeping its shape
// and prefix: the lookup finds the key, the hash does not match.
func itFlip(key string) string {
	last := key[len(key)-1]
	repl := byte('a')
	if last == 'a' {
		repl = 'b'
	}
	return key[:len(key)-1] + string(repl)
}

func TestIntegrationAuthMeans(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	alice, bob := s.Key("alice"), s.Key("bob")
	revoked := itRevokedKey(t, s, "alice")
	unknown, _, _ := secret.NewAPIKey()
	cases := []struct {
		name    string
		headers []string
		ok      bool
		anon    bool // no API key presented (another scheme than Bearer)
	}{
		{"bearer", []string{"Authorization: Bearer " + alice}, true, false},
		{"x-api-key", []string{"X-API-Key: " + alice}, true, false},
		{"both, equal", []string{"Authorization: Bearer " + alice, "X-API-Key: " + alice}, true, false},
		{"scheme is case-insensitive", []string{"Authorization: bearer " + alice}, true, false},
		{"both, different", []string{"Authorization: Bearer " + alice, "X-API-Key: " + bob}, false, false},
		{"basic scheme", []string{"Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("alice:"+alice))}, false, true},
		{"raw key in Authorization", []string{"Authorization: " + alice}, false, true},
		{"bearer without token", []string{"Authorization: Bearer"}, false, false},
		{"malformed key", []string{"Authorization: Bearer hunter2"}, false, false},
		{"unknown key", []string{"Authorization: Bearer " + unknown}, false, false},
		{"right prefix, wrong secret", []string{"Authorization: Bearer " + itFlip(alice)}, false, false},
		{"revoked key", []string{"Authorization: Bearer " + revoked}, false, false},
		{"revoked key as X-API-Key", []string{"X-API-Key: " + revoked}, false, false},
		{"empty X-API-Key", []string{"X-API-Key: "}, false, false},
	}
	for _, c := range cases {
		r := s.Do("GET", "/api/public/me", nil, c.headers...)
		if c.ok {
			itStatus(t, c.name, r, 200)
			itMatch(t, c.name, itDecode(t, c.name, r.Body), `{"profile":{"username":"alice"}}`)
			continue
		}
		itError(t, c.name+" on /me", r, 401)
		if r.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s: 401 without WWW-Authenticate", c.name)
		}
		// A presented key that does not authenticate is 401 on the
		// optional-auth endpoints too: never silently anonymous. Another
		// scheme than Bearer presents no key: anonymous there.
		for _, p := range []string{"/api/public/challenges", "/api/public/challenges/warmup"} {
			r := s.Do("GET", p, nil, c.headers...)
			if c.anon {
				itStatus(t, c.name+" on "+p, r, 200)
				continue
			}
			itError(t, c.name+" on "+p, r, 401)
		}
		// Endpoints without auth: whatever the code does (the contract says
		// nothing), but never a 500 nor a body that depends on the key.
		for _, p := range []string{"/api/public/health", "/api/public/leaderboard", "/api/public/profiles/" + itUID(t, s, "bob")} {
			r := s.Do("GET", p, nil, c.headers...)
			if r.Status != 200 && r.Status != 401 {
				t.Errorf("%s on %s: status %d, want 200 or 401", c.name, p, r.Status)
			}
			if c.name == "revoked key" {
				t.Logf("no-auth endpoint %s with a revoked key: %d", p, r.Status)
			}
		}
	}
}

// itCookieCleared reports whether a response clears the session cookie.
func itCookieCleared(r Response) bool {
	resp := http.Response{Header: r.Header}
	for _, c := range resp.Cookies() {
		if c.Name == "flagship_session" && c.Value == "" && (c.MaxAge < 0 || (!c.Expires.IsZero() && c.Expires.Before(time.Now()))) {
			return c.HttpOnly && c.SameSite == http.SameSiteLaxMode
		}
	}
	return false
}

func TestIntegrationSessionCookie(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	ctx := context.Background()
	alice := itSession(t, s, "alice", time.Now().Add(time.Hour))
	expired := itSession(t, s, "alice", time.Now().Add(-time.Minute))
	revokedTok, revokedHash := secret.NewSessionToken()
	if _, err := s.DB.Accounts().CreateSession(ctx, ctf.Session{IDHash: revokedHash, UserID: itUID(t, s, "alice"),
		CreatedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB.Accounts().RevokeSessions(ctx, itUID(t, s, "alice"), revokedHash, false, time.Now()); err != nil {
		t.Fatal(err)
	}
	s.Sync()
	revoked := "Cookie: flagship_session=" + revokedTok
	unknown := "Cookie: flagship_session=not-a-session"

	itMatch(t, "cookie /me", itGet(t, s, "/api/public/me", alice), `{"profile":{"username":"alice","email":"alice@example.com"}}`)
	itMatch(t, "cookie list", itBySlug(itGet(t, s, "/api/public/challenges", alice))["warmup"], `{"solved":true}`)
	itMatch(t, "cookie detail", itGet(t, s, "/api/public/challenges/warmup", alice), `{"challenge":{"solved":true,"submittedFlag":"flag{warmup}"}}`)

	// A stale cookie on an optional endpoint reads as anonymous and is cleared.
	for name, c := range map[string]string{"expired": expired, "unknown": unknown, "revoked": revoked} {
		r := s.Do("GET", "/api/public/challenges", nil, c)
		itStatus(t, name+" cookie list", r, 200)
		for slug, ch := range itBySlug(itDecode(t, "list", r.Body)) {
			if ch["solved"] != false {
				t.Errorf("%s cookie: %s solved %v, want anonymous", name, slug, ch["solved"])
			}
		}
		if !itCookieCleared(r) {
			t.Errorf("%s cookie on the list: not cleared (Set-Cookie %q)", name, r.Header.Values("Set-Cookie"))
		}
		r = s.Do("GET", "/api/public/challenges/warmup", nil, c)
		itStatus(t, name+" cookie detail", r, 200)
		itMatch(t, name+" cookie detail", itDecode(t, "detail", r.Body), `{"challenge":{"solved":false,"submittedFlag":null,"myReview":null}}`)
		if !itCookieCleared(r) {
			t.Errorf("%s cookie on the detail: not cleared", name)
		}
		itError(t, name+" cookie /me", s.Do("GET", "/api/public/me", nil, c), 401)
		itError(t, name+" cookie submit", itSubmit(s, "lost-packets", "flag{pcap}", c), 401)
	}
	// A presented invalid key wins over a valid cookie.
	itError(t, "cookie and bad key", s.Do("GET", "/api/public/me", nil, alice, "Authorization: Bearer hunter2"), 401)

	// CSRF: a cookie-authenticated cross-site POST is refused, records nothing.
	erin := itSession(t, s, "erin", time.Now().Add(time.Hour))
	itError(t, "cross-site submit", itSubmit(s, "lost-packets", "flag{pcap}", erin, "Origin: https://evil.example", "Sec-Fetch-Site: cross-site"), 403)
	itError(t, "cross-origin submit", itSubmit(s, "lost-packets", "flag{pcap}", erin, "Origin: https://evil.example"), 403)
	itWantCounts(t, "after cross-site", s, "lost-packets", 1, 1)
	// An API key is not ambient: the same headers with a key are fine.
	itError(t, "cross-site with a key", itSubmit(s, "lost-packets", "nope", Bearer(s.Key("dave")), "Origin: https://evil.example", "Sec-Fetch-Site: cross-site"), 400)
	// Same origin: lost-packets 1 + dave's wrong + erin's solve = 3 attempts.
	r := itSubmit(s, "lost-packets", "flag{pcap}", erin, "Origin: "+s.URL, "Sec-Fetch-Site: same-origin")
	itStatus(t, "same-origin submit", r, 200)
	itWantCounts(t, "after same-origin", s, "lost-packets", 3, 2)
	if strings.Contains(strings.Join(r.Header.Values("Set-Cookie"), ";"), "flagship_session") {
		t.Errorf("a valid session was cleared: %q", r.Header.Values("Set-Cookie"))
	}
}

// TestIntegrationAuthenticatedReadsNeedNoDatabase: API keys and sessions
// are verified from memory, and /me and the lists are served from memory,
// so an authenticated read makes no database round trip: with the
// database closed, they still answer (a busy database never slows them).
func TestIntegrationAuthenticatedReadsNeedNoDatabase(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	key := Bearer(s.Key("alice"))
	cookie := itSession(t, s, "bob", time.Now().Add(time.Hour))
	if err := s.DB.Close(); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{key, "X-API-Key: " + strings.TrimPrefix(key, "Authorization: Bearer "), cookie} {
		for _, p := range []string{"/api/public/me", "/api/public/challenges", "/api/public/challenges/warmup",
			"/api/public/challenges/warmup/writeups", "/api/public/leaderboard"} {
			itStatus(t, p+" with "+h[:20], s.Do("GET", p, nil, h), 200)
		}
	}
}

// TestIntegrationReadOnlyKey: a read-only key reads what its user may
// read and cannot submit (403, nothing recorded).
func TestIntegrationReadOnlyKey(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	_, key, err := s.Svc.Keys.Create(context.Background(), ctf.Operator,
		platform.NewAPIKey{Owner: itUID(t, s, "erin"), Name: "agent", ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/api/public/me", "/api/public/challenges", "/api/public/challenges/warmup"} {
		itStatus(t, p, s.Do("GET", p, nil, Bearer(key)), 200)
	}
	before := itDecode(t, "before", s.Do("GET", "/api/public/challenges/lost-packets", nil).Body)
	itError(t, "submit", itSubmit(s, "lost-packets", "flag{pcap}", Bearer(key)), 403)
	itError(t, "wrong flag", itSubmit(s, "lost-packets", "nope", Bearer(key)), 403)
	after := itDecode(t, "after", s.Do("GET", "/api/public/challenges/lost-packets", nil).Body)
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Errorf("a refused submission changed the challenge: %v -> %v", before, after)
	}
}
