package platform

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
)

// dynChallenge is a dynamic challenge with two hints, the second costly
// and requiring the first.
func dynChallenge(slug string, decay int) ChallengeInput {
	return ChallengeInput{Slug: slug, Title: "Dyn " + slug, Categories: []string{"misc"}, Difficulty: ctf.Medium,
		Flags:   []ctf.Flag{{Kind: ctf.FlagStatic, Content: "flag{" + slug + "}"}},
		Scoring: ctf.Scoring{Type: ctf.DynamicScoring, Initial: 500, Minimum: 100, Decay: decay},
		Hints: []ctf.Hint{{ID: 1, Content: "A free nudge for " + slug, Cost: 0},
			{ID: 2, Content: "The big secret of " + slug, Cost: 50, Requires: 1}}}
}

// newDynFixture is the use cases' fixture with dynChallenge("dyn", 3), and
// its admin.
func newDynFixture(t *testing.T) (*ucFixture, ctf.Viewer) {
	t.Helper()
	f := newFixture(t)
	root := f.as("root")
	if _, err := f.svc.Content.SaveChallenge(context.Background(), root, dynChallenge("dyn", 3)); err != nil {
		t.Fatal(err)
	}
	return f, root
}

// players creates n players named prefix0..prefix(n-1) and returns their
// viewers.
func (f *ucFixture) players(prefix string, n int) []ctf.Viewer {
	f.t.Helper()
	out := make([]ctf.Viewer, n)
	for i := range out {
		name := fmt.Sprintf("%s%d", prefix, i)
		u, err := f.svc.Accounts.CreateUser(context.Background(), ctf.Operator, NewUser{Username: name, Email: name + "@example.com"})
		if err != nil {
			f.t.Fatal(err)
		}
		out[i] = ctf.Viewer{User: &u}
	}
	return out
}

// entryOf returns the leaderboard entry of username ("" when unranked).
func entryOf(s *Service, username string) *live.LeaderboardEntry {
	_, rows := s.Scoreboard.Leaderboard(nil)
	for _, r := range rows {
		if r.Entry.Username == username {
			return r.Entry
		}
	}
	return nil
}

// checkSums fails unless every leaderboard entry's total is the sum of
// its solves' points.
func checkSums(t *testing.T, what string, s *Service) {
	t.Helper()
	_, rows := s.Scoreboard.Leaderboard(nil)
	for _, r := range rows {
		if sum := sumPoints(r.Entry.Solves); sum != r.Entry.TotalPoints {
			t.Fatalf("%s: %s totals %d but their solves add up to %d", what, r.Entry.Username, r.Entry.TotalPoints, sum)
		}
	}
}

func sumPoints(solves []live.LeaderboardSolve) int {
	n := 0
	for _, x := range solves {
		n += x.Points
	}
	return n
}

func pointsOf(t *testing.T, s *Service, slug string) int {
	t.Helper()
	_, rows := s.Play.ChallengeList(nil)
	for _, r := range rows {
		if r.Summary.Slug == slug {
			return r.Summary.Points
		}
	}
	t.Fatalf("%s not listed", slug)
	return 0
}

