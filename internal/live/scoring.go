package live

import (
	"slices"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// Dynamic values and hint costs (docs/product.md#scoring). A solve adds
// its worth to its user's points: the challenge's value less the hints the
// user was charged for on it. A dynamic challenge's value moves with its
// counted player solves, so a solve can change the worth of every earlier
// solve of the challenge: revalue walks that challenge's solves only, and
// moves only the entries whose worth changed (their versions move, so the
// leaderboard's order is mended and only their bytes are built again).

// cost is what u was charged for hints on c: the current costs of the
// hints u unlocked before solving it (an organiser's correction applies
// to everyone).
func (c *chal) cost(u *user) int {
	n := 0
	for _, h := range u.unlocks[c.ID] {
		if !h.Charged {
			continue
		}
		if hint, ok := c.HintByID(h.HintID); ok {
			n += hint.Cost
		}
	}
	return n
}

// worthOf is what x is worth to its user at its challenge's public value.
func (st *State) worthOf(x *solve) int { return ctf.Worth(x.chal.value, x.chal.cost(x.user)) }

// ownWorth is what x is worth as its solver sees it: for a solve the
// public does not see yet (held by a freeze), the value with the public's
// solvers and this one.
func (st *State) ownWorth(x *solve) int {
	if x.attached {
		return x.worth
	}
	c := x.chal
	n := len(c.playerSolves)
	if x.user.player && !x.Practice {
		n++
	}
	return ctf.Worth(c.Value(n), c.cost(x.user))
}

// revalue brings c's value up to date with its counted player solves and,
// when it moved (or all is set: its points, scoring or hints changed, or
// its solves were counted again), the worth of each of its attached solves.
func (st *State) revalue(c *chal, all bool) {
	if st.building {
		return
	}
	v := c.Value(len(c.playerSolves))
	if v == c.value && !all {
		return
	}
	if v != c.value {
		c.value = v
		st.changedChal(c)
		st.listVer++
	}
	moved := false
	for _, x := range c.solves {
		if x.attached && st.rework(x) {
			moved = true
		}
	}
	if moved {
		st.moveBoard()
	}
}

// rework sets x's worth anew, moving its user's points by the difference;
// it reports whether the worth changed.
func (st *State) rework(x *solve) bool {
	w := st.worthOf(x)
	if w == x.worth {
		return false
	}
	u := x.user
	u.points += w - x.worth
	x.worth = w
	u.ver = st.bump()
	return true
}

// putHintUnlocks applies unlocks of hints: rows read from the database,
// a use case's own, or the hints a solve's transaction found charged. Each
// is merged into its user's unlocks (by hint: unlocks are only ever added,
// and a row replaces what a solve noted), and the user's solve of the
// challenge is worth anew.
func (st *State) putHintUnlocks(list []ctf.HintUnlock) {
	for _, h := range list {
		u, c := st.users[h.UserID], st.chals[h.ChallengeID]
		if u == nil || c == nil {
			continue
		}
		if u.unlocks == nil {
			u.unlocks = map[string][]ctf.HintUnlock{}
		}
		have := u.unlocks[c.ID]
		i := slices.IndexFunc(have, func(x ctf.HintUnlock) bool { return x.HintID == h.HintID })
		if i >= 0 {
			have[i] = h
		} else {
			u.unlocks[c.ID] = append(have, h)
		}
		if x := u.solved[c.ID]; x != nil && x.attached && st.rework(x) {
			st.moveBoard()
		}
	}
}

// noteCharged makes sure u's unlocks on c hold the hints ids, charged: the
// hints a solve's transaction found unlocked before it, which this state
// may not have read yet (an unlock on another replica; its row follows).
func (st *State) noteCharged(u *user, c *chal, ids []int) {
	var add []ctf.HintUnlock
	for _, id := range ids {
		if !slices.ContainsFunc(u.unlocks[c.ID], func(x ctf.HintUnlock) bool { return x.HintID == id }) {
			add = append(add, ctf.HintUnlock{UserID: u.ID, ChallengeID: c.ID, HintID: id, Charged: true})
		}
	}
	st.putHintUnlocks(add)
}

// unlocked returns u's unlock of c's hint id.
func (c *chal) unlock(u *user, id int) (ctf.HintUnlock, bool) {
	if u == nil {
		return ctf.HintUnlock{}, false
	}
	for _, h := range u.unlocks[c.ID] {
		if h.HintID == id {
			return h, true
		}
	}
	return ctf.HintUnlock{}, false
}

// forgetRemovedHints drops the unlocks of hints c no longer has, as the
// database does when the challenge is saved (a hint given a removed one's
// id later starts locked for everyone). The caller works out the worths
// again.
func (st *State) forgetRemovedHints(c *chal) {
	for _, u := range st.users {
		list, ok := u.unlocks[c.ID]
		if !ok {
			continue
		}
		kept := slices.DeleteFunc(slices.Clone(list), func(h ctf.HintUnlock) bool {
			_, has := c.HintByID(h.HintID)
			return !has
		})
		if len(kept) == 0 {
			delete(u.unlocks, c.ID)
		} else {
			u.unlocks[c.ID] = kept
		}
	}
}
