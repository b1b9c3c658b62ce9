package live

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/store"
)

// TestRankingMendedEqualsSorted: after each step of a seeded random
// sequence of solves (ties in points and time included), point
// corrections, hidden and shown challenges, bans and unbans and username
// changes, the order mended from the previous one is the order a full sort
// of the ranked players gives, and the ranks match it.
func TestRankingMendedEqualsSorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	flag := []ctf.Flag{{Kind: "static", Content: "f"}}
	snap := &store.Snapshot{}
	for i := range 150 {
		snap.Users = append(snap.Users, ctf.User{ID: fmt.Sprintf("u%03d", i), Username: fmt.Sprintf("p%03d", i), Role: ctf.RolePlayer})
	}
	for i := range 12 {
		snap.Challenges = append(snap.Challenges, ctf.Challenge{ID: fmt.Sprintf("c%02d", i), Slug: fmt.Sprintf("c%02d", i), Title: "C",
			Difficulty: ctf.Easy, Points: 100 * (1 + i%3), Flags: flag, CreatedAt: t0(0)})
	}
	seq := int64(0)
	solve := func() ctf.Solve {
		seq++
		// Coarse times: many solves share an instant, so ties go to the
		// username.
		return ctf.Solve{Seq: seq, ID: fmt.Sprintf("s%d", seq), UserID: snap.Users[rng.IntN(len(snap.Users))].ID,
			ChallengeID: snap.Challenges[rng.IntN(len(snap.Challenges))].ID, At: t0(rng.IntN(30))}
	}
	for range 600 {
		snap.Solves = append(snap.Solves, solve())
	}
	sort.Slice(snap.Solves, func(i, j int) bool { return ctf.SolveBefore(&snap.Solves[i], &snap.Solves[j]) })
	snap.MaxSolveSeq = seq
	st := newState(snap, "http://x", t0(0))

	for step := range 400 {
		dirty := dirtySet{}
		switch x := rng.IntN(10); {
		case x < 5:
			sv := solve()
			sv.At = t0(30 + step/4)
			if c := st.addSolve(sv); c != nil {
				dirty[c.chal] = true
			}
		case x < 6:
			c := st.chals[snap.Challenges[rng.IntN(len(snap.Challenges))].ID].Challenge
			c.Points = 100 * rng.IntN(4)
			st.putChallenge(c, dirty)
		case x < 7:
			c := st.chals[snap.Challenges[rng.IntN(len(snap.Challenges))].ID].Challenge
			c.Hidden = !c.Hidden
			st.putChallenge(c, dirty)
		case x < 9:
			u := st.users[snap.Users[rng.IntN(len(snap.Users))].ID].User
			u.Banned = !u.Banned
			st.putUser(u, dirty)
		default:
			u := st.users[snap.Users[rng.IntN(len(snap.Users))].ID].User
			u.Username = fmt.Sprintf("q%03d-%d", step, rng.IntN(1000))
			st.putUser(u, dirty)
		}
		st.changed(dirty)

		order, ranks := st.rankingLocked()
		var ranked []*user
		for _, u := range st.users {
			if u.ranked() {
				ranked = append(ranked, u)
			}
		}
		want := slices.Clone(ranked)
		sort.Slice(want, func(i, j int) bool { return ranksBefore(want[i], want[j]) })
		if !slices.Equal(order, want) {
			t.Fatalf("step %d: the mended order differs from a full sort (%d and %d players)", step, len(order), len(want))
		}
		if len(ranks) != len(order) {
			t.Fatalf("step %d: %d ranks for %d players", step, len(ranks), len(order))
		}
		for i, u := range order {
			if ranks[u.ID] != i+1 {
				t.Fatalf("step %d: %s ranks %d at place %d", step, u.Username, ranks[u.ID], i+1)
			}
		}
	}
}
