package web_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/mail/mailtest"
	"github.com/flagshipctf/flagship/internal/testtime"
	"github.com/pquerna/otp/totp"
)

// startMail runs serve's mail worker over s's outbox, sending to a test
// SMTP server, until the test ends.
func startMail(t *testing.T, s *apitest.Server) *mailtest.Server {
	return mailtest.Relay(t, s.DB.Mail())
}

var resetLinkRE = regexp.MustCompile(`(https?://[^\s"<>]+/reset\?token=[A-Za-z0-9_-]+)`)

// linkIn returns the reset link of a message, the same in both parts.
func linkIn(t *testing.T, m mailtest.Message) string {
	t.Helper()
	p := mailtest.Parse(t, m.Raw)
	text, htm := resetLinkRE.FindString(p.Parts["text/plain"]), resetLinkRE.FindString(html.UnescapeString(p.Parts["text/html"]))
	if text == "" || text != htm {
		t.Fatalf("the message's links differ or are missing: %q / %q\n%s", text, htm, m.Raw)
	}
	if got := p.Header.Get("From"); got != `"Flagship" <ctf@example.org>` {
		t.Errorf("From = %q", got)
	}
	return text
}

// TestForgotPasswordByEmail: a player who forgot their password asks on
// the login page, reads the email the SMTP server received, follows its
// link, sets a new password and logs in with it; their old session is
// over and the link works once. An unknown name gets the same answer and
// no mail.
func TestForgotPasswordByEmail(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event, apitest.Options{Mail: true})
	smtp := startMail(t, s)
	old := logIn(t, s, "pam")
	b := newBrowser(t, s)

	want(t, "login", b.get("/login"), http.StatusOK, `href="/forgot"`)
	want(t, "forgot", b.get("/forgot"), http.StatusOK, "Send me a link")
	for _, name := range []string{"nobody", "PAM@example.com"} {
		p := b.post("/forgot", url.Values{"name": {name}})
		if p.status != http.StatusSeeOther || p.header.Get("Location") != "/forgot?sent=1" {
			t.Fatalf("forgot %s: %d %s", name, p.status, p.header.Get("Location"))
		}
	}
	want(t, "sent", b.get("/forgot?sent=1"), http.StatusOK, "If an account matches")

	msgs := smtp.Wait(t, 1, 10*time.Second)
	if len(msgs) != 1 || msgs[0].To[0] != "pam@example.com" || !msgs[0].TLS {
		t.Fatalf("messages: %+v", msgs)
	}
	link := linkIn(t, msgs[0])
	if !strings.HasPrefix(link, s.URL+"/reset?token=") {
		t.Fatalf("link %q is not under the public URL %s", link, s.URL)
	}
	path := strings.TrimPrefix(link, s.URL)
	token := strings.TrimPrefix(path, "/reset?token=")

	p := b.get(path)
	want(t, "reset page", p, http.StatusOK, "<strong>pam</strong>", "New password again")
	if p.header.Get("Referrer-Policy") != "no-referrer" {
		t.Errorf("Referrer-Policy = %q", p.header.Get("Referrer-Policy"))
	}
	if strings.Contains(p.body, `name="code"`) {
		t.Error("a code is asked of an account without 2FA")
	}
	differ := b.send("/reset", url.Values{"token": {token}, "password": {"new-password-1"}, "password2": {"other"}})
	want(t, "passwords differ", differ, http.StatusOK, "The two passwords differ.", "<strong>pam</strong>", "New password again")
	if differ.header.Get("Referrer-Policy") != "no-referrer" {
		t.Errorf("the reset page after a refusal: Referrer-Policy = %q", differ.header.Get("Referrer-Policy"))
	}
	want(t, "too short", b.send("/reset", url.Values{"token": {token}, "password": {"short"}, "password2": {"short"}}),
		http.StatusOK, "Password must be 8 to 128 characters")
	p = b.post("/reset", url.Values{"token": {token}, "password": {"new-password-1"}, "password2": {"new-password-1"}})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/login?reset=1" {
		t.Fatalf("reset: %d %s\n%.1000s", p.status, p.header.Get("Location"), p.body)
	}
	want(t, "login after", b.get("/login?reset=1"), http.StatusOK, "Your new password is set")

	if p := old.get("/settings"); p.status == http.StatusOK {
		t.Error("the session from before the reset still opens settings")
	}
	want(t, "the old password", b.send("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}}), http.StatusOK, "Wrong username or password")
	if p := b.post("/login", url.Values{"username": {"pam"}, "password": {"new-password-1"}}); p.status != http.StatusSeeOther || p.header.Get("Location") != "/" {
		t.Errorf("the new password: %d %s", p.status, p.header.Get("Location"))
	}
	want(t, "the link again", newBrowser(t, s).get(path), http.StatusBadRequest, "Ask for a new link")
	want(t, "the form again", newBrowser(t, s).send("/reset", url.Values{"token": {token}, "password": {"new-password-2"}, "password2": {"new-password-2"}}),
		http.StatusBadRequest, "not valid")
	if n := len(smtp.Messages()); n != 1 {
		t.Errorf("%d messages, want 1 (none for an unknown name)", n)
	}
}

// TestForgotPasswordWithoutMail: without an SMTP server the page says to
// ask the organisers, and asking anyway sends nothing.
func TestForgotPasswordWithoutMail(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	b := newBrowser(t, s)
	p := b.get("/forgot")
	want(t, "forgot", p, http.StatusOK, "Ask the organisers")
	if strings.Contains(p.body, `action="/forgot"`) {
		t.Error("the form is offered without mail")
	}
	want(t, "post anyway", b.send("/forgot", url.Values{"name": {"pam"}}), http.StatusOK, `class="alert error"`, "ask the organisers")
}

var resetInputRE = regexp.MustCompile(`id="reset-link"[^>]*value="([^"]+)"`)

// TestAdminRecoveryPage: an admin makes a one-time link on a user's
// recovery page (shown once, not cached), the player follows it; the
// admin edits the name and email; a player cannot reach the page.
func TestAdminRecoveryPage(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	root := logIn(t, s, "root")
	want(t, "users", root.get("/admin/users"), http.StatusOK, `href="/admin/users/pam/recovery"`)
	want(t, "recovery", root.get("/admin/users/pam/recovery"), http.StatusOK, "Make a reset link", "Off.")
	p := root.send("/admin/users/pam/recovery", url.Values{"action": {"link"}})
	want(t, "make a link", p, http.StatusOK, "It is shown only now")
	if p.header.Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control = %q", p.header.Get("Cache-Control"))
	}
	m := resetInputRE.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no link on the page\n%.3000s", p.body)
	}
	link := html.UnescapeString(m[1])
	if again := root.get("/admin/users/pam/recovery"); resetInputRE.MatchString(again.body) {
		t.Error("a reload shows the reset link again")
	}
	player := newBrowser(t, s)
	path := strings.TrimPrefix(link, s.URL)
	want(t, "the admin's link", player.get(path), http.StatusOK, "<strong>pam</strong>")
	token := strings.TrimPrefix(path, "/reset?token=")
	if p := player.post("/reset", url.Values{"token": {token}, "password": {"chosen-pw-9"}, "password2": {"chosen-pw-9"}}); p.status != http.StatusSeeOther {
		t.Fatalf("reset: %d\n%.1000s", p.status, p.body)
	}
	if p := player.post("/login", url.Values{"username": {"pam"}, "password": {"chosen-pw-9"}}); p.status != http.StatusSeeOther {
		t.Errorf("login with the new password: %d", p.status)
	}

	p = root.send("/admin/users/pam/recovery", url.Values{"action": {"edit"}, "name": {"Pam Q."}, "email": {"evil@example.com"}})
	want(t, "a taken email", p, http.StatusOK, "already taken")
	p = root.send("/admin/users/pam/recovery", url.Values{"action": {"edit"}, "name": {"Pam Q."}, "email": {"pam@elsewhere.example"}})
	want(t, "after the edit", p, http.StatusOK, "Saved.", `value="pam@elsewhere.example"`, `value="Pam Q."`)
	want(t, "turn 2FA off while off", root.send("/admin/users/pam/recovery", url.Values{"action": {"disable-2fa"}}), http.StatusOK, "off already")
	audit := root.get("/admin/audit")
	want(t, "audit", audit, http.StatusOK, "user.reset-link", "user.edit", "user.password-reset")

	pam := logIn(t, s, "evil")
	if p := pam.get("/admin/users/pam/recovery"); p.status != http.StatusForbidden {
		t.Errorf("a player on the recovery page: %d", p.status)
	}
	if p := pam.post("/admin/users/pam/recovery", url.Values{"action": {"link"}}); p.status != http.StatusForbidden || strings.Contains(p.body, "reset?token") {
		t.Errorf("a player making a link: %d", p.status)
	}
}

