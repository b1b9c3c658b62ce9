package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/pquerna/otp/totp"
)

func TestSettingsTwoFactorKeysAndSessions(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	b := newBrowser(t, s)
	want(t, "settings signed out", b.get("/settings"), http.StatusSeeOther)
	b.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})
	want(t, "settings", b.get("/settings"), 200, "Profile", "Two-factor", "Off.", "Sessions", "API keys")
	want(t, "javascript avatar", b.send("/settings/profile", url.Values{"name": {"Pam"}, "image": {"javascript:alert(1)"}}), 200, "Image must be an http or https URL")
	want(t, "profile", b.send("/settings/profile", url.Values{"name": {"Pam P."}, "image": {"https://example.com/p.png"}}), 200, "Profile saved", `value="Pam P."`)

	// An API key: shown once with a curl line, works, then revoked.
	made := b.send("/settings/keys", url.Values{"name": {"laptop"}})
	want(t, "new key", made, 200, "shown only this once", "Authorization: Bearer fsk_", "/api/public/me</pre>")
	key := regexp.MustCompile(`<code id="newkey">(fsk_[a-z2-7]{8}_[a-z2-7]{52})</code>`).FindStringSubmatch(made.body)
	if key == nil {
		t.Fatal("no key on the page")
	}
	if strings.Contains(b.get("/settings").body, key[1]) {
		t.Fatal("the key's secret is shown again")
	}
	api := newBrowser(t, s)
	want(t, "the key works", api.do("GET", "/api/public/me", nil, "Authorization: Bearer "+key[1]), 200, `"username":"pam"`)
	id := regexp.MustCompile(`name="id" value="([0-9a-f-]{36})"><button type="submit" class="link">Revoke`).FindStringSubmatch(b.get("/settings").body)
	if id == nil {
		t.Fatal("no revoke button")
	}
	want(t, "revoke", b.send("/settings/keys/revoke", url.Values{"id": {id[1]}}), 200, "Key revoked", `revoked <time datetime="20`)
	want(t, "the key is refused", api.do("GET", "/api/public/me", nil, "Authorization: Bearer "+key[1]), 401)

	// Two-factor: set up with the QR code's secret, then log in with a code.
	begin := b.send("/settings/2fa/begin", url.Values{})
	want(t, "2FA begin", begin, 200, `src="data:image/png;base64,`, "Scan the code")
	secret := regexp.MustCompile(`<code id="secret">([A-Z2-7]+)</code>`).FindStringSubmatch(begin.body)
	if secret == nil {
		t.Fatal("no secret on the page")
	}
	code, _ := totp.GenerateCode(secret[1], time.Now())
	on := b.send("/settings/2fa/confirm", url.Values{"code": {code}})
	want(t, "2FA on", on, 200, "Two-factor authentication is on", `id="recovery"`)
	recovery := regexp.MustCompile(`(?m)^([a-z2-9]{5}-[a-z2-9]{5})$`).FindAllString(on.body, -1)
	if len(recovery) != 10 {
		t.Fatalf("%d recovery codes on the page, want 10", len(recovery))
	}
	other := newBrowser(t, s)
	asked := other.send("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})
	want(t, "password alone", asked, 200, "enter your password again with the code", `name="username" value="pam"`, `autocomplete="one-time-code" required`)
	ok := other.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}, "code": {recovery[0]}})
	if ok.status != http.StatusSeeOther {
		t.Fatalf("log in with a recovery code: %d %s", ok.status, ok.body)
	}
	// Two sessions now: end the other one from the first.
	want(t, "two sessions", b.get("/settings"), 200, "(this one)")
	want(t, "log out the others", b.send("/settings/sessions/revoke-others", url.Values{}), 200, "other sessions are logged out")
	if strings.Contains(other.get("/").body, "pam") {
		t.Error("the other session still works")
	}
	// A password change keeps this session.
	want(t, "password", b.send("/settings/password", url.Values{"current": {"pam-password"}, "new": {"a new password"}, "new2": {"a new password"}}), 200, "Password changed")
	want(t, "still signed in", b.get("/settings"), 200, "Pam P.")
}
