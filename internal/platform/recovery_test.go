package platform

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/store"
)

var linkRE = regexp.MustCompile(`https://ctf\.example\.org/reset\?token=([A-Za-z0-9_-]+)`)

// outboxTokens returns the reset tokens of the outbox's messages to to,
// newest first.
func outboxTokens(t *testing.T, db *store.DB, to string) []string {
	t.Helper()
	box, err := db.Mail().Outbox(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range box {
		if m.To != to {
			continue
		}
		mt, mh := linkRE.FindStringSubmatch(m.Text), linkRE.FindStringSubmatch(m.HTML)
		if mt == nil || mh == nil || mt[1] != mh[1] {
			t.Fatalf("a message without the same link in both parts: %q / %q", m.Text, m.HTML)
		}
		out = append(out, mt[1])
	}
	return out
}

// TestForgotPasswordSendsTheSameAnswer: an existing account (by username or
// email, in any case) gets a link by email; an unknown name, an agent and
// an account past its share get the same answer and no mail; an address
// past its limit is told to wait. Without mail the answer says so.
func TestForgotPasswordSendsTheSameAnswer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, Options{Mail: true, PublicURL: "https://ctf.example.org/"})
	for _, name := range []string{"pam", "PAM@example.com", "nobody", "not a name", "ghost@example.com"} {
		wantCode(t, "forgot "+name, f.svc.Accounts.ForgotPassword(ctx, name, "10.0.0."+name[:1]), "")
	}
	if got := outboxTokens(t, f.db, "pam@example.com"); len(got) != 2 {
		t.Fatalf("pam got %d links, want 2", len(got))
	}
	box, _ := f.db.Mail().Outbox(ctx, 100)
	if len(box) != 2 {
		t.Fatalf("%d messages, want only pam's 2", len(box))
	}
	// pam's share is 3 per window: the fourth and fifth send nothing and
	// answer the same.
	for range 3 {
		wantCode(t, "forgot pam again", f.svc.Accounts.ForgotPassword(ctx, "pam", "10.0.1.1"), "")
	}
	if got := outboxTokens(t, f.db, "pam@example.com"); len(got) != 3 {
		t.Errorf("pam got %d links, want 3 (her share)", len(got))
	}
	// One address asking for many accounts is told to wait.
	var err error
	for i := range maxResetsPerAddress + 1 {
		err = f.svc.Accounts.ForgotPassword(ctx, "user"+string(rune('a'+i%26))+"x", "10.0.2.1")
	}
	wantCode(t, "past the address's limit", err, ctf.RateLimited)
	f.clock.Add(loginWindow + time.Second)
	wantCode(t, "after the window", f.svc.Accounts.ForgotPassword(ctx, "pat", "10.0.2.1"), "")
	if got := outboxTokens(t, f.db, "pat@example.com"); len(got) != 1 {
		t.Errorf("pat got %d links", len(got))
	}

	off := newFixture(t)
	wantCode(t, "without mail", off.svc.Accounts.ForgotPassword(ctx, "pam", "10.0.0.1"), ctf.Unavailable)
}

