package replicatest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// report collects violations by kind, showing the first few of each kind
// in full and how many there were, so one broken rule does not bury the
// others.
type report struct {
	t     *testing.T
	count map[string]int
	order []string
}

func newReport(t *testing.T) *report { return &report{t: t, count: map[string]int{}} }

func (r *report) add(kind, format string, args ...any) {
	r.t.Helper()
	if r.count[kind] == 0 {
		r.order = append(r.order, kind)
	}
	r.count[kind]++
	if r.count[kind] <= 6 {
		r.t.Errorf("[%s] "+format, append([]any{kind}, args...)...)
	}
}

func (r *report) flush(label string) {
	r.t.Helper()
	if len(r.order) == 0 {
		r.t.Logf("%s: every invariant holds", label)
		return
	}
	var b strings.Builder
	for _, k := range r.order {
		fmt.Fprintf(&b, "\n  %-30s %d", k, r.count[k])
	}
	r.t.Errorf("%s: violations by kind:%s", label, b.String())
}

type pc struct {
	p *player
	c *challenge
}

// facts are what the workload's responses say happened.
type facts struct {
	acked        map[pc][]*submission // 200s
	unknownRight map[pc]bool          // right flags whose replica died under them
	conflicts    map[pc]int           // 409s
	wrong400     map[*challenge]int
	unknownWrong map[*challenge]int
	announcedFB  []*submission // 200s whose newBadges hold first-blood
}

func gather(led *ledger) *facts {
	led.mu.Lock()
	defer led.mu.Unlock()
	f := &facts{acked: map[pc][]*submission{}, unknownRight: map[pc]bool{}, conflicts: map[pc]int{},
		wrong400: map[*challenge]int{}, unknownWrong: map[*challenge]int{}}
	for _, s := range led.subs {
		k := pc{s.Player, s.Chal}
		switch {
		case s.Status == 200:
			f.acked[k] = append(f.acked[k], s)
			if slices.Contains(s.Badges, "first-blood") {
				f.announcedFB = append(f.announcedFB, s)
			}
		case s.Status == 409:
			f.conflicts[k]++
		case s.Status == 400 && !s.Right:
			f.wrong400[s.Chal]++
		case s.Status == 0 && s.Right:
			f.unknownRight[k] = true
		case s.Status == 0:
			f.unknownWrong[s.Chal]++
		}
	}
	return f
}

// view is one replica's answers, parsed.
type view struct {
	name     string
	solved   map[*player]map[*challenge]string // solvedAt, from the public profiles
	byChal   map[*challenge][]solveAt
	profiles map[*player]*profileView
	landed   map[*challenge]int // cut-off right flags that landed as solves
}

type solveAt struct {
	p  *player
	at string
}

// verifyAll checks, as subtests of t: that the replicas serve identical
// bodies; the state invariants on each; first blood on each.
func verifyAll(t *testing.T, obs []*observation, ev *testEvent, f *facts, racers map[string][]*player) {
	t.Run("identical", func(t *testing.T) { checkIdentical(t, obs, ev) })
	views := make([]*view, len(obs))
	t.Run("state", func(t *testing.T) {
		rep := newReport(t)
		landed := 0
		for i, o := range obs {
			views[i] = parseView(rep, o, ev)
			checkState(rep, views[i], o, ev, f)
			landed = 0
			for _, n := range views[i].landed {
				landed += n
			}
		}
		wrong := 0
		for _, n := range f.unknownWrong {
			wrong += n
		}
		t.Logf("cut off by the kill: %d right flags (%d of them landed as solves), %d wrong flags", len(f.unknownRight), landed, wrong)
		rep.flush("solves, leaderboard, counts and ranks on every replica")
	})
	t.Run("first_blood", func(t *testing.T) {
		rep := newReport(t)
		for _, v := range views {
			checkFirstBlood(rep, v, ev, f, racers)
		}
		rep.flush("first bloods and announced badges on every replica")
	})
}

