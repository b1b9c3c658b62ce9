package web_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
)

// The hints' texts: words no page holds before they are unlocked.
const (
	hintOne    = "Look at the **cookie jar** first."
	hintTwo    = "The jar's lid says `lid-secret-42`."
	hintThree  = "A free nudge: *view-source* helps."
	lockedHint = "Locked hint words."
)

// Words of each hint.
var (
	oneWords   = []string{"cookie jar", "Look at the"}
	twoWords   = []string{"lid-secret-42", "lid says"}
	threeWords = []string{"view-source", "free nudge"}
	allWords   = append(append(append([]string{"Locked hint words"}, oneWords...), twoWords...), threeWords...)
)

// hintedChallenge adds to s, as an admin does in the editor, the challenge
// hinted (100 points, flag{hinted}) with three hints: 1 costs 30, 2 costs
// 20 and requires 1, 3 is free; and locked-hints, which requires warmup,
// with one hint.
func hintedChallenge(t *testing.T, s *apitest.Server) {
	t.Helper()
	for _, in := range []platform.ChallengeInput{
		{Title: "Hinted", Categories: []string{"misc"}, Difficulty: ctf.Easy, Points: 100, Description: "Find the jar.",
			Flags: []ctf.Flag{{Kind: ctf.FlagStatic, Content: "flag{hinted}"}},
			Hints: []ctf.Hint{{ID: 1, Content: hintOne, Cost: 30}, {ID: 2, Content: hintTwo, Cost: 20, Requires: 1}, {ID: 3, Content: hintThree}}},
		{Title: "Locked Hints", Categories: []string{"misc"}, Difficulty: ctf.Easy, Points: 100, Requires: []string{"warmup"},
			Flags: []ctf.Flag{{Kind: ctf.FlagStatic, Content: "flag{locked}"}}, Hints: []ctf.Hint{{ID: 1, Content: lockedHint, Cost: 10}}},
	} {
		if _, err := s.Svc.Content.SaveChallenge(context.Background(), ctf.Operator, in); err != nil {
			t.Fatal(err)
		}
	}
}

// noHintText fails the test when a page holds a word of a hint's text
// (the hints' words are found nowhere else).
func noHintText(t *testing.T, label string, p page, words ...string) {
	t.Helper()
	for _, w := range words {
		if strings.Contains(p.body, w) {
			t.Errorf("%s: the page holds the hint's words %q before it is unlocked", label, w)
		}
	}
}

