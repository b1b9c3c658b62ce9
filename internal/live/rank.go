package live

import (
	"sort"
	"sync"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// rankCache holds the leaderboard order at one solve version.
type rankCache struct {
	mu      sync.Mutex
	version uint64
	valid   bool
	// seen is the newest entry version when the order was made: a user
	// whose entry's version is past it may stand elsewhere now.
	seen  uint64
	order []*user
	rank  map[string]int
}

// rankingLocked returns the players in leaderboard order and their ranks;
// the caller holds s.mu for reading.
//
// A solve changes one player's standing, so the order is mended rather
// than sorted again (sorting ten thousand players took most of a solve's
// cost to the board): the players whose entries did not change keep their
// order, and those that did are sorted among themselves and merged in.
func (s *State) rankingLocked() ([]*user, map[string]int) {
	rc := &s.ranking
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.valid && rc.version == s.solveVer {
		return rc.order, rc.rank
	}
	if rc.valid {
		s.mendRanking(rc)
	} else {
		order := make([]*user, 0, len(s.users))
		for _, u := range s.users {
			if u.ranked() {
				order = append(order, u)
			}
		}
		sort.Slice(order, func(i, j int) bool { return ranksBefore(order[i], order[j]) })
		rc.rank = make(map[string]int, len(order))
		for i, u := range order {
			rc.rank[u.ID] = i + 1
		}
		rc.order, rc.valid = order, true
	}
	rc.version, rc.seen = s.solveVer, s.lastVer
	return rc.order, rc.rank
}

// mendRanking brings rc's order and ranks up to date: every change of a
// standing (a solve counted or not, points, a username, a ban) gives its
// user's entry a new version (bump). The ranks are rewritten only where
// the order changed. No caller holds the old order or ranks: they are
// used under the state's read lock, and they change only after a write.
func (s *State) mendRanking(rc *rankCache) {
	// The moved players' standings are worked out once: a dynamic
	// challenge's solve moves all its solvers, thousands to sort.
	type standing struct {
		u  *user
		st ctf.Standing
	}
	var byStanding []standing
	for _, u := range s.users {
		if u.ver > rc.seen && u.ranked() {
			byStanding = append(byStanding, standing{u, u.standing()})
		}
	}
	sort.Slice(byStanding, func(i, j int) bool { return ctf.RanksBefore(byStanding[i].st, byStanding[j].st) })
	moved := make([]*user, len(byStanding))
	for i, x := range byStanding {
		moved[i] = x.u
	}
	kept := make([]*user, 0, len(rc.order))
	for _, u := range rc.order {
		switch {
		case !u.ranked():
			delete(rc.rank, u.ID)
		case u.ver <= rc.seen:
			kept = append(kept, u)
		}
	}
	order := make([]*user, 0, len(kept)+len(moved))
	for j, m := range moved {
		st := byStanding[j].st
		i := sort.Search(len(kept), func(i int) bool { return ctf.RanksBefore(st, kept[i].standing()) })
		order = append(append(order, kept[:i]...), m)
		kept = kept[i:]
	}
	order = append(order, kept...)
	for i, u := range order {
		if i >= len(rc.order) || rc.order[i] != u { // else its rank is i+1 already
			rc.rank[u.ID] = i + 1
		}
	}
	rc.order = order
}

// ranked reports whether u is on the leaderboard.
func (u *user) ranked() bool { return u.player && len(u.solves) > 0 }

func ranksBefore(a, b *user) bool { return ctf.RanksBefore(a.standing(), b.standing()) }

func (u *user) lastSolvedAt() (t ctf.Solve, ok bool) {
	if len(u.solves) == 0 {
		return t, false
	}
	return u.solves[len(u.solves)-1].Solve, true
}

func (u *user) standing() ctf.Standing {
	st := ctf.Standing{Username: u.Username, TotalPoints: u.points}
	if last, ok := u.lastSolvedAt(); ok {
		st.LastSolvedAt = last.At
	}
	return st
}