// TestDynamicScoringAndHints plays a dynamic challenge (500 down to 100
// at 3 solvers) through solves, hints, a ban and an admin's solve, and
// checks each answer, the challenge's value, every solver's total (always
// the sum of their solves' points) and another replica's view.
func TestDynamicScoringAndHints(t *testing.T) {
	t.Parallel()
	f, root := newDynFixture(t)
	ctx := context.Background()
	other, seen := f.watchedReplica()
	p := f.players("dp", 5)
	solve := func(v ctf.Viewer, want int) {
		t.Helper()
		res, err := f.svc.Play.Submit(ctx, v, "dyn", "flag{dyn}")
		wantCode(t, v.User.Username+" solves", err, "")
		if res.Points != want {
			t.Fatalf("%s's solve answered %d points, want %d", v.User.Username, res.Points, want)
		}
	}
	total := func(v ctf.Viewer, want int) {
		t.Helper()
		e := entryOf(f.svc, v.User.Username)
		if e == nil || e.TotalPoints != want {
			t.Fatalf("%s's entry %+v, want a total of %d", v.User.Username, e, want)
		}
	}
	if got := pointsOf(t, f.svc, "dyn"); got != 500 {
		t.Fatalf("unsolved, dyn is worth %d, want 500", got)
	}
	solve(p[0], 500)
	total(p[0], 500)
	// s = 1: ceil(500 − 400/9) = 456, for both solvers.
	solve(p[1], 456)
	total(p[0], 456)
	total(p[1], 456)

	// Hints: locked content is not told; the costly one needs the free one.
	hints, err := f.svc.Play.Hints(ctx, p[2], "dyn")
	wantCode(t, "hints", err, "")
	if len(hints) != 2 || hints[0].Content != nil || hints[1].Content != nil || hints[1].Requires == nil || *hints[1].Requires != 1 {
		t.Fatalf("hints before unlocking: %s", mustJSON(hints))
	}
	_, err = f.svc.Play.UnlockHint(ctx, p[2], "dyn", 2)
	wantCode(t, "the costly hint before the one it requires", err, ctf.Forbidden)
	_, err = f.svc.Play.UnlockHint(ctx, p[2], "dyn", 9)
	wantCode(t, "an unknown hint", err, ctf.NotFound)
	_, err = f.svc.Play.UnlockHint(ctx, p[2], "nope", 1)
	wantCode(t, "an unknown challenge", err, ctf.NotFound)
	_, err = f.svc.Play.UnlockHint(ctx, ctf.Viewer{}, "dyn", 1)
	wantCode(t, "anonymous", err, ctf.Unauthorized)
	ro := p[2]
	ro.ReadOnly = true
	_, err = f.svc.Play.UnlockHint(ctx, ro, "dyn", 1)
	wantCode(t, "a read-only key", err, ctf.Forbidden)
	_, err = f.svc.Play.UnlockHint(ctx, f.as("pat"), "b", 1)
	wantCode(t, "a hint of a locked challenge (b has none)", err, ctf.NotFound)
	for range 2 { // unlocking again answers the same and costs nothing more
		for _, id := range []int{1, 2} {
			h, err := f.svc.Play.UnlockHint(ctx, p[2], "dyn", id)
			wantCode(t, "unlock", err, "")
			if !h.Unlocked || h.Content == nil || !strings.Contains(*h.Content, "dyn") {
				t.Fatalf("unlocked hint %d: %s", id, mustJSON(h))
			}
		}
	}
	if hs, _ := f.svc.Play.Hints(ctx, p[3], "dyn"); hs[0].Content != nil {
		t.Fatal("another player sees a hint p[2] unlocked")
	}
	// s = 2: ceil(500 − 400×4/9) = 323; p[2] pays 50 of it.
	solve(p[2], 273)
	total(p[0], 323)
	total(p[2], 273)
	checkSums(t, "after a solve with hints", f.svc)
	// A hint unlocked after solving costs nothing.
	_, err = f.svc.Play.UnlockHint(ctx, p[0], "dyn", 1)
	wantCode(t, "unlock after solving", err, "")
	_, err = f.svc.Play.UnlockHint(ctx, p[0], "dyn", 2)
	wantCode(t, "unlock after solving", err, "")
	total(p[0], 323)
	// s = 3 = decay: the minimum exactly.
	solve(p[3], 100)
	total(p[0], 100)
	total(p[2], 50)
	if got := pointsOf(t, f.svc, "dyn"); got != 100 {
		t.Fatalf("at the minimum, dyn lists %d points", got)
	}
	// An admin's solve does not count; a ban takes a solver out.
	solve(root, 100)
	total(p[0], 100)
	if _, err := f.svc.Admin.SetBanned(ctx, root, p[3].User.ID, true, "test"); err != nil {
		t.Fatal(err)
	}
	total(p[0], 323)
	total(p[2], 273)
	if me, err := f.svc.Accounts.Me(ctx, p[2]); err != nil || me.TotalPoints != 273 || me.SolvedChallenges[0].Challenge.Points != 273 {
		t.Fatalf("p[2]'s own profile: %v %+v", err, me.PublicProfile)
	}
	// An organiser's correction of the scoring applies to every solver.
	in, err := f.svc.Content.ChallengeForEdit(ctx, root, "dyn")
	wantCode(t, "edit", err, "")
	in.Scoring.Function, in.Scoring.Decay = ctf.Linear, 10 // 500 − 10 × 2
	in.Hints[1].Cost = 80
	if _, err := f.svc.Content.SaveChallenge(ctx, root, in); err != nil {
		t.Fatal(err)
	}
	total(p[0], 480)
	total(p[2], 400)
	checkSums(t, "after the correction", f.svc)
	// The CTFtime feed's standings carry the same worths.
	_, rows := f.svc.Scoreboard.Standings()
	for _, r := range rows {
		sum := 0
		for _, x := range r.Tasks {
			sum += x.Points
		}
		if e := entryOf(f.svc, r.Team); sum != r.Score || e == nil || e.TotalPoints != r.Score {
			t.Fatalf("the feed's %s: score %d, tasks add up to %d, leaderboard %+v", r.Team, r.Score, sum, e)
		}
	}
	// The live stream's last solve event says what it is worth now and the
	// challenge's value.
	evs := streamOf(t, f.svc)
	var last *live.SolveEvent
	for _, ev := range evs {
		if ev.Solve != nil && ev.Solve.Slug == "dyn" {
			last = ev.Solve
		}
	}
	if last == nil || last.Value != 480 || last.Username != p[2].User.Username || last.Points != 400 {
		t.Fatalf("the stream's last solve of dyn: %+v", last)
	}
	seen("the other replica's board", func() bool { return boardJSON(other) == boardJSON(f.svc) && listJSON(other) == listJSON(f.svc) })
	fresh := f.replica()
	if boardJSON(fresh) != boardJSON(f.svc) || listJSON(fresh) != listJSON(f.svc) {
		t.Fatalf("a rebuilt state differs:\n%s\n%s", boardJSON(fresh), boardJSON(f.svc))
	}
}

