package web_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
)

// TestSitePages: without pages, / is the board for everyone and the top
// bar links neither rules nor FAQ (both 404). An admin writes the landing
// page and the rules (a player may not): visitors then get the landing
// page at /, signed-in players the board, everyone the board at
// /challenges; the rules are linked and rendered as safe Markdown; an
// empty text hides a page again; a text over 64 KiB is refused in place
// with what was typed kept; every save is audited.
func TestSitePages(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	root, pam, anon := logIn(t, s, "root"), logIn(t, s, "pam"), newBrowser(t, s)
	board := "<h1>Challenges</h1>"
	home := anon.get("/")
	want(t, "home without a landing page", home, 200, board, `<a href="/challenges">Challenges</a>`)
	if strings.Contains(home.body, `href="/rules"`) || strings.Contains(home.body, `href="/faq"`) {
		t.Error("the top bar links empty pages")
	}
	want(t, "rules while empty", anon.get("/rules"), 404)
	want(t, "faq while empty", anon.get("/faq"), 404)
	want(t, "the board's own address", anon.get("/challenges"), 200, board, `action="/challenges"`)

	want(t, "a player's pages form", pam.post("/admin/pages", url.Values{"page": {"rules"}, "text": {"mine"}}), 403)
	want(t, "a player's admin page", pam.get("/admin/pages"), 403)
	want(t, "the admin page", root.get("/admin/pages"), 200, "<h1>Pages</h1>", `<a href="/admin/pages">Pages</a>`, "Save the rules")

	landing := "# Welcome to the **event**\n\n<script>alert(1)</script> <b>raw</b> [x](javascript:alert(1))"
	want(t, "save the landing page", root.send("/admin/pages", url.Values{"page": {"landing"}, "text": {landing}}), 200,
		"Page saved: Landing page.")
	want(t, "save the rules", root.send("/admin/pages", url.Values{"page": {"rules"}, "text": {"1. Be *nice*.\r\n2. No attacks on the platform."}}), 200,
		"Page saved: Rules.")

	home = anon.get("/")
	want(t, "landing for a visitor", home, 200, "<strong>event</strong>", `href="/challenges"`, `<a href="/rules">Rules</a>`)
	for _, bad := range []string{"<script>alert", "<b>raw</b>", "javascript:", board} {
		if strings.Contains(home.body, bad) {
			t.Errorf("the landing page holds %q", bad)
		}
	}
	if strings.Contains(home.body, `href="/faq"`) {
		t.Error("the top bar links the empty FAQ")
	}
	if n := strings.Count(home.body, "<h1"); n != 1 {
		t.Errorf("the landing page, whose text has its own heading, has %d h1 headings", n)
	}
	want(t, "board for a player", pam.get("/"), 200, board)
	want(t, "board at /challenges for a visitor", anon.get("/challenges"), 200, board)
	want(t, "rules", anon.get("/rules"), 200, "<h1 id=\"page-h\">Rules</h1>", "<em>nice</em>")
	want(t, "faq still empty", anon.get("/faq"), 404)

	long := strings.Repeat("a", ctf.MaxPageBytes+1)
	p := root.post("/admin/pages", url.Values{"page": {"faq"}, "text": {long}})
	want(t, "too long", p, 400, "The text must be at most 64 KiB", `aria-invalid="true"`, long)
	want(t, "unknown page", root.post("/admin/pages", url.Values{"page": {"about"}, "text": {"x"}}), 400, "The page must be one of landing, rules, faq")
	want(t, "faq after the refusal", anon.get("/faq"), 404)

	want(t, "empty the rules", root.send("/admin/pages", url.Values{"page": {"rules"}, "text": {" \r\n "}}), 200, "Rules is empty, so it is not shown.")
	want(t, "rules emptied", anon.get("/rules"), 404)
	if strings.Contains(anon.get("/").body, `href="/rules"`) {
		t.Error("the top bar still links the emptied rules")
	}
	want(t, "audit", root.get("/admin/audit"), 200, "page.update", `<a href="/admin/pages#page-rules">Rules</a>`)
}

// tinyPNG is a real 2×2 PNG image.
func tinyPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestEventLogo: an admin uploads the logo (a player may not); SVG, a
// file that is not an image and one over 256 KiB are refused with a
// sentence saying why; the top bar shows it with the event's name as its
// alt text; it is served at an address named by its content, cached,
// with its type and nosniff; removing it takes it off the bar and its
// address.
func TestEventLogo(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	if _, err := s.Svc.Event.Set(context.Background(), ctf.Operator, ctf.Event{Name: "Hack Night"}); err != nil {
		t.Fatal(err)
	}
	root, pam, anon := logIn(t, s, "root"), logIn(t, s, "pam"), newBrowser(t, s)
	upload := func(b *browser, name string, data []byte) page {
		t.Helper()
		p := b.multipartPost("/admin/logo", nil, "logo", name, data)
		if p.status != http.StatusSeeOther {
			return p
		}
		return b.get(p.header.Get("Location"))
	}
	want(t, "a player's upload", upload(pam, "logo.png", tinyPNG(t)), 403)
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`)
	refusal := "The logo must be a PNG, JPEG, GIF or WebP image (SVG is refused: it can carry script)."
	want(t, "svg", upload(root, "logo.png", svg), 200, refusal)
	want(t, "text", upload(root, "logo.png", []byte("hello, not an image")), 200, refusal)
	big := append(tinyPNG(t), make([]byte, ctf.MaxLogoBytes)...)
	want(t, "oversize", upload(root, "logo.png", big), 200, "The logo must be at most 256 KiB")
	want(t, "no file", upload(root, "", nil), 200, "Choose an image file")
	want(t, "far too big", root.multipartPost("/admin/logo", nil, "logo", "x.png", make([]byte, 2<<20)), 413)
	if _, ok := s.Svc.Event.Logo(); ok {
		t.Fatal("a refused logo was saved")
	}

	data := tinyPNG(t)
	want(t, "upload", upload(root, "whatever.svg", data), 200, "Logo saved")
	home := anon.get("/")
	m := regexp.MustCompile(`<img src="(/logo/[0-9a-f]{16}\.png)" alt="Hack Night" class="logo">`).FindStringSubmatch(home.body)
	if m == nil {
		t.Fatalf("the top bar shows no logo:\n%.1500s", home.body)
	}
	img := anon.get(m[1])
	if img.status != 200 || img.body != string(data) || img.header.Get("Content-Type") != "image/png" ||
		img.header.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(img.header.Get("Cache-Control"), "immutable") {
		t.Fatalf("the logo is served as %d %v", img.status, img.header)
	}
	want(t, "another address", anon.get("/logo/0123456789abcdef.png"), 404)
	want(t, "audit", root.get("/admin/audit"), 200, "event.logo", `<a href="/admin/pages#logo">the logo</a>`)

	want(t, "remove", root.send("/admin/logo/remove", url.Values{}), 200, "Logo removed.")
	if strings.Contains(anon.get("/").body, `class="logo"`) {
		t.Error("the top bar still shows the removed logo")
	}
	want(t, "the removed logo's address", anon.get(m[1]), 404)
	want(t, "remove again", root.send("/admin/logo/remove", url.Values{}), 200, "The event has no logo to remove.")
}