var recoveryCodeRE = regexp.MustCompile(`(?m)^([a-z2-9]{5}-[a-z2-9]{5})$`)

// TestRegenerateRecoveryCodesInSettings: a player with 2FA gets new
// recovery codes with their password, shown once; the old ones stop
// working; a wrong password is refused.
func TestRegenerateRecoveryCodesInSettings(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	b := logIn(t, s, "pam")
	want(t, "settings without 2FA", b.get("/settings"), http.StatusOK)
	if strings.Contains(b.get("/settings").body, `action="/settings/2fa/recovery-codes"`) {
		t.Error("new recovery codes offered without 2FA")
	}
	begin := b.send("/settings/2fa/begin", url.Values{})
	secret := regexp.MustCompile(`<code id="secret">([A-Z2-7]+)</code>`).FindStringSubmatch(begin.body)
	if secret == nil {
		t.Fatal("no secret on the page")
	}
	code, _ := totp.GenerateCode(secret[1], time.Now())
	old := recoveryCodeRE.FindAllString(b.send("/settings/2fa/confirm", url.Values{"code": {code}}).body, -1)
	if len(old) != 10 {
		t.Fatalf("%d recovery codes", len(old))
	}
	want(t, "settings with 2FA", b.get("/settings"), http.StatusOK, `action="/settings/2fa/recovery-codes"`)
	want(t, "a wrong password", b.send("/settings/2fa/recovery-codes", url.Values{"password": {"nope"}}), http.StatusOK, "Password is wrong")
	p := b.send("/settings/2fa/recovery-codes", url.Values{"password": {"pam-password"}})
	want(t, "new codes", p, http.StatusOK, "the old ones no longer work", `id="recovery"`)
	fresh := recoveryCodeRE.FindAllString(p.body, -1)
	if len(fresh) != 10 || fresh[0] == old[0] {
		t.Fatalf("new codes %v", fresh)
	}
	if strings.Contains(b.get("/settings").body, fresh[0]) {
		t.Error("the codes are shown again")
	}
	other := newBrowser(t, s)
	want(t, "an old code", other.send("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}, "code": {old[2]}}), http.StatusOK, "Wrong or already used code")
	if p := other.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}, "code": {fresh[2]}}); p.status != http.StatusSeeOther {
		t.Errorf("a new code: %d", p.status)
	}
}