func checkIdentical(t *testing.T, obs []*observation, ev *testEvent) {
	rep := newReport(t)
	o0 := obs[0]
	for _, o := range obs[1:] {
		name := fmt.Sprintf("%s vs %s", o0.Proc, o.Proc)
		if !bytes.Equal(o0.Board, o.Board) {
			rep.add("leaderboard differs", "%s: %s", name, firstDiff(o0.Board, o.Board))
		}
		if !bytes.Equal(o0.List, o.List) {
			rep.add("challenge list differs", "%s: %s", name, firstDiff(o0.List, o.List))
		}
		for _, c := range ev.Challenges {
			if !bytes.Equal(o0.Details[c.Slug], o.Details[c.Slug]) {
				rep.add("challenge detail differs", "%s %s: %s", name, c.Slug, firstDiff(o0.Details[c.Slug], o.Details[c.Slug]))
			}
		}
		for _, p := range ev.Players {
			if !bytes.Equal(o0.Profiles[p.ID], o.Profiles[p.ID]) {
				rep.add("profile differs", "%s %s: %s", name, p.Username, firstDiff(o0.Profiles[p.ID], o.Profiles[p.ID]))
			}
			if a, b := meWithoutKeys(o0.Me[p.ID]), meWithoutKeys(o.Me[p.ID]); !bytes.Equal(a, b) {
				rep.add("/me differs", "%s %s: %s", name, p.Username, firstDiff(a, b))
			}
		}
	}
	rep.flush(fmt.Sprintf("leaderboard, challenge list and details, %d profiles and /me on %d replicas", len(ev.Players), len(obs)))
}

// parseView reads the profiles and /me bodies of one replica, checking
// that they agree.
func parseView(rep *report, o *observation, ev *testEvent) *view {
	v := &view{name: o.Proc.String(), solved: map[*player]map[*challenge]string{}, byChal: map[*challenge][]solveAt{},
		profiles: map[*player]*profileView{}, landed: map[*challenge]int{}}
	r := v.name
	for _, p := range ev.Players {
		var pv, me profileView
		v.solved[p] = map[*challenge]string{}
		if err := json.Unmarshal(o.Profiles[p.ID], &pv); err != nil || pv.Profile == nil {
			rep.add("bad profile", "%s: profile of %s: %v %s", r, p.Username, err, clip(o.Profiles[p.ID], 200))
			continue
		}
		v.profiles[p] = &pv
		for _, s := range pv.Profile.SolvedChallenges {
			c := ev.bySlug[s.Challenge.Slug]
			if c == nil {
				rep.add("unknown challenge", "%s: %s's profile lists %q", r, p.Username, s.Challenge.Slug)
				continue
			}
			if _, dup := v.solved[p][c]; dup {
				rep.add("solve listed twice", "%s: %s's profile lists %s twice", r, p.Username, c.Slug)
				continue
			}
			v.solved[p][c] = s.SolvedAt
			v.byChal[c] = append(v.byChal[c], solveAt{p, s.SolvedAt})
		}
		// /me says the same as the public profile.
		if err := json.Unmarshal(o.Me[p.ID], &me); err != nil || me.Profile == nil {
			rep.add("bad /me", "%s: /me of %s: %v", r, p.Username, err)
			continue
		}
		mine := map[string]int{}
		for _, s := range me.Profile.SolvedChallenges {
			mine[s.Challenge.Slug+"@"+s.SolvedAt]++
		}
		for c, at := range v.solved[p] {
			if mine[c.Slug+"@"+at] != 1 {
				rep.add("/me disagrees", "%s: %s's /me lists %s at %s %d times, the profile once", r, p.Username, c.Slug, at, mine[c.Slug+"@"+at])
			}
		}
		if len(me.Profile.SolvedChallenges) != len(v.solved[p]) || me.Profile.TotalPoints != pv.Profile.TotalPoints ||
			me.Profile.Rank != pv.Profile.Rank || me.Profile.FirstBloodCount != pv.Profile.FirstBloodCount {
			rep.add("/me disagrees", "%s: %s: /me has %d solves, %d points, rank %d, %d first bloods; profile %d, %d, %d, %d", r, p.Username,
				len(me.Profile.SolvedChallenges), me.Profile.TotalPoints, me.Profile.Rank, me.Profile.FirstBloodCount,
				len(v.solved[p]), pv.Profile.TotalPoints, pv.Profile.Rank, pv.Profile.FirstBloodCount)
		}
	}
	return v
}

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

