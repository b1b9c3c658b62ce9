package platform

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
	order   []*user
	rank    map[string]int
}

// rankingLocked returns the players in leaderboard order and their ranks;
// the caller holds s.mu for reading.
func (s *state) rankingLocked() ([]*user, map[string]int) {
	rc := &s.ranking
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.valid && rc.version == s.solveVer {
		return rc.order, rc.rank
	}
	order := make([]*user, 0, len(s.users))
	for _, u := range s.users {
		if u.player && len(u.solves) > 0 {
			order = append(order, u)
		}
	}
	sort.Slice(order, func(i, j int) bool { return ctf.RanksBefore(order[i].standing(), order[j].standing()) })
	rank := make(map[string]int, len(order))
	for i, u := range order {
		rank[u.ID] = i + 1
	}
	rc.order, rc.rank, rc.version, rc.valid = order, rank, s.solveVer, true
	return order, rank
}

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
