package web

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"unicode/utf8"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/secret"
)

// A form answers with a redirect to a page (post/redirect/get), so that a
// reload shows the page again instead of sending the form again (a second
// key, a second wrong flag), and the page's address is one every link of
// it works from (the theme switch). What the form did rides along to that
// page in a flash: a short-lived cookie that the next page shows once and
// clears. Every server of the event reads it alike (nothing is kept in one
// process's memory).
//
// A flash is only ever shown as text, to the user it was made for; a new
// API key in it is shown only when it is a key of that user (or of their
// agent) made in the last minutes, so a cookie planted by a sibling
// subdomain over plain http cannot pass off its own key as the viewer's.
type flash struct {
	User     string             `json:"u,omitempty"` // whose flash it is ("" before logging in)
	Notice   string             `json:"n,omitempty"`
	Error    string             `json:"e,omitempty"`
	Flag     string             `json:"f,omitempty"` // a refused flag, kept in its form
	Result   *live.SubmitResult `json:"r,omitempty"` // a correct flag's points and badges
	Practice bool               `json:"p,omitempty"` // the correct flag was a practice solve
	Key      string             `json:"k,omitempty"` // a key just made: shown this once
	Agent    string             `json:"a,omitempty"` // the agent the key is for, "" for the user's own
	Recovery []string           `json:"c,omitempty"` // recovery codes just made: shown this once
	// Form: what was typed into a refused form, to fill it again (never a
	// password); NeedCode: the log-in form asks for the second factor.
	Form     map[string]string `json:"t,omitempty"`
	NeedCode bool              `json:"nc,omitempty"`
	Created  *createdUser      `json:"cu,omitempty"` // an account an admin just made: shown this once
	Link     string            `json:"l,omitempty"`  // a reset link an admin just made: shown this once, when it works
	// Section: the part of the page the form belongs to, which shows the
	// messages itself (the page lands there).
	Section string `json:"s,omitempty"`
}

// flashMaxAge bounds how long a flash waits for its page: the redirect is
// followed at once; a flash never shown must not linger.
const flashMaxAge = 120

// flashMaxBytes keeps the cookie well under the 4 KB browsers keep.
const flashMaxBytes = 3500

// flashMaxError is as much of an error as a flash too long for its cookie
// keeps.
const flashMaxError = 1500

// cutText is s cut to at most n bytes, at a character, marked as cut.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func (h *Handler) flashCookie() string { return ctf.CookieName("flagship_flash", h.opts.SecureCookies) }

// redirectWith sends the browser to the page at to (a path of this site),
// with f to show there once.
func (h *Handler) redirectWith(w http.ResponseWriter, r *http.Request, v ctf.Viewer, to string, f flash) {
	f.User = v.ID()
	raw, err := json.Marshal(f)
	if err == nil && len(raw) > flashMaxBytes*3/4 && (f.Flag != "" || f.Form != nil) {
		f.Flag, f.Form = "", nil // a long refused flag or text is not worth losing the message for
		raw, err = json.Marshal(f)
	}
	if err == nil && base64.RawURLEncoding.EncodedLen(len(raw)) > flashMaxBytes && len(f.Error) > flashMaxError {
		f.Error = cutText(f.Error, flashMaxError) // a long refusal (an import's problems): its start
		raw, err = json.Marshal(f)
	}
	if err == nil && base64.RawURLEncoding.EncodedLen(len(raw)) <= flashMaxBytes {
		http.SetCookie(w, &http.Cookie{Name: h.flashCookie(), Value: base64.RawURLEncoding.EncodeToString(raw), Path: "/",
			MaxAge: flashMaxAge, HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: h.opts.SecureCookies})
	}
	redirect(w, r, to)
}

// takeFlash returns the flash r carries for v, and clears it: it is shown
// once. A flash for someone else, or unreadable, is cleared unshown.
func (h *Handler) takeFlash(w http.ResponseWriter, r *http.Request, v ctf.Viewer) flash {
	c, err := r.Cookie(h.flashCookie())
	if err != nil {
		return flash{}
	}
	http.SetCookie(w, &http.Cookie{Name: h.flashCookie(), Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: h.opts.SecureCookies})
	var f flash
	raw, err := base64.RawURLEncoding.DecodeString(c.Value)
	if err != nil || json.Unmarshal(raw, &f) != nil || f.User != v.ID() {
		return flash{}
	}
	if f.Key != "" && !h.keyIsTheirs(r, v, f.Agent, f.Key) {
		f.Key = ""
	}
	return f
}

// keyIsTheirs reports whether key is one of owner's unrevoked keys (the
// caller's own when owner is ""), by its prefix: a key of someone else
// cannot carry the prefix of one of theirs and still authenticate.
func (h *Handler) keyIsTheirs(r *http.Request, v ctf.Viewer, owner, key string) bool {
	prefix, err := secret.ParseAPIKey(key)
	if err != nil {
		return false
	}
	keys, err := h.svc.Keys.List(r.Context(), v, owner)
	if err != nil {
		return false
	}
	for _, k := range keys {
		if k.KeyPrefix == prefix && k.RevokedAt == nil {
			return true
		}
	}
	return false
}
