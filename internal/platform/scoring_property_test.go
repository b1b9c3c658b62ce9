package platform

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/store"
)

// publicState is what the public reads of a service, as JSON: the
// leaderboard, the challenge list, every profile, and each user's hints of
// each challenge of slugs.
func publicState(s *Service, users []ctf.Viewer, slugs []string) string {
	out := boardJSON(s) + "\n" + listJSON(s)
	for _, v := range users {
		out += "\n" + mustJSON(s.Scoreboard.Profile(v.User.ID))
		for _, slug := range slugs {
			hints, _ := s.Play.Hints(context.Background(), v, slug)
			out += " " + mustJSON(hints)
		}
	}
	return out
}

// rebuilt is a service whose state is built afresh from the database, over
// the fixture's own connections (a replica per step would open a pool each).
func (f *ucFixture) rebuilt(filesDir string) *Service {
	f.t.Helper()
	svc := New(f.db, Options{Now: f.clock.Now, FilesDir: filesDir, RateLimit: store.RateLimit{Max: 10, Window: time.Minute}})
	if err := svc.Load(context.Background()); err != nil {
		f.t.Fatal(err)
	}
	return svc
}

// TestScoringIncrementalEqualsRebuild plays a seeded random sequence of
// solves, wrong flags, bans and unbans, hint unlocks, point, scoring and
// hint-cost corrections, hidden and shown challenges and freezes, and after
// each step compares what the public reads of the service that applied
// them one by one with a state rebuilt from the database, byte for byte;
// another replica following the change log must reach the same.
func TestScoringIncrementalEqualsRebuild(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	root := f.as("root")
	rng := rand.New(rand.NewPCG(21, 4))
	slugs := []string{"d1", "d2", "d3", "s1"}
	for i, slug := range slugs {
		in := dynChallenge(slug, 2+i)
		if slug == "s1" {
			in.Scoring = ctf.Scoring{}
			in.Points = 200
		}
		if i == 1 {
			in.Scoring.Function = ctf.Linear
			in.Scoring.Decay = 60
		}
		if _, err := f.svc.Content.SaveChallenge(ctx, root, in); err != nil {
			t.Fatal(err)
		}
	}
	users := f.players("pp", 12)
	other, seen := f.watchedReplica()
	banned := map[string]bool{}
	hidden := map[string]bool{}
	frozen := false
	counts := map[string]int{}
	dir := t.TempDir()
	steps := 120
	if testing.Short() {
		steps = 40
	}
	for step := range steps {
		f.clock.Add(time.Second)
		v := users[rng.IntN(len(users))]
		slug := slugs[rng.IntN(len(slugs))]
		var op string
		switch x := rng.IntN(100); {
		case x < 35:
			op = "solve"
			f.svc.Play.Submit(ctx, v, slug, "flag{"+slug+"}")
		case x < 42:
			op = "wrong flag"
			f.svc.Play.Submit(ctx, v, slug, "flag{nope}")
		case x < 62:
			op = "unlock"
			if rng.IntN(4) == 0 {
				f.svc.Play.UnlockHint(ctx, v, slug, 2) // refused unless 1 is unlocked
			}
			f.svc.Play.UnlockHint(ctx, v, slug, 1)
			if rng.IntN(2) == 0 {
				f.svc.Play.UnlockHint(ctx, v, slug, 2)
			}
		case x < 70:
			op = "ban or unban"
			banned[v.User.ID] = !banned[v.User.ID]
			if _, err := f.svc.Admin.SetBanned(ctx, root, v.User.ID, banned[v.User.ID], "test"); err != nil {
				t.Fatal(err)
			}
		case x < 85:
			op = "correction"
			in, err := f.svc.Content.ChallengeForEdit(ctx, root, slug)
			if err != nil {
				t.Fatal(err)
			}
			switch rng.IntN(5) {
			case 0:
				in.Scoring, in.Points = ctf.Scoring{}, 50*(1+rng.IntN(8))
			case 1:
				in.Scoring = ctf.Scoring{Type: ctf.DynamicScoring, Initial: 300 + 100*rng.IntN(5), Minimum: 50, Decay: 1 + rng.IntN(6), Function: ctf.Logarithmic}
			case 2:
				in.Scoring = ctf.Scoring{Type: ctf.DynamicScoring, Initial: 400, Minimum: 10 * rng.IntN(10), Decay: 25 * rng.IntN(5), Function: ctf.Linear}
			default:
				for i := range in.Hints {
					in.Hints[i].Cost = 25 * rng.IntN(20)
				}
				// A hint removed forgets its unlocks; one given its id
				// again starts locked.
				if len(in.Hints) == 2 {
					in.Hints = in.Hints[:1]
				} else if len(in.Hints) == 1 {
					in.Hints = append(in.Hints, ctf.Hint{ID: 2, Content: "back again", Cost: 60, Requires: 1})
				}
			}
			if _, err := f.svc.Content.SaveChallenge(ctx, root, in); err != nil {
				t.Fatal(err)
			}
		case x < 92:
			op = "hide or show"
			hidden[slug] = !hidden[slug]
			if _, err := f.svc.Content.SetChallengeHidden(ctx, root, slug, hidden[slug]); err != nil {
				t.Fatal(err)
			}
		default:
			op = "freeze or unfreeze"
			if frozen {
				wantCode(t, "unfreeze", f.svc.Event.Unfreeze(ctx, root), "")
			} else {
				at := f.clock.Now()
				if _, err := f.svc.Event.Set(ctx, root, ctf.Event{Freeze: &at}); err != nil {
					t.Fatal(err)
				}
			}
			frozen = !frozen
		}
		counts[op]++
		what := fmt.Sprintf("step %d (%s)", step, op)
		checkSums(t, what, f.svc)
		got := publicState(f.svc, users, slugs)
		if want := publicState(f.rebuilt(dir), users, slugs); got != want {
			t.Fatalf("%s: the incremental state differs from a rebuild:\nincremental %s\nrebuilt     %s", what, got, want)
		}
		if step%10 == 9 {
			seen(what+": the other replica", func() bool { return publicState(other, users, slugs) == got })
		}
		if frozen {
			// The admin's live board is a sum of live worths too.
			_, page, err := f.svc.Scoreboard.LiveLeaderboardPageOf(root, live.Everyone, 0, 100, true)
			wantCode(t, "live board", err, "")
			for _, e := range page {
				if sum := sumPoints(e.Solves); sum != e.TotalPoints {
					t.Fatalf("%s: the live board's %s totals %d, solves add up to %d", what, e.Username, e.TotalPoints, sum)
				}
			}
		}
	}
	t.Logf("steps: %v", counts)
}
