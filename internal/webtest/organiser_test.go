package webtest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
)

const organiserEvent = `
users:
  - {username: root, email: root@example.com, password: root-password, role: admin}
  - {username: reader, email: reader@example.com, password: reader-password}
  - {username: writer, email: writer@example.com, password: writer-password}
challenges:
  - {slug: warmup, title: Warmup, categories: [misc], difficulty: Easy, points: 50, flags: ['flag{warm}']}
  - {slug: sequel, title: Sequel, categories: [web], difficulty: Hard, points: 300, flags: ['flag{s}'], releaseAt: 2099-01-01T00:00:00Z}
  - {slug: draft, title: Secret Draft, categories: [web], difficulty: Hard, points: 300, flags: ['flag{d}'], hidden: true}
solves:
  - {user: reader, challenge: warmup, at: 2026-01-05T10:00:00Z}
attempts:
  - {user: reader, challenge: warmup, at: 2026-01-05T09:00:00Z, flag: 'flag{a-very-long-wrong-guess-that-must-wrap-on-a-phone-screen}'}
  - {user: writer, challenge: warmup, at: 2026-01-05T09:30:00Z, flag: 'flag{a-very-long-wrong-guess-that-must-wrap-on-a-phone-screen}'}
`

// TestOrganiserPagesInABrowser: an admin previews a draft, reads the
// submission log and a player's page, and deletes a solved challenge by
// ticking the confirmation, as a person does in Chromium; axe finds nothing
// serious on each new page in both themes, and none scrolls sideways at
// 390 px.
func TestOrganiserPagesInABrowser(t *testing.T) {
	axe := axeScript(t)
	s := apitest.Start(t, organiserEvent)
	ctx := newBrowser(t)
	step(t, ctx, "log in", append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(s.URL + "/login")},
		fill(map[string]string{"username": "root", "password": "root-password"}, `form[action="/login"] button[type=submit]`)...)...)
	step(t, ctx, "signed in", chromedp.WaitVisible(chromedp.CSS("a.who")))

	step(t, ctx, "the board's drafts", chromedp.Navigate(s.URL+"/"), contains("#unshown-h", "Not shown to players"))
	step(t, ctx, "preview", chromedp.Click(chromedp.CSS(`a[href="/challenges/draft"]`)), contains(".alert.notice", "players do not see this challenge"))
	screenshot(t, ctx, "admin-preview")
	step(t, ctx, "the log", chromedp.Navigate(s.URL+"/admin/submissions"), chromedp.SendKeys(chromedp.CSS(`input[name="user"]`), "writer"),
		chromedp.Click(chromedp.CSS(`form.filters button`)), atURL("user=writer"), contains("table.board tbody", "writer"))
	if body := text(t, ctx, "table.board tbody"); strings.Contains(body, "reader") {
		t.Errorf("the log filtered by writer lists reader:\n%s", body)
	}
	step(t, ctx, "a player's page", chromedp.Click(chromedp.CSS(`table.board tbody a[href="/admin/players/writer"]`)),
		contains("#shared-h", "Wrong flags others sent too"), contains("section", "reader"))
	screenshot(t, ctx, "admin-player")
	step(t, ctx, "the whole log", chromedp.Navigate(s.URL+"/admin/submissions"), chromedp.WaitVisible(chromedp.CSS("main")))
	screenshot(t, ctx, "admin-submissions")

	pages := []string{"/", "/challenges/draft", "/challenges/sequel", "/challenges/warmup", "/admin/submissions",
		"/admin/submissions?result=wrong", "/admin/players/reader", "/admin/challenges/warmup/delete", "/admin/challenges/draft/delete"}
	for _, theme := range []string{"dark", "light"} {
		step(t, ctx, theme+" theme", chromedp.Navigate(s.URL+"/"), chromedp.WaitVisible(chromedp.CSS("main")), chooseTheme(theme))
		for _, p := range pages {
			step(t, ctx, "open "+p, chromedp.Navigate(s.URL+p), chromedp.WaitVisible(chromedp.CSS("main")))
			axeCheck(t, ctx, axe, p+" ("+theme+" theme)")
		}
	}
	step(t, ctx, "phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)))
	for _, p := range pages {
		step(t, ctx, "open "+p, chromedp.Navigate(s.URL+p), chromedp.WaitVisible(chromedp.CSS("main")))
		axeCheck(t, ctx, axe, p+" (390 px)")
		sideways(t, ctx, p)
	}

	step(t, ctx, "delete, unticked", chromedp.Navigate(s.URL+"/admin/challenges/warmup/delete"),
		chromedp.WaitVisible(chromedp.CSS(`input[name="confirm"]`)))
	step(t, ctx, "tick and delete", chromedp.Click(chromedp.CSS(`input[name="confirm"]`)),
		chromedp.Click(chromedp.CSS(`form[action="/admin/challenges/warmup/delete"] button`)),
		contains(".alert.notice", "Deleted the challenge warmup."))
	if _, err := s.Svc.Play.Challenge("warmup", ctf.Viewer{}); err == nil {
		t.Error("warmup is still there after the delete")
	}
	screenshot(t, ctx, "admin-deleted")
}

