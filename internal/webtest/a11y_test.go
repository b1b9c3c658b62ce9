package webtest

import (
	"context"
	"os"
	"testing"
	"time"

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
// the demo event, in both themes, as a visitor, as a signed-in player and
// as an admin, including the states forms lead to (a challenge solved, with
// its rating and writeup forms; settings showing the 2FA set-up step or a
// key just made; the admin's account form with a refusal and a success):
// no serious or critical violation; and every page again at a phone's
// width (390 px), where none scrolls sideways either.
func TestAccessibility(t *testing.T) {
	axe := axeScript(t)
	s := apitest.Start(t, string(demo.Dataset))
	if _, err := s.Svc.Accounts.CreateUser(context.Background(), ctf.Operator, platform.NewUser{Username: "auditor",
		Email: "auditor@example.com", Password: "auditor-password", Role: ctf.RoleAdmin}); err != nil {
		t.Fatal(err)
	}
	other, err := s.Svc.Admin.UserByName(context.Background(), ctf.Operator, "n0ps1ed")
	if err != nil {
		t.Fatal(err)
	}
	// The event's clock as it runs: started, frozen (the scoreboard's
	// notices, the unfreeze button), with a flag format and an
	// announcement about a challenge (the unread count and mark).
	began, froze, ends := time.Now().Add(-24*time.Hour), time.Now().Add(-time.Minute), time.Now().Add(24*time.Hour)
	if _, err := s.Svc.Event.Set(context.Background(), ctf.Operator, ctf.Event{Name: "Axe CTF", Start: &began, End: &ends,
		Freeze: &froze, FlagFormat: "flag{...}"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Svc.Event.PostAnnouncement(context.Background(), ctf.Operator, "Baby RSA fixed",
		"The modulus was **wrong**; see [the challenge](/challenges/baby-rsa).", "baby-rsa"); err != nil {
		t.Fatal(err)
	}
	// A challenge with per-player instances: its page shows the panel to
	// start one (this server runs no engine, so none runs).
	if _, err := s.Svc.Content.SaveChallenge(context.Background(), ctf.Operator, platform.ChallengeInput{Title: "Axe Instance",
		Categories: []string{"pwn"}, Difficulty: ctf.Easy, Points: 100, Instance: &ctf.InstanceSpec{Image: "axe/echo:1", Port: 1337}}); err != nil {
		t.Fatal(err)
	}
	// A dynamic challenge with hints: one that costs points, one that
	// requires it, a free one (issue 21).
	if _, err := s.Svc.Content.SaveChallenge(context.Background(), ctf.Operator, platform.ChallengeInput{Title: "Axe Hints",
		Categories: []string{"misc"}, Difficulty: ctf.Easy, Flags: []ctf.Flag{{Kind: ctf.FlagStatic, Content: "flag{axe}"}},
		Scoring: ctf.Scoring{Type: ctf.DynamicScoring, Initial: 500, Minimum: 100, Decay: 20},
		Hints:   []ctf.Hint{{ID: 1, Content: "Read **it**.", Cost: 30}, {ID: 2, Content: "Then this.", Cost: 20, Requires: 1}, {ID: 3, Content: "Free."}}}); err != nil {
		t.Fatal(err)
	}
	ctx := newBrowser(t)
	// Everyone's pages; a profile here is seen by whoever is signed in (no
	// one, a player, an admin), and /nope is the 404 page.
	pages := []string{"/", "/challenges", "/?category=crypto", "/challenges?q=rsa&tag=crypto", "/challenges/baby-rsa", "/challenges/axe-hints", "/scoreboard", "/users/" + other.ID, "/nope", "/announcements"}
	visitor := []string{"/login", "/signup"}
	// The demo player solved sanity-check and cookie-monster: their pages
	// show the rating and writeup forms, and others' writeups.
	player := []string{"/?unsolved=1", "/challenges/axe-instance", "/challenges/cookie-monster", "/challenges/sanity-check", "/settings", "/me",
		"/settings/agents", "/scoreboard?who=agents", "/scoreboard?who=people", "/challenges/axe-hints/hints/1/unlock"}
	admin := []string{"/settings", "/me", "/admin", "/admin/challenges", "/admin/challenges/baby-rsa", "/admin/challenges/axe-hints", "/admin/challenges/new",
		"/admin/writeups", "/admin/users", "/admin/audit", "/admin/event", "/admin/announcements", "/admin/instances", "/admin/data", "/admin/pages",
		"/admin/submissions", "/admin/players/n0ps1ed", "/admin/webhooks", "/admin/users/n0ps1ed/recovery", "/admin/users/n0ps1ed/ban",
		"/admin/challenges/baby-rsa/delete", "/admin/mail"}
	// run checks the page the tab shows.
	run := func(label, theme string) {
		t.Helper()
		step(t, ctx, "wait for "+label, chromedp.WaitVisible(chromedp.CSS("main")))
		axeCheck(t, ctx, axe, label+" ("+theme+" theme)")
	}
	check := func(path, theme string) {
		t.Helper()
		step(t, ctx, "open "+path, chromedp.Navigate(s.URL+path), chromedp.WaitVisible(chromedp.CSS("main")))
		run(path, theme)
	}
	// toTheme switches to theme from the board (the choice is a cookie).
	toTheme := func(theme string) {
		t.Helper()
		step(t, ctx, theme+" theme", chromedp.Navigate(s.URL+"/"), chromedp.WaitVisible(chromedp.CSS("main")), chooseTheme(theme))
	}
	logIn := func(username, password string) {
		t.Helper()
		step(t, ctx, "log in as "+username, append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(s.URL + "/login")},
			fill(map[string]string{"username": username, "password": password}, `form[action="/login"] button[type=submit]`)...)...)
		step(t, ctx, "signed in as "+username, chromedp.WaitVisible(chromedp.CSS("a.who")))
		if who := text(t, ctx, "a.who"); who != username {
			t.Fatalf("signed in as %q, want %s", who, username)
		}
	}
	logOut := func() {
		t.Helper()
		step(t, ctx, "log out", chromedp.Navigate(s.URL+"/"), chromedp.Click(chromedp.CSS(`form[action="/logout"] button`)),
			chromedp.WaitVisible(chromedp.CSS(`a[href="/signup"]`)))
	}

	// onPhone checks the paths again at a phone's width (390 px) in the
	// theme shown: axe, and no sideways scroll.
	onPhone := func(paths []string) {
		t.Helper()
		step(t, ctx, "phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)))
		for _, p := range paths {
			check(p, "390 px")
			sideways(t, ctx, p)
		}
		step(t, ctx, "desktop", chromedp.EmulateViewport(1280, 900))
	}

	for _, theme := range []string{"dark", "light"} {
		toTheme(theme)
		for _, p := range append(pages, visitor...) {
			check(p, theme)
		}
	}
	onPhone(append(pages, visitor...))

	logIn(demo.DemoUsername, demo.DemoPassword)
	for i, theme := range []string{"light", "dark"} {
		toTheme(theme)
		for _, p := range append(pages, player...) {
			check(p, theme)
		}
		// The set-up stays on the page until a right code comes (issue 20,
		// fix 2): the second theme finds it already begun.
		step(t, ctx, "2FA set-up step", chromedp.Navigate(s.URL+"/settings"),
			chromedp.Evaluate[chromedp.Void](`document.querySelector('form[action="/settings/2fa/begin"] button')?.click()`),
			chromedp.WaitVisible(chromedp.CSS("img.qr")))
		run("settings with the 2FA set-up step", theme)
		step(t, ctx, "a new key", chromedp.Navigate(s.URL+"/settings"), chromedp.SendKeys(chromedp.CSS("#keyname"), "axe "+theme),
			chromedp.Click(chromedp.CSS(`form[action="/settings/keys"] button`)), chromedp.WaitVisible(chromedp.CSS("#newkey")))
		run("settings with a new key", theme)
		step(t, ctx, "an agent", chromedp.Navigate(s.URL+"/settings/agents"), chromedp.SendKeys(chromedp.CSS("#a-username"), "axe-bot-"+theme),
			chromedp.SendKeys(chromedp.CSS("#a-model"), "model-"+theme), chromedp.Click(chromedp.CSS(`form[action="/settings/agents"] button`)),
			// The notice, not a key form: the page before the post has one
			// already from the first theme's agent.
			contains(".alert.notice", "Agent axe-bot-"+theme+" created"))
		step(t, ctx, "an agent's key", chromedp.SendKeys(chromedp.CSS(`form[action="/settings/agents/keys"] input[name=name]`), "run"),
			chromedp.Click(chromedp.CSS(`form[action="/settings/agents/keys"] button`)), chromedp.WaitVisible(chromedp.CSS("#newkey")))
		run("agents with a new key", theme)
		step(t, ctx, "the agent's profile", chromedp.Click(chromedp.CSS(`section h2 a[href^="/users/"]`)), chromedp.WaitVisible(chromedp.CSS("#run-h")))
		run("an agent's profile with its run", theme)
		if i == 0 {
			step(t, ctx, "a flag refused", chromedp.Navigate(s.URL+"/challenges/baby-rsa"), chromedp.SendKeys(chromedp.CSS("#flag"), "flag{nope}"),
				chromedp.Click(chromedp.CSS(`form[data-submit] button`)), contains(".flag-result", "Wrong flag."))
			run("a challenge with a wrong flag's answer", theme)
		}
	}
	onPhone(append(pages, player...))
	logOut()

	logIn("auditor", "auditor-password")
	for _, theme := range []string{"dark", "light"} {
		toTheme(theme)
		for _, p := range append(pages, admin...) {
			check(p, theme)
		}
		step(t, ctx, "an account refused", chromedp.Navigate(s.URL+"/admin/users"),
			chromedp.SendKeys(chromedp.CSS(`form[action="/admin/users/new"] input[name=username]`), "ax-"+theme),
			chromedp.SendKeys(chromedp.CSS(`form[action="/admin/users/new"] input[name=email]`), "n0ps1ed@example.com"),
			chromedp.Click(chromedp.CSS(`form[action="/admin/users/new"] button`)), contains("#new-error", "already taken"))
		run("the users page with a refused account", theme)
		step(t, ctx, "an account made", chromedp.Navigate(s.URL+"/admin/users"),
			chromedp.SendKeys(chromedp.CSS(`form[action="/admin/users/new"] input[name=username]`), "ax-"+theme),
			chromedp.SendKeys(chromedp.CSS(`form[action="/admin/users/new"] input[name=email]`), "ax-"+theme+"@example.com"),
			chromedp.Click(chromedp.CSS(`form[action="/admin/users/new"] button`)), contains(".alert.notice", "Created the player account"))
		run("the users page with an account made", theme)
	}

	onPhone(admin)

	// Before the start: the board's countdown, and the event page saying so.
	starts := time.Now().Add(2 * time.Hour)
	if _, err := s.Svc.Event.Set(context.Background(), ctf.Operator, ctf.Event{Name: "Axe CTF", Start: &starts}); err != nil {
		t.Fatal(err)
	}
	for _, theme := range []string{"light", "dark"} {
		toTheme(theme)
		for _, p := range []string{"/", "/admin/event", "/admin/challenges"} {
			check(p, theme)
		}
	}
}
