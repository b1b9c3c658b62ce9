package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
)

// setCookie is the cookie named name that p sets, or nil.
func setCookie(p page, name string) *http.Cookie {
	for _, c := range (&http.Response{Header: p.header}).Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// TestHTTPSCookiesAndHSTS: when the public URL is https, every page asks
// the browser to come back over https only (HSTS, for the host alone:
// challenges often live on sibling subdomains over plain http), and the
// cookies carry the __Host- prefix (Secure, Path=/, no Domain), so that a
// sibling subdomain can neither set nor shadow them; the session works
// under that name only, in the web app and the public API. Over http
// nothing of this changes what a browser would accept.
func TestHTTPSCookiesAndHSTS(t *testing.T) {
	t.Parallel()
	for _, secure := range []bool{false, true} {
		name := map[bool]string{false: "http", true: "https"}[secure]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			prefix, other := "", "__Host-"
			if secure {
				prefix, other = "__Host-", ""
			}
			session, theme, seen := prefix+"flagship_session", prefix+"theme", prefix+"flagship_seen"
			s := apitest.Start(t, event, apitest.Options{SecureCookies: secure})
			b := newBrowser(t, s)
			for _, path := range []string{"/", "/login", "/nope", "/scoreboard"} {
				got, want := b.get(path).header.Get("Strict-Transport-Security"), ""
				if secure {
					want = "max-age=31536000"
				}
				if got != want {
					t.Errorf("%s: Strict-Transport-Security %q, want %q", path, got, want)
				}
			}
			login := b.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})
			c := setCookie(login, session)
			if c == nil {
				t.Fatalf("log in sets no %s cookie: %q", session, login.header.Values("Set-Cookie"))
			}
			if c.Secure != secure || c.Path != "/" || c.Domain != "" || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode {
				t.Errorf("session cookie %q", login.header.Get("Set-Cookie"))
			}
			if setCookie(login, other+"flagship_session") != nil {
				t.Errorf("log in also sets %sflagship_session", other)
			}
			token := c.Value

			// The session, under its name and no other.
			signedIn := func(p page) bool { return strings.Contains(p.body, `action="/logout"`) }
			anon := newBrowser(t, s)
			if p := anon.do("GET", "/", nil, "Cookie: "+session+"="+token); !signedIn(p) {
				t.Errorf("the web app does not take the %s cookie", session)
			}
			if p := anon.do("GET", "/", nil, "Cookie: "+other+"flagship_session="+token); signedIn(p) {
				t.Errorf("the web app takes the session under %sflagship_session", other)
			}
			want(t, "API with the cookie", anon.do("GET", "/api/public/me", nil, "Cookie: "+session+"="+token), 200, `"username":"pam"`)
			want(t, "API with the other name", anon.do("GET", "/api/public/me", nil, "Cookie: "+other+"flagship_session="+token), 401)
			// A stale session is cleared under its name, by both.
			for _, path := range []string{"/", "/api/public/challenges"} {
				p := anon.do("GET", path, nil, "Cookie: "+session+"=stale")
				if c := setCookie(p, session); c == nil || c.MaxAge >= 0 || c.Secure != secure || c.Path != "/" {
					t.Errorf("%s with a stale session: Set-Cookie %q", path, p.header.Values("Set-Cookie"))
				}
			}

			// The theme and the announcements seen.
			th := anon.do("POST", "/theme", url.Values{})
			if c := setCookie(th, theme); c == nil || c.Value != "light" || c.Secure != secure || c.Path != "/" || c.Domain != "" {
				t.Errorf("theme: Set-Cookie %q", th.header.Values("Set-Cookie"))
			}
			if p := anon.do("GET", "/", nil, "Cookie: "+theme+"=light"); !strings.Contains(p.body, `data-theme="light"`) {
				t.Errorf("the %s cookie does not choose the theme", theme)
			}
			if _, err := s.Svc.Event.PostAnnouncement(context.Background(), ctf.Operator, "Hello", "Welcome.", ""); err != nil {
				t.Fatal(err)
			}
			ann := anon.get("/announcements")
			c = setCookie(ann, seen)
			if c == nil || c.Secure != secure || c.Path != "/" || c.Domain != "" {
				t.Fatalf("announcements: Set-Cookie %q", ann.header.Values("Set-Cookie"))
			}
			if p := newBrowser(t, s).get("/"); !strings.Contains(p.body, "data-unread") {
				t.Error("without the cookie, the announcement is not unread")
			}
			if p := anon.do("GET", "/", nil, "Cookie: "+seen+"="+c.Value); strings.Contains(p.body, "data-unread") {
				t.Errorf("the %s cookie does not mark the announcement seen", seen)
			}

			// Logging out clears it under its name.
			out := anon.do("POST", "/logout", url.Values{}, "Cookie: "+session+"="+token)
			if c := setCookie(out, session); c == nil || c.MaxAge >= 0 {
				t.Errorf("log out: Set-Cookie %q", out.header.Values("Set-Cookie"))
			}
		})
	}
}