// TestHintsStayHiddenUntilUnlocked: the challenge's page lists its hints
// with their costs ("costs 30 points", "free"), a hint that requires a
// locked one says which, and no hint's text is in the challenge's page or
// the board for a visitor or a player who did not unlock it; an admin
// reads them all.
func TestHintsStayHiddenUntilUnlocked(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	hintedChallenge(t, s)
	visitor, pam, root := newBrowser(t, s), logIn(t, s, "pam"), logIn(t, s, "root")

	page := pam.get("/challenges/hinted")
	want(t, "a player's page", page, 200, `<h2 id="hints-h">Hints</h2>`, `Hint 1 <span class="cost">· costs 30 points</span>`,
		`Hint 2 <span class="cost">· costs 20 points</span>`, `Hint 3 <span class="cost">· free</span>`, "<p>Unlock hint 1 first.</p>",
		"A hint's cost comes off what this challenge is worth to you when you solve it; after you solve it, hints are free.",
		`<a class="button" href="/challenges/hinted/hints/1/unlock" data-unlock="hint-confirm-1">Unlock<span class="sr"> hint 1</span></a>`,
		`<div class="confirm" id="hint-confirm-1" hidden>`,
		"Unlocking this hint takes 30 points from what this challenge is worth to you when you solve it. After you solve it, hints are free.",
		`<form method="post" action="/challenges/hinted/hints/3/unlock" class="inline"><button type="submit" class="button">Unlock<span class="sr"> hint 3</span></button></form>`)
	if strings.Contains(page.body, `action="/challenges/hinted/hints/2/unlock"`) || strings.Contains(page.body, `href="/challenges/hinted/hints/2/unlock"`) {
		t.Error("hint 2 can be unlocked before hint 1")
	}
	noHintText(t, "a player's challenge page", page, allWords...)
	noHintText(t, "a player's board", pam.get("/challenges"), allWords...)
	seen := visitor.get("/challenges/hinted")
	want(t, "a visitor's page", seen, 200, `Hint 1 <span class="cost">· costs 30 points</span>`, `<a href="/login?next=%2fchallenges%2fhinted">Log in</a> to unlock hints.`)
	if strings.Contains(seen.body, "/unlock") {
		t.Error("a visitor is offered an Unlock")
	}
	noHintText(t, "a visitor's challenge page", seen, allWords...)
	noHintText(t, "a visitor's board", visitor.get("/challenges"), allWords...)
	noHintText(t, "a player's locked challenge", pam.get("/challenges/locked-hints"), allWords...)
	want(t, "a locked challenge", pam.get("/challenges/locked-hints"), 200, "Solve its prerequisites first: its hints unlock with it.")

	want(t, "an admin's page", root.get("/challenges/hinted"), 200, "<strong>cookie jar</strong>", "<code>lid-secret-42</code>",
		"<em>view-source</em>", "Shown to you as an admin: players read it once they unlock it.")
	// The confirmation page is the player's own: a visitor logs in first.
	if p := visitor.get("/challenges/hinted/hints/1/unlock"); p.status != 303 || !strings.HasPrefix(p.header.Get("Location"), "/login?next=") {
		t.Errorf("a visitor's confirmation page: %d to %q", p.status, p.header.Get("Location"))
	}
	if p := visitor.post("/challenges/hinted/hints/1/unlock", url.Values{}); p.status != 303 || !strings.HasPrefix(p.header.Get("Location"), "/login?next=") {
		t.Errorf("a visitor's unlock: %d to %q", p.status, p.header.Get("Location"))
	}
	want(t, "an unknown hint", pam.get("/challenges/hinted/hints/9/unlock"), 404)
	want(t, "a hint that is no number", pam.post("/challenges/hinted/hints/x/unlock", url.Values{}), 404)
	want(t, "an unknown hint's unlock", pam.post("/challenges/hinted/hints/9/unlock", url.Values{}), 404)
	want(t, "a hidden challenge's hint", pam.post("/challenges/draft/hints/1/unlock", url.Values{}), 404)
}