// TestFreezeKeepsDynamicValues: solves a freeze holds back do not lower a
// dynamic value publicly; the solver sees their own solve at the value
// with it counted, admins the live standings.
func TestFreezeKeepsDynamicValues(t *testing.T) {
	t.Parallel()
	f, root := newDynFixture(t)
	ctx := context.Background()
	p := f.players("fp", 2)
	if _, err := f.svc.Play.Submit(ctx, p[0], "dyn", "flag{dyn}"); err != nil {
		t.Fatal(err)
	}
	f.clock.Add(time.Minute)
	freeze := f.clock.Now()
	if _, err := f.svc.Event.Set(ctx, root, ctf.Event{Freeze: &freeze}); err != nil {
		t.Fatal(err)
	}
	f.clock.Add(time.Minute)
	res, err := f.svc.Play.Submit(ctx, p[1], "dyn", "flag{dyn}")
	wantCode(t, "held solve", err, "")
	if res.Points != 456 {
		t.Fatalf("the held solve answered %d, want 456 (its solver's own view)", res.Points)
	}
	if got := pointsOf(t, f.svc, "dyn"); got != 500 {
		t.Fatalf("during the freeze the public value is %d, want 500", got)
	}
	if e := entryOf(f.svc, "fp0"); e.TotalPoints != 500 {
		t.Fatalf("fp0 publicly %d, want 500", e.TotalPoints)
	}
	me, err := f.svc.Accounts.Me(ctx, p[1])
	wantCode(t, "me", err, "")
	if len(me.SolvedChallenges) != 1 || me.SolvedChallenges[0].Challenge.Points != 456 {
		t.Fatalf("the held solver's own view: %+v", me.SolvedChallenges)
	}
	_, page, err := f.svc.Scoreboard.LiveLeaderboardPageOf(root, live.Everyone, 0, 10, true)
	wantCode(t, "live board", err, "")
	for _, e := range page {
		if (e.Username == "fp0" || e.Username == "fp1") && e.TotalPoints != 456 {
			t.Fatalf("the admin's live board: %s has %d, want 456", e.Username, e.TotalPoints)
		}
	}
	wantCode(t, "unfreeze", f.svc.Event.Unfreeze(ctx, root), "")
	if e := entryOf(f.svc, "fp0"); e.TotalPoints != 456 {
		t.Fatalf("after the unfreeze fp0 has %d, want 456", e.TotalPoints)
	}
	checkSums(t, "after the unfreeze", f.svc)
}

// TestUnlockAndSolveRace: one player unlocks a costly hint on one replica
// while solving on another, many times over: the cost is applied once or
// not at all, and the solve's answer is what the totals say, on both.
func TestUnlockAndSolveRace(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	root := f.as("root")
	b := f.replica()
	p := f.players("rp", 1)[0]
	const rounds = 12
	charged := 0
	for i := range rounds {
		slug := fmt.Sprintf("race%d", i)
		in := dynChallenge(slug, 3)
		in.Hints = []ctf.Hint{{ID: 1, Content: "costly", Cost: 70}}
		if _, err := f.svc.Content.SaveChallenge(ctx, root, in); err != nil {
			t.Fatal(err)
		}
		if err := b.Load(ctx); err != nil { // b knows the new challenge
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var res live.SubmitResult
		var errS, errU error
		wg.Add(2)
		go func() { defer wg.Done(); _, errU = b.Play.UnlockHint(ctx, p, slug, 1) }()
		go func() { defer wg.Done(); res, errS = f.svc.Play.Submit(ctx, p, slug, "flag{"+slug+"}") }()
		wg.Wait()
		wantCode(t, "unlock", errU, "")
		wantCode(t, "solve", errS, "")
		if res.Points != 500 && res.Points != 430 {
			t.Fatalf("round %d: the solve answered %d", i, res.Points)
		}
		if res.Points == 430 {
			charged++
		}
		for _, s := range []*Service{f.svc, b} {
			if err := s.Load(ctx); err != nil {
				t.Fatal(err)
			}
			me, _ := s.Accounts.Me(ctx, p)
			for _, x := range me.SolvedChallenges {
				if x.Challenge.Slug == slug && x.Challenge.Points != res.Points {
					t.Fatalf("round %d: answered %d, the profile says %d", i, res.Points, x.Challenge.Points)
				}
			}
		}
	}
	checkSums(t, "after the races", f.svc)
	t.Logf("%d of %d unlocks came before their solve", charged, rounds)
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
