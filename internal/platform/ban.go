package platform

import (
	"github.com/flagshipctf/flagship/internal/ctf"
)

// A ban covers the person (docs/product.md#banning): a banned user has no session and
// mints no keys, and their agents are treated as banned too. An agent's ban
// is computed from its owner's row, never written to the agent's, so an
// unban restores the agents exactly, on every replica: each applies the
// owner's row from the change log and re-evaluates the agents (putUser).

// banned reports whether u is banned: by its own ban or, for an agent, by
// its owner's. The caller holds st.mu (or owns st).
func (st *state) banned(u *ctf.User) bool { return u.Banned || st.ownerBanned(u) }

// ownerBanned reports whether u is an agent whose owner is banned.
func (st *state) ownerBanned(u *ctf.User) bool {
	if !u.IsAgent() {
		return false
	}
	o := st.users[u.OwnerID]
	return o != nil && o.Banned
}

// isPlayer reports whether u's solves count in the public aggregates:
// neither an admin nor banned (their own ban or their owner's).
func (st *state) isPlayer(u *ctf.User) bool { return u.IsPlayer() && !st.ownerBanned(u) }

// agentsOf returns the agents owned by ownerID.
func (st *state) agentsOf(ownerID string) []*user {
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
func (s *core) withAgents(id string) []string {
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	ids := []string{id}
	for _, a := range st.agentsOf(id) {
		ids = append(ids, a.ID)
	}
	return ids
}

// userBanned reports whether the user id is banned (see banned); an unknown
// id is not.
func (s *core) userBanned(id string) bool {
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	u := st.users[id]
	return u != nil && st.banned(&u.User)
}

// errBannedLogin answers a banned user's log-in, given only once the
// password (and second factor) were right: a wrong password reads as any
// wrong password.
var errBannedLogin = ctf.Errorf(ctf.Forbidden, "your account is banned; ask the organisers if you think this is a mistake")

// loginRefusal refuses a session to a user whose credentials were right.
func (s *core) loginRefusal(u *ctf.User) error {
	if s.userBanned(u.ID) {
		return errBannedLogin
	}
	return nil
}

// keyRefusal refuses to mint a key for the user id when it is banned, or
// is an agent of a banned person, whoever asks (the user, its owner, an
// admin or the operator): unban first.
func (s *core) keyRefusal(v Viewer, id string) error {
	if !s.userBanned(id) {
		return nil
	}
	switch u, _ := s.userByID(id); {
	case v.ID() == id:
		return ctf.Errorf(ctf.Forbidden, "your account is banned: it mints no API keys")
	case u != nil && u.IsAgent() && v.ID() == u.OwnerID:
		return ctf.Errorf(ctf.Forbidden, "your account is banned: your agents get no API keys")
	case u != nil && u.IsAgent() && !u.Banned:
		return ctf.Errorf(ctf.Forbidden, "%s is an agent of a banned user: it gets no API keys until its owner is unbanned", u.Username)
	case u != nil:
		return ctf.Errorf(ctf.Forbidden, "%s is banned: it gets no API keys until it is unbanned", u.Username)
	}
	return ctf.Errorf(ctf.Forbidden, "the account is banned: it gets no API keys")
}