// TestResetPasswordOnceKeepingTwoFactor: a link sets a password once,
// with sign-up's rules, ends every session, forgets failed logins, and
// asks an account with 2FA for a code; it expires after 30 minutes; the
// change reaches another replica.
func TestResetPasswordOnceKeepingTwoFactor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, Options{Mail: true, PublicURL: "https://ctf.example.org"})
	other := f.replica(Options{Mail: true, PublicURL: "https://ctf.example.org"})
	codes := turnTwoFactorOn(t, f)
	login, err := f.svc.Accounts.Login(ctx, Login{Username: "pam", Password: "pam-password", Code: codes[0], Address: "10.0.0.1"})
	wantCode(t, "login", err, "")
	for range maxAccountFailures {
		_, _ = f.svc.Accounts.Login(ctx, Login{Username: "pam", Password: "wrong", Address: "10.0.0.2"})
	}
	wantCode(t, "forgot", f.svc.Accounts.ForgotPassword(ctx, "pam", "10.0.0.1"), "")
	token := outboxTokens(t, f.db, "pam@example.com")[0]

	target, err := other.Accounts.ResetTarget(ctx, token)
	if err != nil || target.Username != "pam" || !target.TwoFactor {
		t.Fatalf("target = %+v, %v", target, err)
	}
	_, err = other.Accounts.ResetPassword(ctx, PasswordReset{Token: token, Password: "short"})
	wantCode(t, "a short password", err, ctf.Invalid)
	_, err = other.Accounts.ResetPassword(ctx, PasswordReset{Token: token, Password: "new-password-1"})
	wantCode(t, "no code", err, ctf.Invalid)
	_, err = other.Accounts.ResetPassword(ctx, PasswordReset{Token: token, Password: "new-password-1", Code: codes[0]})
	wantCode(t, "a used recovery code", err, ctf.Invalid)
	_, err = other.Accounts.ResetPassword(ctx, PasswordReset{Token: token, Password: "new-password-1", Code: strings.ToUpper(codes[1])})
	wantCode(t, "reset", err, "")
	_, err = other.Accounts.ResetPassword(ctx, PasswordReset{Token: token, Password: "new-password-2", Code: codes[2]})
	wantCode(t, "the link again", err, ctf.Invalid)

	if err := f.svc.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Accounts.AuthenticateSession(ctx, login.Token); err == nil {
		t.Error("the session from before the reset still works")
	}
	_, err = f.svc.Accounts.Login(ctx, Login{Username: "pam", Password: "pam-password", Code: codes[3], Address: "10.0.0.3"})
	wantCode(t, "the old password", err, ctf.Unauthorized)
	res, err := f.svc.Accounts.Login(ctx, Login{Username: "pam", Password: "new-password-1", Address: "10.0.0.3"})
	if err != nil || !res.NeedCode {
		t.Errorf("the new password: %+v, %v (2FA kept, and the failures before forgotten)", res, err)
	}
	log, _ := f.svc.Admin.AuditLog(ctx, f.as("root"), 0, 10)
	if !hasAudit(log, "user.password-reset", "pam") || !hasAudit(log, "user.reset-request", "pam") {
		t.Errorf("audit: %+v", log)
	}

	// An unused link expires after 30 minutes.
	wantCode(t, "pat forgot", f.svc.Accounts.ForgotPassword(ctx, "pat", "10.0.0.1"), "")
	patToken := outboxTokens(t, f.db, "pat@example.com")[0]
	f.clock.Add(ResetLifetime + time.Second)
	_, err = f.svc.Accounts.ResetPassword(ctx, PasswordReset{Token: patToken, Password: "new-password-1"})
	wantCode(t, "an expired link", err, ctf.Invalid)
	_, err = f.svc.Accounts.ResetTarget(ctx, "made-up")
	wantCode(t, "a made-up link", err, ctf.Invalid)
}

func hasAudit(log []ctf.AuditEntry, action, target string) bool {
	for _, a := range log {
		if a.Action == action && a.Target == target {
			return true
		}
	}
	return false
}

