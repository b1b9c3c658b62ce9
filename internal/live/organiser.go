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
	return Preview{Detail: st.detail(c, v), Hidden: c.Hidden, Pending: c.pending, ReleaseAt: c.ReleaseAt}, nil
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
