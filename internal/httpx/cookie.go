package httpx

import (
	"net/http"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// SessionCookie is the web session's cookie as every front door that reads
// it knows it: the web app sets it at log-in and clears it at log-out, and
// both the web app and the public API clear a stale one.
type SessionCookie struct {
	// Name is ctf.SessionCookieName(Secure): __Host- prefixed over https.
	Name string
	// Secure: the platform is served over TLS, so the cookie is Secure.
	Secure bool
}

// Session is the session cookie of a platform served over TLS (secure) or
// not.
func Session(secure bool) SessionCookie {
	return SessionCookie{Name: ctf.SessionCookieName(secure), Secure: secure}
}

// Token is the session token r carries, and whether it carries one.
func (c SessionCookie) Token(r *http.Request) (string, bool) {
	k, err := r.Cookie(c.Name)
	if err != nil {
		return "", false
	}
	return k.Value, true
}

// Set gives the browser token for the session's lifetime.
func (c SessionCookie) Set(w http.ResponseWriter, token string) {
	c.set(w, token, int(ctf.SessionLifetime.Seconds()))
}

// Clear tells the browser to forget the cookie.
func (c SessionCookie) Clear(w http.ResponseWriter) { c.set(w, "", -1) }

// set writes the cookie for the whole site, out of scripts' reach, sent
// along on a link followed from another site (Lax) but not on its forms.
func (c SessionCookie) set(w http.ResponseWriter, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: c.Name, Value: value, Path: "/", MaxAge: maxAge, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: c.Secure})
}
