package httpx

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// TestSessionCookie: the session cookie is read, set and cleared under its
// one name (__Host- prefixed over https), for the whole site, out of
// scripts' reach, Lax, and Secure over https.
func TestSessionCookie(t *testing.T) {
	for _, tc := range []struct {
		secure bool
		name   string
		set    string
		clear  string
	}{
		{false, "flagship_session",
			"flagship_session=tok; Path=/; Max-Age=2592000; HttpOnly; SameSite=Lax",
			"flagship_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax"},
		{true, "__Host-flagship_session",
			"__Host-flagship_session=tok; Path=/; Max-Age=2592000; HttpOnly; Secure; SameSite=Lax",
			"__Host-flagship_session=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax"},
	} {
		c := Session(tc.secure)
		if c.Name != tc.name || c.Name != ctf.SessionCookieName(tc.secure) {
			t.Errorf("secure %v: name %q, want %q", tc.secure, c.Name, tc.name)
		}
		w := httptest.NewRecorder()
		c.Set(w, "tok")
		if got := w.Header().Get("Set-Cookie"); got != tc.set {
			t.Errorf("secure %v: Set: %q, want %q", tc.secure, got, tc.set)
		}
		w = httptest.NewRecorder()
		c.Clear(w)
		if got := w.Header().Get("Set-Cookie"); got != tc.clear {
			t.Errorf("secure %v: Clear: %q, want %q", tc.secure, got, tc.clear)
		}

		r := httptest.NewRequest("GET", "/", nil)
		if tok, ok := c.Token(r); ok || tok != "" {
			t.Errorf("secure %v: Token without a cookie = %q, %v", tc.secure, tok, ok)
		}
		r.AddCookie(&http.Cookie{Name: Session(!tc.secure).Name, Value: "other"})
		if tok, ok := c.Token(r); ok || tok != "" {
			t.Errorf("secure %v: the other name is read: %q, %v", tc.secure, tok, ok)
		}
		r.AddCookie(&http.Cookie{Name: tc.name, Value: "tok"})
		if tok, ok := c.Token(r); !ok || tok != "tok" {
			t.Errorf("secure %v: Token = %q, %v; want tok", tc.secure, tok, ok)
		}
	}
}
