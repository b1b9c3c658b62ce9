package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
)

// TestBoardAndFlagFormFollowTheClock (issue 20, fix 8): before the start
// the board shows the countdown only (no "0 of 0 solved", no filters);
// after the end, without practice, a challenge's flag form is replaced by
// a notice; with practice it stays.
func TestBoardAndFlagFormFollowTheClock(t *testing.T) {
	t.Parallel()
	clk := newTestClock()
	s := apitest.Start(t, event, apitest.Options{Now: clk.now})
	start := clk.now().Add(time.Hour)
	end := start.Add(time.Hour)
	set := func(practice bool) {
		t.Helper()
		if _, err := s.Svc.Event.Set(context.Background(), ctf.Operator, ctf.Event{Name: "Clock CTF", Start: &start, End: &end, Practice: practice}); err != nil {
			t.Fatal(err)
		}
	}
	set(false)
	pam := logIn(t, s, "pam")
	board := pam.get("/")
	want(t, "before the start", board, 200, "The event starts at", "data-countdown=", "The challenges appear when the event starts.")
	for _, gone := range []string{"of 0 solved", `class="filters"`} {
		if strings.Contains(board.body, gone) {
			t.Errorf("the board before the start shows %q", gone)
		}
	}

	clk.add(time.Hour + time.Minute) // running
	running := pam.get("/challenges/warmup")
	want(t, "running", running, 200, `action="/challenges/warmup/submit"`)
	want(t, "the board while running", pam.get("/"), 200, "0 of 2 solved.", `class="filters"`)

	clk.add(time.Hour) // over
	over := pam.get("/challenges/warmup")
	want(t, "over", over, 200, "The event is over: flags are no longer taken.")
	if strings.Contains(over.body, `action="/challenges/warmup/submit"`) {
		t.Error("the flag form outlives the end")
	}
	set(true)
	want(t, "over, with practice", pam.get("/challenges/warmup"), 200, `action="/challenges/warmup/submit"`)
}
