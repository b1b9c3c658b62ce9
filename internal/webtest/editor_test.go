package webtest

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/flagshipctf/flagship/internal/apitest"
)

// logInAs opens the login page and logs in as username (whose password is
// username-password in organiserEvent).
func logInAs(t *testing.T, ctx context.Context, base, username string) {
	t.Helper()
	step(t, ctx, "log in as "+username, append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(base + "/login")},
		fill(map[string]string{"username": username, "password": username + "-password"}, `form[action="/login"] button[type=submit]`)...)...)
	step(t, ctx, username+" signed in", chromedp.WaitVisible(chromedp.CSS("a.who")))
}

// inTheme sets the theme cookie (the page shown must be of the site).
func inTheme(theme string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](`document.cookie = "theme=` + theme + `; path=/"`)
}

// TestEditorAndPreviewsInABrowser: an admin creates a hidden challenge with
// the editor (previewing its description first: what was typed stays),
// lands on it with "Challenge created." and finds it marked as a draft in
// the list; a player previews a writeup, then sends it, and sees it
// pending. axe finds nothing serious on the editor and on the challenge's
// page with a preview shown, in both themes and at 390 px, where nothing
// scrolls sideways.
func TestEditorAndPreviewsInABrowser(t *testing.T) {
	axe := axeScript(t)
	s := apitest.Start(t, organiserEvent)
	admin := newBrowser(t)
	logInAs(t, admin, s.URL, "root")

	const description = "Look **here** first ![the map](https://img.example/map.png)"
	step(t, admin, "the editor", chromedp.Navigate(s.URL+"/admin/challenges/new"), chromedp.WaitVisible(chromedp.CSS(`textarea[name=description]`)))
	step(t, admin, "type", chromedp.SendKeys(chromedp.CSS(`input[name=title]`), "Hidden Gem"),
		chromedp.SendKeys(chromedp.CSS(`input[name=categories]`), "misc"),
		chromedp.SendKeys(chromedp.CSS(`textarea[name=description]`), description),
		chromedp.SendKeys(chromedp.CSS(`input[name=flagContent0]`), "flag{gem}"),
		chromedp.Click(chromedp.CSS(`input[name=hidden][value="1"]`)))
	step(t, admin, "preview", chromedp.Click(chromedp.CSS(`button[name=preview]`)), contains(".md-preview", "Look here first"))
	if got := text(t, admin, ".md-preview .description a"); got != "the map" {
		t.Errorf("the image renders as %q, want a link reading its alt text", got)
	}
	kept := eval[string](t, admin, `document.querySelector("textarea[name=description]").value + "|" + document.querySelector("input[name=title]").value +
		"|" + document.querySelector("input[name=flagContent0]").value + "|" + document.querySelector("input[name=hidden]:checked").value`)
	if kept != description+"|Hidden Gem|flag{gem}|1" {
		t.Errorf("after the preview the form holds %q", kept)
	}
	screenshot(t, admin, "editor-preview")
	step(t, admin, "create", chromedp.Click(chromedp.CSS(`form[action="/admin/challenges"] button[type=submit]:not([name])`)),
		atURL("/admin/challenges/hidden-gem"), contains(".alert.notice", "Challenge created."))
	screenshot(t, admin, "editor-created")
	step(t, admin, "the list", chromedp.Navigate(s.URL+"/admin/challenges"), chromedp.WaitVisible(chromedp.CSS("table.board")))
	if row := text(t, admin, `table.board tbody tr:has(a[href="/admin/challenges/hidden-gem"])`); !strings.Contains(row, "Hidden (draft)") {
		t.Errorf("the list's row reads %q, want it marked Hidden (draft)", row)
	}
	screenshot(t, admin, "editor-list")

	player := newBrowser(t)
	logInAs(t, player, s.URL, "reader")
	const writeup = "Read the **source**, then ![the trick](https://img.example/trick.png)"
	writeupPreview := []chromedp.Action[chromedp.Void]{chromedp.Navigate(s.URL + "/challenges/warmup"),
		chromedp.WaitVisible(chromedp.CSS(`textarea[name=content]`)),
		chromedp.SendKeys(chromedp.CSS(`form[action$="/writeup"] input[name=title]`), "Reader's way"),
		chromedp.SendKeys(chromedp.CSS(`textarea[name=content]`), writeup),
		chromedp.Click(chromedp.CSS(`form[action$="/writeup"] button[name=preview]`)), contains(".md-preview", "Read the source")}
	editorPreview := []chromedp.Action[chromedp.Void]{chromedp.Navigate(s.URL + "/admin/challenges/hidden-gem"),
		chromedp.WaitVisible(chromedp.CSS(`textarea[name=description]`)),
		chromedp.Click(chromedp.CSS(`button[name=preview]`)), contains(".md-preview", "Look here first")}

	for _, theme := range []string{"light", "dark"} {
		step(t, admin, "the editor in the "+theme+" theme", inTheme(theme), chromedp.Navigate(s.URL+"/admin/challenges/hidden-gem"),
			chromedp.WaitVisible(chromedp.CSS(`html[data-theme="`+theme+`"] main`)))
		axeCheck(t, admin, axe, "the editor ("+theme+")")
		step(t, admin, "the editor's preview in the "+theme+" theme", editorPreview...)
		axeCheck(t, admin, axe, "the editor with a preview ("+theme+")")
		step(t, admin, "the list in the "+theme+" theme", chromedp.Navigate(s.URL+"/admin/challenges"), chromedp.WaitVisible(chromedp.CSS("table.board")))
		axeCheck(t, admin, axe, "the admin list ("+theme+")")
		step(t, player, "the writeup's preview in the "+theme+" theme", append([]chromedp.Action[chromedp.Void]{inTheme(theme)}, writeupPreview...)...)
		step(t, player, "the "+theme+" theme", chromedp.WaitVisible(chromedp.CSS(`html[data-theme="`+theme+`"] main`)))
		axeCheck(t, player, axe, "the challenge page with a preview ("+theme+")")
	}
	if got := text(t, player, ".md-preview .description a"); got != "the trick" {
		t.Errorf("the writeup's image renders as %q, want a link reading its alt text", got)
	}
	screenshot(t, player, "writeup-preview")

	for _, ctx := range []context.Context{admin, player} {
		step(t, ctx, "phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)))
	}
	step(t, admin, "the editor on a phone", chromedp.Navigate(s.URL+"/admin/challenges/hidden-gem"), chromedp.WaitVisible(chromedp.CSS("main")))
	axeCheck(t, admin, axe, "the editor (390 px)")
	sideways(t, admin, "the editor")
	step(t, admin, "the editor's preview on a phone", editorPreview...)
	axeCheck(t, admin, axe, "the editor with a preview (390 px)")
	sideways(t, admin, "the editor with a preview")
	screenshot(t, admin, "editor-preview-phone")
	step(t, player, "the writeup's preview on a phone", writeupPreview...)
	axeCheck(t, player, axe, "the challenge page with a preview (390 px)")
	sideways(t, player, "the challenge page with a preview")
	screenshot(t, player, "writeup-preview-phone")

	// The preview kept what was typed: sending it now saves it.
	step(t, player, "send", chromedp.Click(chromedp.CSS(`form[action$="/writeup"] button[type=submit]:not([name])`)),
		atURL("/challenges/warmup"), contains(".alert.notice", "awaits moderation"), contains("#mine-h", "pending"))
	if got := text(t, player, "article.writeup.mine h4"); got != "Reader's way" {
		t.Errorf("the pending writeup is titled %q", got)
	}
}
