package replicatest

import (
	"encoding/json"
	"slices"
	"sort"
)

// checkState checks the invariants of docs/product.md on what one
// replica serves, against the workload's facts: solves, leaderboard,
// per-challenge counts, ranks.
func checkState(rep *report, v *view, o *observation, ev *testEvent, f *facts) {
	r := v.name
	// Every acknowledged solve is there, exactly once; nothing is there
	// that no submission could have made; a 409 means solved.
	for k, subs := range f.acked {
		if len(subs) > 1 {
			rep.add("double 200", "%s solved %s %d times with 200 (replicas %v)", k.p.Username, k.c.Slug, len(subs), procsOf(subs))
		}
		if _, ok := v.solved[k.p][k.c]; !ok {
			rep.add("acknowledged solve lost", "%s: %s's 200 for %s (on %s) is missing from the profile", r, k.p.Username, k.c.Slug, subs[0].Proc)
		}
	}
	for p, m := range v.solved {
		for c := range m {
			k := pc{p, c}
			switch {
			case len(f.acked[k]) > 0:
			case f.unknownRight[k]:
				v.landed[c]++
			default:
				rep.add("phantom solve", "%s: %s has %s solved, but no submission got 200 and none was cut off", r, p.Username, c.Slug)
			}
		}
	}
	for k, n := range f.conflicts {
		if _, ok := v.solved[k.p][k.c]; !ok {
			rep.add("409 but not solved", "%s: %s got %d×409 for %s, yet has not solved it", r, k.p.Username, n, k.c.Slug)
		}
	}

	// The leaderboard: exactly the players with a solve, totals equal to
	// the sums of their solves' points, in the order of docs/product.md#leaderboard; ranks
	// are positions in it.
	var board boardView
	if err := json.Unmarshal(o.Board, &board); err != nil {
		rep.add("bad leaderboard", "%s: %v", r, err)
		return
	}
	seen := map[*player]bool{}
	for i, e := range board.Leaderboard {
		p := ev.byUserID[e.ID]
		if p == nil || seen[p] || v.profiles[p] == nil {
			rep.add("leaderboard entry", "%s: entry %d (%s) is unknown, repeated or without profile", r, i, e.ID)
			continue
		}
		seen[p] = true
		pr := v.profiles[p].Profile
		want, sum, last := 0, 0, ""
		var times, wantTimes []string
		for c, at := range v.solved[p] {
			want += c.Points
			last = max(last, at)
			wantTimes = append(wantTimes, at)
		}
		for _, s := range e.Solves {
			sum += s.Points
			times = append(times, s.SolvedAt)
		}
		sort.Strings(times)
		sort.Strings(wantTimes)
		if e.TotalSolves != len(v.solved[p]) || len(e.Solves) != len(v.solved[p]) || !slices.Equal(times, wantTimes) {
			rep.add("leaderboard solves", "%s: %s: totalSolves %d, %d solves listed, profile has %d", r, p.Username, e.TotalSolves, len(e.Solves), len(v.solved[p]))
		}
		if e.TotalPoints != want || sum != want || pr.TotalPoints != want {
			rep.add("leaderboard points", "%s: %s: totalPoints %d, its solves sum to %d, profile says %d, solved challenges are worth %d",
				r, p.Username, e.TotalPoints, sum, pr.TotalPoints, want)
		}
		if e.LastSolvedAt == nil || *e.LastSolvedAt != last {
			rep.add("leaderboard lastSolvedAt", "%s: %s: lastSolvedAt %v, last solve %s", r, p.Username, e.LastSolvedAt, last)
		}
		if pr.Rank != i+1 {
			rep.add("rank", "%s: %s is at position %d but has rank %d", r, p.Username, i+1, pr.Rank)
		}
		if i > 0 {
			prev := board.Leaderboard[i-1]
			if pp := ev.byUserID[prev.ID]; pp != nil && before(e.TotalPoints, e.LastSolvedAt, p.Username, prev.TotalPoints, prev.LastSolvedAt, pp.Username) {
				rep.add("leaderboard order", "%s: %s (%d points) is listed after %s (%d points)", r, p.Username, e.TotalPoints, pp.Username, prev.TotalPoints)
			}
		}
	}
	for p, m := range v.solved {
		if len(m) > 0 && !seen[p] {
			rep.add("leaderboard entry", "%s: %s has %d solves but no leaderboard entry", r, p.Username, len(m))
		}
		if pv := v.profiles[p]; len(m) == 0 && pv != nil && pv.Profile.Rank != len(board.Leaderboard)+1 {
			rep.add("rank", "%s: %s has no solve and rank %d, want %d", r, p.Username, pv.Profile.Rank, len(board.Leaderboard)+1)
		}
	}

	// Per challenge: solvesCount is the distinct solvers; attemptsCount the
	// checked submissions (wrong-flag 400s and solves), with the cut-off
	// wrong ones allowed either way.
	var list listView
	if err := json.Unmarshal(o.List, &list); err != nil {
		rep.add("bad challenge list", "%s: %v", r, err)
		return
	}
	if len(list.Challenges) != len(ev.Challenges) {
		rep.add("challenge list", "%s: %d challenges listed, want %d", r, len(list.Challenges), len(ev.Challenges))
	}
	for _, s := range list.Challenges {
		c := ev.bySlug[s.Slug]
		if c == nil {
			rep.add("challenge list", "%s: unknown challenge %q listed", r, s.Slug)
			continue
		}
		var d detailView
		if err := json.Unmarshal(o.Details[c.Slug], &d); err != nil || d.Challenge.SolvesCount != s.SolvesCount || d.Challenge.AttemptsCount != s.AttemptsCount {
			rep.add("detail vs list", "%s: %s: detail %d solves/%d attempts, list %d/%d (%v)", r, c.Slug,
				d.Challenge.SolvesCount, d.Challenge.AttemptsCount, s.SolvesCount, s.AttemptsCount, err)
		}
		solves := len(v.byChal[c])
		acked := 0
		for k := range f.acked {
			if k.c == c {
				acked++
			}
		}
		if s.SolvesCount != solves || solves < acked || solves > acked+v.landed[c] {
			rep.add("solvesCount", "%s: %s: solvesCount %d; profiles show %d solvers, %d acknowledged, %d cut off that landed",
				r, c.Slug, s.SolvesCount, solves, acked, v.landed[c])
		}
		lo := int64(f.wrong400[c] + solves)
		hi := lo + int64(f.unknownWrong[c])
		if s.AttemptsCount < lo || s.AttemptsCount > hi {
			rep.add("attemptsCount", "%s: %s: attemptsCount %d, want %d..%d (%d wrong-flag 400s + %d solves, %d wrong submissions cut off)",
				r, c.Slug, s.AttemptsCount, lo, hi, f.wrong400[c], solves, f.unknownWrong[c])
		}
	}
}
