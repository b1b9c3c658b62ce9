package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/pquerna/otp/totp"
)

// signedIn reports whether b's session still reaches the settings.
func signedIn(b *browser) bool { return b.get("/settings").status == http.StatusOK }

// TestTwoFactorChangesEndOtherSessions: turning two-factor authentication
// on or off ends every other session of the account, as a password change
// does, and keeps the one that made the change.
func TestTwoFactorChangesEndOtherSessions(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	laptop, phone := newBrowser(t, s), newBrowser(t, s)
	for _, b := range []*browser{laptop, phone} {
		b.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})
	}
	secret := beginTwoFactor(t, laptop)
	code, _ := totp.GenerateCode(secret, time.Now())
	on := laptop.send("/settings/2fa/confirm", url.Values{"code": {code}})
	want(t, "2FA on", on, 200, "Two-factor authentication is on")
	recovery := regexp.MustCompile(`(?m)^([a-z2-9]{5}-[a-z2-9]{5})$`).FindAllString(on.body, -1)
	if len(recovery) != 10 {
		t.Fatalf("%d recovery codes", len(recovery))
	}
	if signedIn(phone) {
		t.Error("the phone's session outlived turning two-factor on")
	}
	if !signedIn(laptop) {
		t.Fatal("turning two-factor on ended the session that did it")
	}

	p := phone.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}, "code": {recovery[0]}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("the phone logs in again: %d", p.status)
	}
	off := laptop.send("/settings/2fa/disable", url.Values{"password": {"pam-password"}, "code": {recovery[1]}})
	want(t, "2FA off", off, 200, "Two-factor authentication is off.")
	if signedIn(phone) {
		t.Error("the phone's session outlived turning two-factor off")
	}
	if !signedIn(laptop) {
		t.Fatal("turning two-factor off ended the session that did it")
	}
}

// TestDisableTwoFactorNeedsThePassword: a code alone (from a stolen
// session and a glance at the victim's app, say) does not turn two-factor
// off: the form asks for the password too.
func TestDisableTwoFactorNeedsThePassword(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	b := newBrowser(t, s)
	b.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})
	secret := enableTwoFactor(t, b)
	// A code of the next time step: good, and not used yet.
	code, _ := totp.GenerateCode(secret, time.Now().Add(30*time.Second))
	want(t, "the form", b.get("/settings"), 200, `action="/settings/2fa/disable"`, `name="password"`)
	for _, tc := range []struct{ name, password string }{{"no password", ""}, {"a wrong password", "not the password"}} {
		p := b.send("/settings/2fa/disable", url.Values{"password": {tc.password}, "code": {code}})
		want(t, "turn off with "+tc.name, p, 200, "password", "On.")
	}
	want(t, "still on", b.get("/settings"), 200, "On. 10 recovery codes left.")
}

// TestPasswordChangeIsThrottled: the current-password check of a password
// change counts failures like a login, on the same counter: after five
// wrong ones even the right one waits, and so does logging in.
func TestPasswordChangeIsThrottled(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	b := newBrowser(t, s)
	b.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})
	change := func(current string) page {
		return b.send("/settings/password", url.Values{"current": {current}, "new": {"a new password"}, "new2": {"a new password"}})
	}
	for i := range 5 {
		want(t, fmt.Sprintf("wrong current password %d", i+1), change(fmt.Sprintf("guess number %d", i)), 200, "Current password is wrong")
	}
	p := change("pam-password")
	want(t, "the right current password after five wrong ones", p, 200, "; wait ")
	if p.header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
	want(t, "logging in after five wrong current passwords", newBrowser(t, s).send("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}}),
		200, "; wait ")
}
