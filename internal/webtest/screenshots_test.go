package webtest

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/demo"
	"github.com/flagshipctf/flagship/internal/platform"
)

// TestScreenshots takes the README's pictures from the demo event: the
// board, a challenge, the scoreboard with its graph, settings and the admin
// overview. FLAGSHIP_SCREENSHOTS=docs/screenshots (from the repository's
// root: ../../docs/screenshots) saves them there.
func TestScreenshots(t *testing.T) {
	s := apitest.Start(t, string(demo.DatasetAt(time.Now()))) // recent, as serve --demo has it
	if _, err := s.Svc.Accounts.CreateUser(context.Background(), ctf.Operator, platform.NewUser{Username: "organiser2",
		Email: "organiser2@example.com", Password: "organiser-password", Role: ctf.RoleAdmin}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Svc.Event.PostAnnouncement(context.Background(), ctf.Operator, "Baby RSA: a new handout",
		"The first handout had the **wrong modulus**. Download it again; earlier solves stand.", "baby-rsa"); err != nil {
		t.Fatal(err)
	}
	ctx := newBrowser(t)
	step(t, ctx, "a dark system", prefersColorScheme("dark")) // the pictures of the README are dark, but one
	step(t, ctx, "log in", append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(s.URL + "/login")},
		fill(map[string]string{"username": "demo", "password": demo.DemoPassword}, `form[action="/login"] button[type=submit]`)...)...)
	step(t, ctx, "board", chromedp.WaitVisible(chromedp.CSS(".cards")))
	screenshot(t, ctx, "board")
	step(t, ctx, "challenge", chromedp.Navigate(s.URL+"/challenges/baby-rsa"), chromedp.WaitVisible(chromedp.CSS("article.challenge")))
	screenshot(t, ctx, "challenge")
	step(t, ctx, "scoreboard", chromedp.Navigate(s.URL+"/scoreboard"), chromedp.WaitVisible(chromedp.CSS("svg.graph polyline")))
	screenshot(t, ctx, "scoreboard")
	step(t, ctx, "settings", chromedp.Navigate(s.URL+"/settings"), chromedp.WaitVisible(chromedp.CSS("#keys")), chooseTheme("light"),
		chromedp.Evaluate[chromedp.Void](`document.activeElement.blur()`)) // the switch keeps the focus: no ring in the picture
	screenshot(t, ctx, "settings-light-theme")

	admin := newBrowser(t)
	step(t, admin, "admin", append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(s.URL + "/login?next=/admin")},
		fill(map[string]string{"username": "organiser2", "password": "organiser-password"}, `form[action="/login"] button[type=submit]`)...)...)
	step(t, admin, "overview", chromedp.WaitVisible(chromedp.CSS("dl.stats")))
	screenshot(t, admin, "admin-overview")
	step(t, admin, "event", chromedp.Navigate(s.URL+"/admin/event"), chromedp.WaitVisible(chromedp.CSS("#clock-h")))
	screenshot(t, admin, "admin-event")
	step(t, ctx, "announcements", chromedp.Navigate(s.URL+"/announcements"), chromedp.WaitVisible(chromedp.CSS("[data-live]")))
	screenshot(t, ctx, "announcements")
}