// TestAdminRecovery: an admin makes a link that works once, turns a
// user's 2FA off (ending their sessions), edits their name and email;
// players cannot, agents are not people, and each is audited.
func TestAdminRecovery(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, Options{PublicURL: "https://ctf.example.org"})
	root, pam := f.as("root"), f.as("pam")
	codes := turnTwoFactorOn(t, f)
	login, err := f.svc.Accounts.Login(ctx, Login{Username: "pam", Password: "pam-password", Code: codes[0]})
	wantCode(t, "login", err, "")

	_, err = f.svc.Admin.ResetLink(ctx, f.as("pat"), pam.User.ID)
	wantCode(t, "a player's link", err, ctf.Forbidden)
	link, err := f.svc.Admin.ResetLink(ctx, root, pam.User.ID)
	wantCode(t, "link", err, "")
	u, err := url.Parse(link)
	if err != nil || u.Host != "ctf.example.org" || u.Path != "/reset" {
		t.Fatalf("link %q", link)
	}
	noURL := f.replica()
	path, err := noURL.Admin.ResetLink(ctx, ctf.Operator, pam.User.ID)
	if err != nil || !strings.HasPrefix(path, "/reset?token=") {
		t.Errorf("the operator's link without a public URL: %q, %v", path, err)
	}

	_, err = f.svc.Admin.DisableTwoFactor(ctx, f.as("pat"), pam.User.ID)
	wantCode(t, "a player turning 2FA off", err, ctf.Forbidden)
	nu, err := f.svc.Admin.DisableTwoFactor(ctx, root, pam.User.ID)
	if err != nil || nu.TwoFactor {
		t.Fatalf("turn 2FA off: %+v, %v", nu, err)
	}
	if _, err := f.svc.Accounts.AuthenticateSession(ctx, login.Token); err == nil {
		t.Error("pam's session outlived her 2FA being turned off")
	}
	_, err = f.svc.Admin.DisableTwoFactor(ctx, root, pam.User.ID)
	wantCode(t, "off again", err, ctf.Conflict)
	// With 2FA off, the admin's link needs no code.
	_, err = f.svc.Accounts.ResetPassword(ctx, PasswordReset{Token: u.Query().Get("token"), Password: "fresh-password"})
	wantCode(t, "reset by the admin's link", err, "")

	_, err = f.svc.Admin.EditUser(ctx, root, pam.User.ID, "Pam P.", "PAT@example.com")
	wantCode(t, "a taken email", err, ctf.Conflict)
	_, err = f.svc.Admin.EditUser(ctx, root, pam.User.ID, "Pam P.", "not-an-email")
	wantCode(t, "a bad email", err, ctf.Invalid)
	nu, err = f.svc.Admin.EditUser(ctx, root, pam.User.ID, "Pam P.", "pam@new.example.com")
	if err != nil || nu.Name != "Pam P." || nu.Email != "pam@new.example.com" {
		t.Fatalf("edit: %+v, %v", nu, err)
	}
	res, err := f.svc.Accounts.Login(ctx, Login{Username: "pam@new.example.com", Password: "fresh-password"})
	if err != nil || res.Token == "" {
		t.Errorf("login by the new email: %v", err)
	}
	log, _ := f.svc.Admin.AuditLog(ctx, root, 0, 20)
	for _, a := range []string{"user.reset-link", "user.disable-2fa", "user.edit", "user.password-reset"} {
		if !hasAudit(log, a, "pam") {
			t.Errorf("no %s in the audit log", a)
		}
	}
}

// TestRegenerateRecoveryCodes: with the password, a player with 2FA gets
// ten new codes; the old ones stop working; a wrong password counts as a
// failed login; without 2FA it is a Conflict.
func TestRegenerateRecoveryCodes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	_, err := f.svc.Accounts.RegenerateRecoveryCodes(ctx, f.as("pam"), "pam-password")
	wantCode(t, "without 2FA", err, ctf.Conflict)
	old := turnTwoFactorOn(t, f)
	pam := f.as("pam")
	_, err = f.svc.Accounts.RegenerateRecoveryCodes(ctx, pam, "wrong")
	wantCode(t, "a wrong password", err, ctf.Invalid)
	codes, err := f.svc.Accounts.RegenerateRecoveryCodes(ctx, pam, "pam-password")
	if err != nil || len(codes) != 10 || codes[0] == old[0] {
		t.Fatalf("new codes: %v, %v", codes, err)
	}
	if n, _ := f.svc.Accounts.RecoveryCodesLeft(ctx, pam); n != 10 {
		t.Errorf("%d codes left", n)
	}
	_, err = f.svc.Accounts.Login(ctx, Login{Username: "pam", Password: "pam-password", Code: old[1]})
	wantCode(t, "an old code", err, ctf.Unauthorized)
	if res, err := f.svc.Accounts.Login(ctx, Login{Username: "pam", Password: "pam-password", Code: codes[1]}); err != nil || res.Token == "" {
		t.Errorf("a new code: %v", err)
	}
	for range maxAccountFailures {
		_, _ = f.svc.Accounts.RegenerateRecoveryCodes(ctx, pam, "wrong")
	}
	_, err = f.svc.Accounts.RegenerateRecoveryCodes(ctx, pam, "pam-password")
	wantCode(t, "past the login throttle", err, ctf.RateLimited)
}
