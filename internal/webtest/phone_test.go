package webtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/flagshipctf/flagship/internal/apitest"
)

// longURLEvent has a description with a long URL and a long word, the
// kind that made a page 921 px wide on a phone (issue 20, fix 3).
const longURLEvent = `
users:
  - {username: root, email: root@example.com, password: root-password, role: admin}
challenges:
  - {slug: long-link, title: Long Link, categories: [web], difficulty: Easy, points: 50, flags: ['flag{long}'],
     description: "Start at https://challenges.example.org/a/very/long/path/that/goes/on/and/on/without/any/break/at/all/index.html?token=0123456789abcdef0123456789abcdef and read supercalifragilisticexpialidocious_supercalifragilisticexpialidocious."}
`

// TestNothingScrollsSidewaysAt390 (issue 20, fix 3): at a phone's width no
// page scrolls sideways, a long URL in a description included, nor any
// admin page.
func TestNothingScrollsSidewaysAt390(t *testing.T) {
	s := apitest.Start(t, longURLEvent)
	ctx := newBrowser(t)
	step(t, ctx, "phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)))
	step(t, ctx, "log in", append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(s.URL + "/login")},
		fill(map[string]string{"username": "root", "password": "root-password"}, `form[action="/login"] button[type=submit]`)...)...)
	step(t, ctx, "signed in", chromedp.WaitVisible(chromedp.CSS("a.who")))
	for _, p := range []string{"/challenges/long-link", "/admin", "/admin/challenges", "/admin/challenges/new", "/admin/challenges/long-link",
		"/admin/event", "/admin/users", "/admin/audit", "/admin/webhooks", "/admin/announcements", "/admin/writeups", "/admin/instances", "/admin/pages", "/admin/mail", "/settings"} {
		step(t, ctx, "open "+p, chromedp.Navigate(s.URL+p), chromedp.WaitVisible(chromedp.CSS("main")))
		tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		width, err := chromedp.Run(tctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if p == "/challenges/long-link" {
			screenshot(t, ctx, "phone-long-link")
		}
		if width > 390 {
			wide, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("main *")].filter(e => e.getBoundingClientRect().right > 390).slice(0, 5).map(e => e.tagName + "." + e.className + "[" + (e.name || "") + "]").join(", ")`))
			t.Errorf("%s is %d px wide on a 390 px screen: it scrolls sideways (%s)", p, width, wide)
			screenshot(t, ctx, "wide"+strings.ReplaceAll(p, "/", "-"))
		}
	}
}
