package webtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/store"
)

// logInAt logs reader in from the login page, landing on next.
func logInAt(t *testing.T, ctx context.Context, url, next string) {
	t.Helper()
	step(t, ctx, "log in", append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(url + "/login?next=" + next)},
		fill(map[string]string{"username": "reader", "password": "reader-password"}, `form[action="/login"] button[type=submit]`)...)...)
}

// TestFlagFormSaysTheWait: past the rate limit, the flag form's answer
// without a reload (app.js swaps in the page the form lands on) says the
// wait as one sentence, in minutes rather than hundreds of seconds.
func TestFlagFormSaysTheWait(t *testing.T) {
	s := apitest.Start(t, flowEvent, apitest.Options{RateLimit: store.RateLimit{Max: 1, Window: 10 * time.Minute}})
	ctx := newBrowser(t)
	logInAt(t, ctx, s.URL, "/challenges/crypto-one")
	step(t, ctx, "wrong flag", chromedp.WaitVisible(chromedp.CSS("#flag")), chromedp.SendKeys(chromedp.CSS("#flag"), "flag{nope}"),
		chromedp.Click(chromedp.CSS(`form[data-submit] button`)), contains(".flag-result", "Wrong flag."))
	step(t, ctx, "rate-limited", chromedp.SetValue(chromedp.CSS("#flag"), "flag{nope2}"), chromedp.Click(chromedp.CSS(`form[data-submit] button`)),
		contains(".flag-result", "Too many wrong flags: wait 10 minutes before the next try."))
	// The field keeps the refused flag and has the focus, described by the answer.
	if got := eval[string](t, ctx, `document.activeElement.id + " " + document.activeElement.value + " " + document.activeElement.getAttribute("aria-describedby")`); !strings.HasPrefix(got, "flag flag{nope2} flag-result") {
		t.Errorf("after a refused flag the focus is on %q", got)
	}
}

// TestCorrectFlagUpdatesThePage (issue 20, fix 6): with the script, a
// correct flag updates the page without a reload: the solved mark, the
// solve count, the answer with its new badges (as icons, a badge held
// already not announced) and the link to the rating and writeups, which
// are there; the answer has the focus. Axe finds nothing there.
func TestCorrectFlagUpdatesThePage(t *testing.T) {
	axe := axeScript(t)
	s := apitest.Start(t, flowEvent)
	ctx := newBrowser(t)
	logInAt(t, ctx, s.URL, "/challenges/crypto-one")
	step(t, ctx, "the challenge", chromedp.WaitVisible(chromedp.CSS("#flag")), chromedp.Evaluate[chromedp.Void](`window.sameDocument = true`))
	if meta := text(t, ctx, "p.meta"); !strings.Contains(meta, "0 solves") {
		t.Fatalf("before: %q", meta)
	}
	step(t, ctx, "a correct flag", chromedp.SendKeys(chromedp.CSS("#flag"), "flag{c1}"), chromedp.Click(chromedp.CSS(`form[data-submit] button`)),
		contains("#flag-result", "Correct! +200 points."))
	if !eval[bool](t, ctx, `window.sameDocument === true`) {
		t.Error("the page was reloaded")
	}
	if got := text(t, ctx, "h1"); !strings.Contains(got, "solved") {
		t.Errorf("the title has no solved mark: %q", got)
	}
	if meta := text(t, ctx, "p.meta"); !strings.Contains(meta, "1 solve ·") {
		t.Errorf("the count did not move: %q", meta)
	}
	// reader holds "First solve" and "First blood" (warmup) already: only
	// the crypto category's badge is new.
	if got := text(t, ctx, "#flag-result"); !strings.Contains(got, "Every crypto challenge solved") || strings.Contains(got, "First") {
		t.Errorf("the new badges: %q", got)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#flag-result svg.icon").length`); n < 2 {
		t.Errorf("%d icons in the answer, want the check and the badge's", n)
	}
	if got := eval[string](t, ctx, `document.activeElement.id`); got != "flag-result" {
		t.Errorf("the focus is on %q, not the answer", got)
	}
	if !eval[bool](t, ctx, `!!document.querySelector('#flag-result a[href="#wu-h"]') && !!document.querySelector("#wu-h") && !!document.querySelector('form[action$="/review"]')`) {
		t.Error("no link to the writeups, or no writeups and rating to go to")
	}
	if eval[bool](t, ctx, `!!document.querySelector("form[data-submit]")`) {
		t.Error("the flag form stays after the solve")
	}
	screenshot(t, ctx, "challenge-solved")
	axeCheck(t, ctx, axe, "a challenge just solved")
	step(t, ctx, "to the writeups", chromedp.Click(chromedp.CSS(`#flag-result a`)), atURL("#wu-h"))
}

// TestPracticeSolveInTheBrowser (issue 20, fix 6): after the end with
// practice mode on, a correct flag says it is a practice solve that counts
// for no score, and the public count does not move.
func TestPracticeSolveInTheBrowser(t *testing.T) {
	s := apitest.Start(t, flowEvent)
	start, end := time.Now().Add(-2*time.Hour), time.Now().Add(-time.Hour)
	if _, err := s.Svc.Event.Set(context.Background(), ctf.Operator, ctf.Event{Name: "Over CTF", Start: &start, End: &end, Practice: true}); err != nil {
		t.Fatal(err)
	}
	ctx := newBrowser(t)
	logInAt(t, ctx, s.URL, "/challenges/crypto-one")
	step(t, ctx, "a practice solve", chromedp.WaitVisible(chromedp.CSS("#flag")), chromedp.SendKeys(chromedp.CSS("#flag"), "flag{c1}"),
		chromedp.Click(chromedp.CSS(`form[data-submit] button`)), contains("#flag-result", "Correct — a practice solve: it counts for no score."))
	if got := text(t, ctx, "#flag-result"); strings.Contains(got, "points") || strings.Contains(got, "badge") {
		t.Errorf("a practice solve says %q", got)
	}
	if meta := text(t, ctx, "p.meta"); !strings.Contains(meta, "0 solves") {
		t.Errorf("a practice solve moved the count: %q", meta)
	}
	screenshot(t, ctx, "challenge-practice-solve")
}
