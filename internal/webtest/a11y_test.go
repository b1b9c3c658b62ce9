package webtest

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/demo"
	"github.com/flagshipctf/flagship/internal/platform"
)

// axeScript is axe-core from npm (internal/webtest/axe, `npm ci` there).
func axeScript(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("axe/node_modules/axe-core/axe.min.js")
	if err != nil {
		t.Skip("the accessibility test needs axe-core: run npm ci in internal/webtest/axe")
	}
	return string(b)
}

type axeResult struct {
	Violations []struct {
		ID     string `json:"id"`
		Impact string `json:"impact"`
		Help   string `json:"help"`
		Nodes  []struct {
			Target []any  `json:"target"`
			HTML   string `json:"html"`
		} `json:"nodes"`
	} `json:"violations"`
}

// TestAccessibility runs axe-core (WCAG 2 A and AA rules) on every page of
// the demo event, signed in as a player and as an admin, in both themes:
// no serious or critical violation.
func TestAccessibility(t *testing.T) {
	axe := axeScript(t)
	s := apitest.Start(t, string(demo.Dataset))
	if _, err := s.Svc.CreateUser(context.Background(), platform.Operator, platform.NewUser{Username: "auditor",
		Email: "auditor@example.com", Password: "auditor-password", Role: ctf.RoleAdmin}); err != nil {
		t.Fatal(err)
	}
	ctx := newBrowser(t)
	pages := []string{"/", "/?category=crypto", "/challenges/baby-rsa", "/scoreboard", "/login", "/signup"}
	signedIn := []string{"/settings", "/me", "/admin", "/admin/challenges", "/admin/challenges/baby-rsa", "/admin/challenges/new",
		"/admin/writeups", "/admin/users", "/admin/audit"}
	check := func(path, theme string) {
		t.Helper()
		step(t, ctx, "open "+path, chromedp.Navigate(s.URL+path), chromedp.WaitVisible(chromedp.CSS("main")))
		tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if _, err := chromedp.Run(tctx, chromedp.Evaluate[chromedp.Void](axe)); err != nil {
			t.Fatalf("inject axe on %s: %v", path, err)
		}
		raw, err := chromedp.Run(tctx, chromedp.Evaluate[json.RawMessage](
			`axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}).then(r => ({violations: r.violations}))`,
			func(p *runtime.EvaluateParams) { p.AwaitPromise = new(true) }))
		if err != nil {
			t.Fatalf("axe on %s: %v", path, err)
		}
		var res axeResult
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatal(err)
		}
		for _, v := range res.Violations {
			if v.Impact != "serious" && v.Impact != "critical" {
				continue
			}
			var where []string
			for _, n := range v.Nodes {
				where = append(where, strings.TrimSpace(n.HTML))
			}
			t.Errorf("%s (%s theme): %s (%s): %s\n  %s", path, theme, v.ID, v.Impact, v.Help, strings.Join(where, "\n  "))
		}
	}
	for _, theme := range []string{"dark", "light"} {
		if theme == "light" {
			step(t, ctx, "light theme", chromedp.Navigate(s.URL+"/"), chromedp.Click(chromedp.CSS(`form[action="/theme"] button`)),
				chromedp.WaitVisible(chromedp.CSS(`html[data-theme="light"]`)))
		}
		for _, p := range pages {
			check(p, theme)
		}
	}
	step(t, ctx, "log in as the organiser", append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(s.URL + "/login")},
		fill(map[string]string{"username": "auditor", "password": "auditor-password"}, `form[action="/login"] button[type=submit]`)...)...)
	step(t, ctx, "signed in", chromedp.WaitVisible(chromedp.CSS("a.who")))
	for _, theme := range []string{"light", "dark"} {
		if theme == "dark" {
			step(t, ctx, "dark theme", chromedp.Navigate(s.URL+"/"), chromedp.Click(chromedp.CSS(`form[action="/theme"] button`)),
				chromedp.WaitVisible(chromedp.CSS(`html[data-theme="dark"]`)))
		}
		for _, p := range append(pages, signedIn...) {
			check(p, theme)
		}
	}
}