// TestUnlockHintWithoutScript: without app.js the Unlock of a hint that
// costs points leads to a page saying what it takes, with Confirm and
// Cancel; Confirm unlocks it and lands on the hint (post/redirect/get)
// with a notice beside it and its text rendered as Markdown, which
// another player still does not see. The notice is shown once.
func TestUnlockHintWithoutScript(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	hintedChallenge(t, s)
	pam, evil := logIn(t, s, "pam"), logIn(t, s, "evil")

	confirm := pam.get("/challenges/hinted/hints/1/unlock")
	want(t, "the confirmation", confirm, 200, "<h1>Unlock hint 1 of Hinted?</h1>",
		"<p>Unlocking this hint takes 30 points from what this challenge is worth to you when you solve it. After you solve it, hints are free.</p>",
		"Hinted is worth 100 points now.",
		`<form method="post" action="/challenges/hinted/hints/1/unlock" class="actions">`,
		`<button type="submit" class="button">Confirm<span class="sr">: unlock hint 1</span></button>`,
		`<a class="button secondary" href="/challenges/hinted#hint-1">Cancel</a>`)
	noHintText(t, "the confirmation", confirm, allWords...)
	want(t, "hint 2's confirmation", pam.get("/challenges/hinted/hints/2/unlock"), 200, "Unlock hint 1 first: this hint requires it.")

	answer := pam.post("/challenges/hinted/hints/1/unlock", url.Values{})
	if to := answer.header.Get("Location"); answer.status != 303 || to != "/challenges/hinted#hint-1" {
		t.Fatalf("the unlock answers %d to %q, want 303 to the hint", answer.status, to)
	}
	landed := pam.follow("unlock", answer)
	want(t, "unlocked", landed, 200, `<p class="alert notice" role="status">Hint 1 unlocked: 30 points come off this challenge&#39;s value for you when you solve it.</p>`,
		"Look at the <strong>cookie jar</strong> first.", `<span class="sr"> (unlocked)</span>`,
		"The hints you unlocked take 30 points off.", `href="/challenges/hinted/hints/2/unlock"`)
	if strings.Count(landed.body, "Hint 1 unlocked") != 1 {
		t.Error("the notice is said more than once")
	}
	if again := pam.get("/challenges/hinted"); strings.Contains(again.body, "Hint 1 unlocked") || !strings.Contains(again.body, "<strong>cookie jar</strong>") {
		t.Error("after a reload the notice shows again, or the hint is gone")
	}
	// Unlocked already: the confirmation goes to the hint; unlocking again
	// changes nothing.
	if p := pam.get("/challenges/hinted/hints/1/unlock"); p.status != 303 || p.header.Get("Location") != "/challenges/hinted#hint-1" {
		t.Errorf("the confirmation of an unlocked hint: %d to %q", p.status, p.header.Get("Location"))
	}
	want(t, "again", pam.send("/challenges/hinted/hints/1/unlock", url.Values{}), 200, "Hint 1 unlocked")

	other := evil.get("/challenges/hinted")
	noHintText(t, "another player's page", other, allWords...)
	want(t, "another player's page", other, 200, `href="/challenges/hinted/hints/1/unlock"`, "<p>Unlock hint 1 first.</p>")
}

// TestUnlockHintInPlace: the page holds each costly hint's confirmation
// for app.js to open in place, whose Confirm posts as the page's does; a
// free hint is unlocked at once. A refusal (a hint that requires a
// locked one, a locked challenge) is one sentence beside the hint.
func TestUnlockHintInPlace(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	hintedChallenge(t, s)
	pam := logIn(t, s, "pam")

	refused := pam.send("/challenges/hinted/hints/2/unlock", url.Values{})
	want(t, "a hint before the one it requires", refused, 200,
		`<li id="hint-2">`, `<p class="alert error" role="alert">Unlock hint 1 first: this hint requires it.</p>`)
	if i, j := strings.Index(refused.body, `<li id="hint-2">`), strings.Index(refused.body, "Unlock hint 1 first: this hint requires it."); j < i {
		t.Error("the refusal is not said beside its hint")
	}
	locked := pam.send("/challenges/locked-hints/hints/1/unlock", url.Values{})
	want(t, "a locked challenge", locked, 200, `<p class="alert error" role="alert">Solve this challenge&#39;s prerequisites first: its hints unlock with it.</p>`)
	noHintText(t, "a locked challenge's refusal", locked, allWords...)

	page := pam.get("/challenges/hinted")
	want(t, "the inline confirmation", page, 200, `<div class="confirm" id="hint-confirm-1" hidden>`,
		`<form method="post" action="/challenges/hinted/hints/1/unlock" class="inline">`, `<button type="button" class="button secondary" data-cancel>Cancel</button>`)
	free := pam.send("/challenges/hinted/hints/3/unlock", url.Values{})
	want(t, "a free hint", free, 200, `<p class="alert notice" role="status">Hint 3 unlocked.</p>`, "A free nudge: <em>view-source</em> helps.")
	noHintText(t, "a free hint's neighbours", free, append(oneWords, twoWords...)...)
	if strings.Contains(free.body, "The hints you unlocked take") {
		t.Error("a free hint is said to take points")
	}
}

