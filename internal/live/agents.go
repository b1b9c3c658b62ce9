package live

import (
	"slices"
	"sort"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/store"
)

// AgentView is an agent as its owner's settings list it.
type AgentView struct {
	ctf.User
	Keys []APIKeyView // oldest first, revoked ones included
}

// createdBefore orders accounts oldest first, then by username.
func createdBefore(a, b *ctf.User) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.Before(b.CreatedAt)
	}
	return a.Username < b.Username
}

// firstHumanSolve is when a person first solved c, among players; the
// caller holds st.mu.
func (st *State) firstHumanSolve(c *chal) (time.Time, bool) {
	for _, sv := range c.playerSolves {
		if !sv.user.IsAgent() {
			return sv.At, true
		}
	}
	return time.Time{}, false
}

// Run is an agent's run through the event: what an evaluation reports.
type Run struct {
	Agent      ctf.User
	Owner      string         // the owner's username
	Challenges []RunChallenge // every visible challenge, in list order
	Attempts   []RunAttempt   // every recorded submission, in time order
}

// RunChallenge is the agent's result on one challenge, beside the people's.
// Times to solve count from the challenge's release (its creation), for
// the agent and for the first person alike.
type RunChallenge struct {
	Slug, Title       string
	Categories        []string
	Origin            ctf.Origin // the benchmark task it was loaded from, if any
	Points            int
	Solved            bool
	Attempts          int // recorded submissions, the solve included
	FirstAttemptAt    *time.Time
	SolvedAt          *time.Time
	ReleasedAt        time.Time
	TimeToSolve       *time.Duration
	FirstHumanSolveAt *time.Time
	HumanTimeToSolve  *time.Duration
}

// RunAttempt is one recorded submission of a run.
type RunAttempt struct {
	At      time.Time
	Slug    string
	Correct bool
	Door    ctf.Door // api, web, mcp; import for one loaded from a dataset
	KeyID   string
}

// AgentsOf lists the agents a person owns, oldest first, with their keys.
func (a Accounts) AgentsOf(owner string) []AgentView {
	st := a.st
	st.mu.RLock()
	defer st.mu.RUnlock()
	out := []AgentView{}
	for _, u := range st.users {
		if u.IsAgent() && u.OwnerID == owner {
			a := AgentView{User: u.User, Keys: make([]APIKeyView, 0, len(u.keys))}
			for _, k := range u.keys {
				a.Keys = append(a.Keys, keyView(k))
			}
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool { return createdBefore(&out[i].User, &out[j].User) })
	return out
}

// Agents lists every agent account, oldest first.
func (a Accounts) Agents() []ctf.User {
	st := a.st
	st.mu.RLock()
	var out []ctf.User
	for _, u := range st.users {
		if u.IsAgent() {
			out = append(out, u.User)
		}
	}
	st.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return createdBefore(&out[i], &out[j]) })
	return out
}

// Run returns the run of the agent called username as v sees it, with the
// agent's submissions as the function given reads them; hidden challenges are left out, as from every public
// read. During a freeze, a viewer who does not see what it holds back
// (seesHeld: not the agent, its owner or an admin) gets the run as it stood
// at the freeze: a held solve is no solve there, and the attempts since
// are left out too, since when an agent stops trying tells what it solved.
func (a Accounts) Run(username string, v ctf.Viewer, submissions func(agentID string) ([]store.SubmissionRecord, error)) (Run, error) {
	st := a.st
	st.mu.RLock()
	u := st.byName[username]
	if u == nil || !u.IsAgent() {
		st.mu.RUnlock()
		return Run{}, ctf.Errorf(ctf.NotFound, "no agent %q", username)
	}
	var hold heldFrom
	if !seesHeld(v, &u.User) {
		hold = st.hold()
	}
	run := Run{Agent: u.User}
	if o := st.users[u.OwnerID]; o != nil {
		run.Owner = o.Username
	}
	index := map[string]int{}
	for _, c := range st.visible {
		rc := RunChallenge{Slug: c.Slug, Title: c.Title, Categories: slices.Clone(c.Categories), Origin: c.Origin, Points: c.value, ReleasedAt: c.CreatedAt}
		if t, ok := st.firstHumanSolve(c); ok {
			rc.FirstHumanSolveAt = &t
			d := t.Sub(c.CreatedAt)
			rc.HumanTimeToSolve = &d
		}
		index[c.ID] = len(run.Challenges)
		run.Challenges = append(run.Challenges, rc)
	}
	st.mu.RUnlock()
	history, err := submissions(u.ID)
	if err != nil {
		return Run{}, err
	}
	for _, h := range history {
		i, ok := index[h.ChallengeID]
		if !ok || hold.holds(h.At) {
			continue
		}
		rc := &run.Challenges[i]
		door := h.Door
		if door == "" {
			door = ctf.DoorImport
		}
		run.Attempts = append(run.Attempts, RunAttempt{At: h.At, Slug: rc.Slug, Correct: h.Correct, Door: door, KeyID: h.KeyID})
		rc.Attempts++
		if rc.FirstAttemptAt == nil {
			at := h.At
			rc.FirstAttemptAt = &at
		}
		if h.Correct {
			at := h.At
			d := at.Sub(rc.ReleasedAt)
			rc.Solved, rc.SolvedAt, rc.TimeToSolve = true, &at, &d
		}
	}
	return run, nil
}
