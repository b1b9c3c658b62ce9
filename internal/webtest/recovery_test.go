package webtest

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/mail/mailtest"
	"github.com/pquerna/otp/totp"
)

// axeBothThemes checks the page in the light and the dark theme, chosen
// with the page's switch, leaving it dark.
func axeBothThemes(t *testing.T, ctx context.Context, axe, label string) {
	t.Helper()
	for _, theme := range []string{"light", "dark"} {
		// The page's own switch (no reload: a reload raced a page still
		// settling and timed out once under load).
		step(t, ctx, label+" in the "+theme+" theme", chooseTheme(theme))
		axeCheck(t, ctx, axe, label+" ("+theme+")")
	}
}

// startMail runs serve's mail worker over s's outbox, sending to a test
// SMTP server (STARTTLS and a password), until the test ends.
func startMail(t *testing.T, s *apitest.Server) *mailtest.Server {
	return mailtest.Relay(t, s.DB.Mail())
}

var mailLinkRE = regexp.MustCompile(`https?://\S+/reset\?token=[A-Za-z0-9_-]+`)

// TestForgotPasswordInABrowser: a player who forgot their password follows
// "Forgot your password?" from the login page, asks for a link, opens the
// email the SMTP server received, follows its link, chooses a new password
// and logs in with it; axe finds nothing serious on the new pages in
// either theme.
func TestForgotPasswordInABrowser(t *testing.T) {
	axe := axeScript(t)
	s := apitest.Start(t, flowEvent, apitest.Options{Mail: true})
	smtp := startMail(t, s)

	ctx := newBrowser(t)
	step(t, ctx, "login page", chromedp.Navigate(s.URL+"/login"), chromedp.WaitVisible(chromedp.CSS(`a[href="/forgot"]`)),
		chromedp.Click(chromedp.CSS(`a[href="/forgot"]`)), chromedp.WaitVisible(chromedp.CSS(`form[action="/forgot"]`)))
	axeBothThemes(t, ctx, axe, "/forgot")
	step(t, ctx, "ask for a link", fill(map[string]string{"name": "reader@example.com"}, `form[action="/forgot"] button[type=submit]`)...)
	step(t, ctx, "the answer", contains("main", "If an account matches"))
	axeBothThemes(t, ctx, axe, "/forgot?sent=1")
	screenshot(t, ctx, "forgot-sent")

	msgs := smtp.Wait(t, 1, 15*time.Second)
	p := mailtest.Parse(t, msgs[0].Raw)
	link := mailLinkRE.FindString(p.Parts["text/plain"])
	if link == "" || msgs[0].To[0] != "reader@example.com" {
		t.Fatalf("no link in the message to %v:\n%s", msgs[0].To, msgs[0].Raw)
	}
	step(t, ctx, "follow the link", chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS(`form[action="/reset"]`)))
	if who := text(t, ctx, "main strong"); who != "reader" {
		t.Errorf("the reset page names %q", who)
	}
	axeBothThemes(t, ctx, axe, "/reset")
	screenshot(t, ctx, "reset")
	step(t, ctx, "choose a password", fill(map[string]string{"password": "brand-new-pass", "password2": "brand-new-pass"},
		`form[action="/reset"] button[type=submit]`)...)
	step(t, ctx, "told to log in", contains("main", "Your new password is set"))
	step(t, ctx, "log in with it", fill(map[string]string{"username": "reader", "password": "brand-new-pass"},
		`form[action="/login"] button[type=submit]`)...)
	step(t, ctx, "signed in", chromedp.WaitVisible(chromedp.CSS("a.who")))
	if who := text(t, ctx, "a.who"); who != "reader" {
		t.Fatalf("signed in as %q", who)
	}
	// The link is spent.
	step(t, ctx, "the link again", chromedp.Navigate(link), contains("main", "not valid"))
	axeCheck(t, ctx, axe, "/reset with a spent link")

	// An admin recovers the account without email: the recovery page, and
	// the one-time link it shows.
	step(t, ctx, "log out", chromedp.Navigate(s.URL+"/"), chromedp.Click(chromedp.CSS(`form[action="/logout"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`a[href="/signup"]`)))
	step(t, ctx, "log in as root", append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(s.URL + "/login")},
		fill(map[string]string{"username": "root", "password": "root-password"}, `form[action="/login"] button[type=submit]`)...)...)
	step(t, ctx, "users", chromedp.WaitVisible(chromedp.CSS("a.who")), chromedp.Navigate(s.URL+"/admin/users"),
		chromedp.Click(chromedp.CSS(`a[href="/admin/users/reader/recovery"]`)), chromedp.WaitVisible(chromedp.CSS(`button[value="link"]`)))
	axeBothThemes(t, ctx, axe, "/admin/users/reader/recovery")
	step(t, ctx, "make a link", chromedp.Click(chromedp.CSS(`button[value="link"]`)), chromedp.WaitVisible(chromedp.CSS("#reset-link")))
	if v := evalString(t, ctx, `document.querySelector("#reset-link").value`); !strings.HasPrefix(v, s.URL+"/reset?token=") {
		t.Errorf("the admin's link is %q", v)
	}
	axeCheck(t, ctx, axe, "the recovery page with a link")
	screenshot(t, ctx, "admin-recovery")
}

var verifyLinkRE = regexp.MustCompile(`https?://\S+/verify\?token=[A-Za-z0-9_-]+`)

// TestEmailVerificationInABrowser: under --require-email-verification a
// person signs up, lands on /verify, is refused a flag, opens the email the
// SMTP server received, follows its link and then submits, on a phone:
// axe finds nothing serious on /verify before and after, in both themes,
// and neither scrolls sideways at 390 px.
func TestEmailVerificationInABrowser(t *testing.T) {
	axe := axeScript(t)
	s := apitest.Start(t, flowEvent, apitest.Options{Mail: true, RequireEmailVerification: true})
	smtp := startMail(t, s)
	ctx := newBrowser(t)
	step(t, ctx, "phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)))
	step(t, ctx, "sign up", append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(s.URL + "/signup")},
		fill(map[string]string{"username": "newbie", "email": "newbie@example.com", "password": "a long password",
			"password2": "a long password"}, `form[action="/signup"] button[type=submit]`)...)...)
	step(t, ctx, "told to confirm", atURL("/verify"), contains("main", "newbie@example.com"))
	axeBothThemes(t, ctx, axe, "/verify (390 px)")
	sideways(t, ctx, "/verify")
	step(t, ctx, "a flag before confirming", chromedp.Navigate(s.URL+"/challenges/warmup"), chromedp.SendKeys(chromedp.CSS("#flag"), "flag{warm}"),
		chromedp.Click(chromedp.CSS(`form[data-submit] button`)), contains("main", "Confirm your email address first"))

	msgs := smtp.Wait(t, 1, 15*time.Second)
	link := verifyLinkRE.FindString(mailtest.Parse(t, msgs[0].Raw).Parts["text/plain"])
	if link == "" || msgs[0].To[0] != "newbie@example.com" {
		t.Fatalf("no link in the message to %v:\n%s", msgs[0].To, msgs[0].Raw)
	}
	step(t, ctx, "follow the link", chromedp.Navigate(link), atURL("/verify?done=1"), contains("main", "Your email address is confirmed"))
	axeBothThemes(t, ctx, axe, "/verify?done=1 (390 px)")
	sideways(t, ctx, "/verify?done=1")
	screenshot(t, ctx, "verified")
	step(t, ctx, "a flag once confirmed", chromedp.Navigate(s.URL+"/challenges/warmup"), chromedp.SendKeys(chromedp.CSS("#flag"), "flag{warm}"),
		chromedp.Click(chromedp.CSS(`form[data-submit] button`)), contains("main", "Correct!"))
}

// TestNewRecoveryCodesInABrowser: a player turns two-factor authentication
// on with a code of the secret shown, then asks for new recovery codes with
// their password; the ten new codes show once; axe finds nothing serious on
// the page showing them, in both themes and at 390 px.
func TestNewRecoveryCodesInABrowser(t *testing.T) {
	axe := axeScript(t)
	s := apitest.Start(t, flowEvent)
	ctx := loggedIn(t, s.URL, "reader")
	step(t, ctx, "set up 2FA", chromedp.Navigate(s.URL+"/settings"),
		chromedp.Click(chromedp.CSS(`form[action="/settings/2fa/begin"] button`)), chromedp.WaitVisible(chromedp.CSS("#secret")))
	code, err := totp.GenerateCode(text(t, ctx, "#secret"), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	step(t, ctx, "turn it on", chromedp.SendKeys(chromedp.CSS("#code-confirm"), code),
		chromedp.Click(chromedp.CSS(`form[action="/settings/2fa/confirm"] button`)), chromedp.WaitVisible(chromedp.CSS("#recovery")))
	first := strings.Fields(text(t, ctx, "#recovery"))
	step(t, ctx, "new codes", chromedp.Navigate(s.URL+"/settings"), chromedp.SendKeys(chromedp.CSS("#password-codes"), "reader-password"),
		chromedp.Click(chromedp.CSS(`form[action="/settings/2fa/recovery-codes"] button`)), chromedp.WaitVisible(chromedp.CSS("#recovery")))
	fresh := strings.Fields(text(t, ctx, "#recovery"))
	if len(first) != 10 || len(fresh) != 10 || first[0] == fresh[0] {
		t.Fatalf("codes at set-up %v, new codes %v", first, fresh)
	}
	for _, theme := range []string{"dark", "light"} {
		step(t, ctx, theme+" theme", chooseTheme(theme))
		axeCheck(t, ctx, axe, "settings with new recovery codes ("+theme+")")
	}
	step(t, ctx, "phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)))
	axeCheck(t, ctx, axe, "settings with new recovery codes (390 px)")
	sideways(t, ctx, "settings with new recovery codes")
	screenshot(t, ctx, "new-recovery-codes")
	step(t, ctx, "shown once", chromedp.Navigate(s.URL+"/settings"), chromedp.WaitVisible(chromedp.CSS("#password-codes")))
	if strings.Contains(text(t, ctx, "main"), fresh[0]) {
		t.Error("the new codes are shown again")
	}
}
