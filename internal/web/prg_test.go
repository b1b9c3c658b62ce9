package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
)

// TestFormsRedirectAndShowOnce (issue 20, fixes 1, 2, 5, 7): a form answers
// with a redirect to its page, so a reload makes nothing twice; a new key
// shows once, at the top, and the list marks it read-only; a mistyped 2FA
// code keeps the same secret; a rating sent without a choice is refused.
func TestFormsRedirectAndShowOnce(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	pam := newBrowser(t, s)
	pam.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})

	t.Run("a new key shows once", func(t *testing.T) {
		made := pam.send("/settings/keys", url.Values{"name": {"reader"}, "readonly": {"1"}})
		key := regexp.MustCompile(`<code id="newkey">([^<]+)</code>`).FindStringSubmatch(made.body)
		if key == nil {
			t.Fatalf("the landing page does not show the new key:\n%.3000s", made.body)
		}
		if i, j := strings.Index(made.body, `id="newkey"`), strings.Index(made.body, `id="profile"`); i < 0 || i > j {
			t.Error("the new key is not at the top of the settings page")
		}
		want(t, "the key list", made, 200, "reader <span class=\"mark\">read-only</span>")
		again := pam.get("/settings") // a reload: a GET, nothing sent again
		if strings.Contains(again.body, key[1]) || strings.Contains(again.body, `id="newkey"`) {
			t.Error("the new key shows a second time")
		}
		if n := strings.Count(again.body, `action="/settings/keys/revoke"`); n != 1 {
			t.Errorf("%d keys listed, want 1", n)
		}
	})

	t.Run("a flash of someone else is not shown", func(t *testing.T) {
		evil := newBrowser(t, s)
		evil.post("/login", url.Values{"username": {"evil"}, "password": {"evil-password"}})
		p := evil.post("/settings/keys", url.Values{"name": {"planted"}})
		var planted *http.Cookie
		for _, c := range (&http.Response{Header: p.header}).Cookies() {
			if strings.Contains(c.Name, "flash") {
				planted = c
			}
		}
		if planted == nil {
			t.Fatal("no flash cookie on a form's answer")
		}
		u, _ := url.Parse(s.URL)
		pam.c.Jar.SetCookies(u, []*http.Cookie{{Name: planted.Name, Value: planted.Value, Path: "/"}})
		if got := pam.get("/settings"); strings.Contains(got.body, `id="newkey"`) || strings.Contains(got.body, "Key created") {
			t.Error("pam's page shows a flash made for evil")
		}
	})

	t.Run("a mistyped 2FA code keeps the secret", func(t *testing.T) {
		begun := pam.send("/settings/2fa/begin", url.Values{})
		secret := regexp.MustCompile(`<code id="secret">([A-Z2-7]+)</code>`).FindStringSubmatch(begun.body)
		if secret == nil {
			t.Fatalf("no secret after Set up:\n%.3000s", begun.body)
		}
		wrong := pam.send("/settings/2fa/confirm", url.Values{"code": {"000000"}})
		want(t, "a wrong code", wrong, 200, `class="alert error"`, "Code is wrong", `<code id="secret">`+secret[1]+`</code>`, `class="qr"`)
		want(t, "a reload", pam.get("/settings"), 200, `<code id="secret">`+secret[1]+`</code>`)
	})

	t.Run("a rating needs a choice", func(t *testing.T) {
		solved := pam.send("/challenges/warmup/submit", url.Values{"flag": {"flag{warm}"}})
		want(t, "solved", solved, 200, "Correct!", `<option value="">Choose…</option>`, `name="stars" required`)
		if strings.Contains(solved.body, `selected>`) {
			t.Error("a rating is chosen before the player chose one")
		}
		// The theme switch on the landing page goes back to the page, not the form.
		want(t, "the theme's next", solved, 200, `name="next" value="/challenges/warmup"`)
		refused := pam.send("/challenges/warmup/review", url.Values{"stars": {""}, "difficulty": {""}})
		want(t, "Rate without choosing", refused, 200, "Choose the stars and the difficulty, then press Rate.", "Rating:</span> unrated")
		want(t, "half a choice", pam.send("/challenges/warmup/review", url.Values{"stars": {"3"}}), 200, "Choose the stars", "Rating:</span> unrated")
		want(t, "a choice", pam.send("/challenges/warmup/review", url.Values{"stars": {"3"}, "difficulty": {"4"}}), 200, "rating is saved", "Rating:</span> 3.0")
	})
}
