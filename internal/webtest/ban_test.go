package webtest

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/flagshipctf/flagship/internal/apitest"
)

// TestBanAsAnAdminDoes (issue 20): an admin bans a logged-in player from
// Admin → Users through the confirmation page, with a reason; the
// player's next page says they are banned and why. Axe finds nothing
// serious on the confirmation page and on a page with the notice, in both
// themes, and neither scrolls sideways at 390 px.
func TestBanAsAnAdminDoes(t *testing.T) {
	axe := axeScript(t)
	s := apitest.Start(t, organiserEvent)
	player, admin := loggedIn(t, s.URL, "reader"), loggedIn(t, s.URL, "root")
	step(t, admin, "Ban in the list", chromedp.Navigate(s.URL+"/admin/users"), chromedp.Click(chromedp.CSS(`a[href="/admin/users/reader/ban"]`)),
		contains("h1", "Ban reader"), chromedp.WaitVisible(chromedp.CSS("#reason")))
	if p := text(t, admin, "main"); !strings.Contains(p, "cannot submit flags, log in") || !strings.Contains(p, "agents are banned with them") {
		t.Errorf("the confirmation does not say what a ban does:\n%s", p)
	}
	axeBothThemes(t, admin, axe, "the ban's confirmation")
	screenshot(t, admin, "admin-ban-confirm")
	phoneWidth(t, admin, "the ban's confirmation", "admin-ban-confirm-390")
	step(t, admin, "confirm with a reason", chromedp.SendKeys(chromedp.CSS("#reason"), "Shared the warmup flag in the public channel"),
		chromedp.Click(chromedp.CSS(`form[action="/admin/users/reader/ban"] button[type=submit]`)),
		atURL("/admin/users"), contains(".alert.notice", "Banned reader"))
	if row := text(t, admin, "table.board tbody"); !strings.Contains(row, "Shared the warmup flag in the public channel") {
		t.Errorf("the list does not show the reason:\n%s", row)
	}

	const notice = "Your account is banned: Shared the warmup flag in the public channel. You cannot submit flags or log in"
	for _, p := range []string{"/scoreboard", "/challenges/warmup"} {
		step(t, player, "the player's next page "+p, chromedp.Navigate(s.URL+p), contains(`main [role="alert"]`, notice))
		if eval[bool](t, player, `!!document.querySelector("a.who")`) {
			t.Errorf("%s: the banned player is still shown as signed in", p)
		}
	}
	axeBothThemes(t, player, axe, "a page with the ban's notice")
	screenshot(t, player, "banned-notice")
	phoneWidth(t, player, "a page with the ban's notice", "banned-notice-390")
}

// phoneWidth checks at 390 px that the tab's page does not scroll
// sideways, takes its screenshot shot, then goes back to the desktop size.
func phoneWidth(t *testing.T, ctx context.Context, label, shot string) {
	t.Helper()
	step(t, ctx, label+" at 390 px", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)), chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS("main")))
	if w := eval[int](t, ctx, `document.documentElement.scrollWidth`); w > 390 {
		t.Errorf("%s is %d px wide on a 390 px screen: it scrolls sideways", label, w)
	}
	screenshot(t, ctx, shot)
	step(t, ctx, label+" back to the desktop", chromedp.EmulateViewport(1280, 900), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("main")))
}
