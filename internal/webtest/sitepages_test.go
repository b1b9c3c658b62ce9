package webtest

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
)

const pagesEvent = `
users:
  - {username: root, email: root@example.com, password: root-password, role: admin}
challenges:
  - {slug: warmup, title: Warmup, categories: [misc], difficulty: Easy, points: 50, flags: ['flag{warm}']}
`

// TestEventPagesInABrowser: an admin writes the landing page, the rules
// and the FAQ at /admin/pages and uploads a logo (a wide one); a visitor
// then gets the landing page at / with the logo and the name in the top
// bar, follows "Rules" and "See the challenges"; axe finds nothing
// serious on /, /rules, /faq and /admin/pages in either theme, and at
// 390 px none of them scrolls sideways and the logo keeps its height.
func TestEventPagesInABrowser(t *testing.T) {
	axe := axeScript(t)
	s := apitest.Start(t, pagesEvent)
	if _, err := s.Svc.Event.Set(context.Background(), ctf.Operator, ctf.Event{Name: "Harbour Hack Night 2026"}); err != nil {
		t.Fatal(err)
	}
	logo := filepath.Join(t.TempDir(), "logo.png")
	img := image.NewRGBA(image.Rect(0, 0, 600, 120)) // wide: it must not widen the bar
	for x := range 600 {
		for y := range 120 {
			img.Set(x, y, color.RGBA{R: uint8(x), G: 120, B: 200, A: 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(logo, buf.Bytes(), 0o644)

	admin := newBrowser(t)
	step(t, admin, "log in", append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(s.URL + "/login")},
		fill(map[string]string{"username": "root", "password": "root-password"}, `form[action="/login"] button[type=submit]`)...)...)
	step(t, admin, "signed in", chromedp.WaitVisible(chromedp.CSS("a.who")))
	step(t, admin, "the pages admin", chromedp.Navigate(s.URL+"/admin"), chromedp.Click(chromedp.CSS(`.adminnav a[href="/admin/pages"]`)),
		atURL("/admin/pages"), contains("main h1", "Pages"))
	for _, p := range []struct{ name, text, notice string }{
		{"landing", "# Welcome aboard\n\nA night of **puzzles** by the harbour. Read https://harbour.example.org/a/very/long/path/that/goes/on/and/on/index.html first.", "Landing page"},
		{"rules", "1. Be *nice*.\n2. No attacks on the platform.", "Rules"},
		{"faq", "## Can I play alone?\n\nYes.", "FAQ"},
	} {
		step(t, admin, "write the "+p.name, chromedp.SendKeys(chromedp.CSS(`#page-`+p.name+` textarea`), p.text),
			chromedp.Click(chromedp.CSS(`#page-`+p.name+` button`)), contains(".alert.notice", "Page saved: "+p.notice))
	}
	step(t, admin, "upload the logo", chromedp.SetUploadFiles(chromedp.CSS(`input[name=logo]`), []string{logo}),
		chromedp.Click(chromedp.CSS(`form[action="/admin/logo"] button`)), contains(".alert.notice", "Logo saved"))
	if name := text(t, admin, "a.brand"); name != "Harbour Hack Night 2026" {
		t.Errorf("the brand reads %q", name)
	}
	screenshot(t, admin, "pages-admin")
	axeBothThemes(t, admin, axe, "/admin/pages")

	visitor := newBrowser(t)
	step(t, visitor, "the landing page", chromedp.Navigate(s.URL+"/"), contains("main", "A night of puzzles"))
	loaded := eval[bool](t, visitor, `(() => { const i = document.querySelector("a.brand img.logo"); return !!i && i.complete && i.naturalWidth === 600 && i.alt === "Harbour Hack Night 2026"; })()`)
	if !loaded {
		t.Error("the top bar shows no loaded logo with the event's name as its alt text")
	}
	axeBothThemes(t, visitor, axe, "/ (the landing page)")
	step(t, visitor, "the rules", chromedp.Click(chromedp.CSS(`header nav a[href="/rules"]`)), atURL("/rules"), contains("main h1", "Rules"),
		contains("main", "Be nice."))
	axeBothThemes(t, visitor, axe, "/rules")
	step(t, visitor, "the FAQ", chromedp.Click(chromedp.CSS(`header nav a[href="/faq"]`)), atURL("/faq"), contains("main h2", "Can I play alone?"))
	axeBothThemes(t, visitor, axe, "/faq")
	step(t, visitor, "the challenges", chromedp.Navigate(s.URL+"/"), chromedp.Click(chromedp.CSS(`main a[href="/challenges"]`)),
		atURL("/challenges"), contains("main h1", "Challenges"), contains("main", "Warmup"))

	for _, tab := range []struct {
		ctx   context.Context
		pages []string
	}{{visitor, []string{"/", "/rules", "/faq"}}, {admin, []string{"/admin/pages", "/"}}} {
		step(t, tab.ctx, "phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)))
		for _, p := range tab.pages {
			step(t, tab.ctx, "open "+p, chromedp.Navigate(s.URL+p), chromedp.WaitVisible(chromedp.CSS("main")))
			tctx, cancel := context.WithTimeout(tab.ctx, 10*time.Second)
			width, err := chromedp.Run(tctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
			height, err2 := chromedp.Run(tctx, chromedp.Evaluate[float64](`document.querySelector("a.brand img.logo").getBoundingClientRect().height`))
			cancel()
			if err != nil || err2 != nil {
				t.Fatal(err, err2)
			}
			if width > 390 {
				t.Errorf("%s is %d px wide on a 390 px screen", p, width)
			}
			if height != 28 {
				t.Errorf("%s: the logo is %v px high, want 28", p, height)
			}
		}
		screenshot(t, tab.ctx, "pages-phone"+map[bool]string{true: "-visitor", false: "-admin"}[tab.ctx == visitor])
	}
	step(t, visitor, "desktop", chromedp.EmulateViewport(1280, 900))
	step(t, visitor, "the landing page again", chromedp.Navigate(s.URL+"/"), contains("main", "A night of puzzles"))
	screenshot(t, visitor, "pages-landing")
}
