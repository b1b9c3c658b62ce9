package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/secret"
	"github.com/flagshipctf/flagship/internal/store"
)

// TestLoginWithHostileStoredHash: a user whose stored password hash names
// parameters outside the bounds (zero passes, zero lanes, a terabyte; a row
// written before they held) cannot log in, and the server says so with a
// 401 as for any wrong password, not a 500: argon2 panicked on t=0 and
// p=0, which anyone could trigger by typing the username. A session opened
// before the row changed gets a plain refusal from the password change's
// check of the current password.
func TestLoginWithHostileStoredHash(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, `
users:
  - {username: zero-passes, password: the-password}
  - {username: zero-lanes, password: the-password}
  - {username: terabyte, password: the-password}
`)
	const salt, key = "c2FsdHNhbHRzYWx0c2FsdA", "aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g"
	// In this order: on a server without the bounds the first fails the
	// test before the last would try to allocate its terabyte.
	hashes := []struct{ name, hash string }{
		{"zero-passes", "$argon2id$v=19$m=19456,t=0,p=1$" + salt + "$" + key},
		{"zero-lanes", "$argon2id$v=19$m=19456,t=2,p=0$" + salt + "$" + key},
		{"terabyte", "$argon2id$v=19$m=1073741824,t=2,p=1$" + salt + "$" + key},
	}
	// zero-passes has a session from before the row changed, which the
	// write keeps.
	b := newBrowser(t, s)
	want(t, "log in before", b.post("/login", url.Values{"username": {"zero-passes"}, "password": {"the-password"}}), http.StatusSeeOther)
	var keep string
	base, _ := url.Parse(s.URL)
	for _, c := range b.c.Jar.Cookies(base) {
		if c.Name == ctf.SessionCookieName(false) {
			keep = secret.HashToken(c.Value)
		}
	}
	for _, h := range hashes {
		u, err := s.DB.Accounts().UserByUsername(context.Background(), h.name)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.DB.Accounts().UpdateUser(context.Background(), u.ID, store.UserUpdate{PasswordHash: &h.hash}, keep, nil); err != nil {
			t.Fatal(err)
		}
	}
	s.Sync()
	for _, h := range hashes {
		for _, pw := range []string{"the-password", "anything"} {
			p := newBrowser(t, s).send("/login", url.Values{"username": {h.name}, "password": {pw}})
			want(t, h.name+" logs in with "+pw, p, 200, "Wrong username or password")
		}
	}
	p := b.send("/settings/password", url.Values{"current": {"the-password"}, "new": {"a new password"}, "new2": {"a new password"}})
	want(t, "zero-passes changes the password", p, 200, "Current password is wrong")
	if strings.Contains(p.body, "argon2") {
		t.Errorf("the page tells of argon2:\n%.2000s", p.body)
	}
}
