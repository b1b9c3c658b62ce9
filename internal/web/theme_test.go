package web_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
)

// TestThemeFollowsTheSystemUntilChosen (issue 20, fix 11): without a
// choice the page is data-theme="auto" (app.css follows the system's
// prefers-color-scheme) and offers both buttons (app.css shows the one for
// the other theme); a button posts its theme, which the cookie keeps; a
// cookie of no theme is no choice.
func TestThemeFollowsTheSystemUntilChosen(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	b := newBrowser(t, s)
	want(t, "no choice", b.get("/"), 200, `<html lang="en" data-theme="auto">`, `<form method="post" action="/theme" class="theme-switch" data-cookie="theme">`,
		`name="theme" value="light"`, `name="theme" value="dark"`, `Switch to the </span>Light<span class="sr"> theme</span>`)
	for _, theme := range []string{"dark", "light", "dark"} {
		p := b.post("/theme", url.Values{"theme": {theme}, "next": {"/scoreboard"}})
		if p.status != 303 || p.header.Get("Location") != "/scoreboard" || !strings.Contains(p.header.Get("Set-Cookie"), "theme="+theme+";") {
			t.Errorf("choose %s: %d to %q, Set-Cookie %q", theme, p.status, p.header.Get("Location"), p.header.Get("Set-Cookie"))
		}
		want(t, "chose "+theme, b.get("/scoreboard"), 200, `data-theme="`+theme+`"`)
	}
	if p := newBrowser(t, s).do("GET", "/", nil, "Cookie: theme=purple"); !strings.Contains(p.body, `data-theme="auto"`) {
		t.Error("a cookie of no theme chooses one")
	}
}
