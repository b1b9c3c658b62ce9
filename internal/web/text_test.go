package web_test

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
)

// TestFaviconAndPlurals (issue 20, fix 14): every page names an icon that
// is served as SVG (and /favicon.ico leads to it); counts read "1 solve",
// "0 solves", "1 attempt".
func TestFaviconAndPlurals(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	anon := newBrowser(t, s)
	board := anon.get("/")
	icon := regexp.MustCompile(`<link rel="icon" href="(/static/favicon\.[0-9a-f]+\.svg)" type="image/svg\+xml">`).FindStringSubmatch(board.body)
	if icon == nil {
		t.Fatalf("the board names no icon:\n%.1500s", board.body)
	}
	got := anon.get(icon[1])
	if got.status != 200 || got.header.Get("Content-Type") != "image/svg+xml" || !strings.Contains(got.body, "<svg") {
		t.Errorf("the icon: %d %s", got.status, got.header.Get("Content-Type"))
	}
	if ico := anon.get("/favicon.ico"); ico.status != 301 || ico.header.Get("Location") != icon[1] {
		t.Errorf("/favicon.ico: %d to %q", ico.status, ico.header.Get("Location"))
	}
	want(t, "no solves yet", board, 200, "0 solves", "2 challenges.")

	pam := logIn(t, s, "pam")
	pam.send("/challenges/warmup/submit", url.Values{"flag": {"flag{nope}"}})
	solved := pam.send("/challenges/warmup/submit", url.Values{"flag": {"flag{warm}"}})
	want(t, "one solve", solved, 200, "1 solve ·", "2 attempts", "+50 points.")
	if strings.Contains(solved.body, "1 solves") {
		t.Error(`the page says "1 solves"`)
	}
	want(t, "the board", anon.get("/"), 200, "1 solve ·")
}
