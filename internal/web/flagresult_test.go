package web_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
)

// TestFlagAnswerInTheFlagSection (issue 20, fix 6): a flag sent without
// the script lands on the challenge's flag section, which says the answer
// beside the form: a correct flag's points and new badges, the solved
// mark and count, and the link to the rating and writeups; a badge held
// already (first blood) is not announced by the next solve; a wrong flag
// is said there too, kept in the field it describes.
func TestFlagAnswerInTheFlagSection(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	pam := logIn(t, s, "pam")

	wrong := pam.post("/challenges/warmup/submit", url.Values{"flag": {"flag{nope}"}})
	if to := wrong.header.Get("Location"); to != "/challenges/warmup#submit-flag" {
		t.Errorf("a wrong flag goes to %q, want the flag's section", to)
	}
	landed := pam.get("/challenges/warmup")
	want(t, "a wrong flag", landed, 200, `<p class="alert error flag-result" id="flag-result" role="alert" tabindex="-1">Wrong flag.</p>`,
		`value="flag{nope}"`, `aria-describedby="flag-result flag-format"`)

	solved := pam.send("/challenges/warmup/submit", url.Values{"flag": {"flag{warm}"}})
	want(t, "a correct flag", solved, 200, `id="flag-result" role="status"`, "Correct! +50 points.", "New badges:", "First solve", "First blood",
		`<a href="#wu-h">Rate it and read the writeups.</a>`, `id="wu-h"`, "1 solve ·", `<span class="mark ok"><svg class="icon"`)
	if strings.Contains(solved.body, `class="alert notice"`) {
		t.Error("the answer is said at the top of the page too")
	}
	if again := pam.get("/challenges/warmup"); strings.Contains(again.body, "flag-result") {
		t.Error("the answer shows again on the next visit")
	}

	// The next solve: another first blood, but that badge is held; it
	// completes the web category, a badge not held yet.
	next := pam.send("/challenges/next/submit", url.Values{"flag": {"flag{next}"}})
	want(t, "the next solve", next, 200, "Correct! +300 points.", "Every web challenge solved")
	if strings.Contains(next.body, "First blood") || strings.Contains(next.body, "First solve") {
		t.Errorf("the next solve announces a badge held already:\n%.3000s", next.body[strings.Index(next.body, "flag-result"):])
	}
}

// TestPracticeSolveSaysItCountsForNothing (issue 20, fix 6): after the end
// with practice mode on, a correct flag says it is a practice solve that
// counts for no score, with no points and no badges, and the solve count
// does not move.
func TestPracticeSolveSaysItCountsForNothing(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	start, end := time.Now().Add(-2*time.Hour), time.Now().Add(-time.Hour)
	if _, err := s.Svc.Event.Set(context.Background(), ctf.Operator, ctf.Event{Name: "Over CTF", Start: &start, End: &end, Practice: true}); err != nil {
		t.Fatal(err)
	}
	pam := logIn(t, s, "pam")
	p := pam.send("/challenges/warmup/submit", url.Values{"flag": {"flag{warm}"}})
	want(t, "a practice solve", p, 200, "Correct — a practice solve: it counts for no score.", "You solved it", "0 solves ·")
	for _, not := range []string{"+50 points", "New badges", "First solve"} {
		if strings.Contains(p.body, not) {
			t.Errorf("a practice solve's page says %q", not)
		}
	}
}
