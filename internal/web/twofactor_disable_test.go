package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/store/storetest"
	"github.com/pquerna/otp/totp"
)

// alertOf returns the error a page shows, "" for none.
func alertOf(p page) string {
	m := regexp.MustCompile(`<p class="alert error" role="alert"[^>]*>([^<]*)</p>`).FindStringSubmatch(p.body)
	if m == nil {
		return ""
	}
	return m[1]
}

// TestDisableTwoFactorWhenOffIsAConflict: a form to turn two-factor off
// sent while it is off (a direct POST, say from a stolen session) is a
// Conflict before anything is checked: the answer is the same whatever the
// password, and no try counts, so it tells nothing about the password.
func TestDisableTwoFactorWhenOffIsAConflict(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	b := newBrowser(t, s)
	b.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})
	var first string
	for i, password := range []string{"pam-password", "guess 1", "guess 2", "guess 3", "guess 4", "guess 5", "guess 6", "pam-password"} {
		p := b.send("/settings/2fa/disable", url.Values{"password": {password}, "code": {"123456"}})
		want(t, fmt.Sprintf("turn off while off, try %d", i+1), p, 200, "Off. With it on")
		if i == 0 {
			first = alertOf(p)
		} else if got := alertOf(p); got != first {
			t.Errorf("try %d says %q, the first said %q", i+1, got, first)
		}
	}
	if p := newBrowser(t, s).post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}}); p.status != http.StatusSeeOther {
		t.Fatalf("log in after the tries: status %d, want 303 (none may count)\n%.1000s", p.status, p.body)
	}
}

// TestDisableTwoFactorFailuresReadTheSame: a wrong password and a wrong
// code get the same answer, so the form is no oracle for the password of
// the session's account.
func TestDisableTwoFactorFailuresReadTheSame(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	b := newBrowser(t, s)
	b.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})
	secret := enableTwoFactor(t, b)
	// A code of the next time step: good, and not used yet.
	good, _ := totp.GenerateCode(secret, time.Now().Add(30*time.Second))
	wrongPassword := b.send("/settings/2fa/disable", url.Values{"password": {"not the password"}, "code": {good}})
	want(t, "a wrong password and a good code", wrongPassword, 200, "On. 10 recovery codes left.")
	wrongCode := b.send("/settings/2fa/disable", url.Values{"password": {"pam-password"}, "code": {wrongCode(secret)}})
	want(t, "the password and a wrong code", wrongCode, 200, "On. 10 recovery codes left.")
	if a, b := alertOf(wrongPassword), alertOf(wrongCode); a != b || a == "" {
		t.Errorf("a wrong password says %q, a wrong code %q: want one message", a, b)
	}
}

// TestDisableTwoFactorPasswordTriesCountOnTheLogin: the password of the
// form to turn two-factor off is throttled on the account's login counter,
// as a log-in and a password change are: after five wrong ones through
// the form, logging in with the right password waits.
func TestDisableTwoFactorPasswordTriesCountOnTheLogin(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	b := newBrowser(t, s)
	b.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})
	secret := enableTwoFactor(t, b)
	good, _ := totp.GenerateCode(secret, time.Now().Add(30*time.Second))
	for i := range 5 {
		p := b.send("/settings/2fa/disable", url.Values{"password": {fmt.Sprintf("guess number %d", i)}, "code": {good}})
		want(t, fmt.Sprintf("wrong password %d", i+1), p, 200, "On. 10 recovery codes left.")
	}
	p := newBrowser(t, s).send("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})
	want(t, "logging in after five wrong passwords through the form", p, 200, "; wait ")
	want(t, "the form after five wrong passwords", b.send("/settings/2fa/disable", url.Values{"password": {"pam-password"}, "code": {good}}),
		200, "; wait ", "On. 10 recovery codes left.")
}

// TestAccountChangesOutliveASessionReadError: once turning two-factor on
// or off (or a password change) is committed, a failure to read the
// account's sessions back afterwards does not turn the answer into an
// error (which would throw the recovery codes away while two-factor is
// on): the change is done, and the other sessions it ended end here too
// by the next catch-up. The failure is a real one: a column the read
// needs is renamed away meanwhile.
func TestAccountChangesOutliveASessionReadError(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	raw := storetest.SQL(t, s.DSN)
	breakSessions := func(on bool) {
		t.Helper()
		from, to := "user_agent", "user_agent_away"
		if !on {
			from, to = to, from
		}
		if _, err := raw.Exec("ALTER TABLE sessions RENAME COLUMN " + from + " TO " + to); err != nil {
			t.Fatal(err)
		}
	}
	laptop, phone := newBrowser(t, s), newBrowser(t, s)
	for _, b := range []*browser{laptop, phone} {
		b.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})
	}
	secret := beginTwoFactor(t, laptop)
	code, _ := totp.GenerateCode(secret, time.Now())

	breakSessions(true)
	on := laptop.send("/settings/2fa/confirm", url.Values{"code": {code}})
	breakSessions(false)
	want(t, "2FA on while the sessions cannot be read", on, 200, "Two-factor authentication is on")
	recovery := regexp.MustCompile(`(?m)^([a-z2-9]{5}-[a-z2-9]{5})$`).FindAllString(on.body, -1)
	if len(recovery) != 10 {
		t.Fatalf("%d recovery codes shown", len(recovery))
	}
	s.Sync()
	if signedIn(phone) {
		t.Error("the phone's session outlived turning two-factor on, after a catch-up")
	}
	if !signedIn(laptop) {
		t.Fatal("turning two-factor on ended the session that did it")
	}

	if p := phone.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}, "code": {recovery[0]}}); p.status != http.StatusSeeOther {
		t.Fatalf("the phone logs in again: %d", p.status)
	}
	breakSessions(true)
	off := laptop.send("/settings/2fa/disable", url.Values{"password": {"pam-password"}, "code": {recovery[1]}})
	breakSessions(false)
	want(t, "2FA off while the sessions cannot be read", off, 200, "Two-factor authentication is off.")
	s.Sync()
	if signedIn(phone) {
		t.Error("the phone's session outlived turning two-factor off, after a catch-up")
	}
	if !signedIn(laptop) {
		t.Fatal("turning two-factor off ended the session that did it")
	}

	if p := phone.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}}); p.status != http.StatusSeeOther {
		t.Fatalf("the phone logs in again: %d", p.status)
	}
	breakSessions(true)
	changed := laptop.send("/settings/password", url.Values{"current": {"pam-password"}, "new": {"a new password"}, "new2": {"a new password"}})
	breakSessions(false)
	want(t, "a password change while the sessions cannot be read", changed, 200, "Password changed")
	s.Sync()
	if signedIn(phone) {
		t.Error("the phone's session outlived a password change, after a catch-up")
	}
	if !signedIn(laptop) {
		t.Fatal("the password change ended the session that did it")
	}
}
