package webtest

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/flagshipctf/flagship/internal/apitest"
)

// background is the page's background colour as computed.
const background = `getComputedStyle(document.body).backgroundColor`

// Each theme's background (app.css --bg).
const (
	lightBackground = "rgb(246, 247, 249)"
	darkBackground  = "rgb(15, 18, 24)"
)

// shownSwitch is the label of the theme switch's button shown.
const shownSwitch = `[...document.querySelectorAll("form.theme-switch button")].filter(b => b.offsetParent !== null).map(b => b.textContent.trim()).join("|")`

// TestThemeFollowsTheSystem (issue 20, fix 11): before any choice the page
// follows the system's theme (prefers-color-scheme), and the switch names
// the other one; switching with the script posts nothing (what was typed
// stays), sets the cookie the server reads and moves the focus to the
// switch shown; without the script the switch posts and lands back on the
// page. Axe finds nothing in either system theme.
func TestThemeFollowsTheSystem(t *testing.T) {
	axe := axeScript(t)
	s := apitest.Start(t, flowEvent)
	ctx := newBrowser(t)

	step(t, ctx, "a light system", prefersColorScheme("light"), chromedp.Navigate(s.URL+"/login"), chromedp.WaitVisible(chromedp.CSS("main")))
	if th, bg, sw := eval[string](t, ctx, `document.documentElement.dataset.theme`), eval[string](t, ctx, background), eval[string](t, ctx, shownSwitch); th != "auto" || bg != lightBackground || sw != "Switch to the Dark theme" {
		t.Errorf("no choice, a light system: data-theme %q, background %s, switch %q", th, bg, sw)
	}
	screenshot(t, ctx, "theme-system-light")
	axeCheck(t, ctx, axe, "login, a light system")
	step(t, ctx, "a dark system", prefersColorScheme("dark"))
	if bg, sw := eval[string](t, ctx, background), eval[string](t, ctx, shownSwitch); bg != darkBackground || sw != "Switch to the Light theme" {
		t.Errorf("no choice, a dark system: background %s, switch %q", bg, sw)
	}
	axeCheck(t, ctx, axe, "login, a dark system")

	// The switch with the script: nothing typed is lost.
	step(t, ctx, "type", chromedp.SendKeys(chromedp.CSS(`input[name=username]`), "half-typed"), chromedp.Evaluate[chromedp.Void](`window.sameDocument = true`),
		chromedp.Click(chromedp.CSS(`form.theme-switch button.to-light`)), chromedp.WaitVisible(chromedp.CSS(`html[data-theme="light"]`)))
	if !eval[bool](t, ctx, `window.sameDocument === true`) {
		t.Error("the switch reloaded the page")
	}
	if v := eval[string](t, ctx, `document.querySelector("input[name=username]").value`); v != "half-typed" {
		t.Errorf("the typed name is %q after the switch", v)
	}
	if bg, sw := eval[string](t, ctx, background), eval[string](t, ctx, shownSwitch); bg != lightBackground || sw != "Switch to the Dark theme" {
		t.Errorf("after switching to light on a dark system: background %s, switch %q", bg, sw)
	}
	if c := eval[string](t, ctx, `document.cookie`); !strings.Contains(c, "theme=light") {
		t.Errorf("cookies after the switch: %q", c)
	}
	if f := eval[string](t, ctx, `document.activeElement.value || document.activeElement.tagName`); f != "dark" {
		t.Errorf("the focus is on %q, not the switch shown", f)
	}
	// The server reads the choice, the system notwithstanding.
	step(t, ctx, "reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`html[data-theme="light"] main`)))

	// Without the script the switch posts and comes back.
	noJS := newBrowser(t)
	step(t, noJS, "no script, a dark system", prefersColorScheme("dark"), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}), chromedp.Navigate(s.URL+"/scoreboard"), chromedp.WaitVisible(chromedp.CSS(`html[data-theme="auto"] main`)),
		chromedp.Click(chromedp.CSS(`form.theme-switch button.to-light`)), chromedp.WaitVisible(chromedp.CSS(`html[data-theme="light"] main`)),
		atURL("/scoreboard"))
	if bg := eval[string](t, noJS, background); bg != lightBackground {
		t.Errorf("without the script, after the switch: background %s", bg)
	}
	step(t, noJS, "and back", chromedp.Click(chromedp.CSS(`form.theme-switch button.to-dark`)), chromedp.WaitVisible(chromedp.CSS(`html[data-theme="dark"] main`)))
}