// checkFirstBlood checks first bloods and top 3 on one replica, and that
// the badges the 200s announced are those the platform keeps.
func checkFirstBlood(rep *report, v *view, ev *testEvent, f *facts, racers map[string][]*player) {
	r := v.name
	// First blood: one per solved challenge, held by its earliest solver.
	// A tie on the millisecond leaves the holder to the database's order,
	// which the API does not show: either may hold it.
	earliest := map[*challenge][]*player{}
	for c, ss := range v.byChal {
		first := ss[0].at
		for _, s := range ss {
			first = min(first, s.at)
		}
		for _, s := range ss {
			if s.at == first {
				earliest[c] = append(earliest[c], s.p)
			}
		}
	}
	definite, possible := map[*player]int{}, map[*player]int{}
	for _, ps := range earliest {
		for _, p := range ps {
			possible[p]++
			if len(ps) == 1 {
				definite[p]++
			}
		}
	}
	sumFB, sumTop3, wantTop3 := 0, 0, 0
	for _, p := range ev.Players {
		pv := v.profiles[p]
		if pv == nil {
			continue
		}
		n := pv.Profile.FirstBloodCount
		sumFB += n
		sumTop3 += pv.Profile.Top3Count
		if n < definite[p] || n > possible[p] {
			rep.add("firstBloodCount", "%s: %s: firstBloodCount %d, but is the earliest solver of %d challenges (%d more on a tie)",
				r, p.Username, n, definite[p], possible[p]-definite[p])
		}
	}
	for _, ss := range v.byChal {
		wantTop3 += min(3, len(ss))
	}
	if sumFB != len(v.byChal) {
		rep.add("first blood count", "%s: first bloods sum to %d over the profiles, %d challenges are solved", r, sumFB, len(v.byChal))
	}
	if sumTop3 != wantTop3 {
		rep.add("top3 count", "%s: top3Count sums to %d, want %d", r, sumTop3, wantTop3)
	}

	// A first blood announced in newBadges is the one the platform keeps.
	for _, s := range f.announcedFB {
		holder := earliest[s.Chal]
		if len(holder) == 0 || slices.Contains(holder, s.Player) {
			continue
		}
		when := "while the holder's request was in flight"
		for _, h := range f.acked[pc{holder[0], s.Chal}] {
			if s.Sent.After(h.Answered) {
				when = fmt.Sprintf("sent %v after the holder's 200", s.Sent.Sub(h.Answered).Round(time.Millisecond))
			}
		}
		rep.add("first blood announced wrongly", "%s: %s's 200 for %s on %s announced first blood, but %s solved it first (%s vs %s; %s)",
			r, s.Player.Username, s.Chal.Slug, s.Proc, usernames(holder), v.solved[holder[0]][s.Chal], v.solved[s.Player][s.Chal], when)
	}
	// And the other way: a player's first first blood, when its solve was
	// acknowledged, was announced with it.
	for _, p := range ev.Players {
		var first *challenge
		tied := false // two of its first bloods on one millisecond
		for c, ps := range earliest {
			if !slices.Contains(ps, p) {
				continue
			}
			switch {
			case first == nil || v.solved[p][c] < v.solved[p][first]:
				first, tied = c, false
			case v.solved[p][c] == v.solved[p][first]:
				tied = true
			}
		}
		if first == nil || tied || len(earliest[first]) != 1 {
			continue // none, or a tie the API cannot settle
		}
		for _, s := range f.acked[pc{p, first}] {
			if !slices.Contains(s.Badges, "first-blood") {
				rep.add("first blood not announced", "%s: %s holds the first blood of %s (its first), but its 200 on %s announced %v",
					r, p.Username, first.Slug, s.Proc, s.Badges)
			}
		}
	}
	// Every badge a 200 announced is one the player holds.
	for k, subs := range f.acked {
		pv := v.profiles[k.p]
		if pv == nil {
			continue
		}
		held := map[string]bool{}
		for _, b := range pv.Profile.Badges {
			held[b.BadgeID] = true
		}
		for _, s := range subs {
			for _, b := range s.Badges {
				if !held[b] {
					rep.add("announced badge not held", "%s: %s's 200 for %s on %s announced %q, which the profile lacks", r, k.p.Username, k.c.Slug, s.Proc, b)
				}
			}
		}
	}
	// Races: exactly one racer holds the race's first blood (racers solve
	// nothing else, so their firstBloodCount says who), and exactly that
	// racer's 200 announced it.
	for slug, rs := range racers {
		c := ev.bySlug[slug]
		var holders, announced []string
		for _, p := range rs {
			if v.profiles[p] != nil && v.profiles[p].Profile.FirstBloodCount > 0 {
				holders = append(holders, p.Username)
			}
			for _, s := range f.acked[pc{p, c}] {
				if slices.Contains(s.Badges, "first-blood") {
					announced = append(announced, p.Username)
				}
			}
		}
		if len(holders) != 1 || len(announced) != 1 || announced[0] != holders[0] {
			rep.add("race first blood", "%s: %s: first blood held by %v, announced to %v (want one and the same)", r, slug, holders, announced)
		}
	}
}
