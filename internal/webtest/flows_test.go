package webtest

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/pquerna/otp/totp"
)

const flowEvent = `
users:
  - {username: root, email: root@example.com, password: root-password, role: admin}
  - {username: reader, email: reader@example.com, password: reader-password}
challenges:
  - {slug: warmup, title: Warmup, categories: [misc], difficulty: Easy, points: 50, flags: ['flag{warm}'],
     description: "Say **hello**: the flag is flag{warm}."}
  - {slug: crypto-one, title: Crypto One, categories: [crypto], difficulty: Medium, points: 200, flags: ['flag{c1}']}
solves:
  - {user: reader, challenge: warmup, at: 2026-01-05T10:00:00Z}
`

// fill types into the (empty) inputs named, then submits with the button
// given.
func fill(fields map[string]string, button string) []chromedp.Action[chromedp.Void] {
	var a []chromedp.Action[chromedp.Void]
	for name, v := range fields {
		a = append(a, chromedp.SendKeys(chromedp.CSS(`[name="`+name+`"]`), v))
	}
	return append(a, chromedp.Click(chromedp.CSS(button)))
}

// TestPlayerJourney: sign up → enable 2FA → log out → log in with a TOTP
// code → solve a challenge → see the badge → rate it → write a writeup →
// an admin approves it → another player who solved it reads it.
func TestPlayerJourney(t *testing.T) {
	var skew atomic.Int64 // the server's and the authenticator's clock, moved by the test
	now := func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	s := apitest.Start(t, flowEvent, apitest.Options{Now: now})
	ctx := newBrowser(t)
	step(t, ctx, "sign up", append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(s.URL + "/signup")},
		fill(map[string]string{"username": "newbie", "email": "newbie@example.com", "password": "a long password", "password2": "a long password"},
			`form[action="/signup"] button[type=submit]`)...)...)
	step(t, ctx, "signed in", chromedp.WaitVisible(chromedp.CSS(`a.who`)))
	if who := text(t, ctx, "a.who"); who != "newbie" {
		t.Fatalf("signed in as %q", who)
	}

	step(t, ctx, "2FA set-up", chromedp.Navigate(s.URL+"/settings"), chromedp.Click(chromedp.CSS(`form[action="/settings/2fa/begin"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`img.qr`)))
	secret := text(t, ctx, "#secret")
	code, err := totp.GenerateCode(secret, now())
	if err != nil {
		t.Fatal(err)
	}
	step(t, ctx, "2FA confirm", chromedp.SendKeys(chromedp.CSS("#code-confirm"), code), chromedp.Click(chromedp.CSS(`form[action="/settings/2fa/confirm"] button`)),
		chromedp.WaitVisible(chromedp.CSS("#recovery")), contains(".alert.notice", "Two-factor authentication is on"))
	screenshot(t, ctx, "settings")
	step(t, ctx, "log out", chromedp.Click(chromedp.CSS(`form[action="/logout"] button`)), chromedp.WaitVisible(chromedp.CSS(`a[href="/signup"]`)))

	skew.Add(int64(31 * time.Second)) // the next code: a code is good once
	code, _ = totp.GenerateCode(secret, now())
	step(t, ctx, "log in with the code", append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(s.URL + "/login")},
		fill(map[string]string{"username": "newbie", "password": "a long password", "code": code}, `form[action="/login"] button[type=submit]`)...)...)
	step(t, ctx, "logged in", chromedp.WaitVisible(chromedp.CSS(`a.who`)))

	// The flag form answers without a reload (app.js swaps in the page it lands on).
	step(t, ctx, "wrong flag", chromedp.Navigate(s.URL+"/challenges/warmup"), chromedp.SendKeys(chromedp.CSS("#flag"), "flag{nope}"),
		chromedp.Click(chromedp.CSS(`form[data-submit] button`)), contains(".flag-result", "Wrong flag."))
	step(t, ctx, "solve", chromedp.SetValue(chromedp.CSS("#flag"), "flag{warm}"),
		chromedp.Click(chromedp.CSS(`form[data-submit] button`)), contains(".flag-result", "Correct! +50 points."))
	if b := text(t, ctx, ".flag-result"); !strings.Contains(b, "First solve") {
		t.Fatalf("badges shown: %q", b)
	}
	step(t, ctx, "to the rating", chromedp.Click(chromedp.CSS(".flag-result a")), chromedp.WaitVisible(chromedp.CSS(`form[action$="/review"]`)))
	screenshot(t, ctx, "challenge")
	step(t, ctx, "rate", chromedp.SetValue(chromedp.CSS(`select[name=stars]`), "5"), chromedp.SetValue(chromedp.CSS(`select[name=difficulty]`), "2"),
		chromedp.Click(chromedp.CSS(`form[action$="/review"] button`)), contains(".alert.notice", "rating is saved"))
	step(t, ctx, "write up", chromedp.SendKeys(chromedp.CSS(`input[name=title]`), "Newbie's way"),
		chromedp.SendKeys(chromedp.CSS(`textarea[name=content]`), "I read the **description**."),
		chromedp.Click(chromedp.CSS(`form[action$="/writeup"] button`)), contains(".alert.notice", "awaits moderation"), chromedp.WaitVisible(chromedp.CSS(".status.pending")))

	admin := newBrowser(t)
	step(t, admin, "admin logs in", append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(s.URL + "/login")},
		fill(map[string]string{"username": "root", "password": "root-password"}, `form[action="/login"] button[type=submit]`)...)...)
	step(t, admin, "approve", chromedp.WaitVisible(chromedp.CSS("a.who")), chromedp.Navigate(s.URL+"/admin/writeups"),
		chromedp.Click(chromedp.CSS(`button[value=approve]`)), contains(".alert.notice", "approved"))

	reader := newBrowser(t)
	step(t, reader, "reader logs in", append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(s.URL + "/login?next=/challenges/warmup")},
		fill(map[string]string{"username": "reader", "password": "reader-password"}, `form[action="/login"] button[type=submit]`)...)...)
	step(t, reader, "reads it", chromedp.WaitVisible(chromedp.CSS("article.writeup h3")))
	if got := text(t, reader, "article.writeup"); !strings.Contains(got, "Newbie's way") || !strings.Contains(got, "description") {
		t.Fatalf("the reader sees %q", got)
	}
}

// TestKeysAdminFilesGraphKeyboard: an API key made in settings works with
// the public API until revoked there; an admin creates a challenge with a
// file that a player downloads; the scoreboard graph renders; the board is
// usable with the keyboard alone.
func TestKeysAdminFilesGraphKeyboard(t *testing.T) {
	s := apitest.Start(t, flowEvent)
	admin := newBrowser(t)
	step(t, admin, "admin logs in", append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(s.URL + "/login")},
		fill(map[string]string{"username": "root", "password": "root-password"}, `form[action="/login"] button[type=submit]`)...)...)
	step(t, admin, "settings", chromedp.WaitVisible(chromedp.CSS("a.who")), chromedp.Navigate(s.URL+"/settings"),
		chromedp.SendKeys(chromedp.CSS("#keyname"), "laptop"), chromedp.Click(chromedp.CSS(`form[action="/settings/keys"] button`)),
		chromedp.WaitVisible(chromedp.CSS("#newkey")))
	key := text(t, admin, "#newkey")
	me := func() int {
		req, _ := http.NewRequest("GET", s.URL+"/api/public/me", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if st := me(); st != 200 {
		t.Fatalf("the new key: %d", st)
	}
	step(t, admin, "revoke", chromedp.Click(chromedp.CSS(`form[action="/settings/keys/revoke"] button`)), contains(".alert.notice", "Key revoked"))
	if st := me(); st != 401 {
		t.Fatalf("the revoked key: %d", st)
	}

	file := filepath.Join(t.TempDir(), "handout.txt")
	os.WriteFile(file, []byte("the handout"), 0o644)
	step(t, admin, "new challenge", chromedp.Navigate(s.URL+"/admin/challenges/new"),
		chromedp.SendKeys(chromedp.CSS(`input[name=title]`), "File Me"), chromedp.SendKeys(chromedp.CSS(`input[name=categories]`), "forensics"),
		chromedp.SetValue(chromedp.CSS(`input[name=points]`), "120"), chromedp.SendKeys(chromedp.CSS(`input[name=flagContent0]`), "flag{file}"),
		chromedp.SetUploadFiles(chromedp.CSS(`input[name=file]`), []string{file}), chromedp.Click(chromedp.CSS(`input[name=hidden]`)),
		chromedp.Click(chromedp.CSS(`form[action="/admin/challenges"] button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS(`a[href="/challenges/file-me"]`)))

	player := newBrowser(t)
	step(t, player, "the file's page", chromedp.Navigate(s.URL+"/challenges/file-me"), chromedp.WaitVisible(chromedp.CSS(`a[download]`)))
	tctx, cancel := context.WithTimeout(player, 10*time.Second)
	href, err := chromedp.Run(tctx, chromedp.AttributeValue(chromedp.CSS(`a[download]`), "href"))
	cancel()
	if err != nil || !strings.Contains(href.Value, "/files/") {
		t.Fatalf("download link %q %v", href.Value, err)
	}
	resp, err := http.Get(href.Value)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "the handout" {
		t.Fatalf("download: %d %q", resp.StatusCode, body)
	}

	step(t, player, "scoreboard", chromedp.Navigate(s.URL+"/scoreboard"), chromedp.WaitVisible(chromedp.CSS("svg.graph polyline")))
	tctx, cancel = context.WithTimeout(player, 10*time.Second)
	lines, err := chromedp.Run(tctx, chromedp.Evaluate[int](`document.querySelectorAll("svg.graph polyline").length`))
	cancel()
	if err != nil || lines < 1 {
		t.Fatalf("graph lines %d %v", lines, err)
	}

	// Keyboard: from the top of the board, Tab reaches a challenge and
	// Enter opens it.
	step(t, player, "board", chromedp.Navigate(s.URL+"/"), chromedp.WaitVisible(chromedp.CSS(".cards")))
	reached := false
	for i := 0; i < 25 && !reached; i++ {
		step(t, player, "tab", chromedp.KeyEvent("\t"))
		tctx, cancel := context.WithTimeout(player, 10*time.Second)
		href, err := chromedp.Run(tctx, chromedp.Evaluate[string](`document.activeElement.getAttribute("href") || ""`))
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		reached = strings.HasPrefix(href, "/challenges/")
	}
	if !reached {
		t.Fatal("Tab never reached a challenge")
	}
	step(t, player, "enter", chromedp.KeyEvent("\r"), chromedp.WaitVisible(chromedp.CSS("article.challenge h1")))
}

// TestReadableOnAPhone: at a phone's width (390 CSS pixels) no page of the
// demo scrolls sideways, and the flag form fits.
func TestReadableOnAPhone(t *testing.T) {
	s := apitest.Start(t, flowEvent)
	ctx := newBrowser(t)
	step(t, ctx, "phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)))
	step(t, ctx, "log in", append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(s.URL + "/login")},
		fill(map[string]string{"username": "reader", "password": "reader-password"}, `form[action="/login"] button[type=submit]`)...)...)
	step(t, ctx, "signed in", chromedp.WaitVisible(chromedp.CSS("a.who")))
	for _, p := range []string{"/", "/challenges/crypto-one", "/challenges/warmup", "/scoreboard", "/settings", "/me", "/login", "/signup"} {
		step(t, ctx, "open "+p, chromedp.Navigate(s.URL+p), chromedp.WaitVisible(chromedp.CSS("main")))
		sideways(t, ctx, p)
	}
	screenshot(t, ctx, "phone-scoreboard")
}