// TestAdminMailLog: Admin → Mail lists what was mailed (to whom, the
// subject, sent or not) but never a message's text, whose link is its
// recipient's alone; it says when no mail server is configured; players
// do not get it.
func TestAdminMailLog(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent, apitest.Options{Mail: true})
	smtp := startMail(t, s)
	root := logIn(t, s, "root")
	want(t, "empty", root.get("/admin/mail"), http.StatusOK, "Nothing was mailed yet.", "The server sends mail")
	if p := newBrowser(t, s).post("/forgot", url.Values{"name": {"pam"}}); p.status != http.StatusSeeOther {
		t.Fatalf("forgot: %d", p.status)
	}
	link := linkIn(t, smtp.Wait(t, 1, 10*time.Second)[0])
	token := link[strings.Index(link, "token=")+len("token="):]
	// The worker records the send just after the server took it.
	var p page
	for deadline := time.Now().Add(testtime.Scale(10 * time.Second)); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if p = root.get("/admin/mail"); strings.Contains(p.body, "<td>sent ") {
			break
		}
	}
	want(t, "after a reset link", p, http.StatusOK, "<td>pam@example.com</td>", "<td>Reset your password</td>", "<td>sent ")
	if strings.Contains(p.body, token) {
		t.Error("the mail log shows the reset link")
	}
	want(t, "a player", logIn(t, s, "pam").get("/admin/mail"), http.StatusForbidden)

	off := apitest.Start(t, adminEvent)
	want(t, "without mail", logIn(t, off, "root").get("/admin/mail"), http.StatusOK, "No mail server is configured")
}
