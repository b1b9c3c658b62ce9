package webtest

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
)

// hintedInput is a challenge with three hints, as an admin saves it: 1
// costs 30, 2 costs 20 and requires 1, 3 is free.
var hintedInput = platform.ChallengeInput{Title: "Hinted", Categories: []string{"misc"}, Difficulty: ctf.Easy, Points: 100,
	Description: "Find the jar.", Flags: []ctf.Flag{{Kind: ctf.FlagStatic, Content: "flag{hinted}"}},
	Hints: []ctf.Hint{{ID: 1, Content: "Look at the **cookie jar** first.", Cost: 30},
		{ID: 2, Content: "The lid says `lid-secret-42`, a long word: " + strings.Repeat("nudge", 20) + ".", Cost: 20, Requires: 1},
		{ID: 3, Content: "A free nudge: *view-source* helps."}}}

// TestHintsInABrowser: a player opens a challenge with hints, presses
// Unlock, reads what it takes in the confirmation opened in place, cancels
// (the focus back on Unlock), unlocks it with Confirm and reads it; the
// next hint is unlocked through its confirmation page, as without the
// script; a correct flag then earns 100 − 30 − 20 points and the page says
// hints are free now. An admin makes the challenge dynamic in the editor
// (its fields shown once Dynamic is chosen) and adds a hint. axe finds
// nothing serious on the challenge page with hints (the confirmation open
// too), the confirmation page and the editor, in both themes and at 390
// px, where nothing scrolls sideways.
func TestHintsInABrowser(t *testing.T) {
	axe := axeScript(t)
	s := apitest.Start(t, flowEvent)
	if _, err := s.Svc.Content.SaveChallenge(context.Background(), ctf.Operator, hintedInput); err != nil {
		t.Fatal(err)
	}
	player := loggedIn(t, s.URL, "reader")
	step(t, player, "the challenge", chromedp.Navigate(s.URL+"/challenges/hinted"), chromedp.WaitVisible(chromedp.CSS("#hints")))
	if got := text(t, player, "#hint-2"); !strings.Contains(got, "Unlock hint 1 first.") {
		t.Errorf("hint 2 reads %q before hint 1 is unlocked", got)
	}
	if body := text(t, player, "main"); strings.Contains(body, "cookie jar") || strings.Contains(body, "lid-secret") {
		t.Error("a hint's text shows before it is unlocked")
	}
	axeBothThemes(t, player, axe, "a challenge with hints")
	screenshot(t, player, "hints-locked")

	step(t, player, "Unlock", chromedp.Click(chromedp.CSS(`a[data-unlock="hint-confirm-1"]`)), chromedp.WaitVisible(chromedp.CSS("#hint-confirm-1")))
	if got := text(t, player, "#hint-confirm-1 p"); got != "Unlocking this hint takes 30 points from what this challenge is worth to you when you solve it. After you solve it, hints are free." {
		t.Errorf("the confirmation says %q", got)
	}
	if got := eval[string](t, player, `document.activeElement.closest(".confirm")?.id + "|" + document.querySelector('a[data-unlock="hint-confirm-1"]').getAttribute("aria-expanded")`); got != "hint-confirm-1|true" {
		t.Errorf("with the confirmation open, the focus and the Unlock's state: %q", got)
	}
	axeBothThemes(t, player, axe, "a hint's confirmation in place")
	screenshot(t, player, "hints-confirm")
	step(t, player, "Cancel", chromedp.Click(chromedp.CSS("#hint-confirm-1 [data-cancel]")))
	if got := eval[string](t, player, `document.querySelector("#hint-confirm-1").hidden + "|" + document.activeElement.dataset.unlock`); got != "true|hint-confirm-1" {
		t.Errorf("after Cancel, the confirmation hidden and the focus: %q", got)
	}
	step(t, player, "Unlock and Confirm", chromedp.Click(chromedp.CSS(`a[data-unlock="hint-confirm-1"]`)), chromedp.WaitVisible(chromedp.CSS("#hint-confirm-1")),
		chromedp.Click(chromedp.CSS(`#hint-confirm-1 button[type=submit]`)), atURL("#hint-1"), contains("#hint-1", "cookie jar"))
	if got := text(t, player, "#hint-1 .alert.notice"); !strings.Contains(got, "Hint 1 unlocked: 30 points come off") {
		t.Errorf("the unlock's notice: %q", got)
	}
	if got := text(t, player, "#hint-1 .description strong"); got != "cookie jar" {
		t.Errorf("the hint's Markdown renders %q in bold", got)
	}
	step(t, player, "the light theme", chooseTheme("light"))
	screenshot(t, player, "hints-unlocked")

	// Hint 2 through its confirmation page, as without the script.
	step(t, player, "the confirmation page", chromedp.Navigate(s.URL+"/challenges/hinted/hints/2/unlock"), chromedp.WaitVisible(chromedp.CSS("main h1")))
	if got := text(t, player, "main"); !strings.Contains(got, "Unlocking this hint takes 20 points") {
		t.Errorf("the confirmation page says %q", got)
	}
	axeBothThemes(t, player, axe, "a hint's confirmation page")
	screenshot(t, player, "hints-confirm-page")
	step(t, player, "Confirm", chromedp.Click(chromedp.CSS(`main form button[type=submit]`)), atURL("#hint-2"), contains("#hint-2", "lid-secret-42"))

	step(t, player, "solve", chromedp.SetValue(chromedp.CSS("#flag"), "flag{hinted}"), chromedp.Click(chromedp.CSS(`form[data-submit] button`)),
		contains("#flag-result", "Correct! +50 points."), contains("#hints", "hints are free now"))
	if got := eval[int](t, player, `document.querySelectorAll("#hints a[data-unlock]").length`); got != 0 {
		t.Errorf("after the solve %d hints still ask for a confirmation", got)
	}
	step(t, player, "the free hint", chromedp.Click(chromedp.CSS(`form[action$="/hints/3/unlock"] button`)), atURL("#hint-3"), contains("#hint-3", "view-source"))
	axeBothThemes(t, player, axe, "a solved challenge with its hints unlocked")
	screenshot(t, player, "hints-solved")

	// The editor: dynamic scoring and a new hint.
	admin := loggedIn(t, s.URL, "root")
	step(t, admin, "the editor", chromedp.Navigate(s.URL+"/admin/challenges/hinted"), chromedp.WaitVisible(chromedp.CSS(`input[name=points]`)))
	if eval[bool](t, admin, `document.querySelector("input[name=scoringInitial]").checkVisibility()`) {
		t.Error("a static challenge's editor shows the dynamic fields")
	}
	step(t, admin, "Dynamic", chromedp.Click(chromedp.CSS(`input[name=scoring][value=dynamic]`)), chromedp.WaitVisible(chromedp.CSS(`input[name=scoringInitial]`)))
	if eval[bool](t, admin, `document.querySelector("input[name=points]").checkVisibility()`) {
		t.Error("a dynamic challenge's editor shows the static points")
	}
	step(t, admin, "its fields", chromedp.SetValue(chromedp.CSS(`input[name=scoringInitial]`), "500"),
		chromedp.SetValue(chromedp.CSS(`input[name=scoringMinimum]`), "100"), chromedp.SetValue(chromedp.CSS(`input[name=scoringDecay]`), "20"),
		chromedp.SetValue(chromedp.CSS(`select[name=scoringFunction]`), "linear"),
		chromedp.SendKeys(chromedp.CSS(`textarea[name=hintContent3]`), "A fourth, **new** hint."),
		chromedp.SendKeys(chromedp.CSS(`input[name=hintCost3]`), "5"))
	axeBothThemes(t, admin, axe, "the editor with a dynamic scoring")
	screenshot(t, admin, "editor-scoring")
	step(t, admin, "save", chromedp.Click(chromedp.CSS(`form[action="/admin/challenges"] button[type=submit]:not([name])`)),
		contains(".alert.notice", "Changes saved."))
	in, err := s.Svc.Content.ChallengeForEdit(context.Background(), ctf.Operator, "hinted")
	if err != nil {
		t.Fatal(err)
	}
	if want := (ctf.Scoring{Type: ctf.DynamicScoring, Initial: 500, Minimum: 100, Decay: 20, Function: ctf.Linear}); in.Scoring != want {
		t.Errorf("the scoring saved: %+v", in.Scoring)
	}
	if len(in.Hints) != 4 || in.Hints[3] != (ctf.Hint{ID: 4, Content: "A fourth, **new** hint.", Cost: 5}) {
		t.Errorf("the hints saved: %+v", in.Hints)
	}
	step(t, player, "the dynamic challenge", chromedp.Navigate(s.URL+"/challenges/hinted"), chromedp.WaitVisible(chromedp.CSS("#hints")))
	if got := text(t, player, "p.dynamic"); got != "Dynamic: worth 500, down to 100 as more players solve it." {
		t.Errorf("the dynamic note reads %q", got)
	}

	// At a phone's width.
	for _, ctx := range []context.Context{admin, player} {
		step(t, ctx, "phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)))
	}
	step(t, admin, "the editor on a phone", chromedp.Navigate(s.URL+"/admin/challenges/hinted"), chromedp.WaitVisible(chromedp.CSS(`input[name=scoringInitial]`)))
	onAPhone(t, admin, axe, "editor-scoring", nil)
	step(t, player, "the challenge on a phone", chromedp.Navigate(s.URL+"/challenges/hinted"), chromedp.WaitVisible(chromedp.CSS("#hints")))
	onAPhone(t, player, axe, "hints-solved", nil)

	// A newcomer's hints are all locked: the confirmation, in place and on
	// its page, on a phone.
	if _, err := s.Svc.Accounts.CreateUser(context.Background(), ctf.Operator, platform.NewUser{Username: "newcomer",
		Email: "newcomer@example.com", Password: "newcomer-password", Role: ctf.RolePlayer}); err != nil {
		t.Fatal(err)
	}
	newcomer := loggedIn(t, s.URL, "newcomer")
	step(t, newcomer, "phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)), chromedp.Navigate(s.URL+"/challenges/hinted"),
		chromedp.WaitVisible(chromedp.CSS("#hints")), chromedp.Click(chromedp.CSS(`a[data-unlock="hint-confirm-1"]`)),
		chromedp.WaitVisible(chromedp.CSS("#hint-confirm-1")))
	onAPhone(t, newcomer, axe, "hints-confirm", nil)
	step(t, newcomer, "the confirmation page on a phone", chromedp.Navigate(s.URL+"/challenges/hinted/hints/1/unlock"), chromedp.WaitVisible(chromedp.CSS("main h1")))
	onAPhone(t, newcomer, axe, "hints-confirm-page", nil)
}
