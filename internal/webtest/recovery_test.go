package webtest

import (
	"context"
	"crypto/tls"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/mail"
	"github.com/flagshipctf/flagship/internal/mail/mailtest"
)

// axeBothThemes checks the page in the dark and the light theme (the
// theme is the theme cookie's), leaving it dark.
func axeBothThemes(t *testing.T, ctx context.Context, axe, label string) {
	t.Helper()
	for _, theme := range []string{"light", "dark"} {
		step(t, ctx, label+" in the "+theme+" theme",
			chromedp.Evaluate[chromedp.Void](`document.cookie = "theme=`+theme+`; path=/"`), chromedp.Reload(),
			chromedp.WaitVisible(chromedp.CSS(`html[data-theme="`+theme+`"] main`)))
		axeCheck(t, ctx, axe, label+" ("+theme+")")
	}
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
	smtp := mailtest.Start(t, mailtest.Options{User: "ctf", Password: "pw"})
	c, err := mail.ParseURL(smtp.URL())
	if err != nil {
		t.Fatal(err)
	}
	c.TLS = &tls.Config{RootCAs: smtp.Roots}
	from, _ := mail.ParseFrom("Flagship <ctf@example.org>")
	wctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		mail.NewWorker(s.DB.Mail(), mail.NewSender(c, from), mail.Options{Tick: 50 * time.Millisecond}).Run(wctx)
		close(done)
	}()
	t.Cleanup(func() { stop(); <-done })

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
