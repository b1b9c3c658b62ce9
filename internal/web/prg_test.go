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

// TestLoginAndAdminFormsRedirect (issue 20, fix 1): log-in, sign-up,
// recovery and the admin forms answer every result, refusals too, with a
// redirect (303) to a page of this site, which shows the message once: a
// reload shows the page without it and sends nothing.
func TestLoginAndAdminFormsRedirect(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	root, pam := logIn(t, s, "root"), logIn(t, s, "pam")
	pamID := mustUser(t, s, "pam")
	forms := []struct {
		who        *browser
		path       string
		form       url.Values
		to, landed string
	}{
		{newBrowser(t, s), "/login", url.Values{"username": {"pam"}, "password": {"wrong"}, "next": {"/scoreboard"}}, "/login?next=%2Fscoreboard", "Wrong username or password"},
		{newBrowser(t, s), "/signup", url.Values{"username": {"x"}, "email": {"x@example.com"}, "password": {"long enough"}, "password2": {"long enough"}}, "/signup", "Username must be"},
		{newBrowser(t, s), "/forgot", url.Values{"name": {"pam"}}, "/forgot", "ask the organisers"},
		{newBrowser(t, s), "/reset", url.Values{"token": {"nope"}, "password": {"long enough"}, "password2": {"long enough"}}, "/reset?token=nope", "Ask for a new link"},
		{pam, "/verify/resend", url.Values{}, "/verify", "confirmed already"},
		{root, "/admin/users", url.Values{"id": {pamID}, "action": {"promote"}, "q": {"pam"}}, "/admin/users?q=pam", "pam is an admin now."},
		{root, "/admin/users", url.Values{"id": {pamID}, "action": {"demote"}}, "/admin/users", "pam is a player now."},
		{root, "/admin/users", url.Values{"id": {pamID}, "action": {"explode"}}, "/admin/users", "Unknown action"},
		{root, "/admin/users/new", url.Values{"username": {"x"}, "email": {"x@example.com"}}, "/admin/users", "Username must be"},
		{root, "/admin/users/pam/ban", url.Values{"reason": {"spam"}}, "/admin/users", "Banned pam"},
		{root, "/admin/users", url.Values{"id": {pamID}, "action": {"unban"}}, "/admin/users", "Unbanned pam"},
		{root, "/admin/writeups", url.Values{"id": {"nope"}, "decision": {"approve"}}, "/admin/writeups", `class="alert error"`},
		{root, "/admin/webhooks/new", url.Values{"name": {"w"}, "kind": {"json"}, "url": {"ftp://x"}}, "/admin/webhooks", "URL must be"},
		{root, "/admin/webhooks", url.Values{"id": {"nope"}, "action": {"delete"}}, "/admin/webhooks", "No such webhook"},
		{root, "/admin/instances/stop", url.Values{"id": {"nope"}}, "/admin/instances", "No instance"},
		{root, "/admin/event", url.Values{"start": {"tuesday"}}, "/admin/event", "Start must be a date and time"},
		{root, "/admin/event/unfreeze", url.Values{}, "/admin/event", "The scoreboard is not frozen"},
		{root, "/admin/users/pam/recovery", url.Values{"action": {"disable-2fa"}}, "/admin/users/pam/recovery", "off already"},
		{root, "/admin/players/pam/anonymise", url.Values{"confirm": {"nope"}}, "/admin/players/pam", "to confirm"},
	}
	for _, f := range forms {
		p := f.who.post(f.path, f.form)
		if p.status != http.StatusSeeOther || p.header.Get("Location") != f.to {
			t.Errorf("POST %s: %d to %q, want 303 to %q\n%.1500s", f.path, p.status, p.header.Get("Location"), f.to, p.body)
			continue
		}
		landed := f.who.get(f.to)
		if landed.status != http.StatusOK && f.path != "/reset" { // a bad reset link's page says so whatever
			t.Errorf("after POST %s: %d", f.path, landed.status)
		}
		want(t, "after POST "+f.path, landed, landed.status, f.landed)
		if again := f.who.get(f.to); strings.Contains(again.body, `class="alert`) && f.path != "/reset" {
			t.Errorf("a reload of %s after POST %s shows %q again", f.to, f.path, f.landed)
		}
	}
	imp := root.multipartPost("/admin/data/import", nil, "dataset", "x.txt", []byte("{}"))
	if imp.status != http.StatusSeeOther || imp.header.Get("Location") != "/admin/data" {
		t.Errorf("POST /admin/data/import: %d to %q", imp.status, imp.header.Get("Location"))
	}
	want(t, "after an import", root.get("/admin/data"), 200, "Nothing was imported")
}