// TestImportAndAnonymiseInABrowser: an admin imports a dataset file with
// the upload form and finds its challenge on the board and in the export;
// then anonymises a player by typing their name to confirm, and the
// player's page and the scoreboard no longer name them.
func TestImportAndAnonymiseInABrowser(t *testing.T) {
	axe := axeScript(t)
	s := apitest.Start(t, organiserEvent)
	ctx := loggedIn(t, s.URL, "root")

	file := filepath.Join(t.TempDir(), "more.yaml")
	if err := os.WriteFile(file, []byte("challenges:\n  - {slug: imported, title: Imported One, categories: [misc], points: 20, flags: ['flag{i}']}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	step(t, ctx, "import", chromedp.Navigate(s.URL+"/admin/data"), chromedp.SetUploadFiles(chromedp.CSS(`input[name=dataset]`), []string{file}),
		chromedp.Click(chromedp.CSS(`form[action="/admin/data/import"] button`)), contains(".alert.notice", "Imported: 1 created"))
	axeCheck(t, ctx, axe, "/admin/data after an import")
	step(t, ctx, "on the board", chromedp.Navigate(s.URL+"/challenges"), contains("main", "Imported One"))
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	exp, err := chromedp.Run(tctx, chromedp.Evaluate[string](`fetch("/admin/data/export").then(r => r.text())`,
		func(p *runtime.EvaluateParams) { p.AwaitPromise = new(true) }))
	cancel()
	if err != nil || !strings.Contains(exp, "slug: imported") {
		t.Errorf("the export lacks the imported challenge (%v):\n%.500s", err, exp)
	}

	step(t, ctx, "the player's page", chromedp.Navigate(s.URL+"/admin/players/reader"), chromedp.WaitVisible(chromedp.CSS("#anon-h")))
	step(t, ctx, "a wrong confirmation", chromedp.SendKeys(chromedp.CSS(`input[name=confirm]`), "someone"),
		chromedp.Click(chromedp.CSS(`form[action$="/anonymise"] button`)), contains(".alert.error", "reader"))
	step(t, ctx, "anonymise", chromedp.Navigate(s.URL+"/admin/players/reader"), chromedp.SendKeys(chromedp.CSS(`input[name=confirm]`), "reader"),
		chromedp.Click(chromedp.CSS(`form[action$="/anonymise"] button`)), chromedp.WaitVisible(chromedp.CSS(".alert.notice")))
	axeCheck(t, ctx, axe, "after anonymising")
	step(t, ctx, "the scoreboard", chromedp.Navigate(s.URL+"/scoreboard"), chromedp.WaitVisible(chromedp.CSS("main table")))
	if board := text(t, ctx, "main table"); strings.Contains(board, "reader") {
		t.Errorf("the scoreboard still names the anonymised player:\n%s", board)
	}
}
