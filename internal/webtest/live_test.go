package webtest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
)

const liveEvent = `
users:
  - {username: reader, email: reader@example.com, password: reader-password}
  - {username: newcomer, name: Nora Newcomer, email: nora@example.com}
challenges:
  - {slug: warmup, title: Warmup, categories: [misc], difficulty: Easy, points: 50, flags: ['flag{warm}']}
  - {slug: crypto-one, title: Crypto One, categories: [crypto], difficulty: Medium, points: 200, flags: ['flag{c1}']}
solves:
  - {user: reader, challenge: warmup, at: 2026-01-05T10:00:00Z}
`

// TestScoreboardIsLive: a player's open scoreboard shows a solve made
// through the API, and an announcement's notice, without a reload.
func TestScoreboardIsLive(t *testing.T) {
	s := apitest.Start(t, liveEvent)
	ctx := newBrowser(t)
	step(t, ctx, "reader logs in", append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(s.URL + "/login?next=/scoreboard")},
		fill(map[string]string{"username": "reader", "password": "reader-password"}, `form[action="/login"] button[type=submit]`)...)...)
	step(t, ctx, "the scoreboard", chromedp.WaitVisible(chromedp.CSS("table.board")), contains("[data-live] table.board", "reader"))
	// A mark in the page's JavaScript world: a reload would wipe it.
	if got := evalString(t, ctx, `window.__live_mark = "kept"`); got != "kept" {
		t.Fatalf("marking the page: %q", got)
	}
	// A keyboard user's place: focus stays on the same link after the swap.
	evalString(t, ctx, `document.querySelector('[data-live] a[href="/scoreboard?who=people"]').focus(), "ok"`)

	body, _ := json.Marshal(map[string]string{"flag": "flag{c1}"})
	r := s.Do("POST", "/api/public/challenges/crypto-one/submit", body, "Content-Type: application/json", apitest.Bearer(s.Key("newcomer")))
	if r.Status != 200 {
		t.Fatalf("the newcomer's solve: %d %s", r.Status, r.Body)
	}
	s.Sync() // relay the stream, as a running server's watcher does at once
	step(t, ctx, "the solve appears", contains("[data-live] table.board", "Nora Newcomer"))
	if mark := evalString(t, ctx, `window.__live_mark || "reloaded"`); mark != "kept" {
		t.Fatalf("the page was reloaded (mark %q)", mark)
	}
	if f := evalString(t, ctx, `document.activeElement.getAttribute("href") || document.activeElement.tagName`); f != "/scoreboard?who=people" {
		t.Errorf("focus after the update: %q", f)
	}
	if first := text(t, ctx, "table.board tbody tr:first-child"); !strings.Contains(first, "Nora Newcomer") {
		t.Errorf("first row %q: Nora (200 points) should lead reader (50)", first)
	}

	if _, err := s.Svc.Event.PostAnnouncement(context.Background(), ctf.Operator, "Crypto One is fixed", "", ""); err != nil {
		t.Fatal(err)
	}
	s.Sync()
	step(t, ctx, "the announcement's notice", contains(`[role=status][aria-live=polite]`, "New announcement: Crypto One is fixed"))
	if mark := evalString(t, ctx, `window.__live_mark || "reloaded"`); mark != "kept" {
		t.Fatalf("the page was reloaded (mark %q)", mark)
	}
	if href := evalString(t, ctx, `document.querySelector(".live-notice a").getAttribute("href")`); href != "/announcements" {
		t.Errorf("the notice links to %q", href)
	}
}

// evalString evaluates js in the page and returns its string value.
func evalString(t *testing.T, ctx context.Context, js string) string {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(tctx, chromedp.Evaluate[string](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}
