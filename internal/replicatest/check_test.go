package replicatest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
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
