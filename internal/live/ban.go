package live

import (
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// A ban covers the person (docs/product.md#banning): a banned user has no session and
// mints no keys, and their agents are treated as banned too. An agent's ban
// is computed from its owner's row, never written to the agent's, so an
// unban restores the agents exactly, on every replica: each applies the
// owner's row from the change log and re-evaluates the agents (putUser).

// banned reports whether u is banned: by its own ban or, for an agent, by
// its owner's. The caller holds st.mu (or owns st).
func (st *State) banned(u *ctf.User) bool { return u.Banned || st.ownerBanned(u) }

// ownerBanned reports whether u is an agent whose owner is banned.
func (st *State) ownerBanned(u *ctf.User) bool {
	if !u.IsAgent() {
		return false
	}
	o := st.users[u.OwnerID]
	return o != nil && o.Banned
}

// isPlayer reports whether u's solves count in the public aggregates:
// neither an admin nor banned (their own ban or their owner's).
func (st *State) isPlayer(u *ctf.User) bool { return u.IsPlayer() && !st.ownerBanned(u) }

// agentsOf returns the agents owned by ownerID.
func (st *State) agentsOf(ownerID string) []*user {
	var out []*user
	for _, u := range st.users {
		if u.IsAgent() && u.OwnerID == ownerID {
			out = append(out, u)
		}
	}
	return out
}

// withAgents returns id and the ids of the agents it owns: the users whose
// player status a change of id's ban or role may move.
func (st *State) withAgents(id string) []string {
	st.mu.RLock()
	defer st.mu.RUnlock()
	ids := []string{id}
	for _, a := range st.agentsOf(id) {
		ids = append(ids, a.ID)
	}
	return ids
}

// Banned reports whether the user id is banned (see banned); an unknown
// id is not.
func (a Accounts) Banned(id string) bool {
	st := a.st
	st.mu.RLock()
	defer st.mu.RUnlock()
	u := st.users[id]
	return u != nil && st.banned(&u.User)
}

// BanOfSession reports whether the session whose token hashes to hash is
// an active session of a banned user (by their own ban or, for an agent,
// their owner's): the user's id, and the ban's reason ("" when none was
// given). Such a session authenticates nobody (AuthenticateSession); its
// holder is told why.
func (a Accounts) BanOfSession(hash string, now time.Time) (userID, reason string, banned bool) {
	st := a.st
	st.mu.RLock()
	defer st.mu.RUnlock()
	_, u, _ := st.activeSession(hash, now)
	if u == nil || !st.banned(&u.User) {
		return "", "", false
	}
	return u.ID, st.banReason(&u.User), true
}

// BanReason returns the reason of the user id's ban ("" when none was
// given, or when not banned).
func (a Accounts) BanReason(id string) string {
	st := a.st
	st.mu.RLock()
	defer st.mu.RUnlock()
	u := st.users[id]
	if u == nil {
		return ""
	}
	return st.banReason(&u.User)
}

// banReason is the reason of u's ban: its own, or for an agent its
// owner's. The caller holds st.mu.
func (st *State) banReason(u *ctf.User) string {
	if u.Banned {
		return u.BanReason
	}
	if st.ownerBanned(u) {
		return st.users[u.OwnerID].BanReason
	}
	return ""
}