// TestHintCostTakenAtTheSolve: a hint unlocked before solving takes its
// cost from the solve (the flag's answer and the scoreboard's total say
// 70 of 100); after the solve the page says hints are free, and one
// unlocked then, without a confirmation, takes nothing.
func TestHintCostTakenAtTheSolve(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	hintedChallenge(t, s)
	pam := logIn(t, s, "pam")

	pam.send("/challenges/hinted/hints/1/unlock", url.Values{})
	solved := pam.send("/challenges/hinted/submit", url.Values{"flag": {"flag{hinted}"}})
	want(t, "the solve", solved, 200, "Correct! +70 points.", "<p>You solved this challenge: hints are free now.</p>",
		`<form method="post" action="/challenges/hinted/hints/2/unlock" class="inline"><button type="submit" class="button">Unlock<span class="sr"> hint 2</span></button></form>`)
	if strings.Contains(solved.body, `data-unlock="hint-confirm-2"`) {
		t.Error("after the solve a hint still asks for a confirmation")
	}
	want(t, "the scoreboard", pam.get("/scoreboard"), 200, ">pam</a></td><td>70</td>")
	after := pam.send("/challenges/hinted/hints/2/unlock", url.Values{})
	want(t, "a hint after the solve", after, 200, `<p class="alert notice" role="status">Hint 2 unlocked.</p>`, "<code>lid-secret-42</code>")
	want(t, "the scoreboard after", pam.get("/scoreboard"), 200, ">pam</a></td><td>70</td>")
	want(t, "the confirmation after the solve", pam.get("/challenges/hinted/hints/3/unlock"), 200,
		"You solved this challenge: hints are free now, and unlocking this one takes nothing.")
}

// TestDynamicChallengeSaysSo: a dynamic challenge's page shows its value
// and says how it falls; the board's card shows the value.
func TestDynamicChallengeSaysSo(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	if _, err := s.Svc.Content.SaveChallenge(context.Background(), ctf.Operator, platform.ChallengeInput{Title: "Falling", Categories: []string{"misc"},
		Difficulty: ctf.Easy, Flags: []ctf.Flag{{Kind: ctf.FlagStatic, Content: "flag{fall}"}},
		Scoring: ctf.Scoring{Type: ctf.DynamicScoring, Initial: 500, Minimum: 100, Decay: 20, Function: ctf.Logarithmic}}); err != nil {
		t.Fatal(err)
	}
	pam := logIn(t, s, "pam")
	want(t, "its page", pam.get("/challenges/falling"), 200, "<strong>500</strong> points",
		`<p class="hint dynamic">Dynamic: worth 500, down to 100 as more players solve it.</p>`)
	want(t, "its card", pam.get("/challenges"), 200, "<strong>500</strong> pts")
	if strings.Contains(pam.get("/challenges/warmup").body, "Dynamic:") {
		t.Error("a static challenge is said to be dynamic")
	}
}

// TestPreviewShowsHintsAndScoring: an admin's preview of a hidden
// challenge shows its hints' texts and its dynamic scoring, as players
// will read them (the players' use cases do not see it yet).
func TestPreviewShowsHintsAndScoring(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	if _, err := s.Svc.Content.SaveChallenge(context.Background(), ctf.Operator, platform.ChallengeInput{Title: "Hidden Hints", Categories: []string{"misc"},
		Difficulty: ctf.Easy, Hidden: true, Flags: []ctf.Flag{{Kind: ctf.FlagStatic, Content: "flag{hh}"}},
		Scoring: ctf.Scoring{Type: ctf.DynamicScoring, Initial: 300, Minimum: 50, Decay: 10, Function: ctf.Linear},
		Hints:   []ctf.Hint{{ID: 1, Content: "A *previewed* hint.", Cost: 15}}}); err != nil {
		t.Fatal(err)
	}
	want(t, "the preview", logIn(t, s, "root").get("/challenges/hidden-hints"), 200, "Dynamic: worth 300, down to 50 as more players solve it.",
		`Hint 1 <span class="cost">· costs 15 points</span>`, "A <em>previewed</em> hint.")
	want(t, "a player", logIn(t, s, "pam").get("/challenges/hidden-hints"), 404)
}
