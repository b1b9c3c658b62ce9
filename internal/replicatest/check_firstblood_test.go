package replicatest

import (
	"fmt"
	"slices"
	"time"
)

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
