package live

import (
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// Preview is a challenge as players will see it, for an admin who prepares
// it: hidden and pending challenges included, with why players do not see
// it yet.
type Preview struct {
	Detail ChallengeDetail
	// Hidden: players never see it until an admin shows it; Pending: it
	// opens with the event or at ReleaseAt.
	Hidden, Pending bool
	ReleaseAt       *time.Time
	// Solves counts every solve of it, admins', practice and frozen ones
	// included: what deleting it removes.
	Solves int
	// Hints are its hints as an admin previewing sees them: every content
	// shown, none unlocked (players cannot reach a hidden challenge's).
	Hints []HintView
}

// Preview returns the challenge of slug as players will see it, for admins
// only: unlike Challenge (what every door answers), a hidden challenge is
// found too, so the public API still knows nothing of it.
func (st *State) Preview(slug string, v ctf.Viewer) (Preview, error) {
	if !v.IsAdmin() {
		return Preview{}, ctf.ErrNoChallenge // a player learns nothing of it
	}
	st.mu.RLock()
	defer st.mu.RUnlock()
	c := st.bySlug[slug]
	if c == nil {
		return Preview{}, ctf.ErrNoChallenge
	}
	p := Preview{Detail: st.detail(c, v), Hidden: c.Hidden, Pending: c.pending, ReleaseAt: c.ReleaseAt,
		Solves: len(c.solves)}
	for _, h := range c.Hints {
		p.Hints = append(p.Hints, hintView(h, false, true))
	}
	return p, nil
}

// Solver is one player's solve of a challenge, as its page lists it.
type Solver struct {
	UserID, Username, Name string
	Agent                  bool
	At                     time.Time
}

// Solvers lists who solved the challenge of slug and when, first solve
// first, as v may see them: players' solves of a challenge v may see, not
// practice solves (they count for nothing), and a solve a freeze holds
// back only for those who see it elsewhere (seesHeld: its solver, the
// agent's owner, admins).
func (st *State) Solvers(slug string, v ctf.Viewer) ([]Solver, error) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	c := st.openBySlug(slug, v)
	if c == nil {
		return nil, ctf.ErrNoChallenge
	}
	hold := st.hold()
	out := []Solver{}
	// c.solves, not c.playerSolves: the latter leaves out what a freeze
	// holds, which some viewers see.
	for _, x := range c.solves {
		if x.Practice || !x.user.player {
			continue
		}
		if hold.holds(x.At) && !seesHeld(v, &x.user.User) {
			continue
		}
		out = append(out, Solver{UserID: x.user.ID, Username: x.user.Username, Name: x.user.Name, Agent: x.user.IsAgent(), At: x.At})
	}
	return out, nil
}

// DeleteChallenge drops a deleted challenge and everything of it.
func (tx *Tx) DeleteChallenge(id string) { tx.st.deleteChallenge(id, tx.dirty) }

// deleteChallenge drops the challenge of id as the database's cascades
// dropped its rows: its solves leave their users' histories and points
// (the leaderboard moves), its attempts, reviews and writeups go, the
// list loses it, an announcement about it is about nothing. A challenge
// that required it is no longer locked by it (unlocked skips the unknown).
func (st *State) deleteChallenge(id string, dirty dirtySet) {
	c := st.chals[id]
	if c == nil {
		return
	}
	st.noteBadges(c, nil)
	for _, x := range c.solves {
		st.detach(x)
		delete(x.user.solved, id)
	}
	c.solves, c.playerSolves = nil, nil
	for _, u := range st.users {
		delete(u.wrong, id)
		delete(u.base, id)
	}
	for _, w := range c.writeups {
		delete(st.writeups, w.ID)
	}
	for i := range st.announcements {
		if st.announcements[i].ChallengeID == id {
			st.announcements[i].ChallengeID = ""
		}
	}
	delete(st.chals, id)
	if st.bySlug[c.Slug] == c {
		delete(st.bySlug, c.Slug)
	}
	delete(dirty, c)
	st.sortVisible()
	st.rearm()
	st.moveBoard()
	st.listVer++
}
