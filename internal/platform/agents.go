package platform

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// NewAgent is an agent account to create (docs/product.md#agents).
type NewAgent struct {
	// Owner is the user id of the person who runs it: "" for the caller.
	// Only admins and the operator make agents for others.
	Owner    string
	Username string
	Name     string // display name, optional
	Model    string // the model that plays, e.g. claude-sonnet-4-5
	Harness  string // what drives it, e.g. a ReAct loop; optional
}

var errAgentsOwnNothing = ctf.Errorf(ctf.Forbidden, "an agent cannot create agents; its owner does")

// Create creates an agent account owned by a person. An agent has no
// password and no email: it plays only under the keys its owner mints for
// it (CreateAPIKey with Owner set to the agent), on the same board as
// people. A person runs at most ctf.MaxAgentsPerOwner agents.
func (s *Agents) Create(ctx context.Context, v Viewer, in NewAgent) (ctf.User, error) {
	if v.User == nil && !v.Operator {
		return ctf.User{}, errAuthRequired
	}
	var audit *ctf.AuditEntry
	owner := in.Owner
	if owner == "" || (v.User != nil && owner == v.User.ID) {
		if v.User == nil {
			return ctf.User{}, ctf.FieldErrorf("owner", "is required")
		}
		owner = v.User.ID
	} else {
		if !v.admin() {
			return ctf.User{}, errNotAdmin
		}
		audit = s.audit(v, "agent.create", in.Username, map[string]any{"owner": owner})
	}
	in.Username, in.Name = strings.TrimSpace(in.Username), strings.TrimSpace(in.Name)
	in.Model, in.Harness = strings.TrimSpace(in.Model), strings.TrimSpace(in.Harness)
	for _, err := range []error{ctf.ValidateUsername(in.Username), ctf.ValidateDisplayName(in.Name),
		ctf.ValidateAgent(in.Model, in.Harness, ctf.RolePlayer)} {
		if err != nil {
			return ctf.User{}, err
		}
	}
	st := s.state()
	st.mu.RLock()
	o := st.users[owner]
	var agents int
	for _, u := range st.users {
		if u.OwnerID == owner {
			agents++
		}
	}
	st.mu.RUnlock()
	switch {
	case o == nil:
		return ctf.User{}, ctf.Errorf(ctf.NotFound, "no such user")
	case o.IsAgent():
		return ctf.User{}, errAgentsOwnNothing
	case o.Banned:
		return ctf.User{}, ctf.Errorf(ctf.Forbidden, "a banned account cannot create agents")
	case agents >= ctf.MaxAgentsPerOwner:
		return ctf.User{}, ctf.Errorf(ctf.Conflict, "you already run %d agents, the most one person may", ctf.MaxAgentsPerOwner)
	case s.accounts.takenName(in.Username, ""):
		return ctf.User{}, ctf.Errorf(ctf.Conflict, "that username is already taken")
	}
	u := ctf.User{ID: ctf.NewID(), Username: in.Username, Name: in.Name, Role: ctf.RolePlayer, CreatedAt: ctf.Millis(s.now()),
		Kind: ctf.KindAgent, OwnerID: owner, Model: in.Model, Harness: in.Harness}
	return s.accounts.insertUser(ctx, u, audit)
}

// AgentView is an agent as its owner's settings list it.
type AgentView struct {
	ctf.User
	Keys []APIKeyView // oldest first, revoked ones included
}

// List lists the agents a person owns (owner "" for the caller), oldest
// first. Only the owner, admins and the operator may list them.
func (s *Agents) List(ctx context.Context, v Viewer, owner string) ([]AgentView, error) {
	if owner == "" {
		if v.User == nil {
			return nil, errAuthRequired
		}
		owner = v.User.ID
	} else if owner != v.ID() && !v.admin() {
		return nil, errNotAdmin
	}
	st := s.state()
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
	return out, nil
}

// All lists every agent account, oldest first: the operator's export.
func (s *Agents) All(ctx context.Context, v Viewer) ([]ctf.User, error) {
	if !v.admin() {
		return nil, errNotAdmin
	}
	st := s.state()
	st.mu.RLock()
	var out []ctf.User
	for _, u := range st.users {
		if u.IsAgent() {
			out = append(out, u.User)
		}
	}
	st.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return createdBefore(&out[i], &out[j]) })
	return out, nil
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
func (st *state) firstHumanSolve(c *chal) (time.Time, bool) {
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

// Run returns the run of the agent called username as v sees it. It
// reads the agent's submissions from the database (a page few people open,
// not a hot read); hidden challenges are left out, as from every public
// read. During a freeze, a viewer who does not see what it holds back
// (seesHeld: not the agent, its owner or an admin) gets the run as it stood
// at the freeze: a held solve is no solve there, and the attempts since
// are left out too, since when an agent stops trying tells what it solved.
func (s *Agents) Run(ctx context.Context, v Viewer, username string) (Run, error) {
	st := s.state()
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
		rc := RunChallenge{Slug: c.Slug, Title: c.Title, Points: c.Points, ReleasedAt: c.CreatedAt}
		if t, ok := st.firstHumanSolve(c); ok {
			rc.FirstHumanSolveAt = &t
			d := t.Sub(c.CreatedAt)
			rc.HumanTimeToSolve = &d
		}
		index[c.ID] = len(run.Challenges)
		run.Challenges = append(run.Challenges, rc)
	}
	st.mu.RUnlock()
	history, err := s.db.Submissions(ctx, u.ID)
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
