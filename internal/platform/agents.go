package platform

import (
	"context"
	"strings"

	"github.com/flagshipctf/flagship/internal/arena"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/store"
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
func (s *Agents) Create(ctx context.Context, v ctf.Viewer, in NewAgent) (ctf.User, error) {
	if v.User == nil && !v.Operator {
		return ctf.User{}, ctf.ErrAuthRequired
	}
	var audit *ctf.AuditEntry
	owner := in.Owner
	if owner == "" || (v.User != nil && owner == v.User.ID) {
		if v.User == nil {
			return ctf.User{}, ctf.FieldErrorf("owner", "is required")
		}
		owner = v.User.ID
	} else {
		if !v.IsAdmin() {
			return ctf.User{}, ctf.ErrNotAdmin
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
	st := s.live.State()
	o, _ := st.Accounts().User(owner)
	agents := len(st.Accounts().AgentsOf(owner))
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

// List lists the agents a person owns (owner "" for the caller), oldest
// first. Only the owner, admins and the operator may list them.
func (s *Agents) List(ctx context.Context, v ctf.Viewer, owner string) ([]live.AgentView, error) {
	if owner == "" {
		if v.User == nil {
			return nil, ctf.ErrAuthRequired
		}
		owner = v.User.ID
	} else if owner != v.ID() && !v.IsAdmin() {
		return nil, ctf.ErrNotAdmin
	}
	return s.live.State().Accounts().AgentsOf(owner), nil
}

// All lists every agent account, oldest first: the operator's export.
func (s *Agents) All(ctx context.Context, v ctf.Viewer) ([]ctf.User, error) {
	if !v.IsAdmin() {
		return nil, ctf.ErrNotAdmin
	}
	return s.live.State().Accounts().Agents(), nil
}

// live.Run is live.State.Run, with the agent's submissions read from the
// database (a page few people open, not a hot read).
func (s *Agents) Run(ctx context.Context, v ctf.Viewer, username string) (live.Run, error) {
	return s.live.State().Accounts().Run(username, v, func(agentID string) ([]store.SubmissionRecord, error) {
		return s.db.Submissions(ctx, agentID)
	})
}

var errNotYourAgent = ctf.Errorf(ctf.Forbidden, "only the agent's owner and admins may download its run")

// MayExport reports whether v may download agent's run
// (docs/product.md#export-agents): its owner, an admin or the operator.
func (s *Agents) MayExport(v ctf.Viewer, agent ctf.User) bool {
	return agent.IsAgent() && (v.IsAdmin() || (v.User != nil && agent.OwnerID == v.User.ID))
}

// Export is the file called name (summary.json, attempts.jsonl, times.csv
// or cybench.zip) of the run of the agent called username, as its owner or
// an admin downloads it; the summary is dated today. m's comment and link
// go into the summary.
func (s *Agents) Export(ctx context.Context, v ctf.Viewer, username, name string, m arena.Meta) (arena.File, error) {
	if v.User == nil && !v.Operator {
		return arena.File{}, ctf.ErrAuthRequired
	}
	acc := s.live.State().Accounts()
	var agent *ctf.User
	if id, ok := acc.UserIDByName(username); ok {
		agent, _ = acc.User(id)
	}
	switch {
	case agent == nil || !agent.IsAgent():
		return arena.File{}, ctf.Errorf(ctf.NotFound, "no agent %q", username)
	case !s.MayExport(v, *agent):
		return arena.File{}, errNotYourAgent
	}
	if err := m.Validate(); err != nil {
		return arena.File{}, err
	}
	run, err := s.Run(ctx, v, username)
	if err != nil {
		return arena.File{}, err
	}
	m.Date = s.now()
	f, ok := arena.Download(run, name, m)
	if !ok {
		return arena.File{}, ctf.Errorf(ctf.NotFound, "no file %q: summary.json, attempts.jsonl, times.csv or cybench.zip", name)
	}
	return f, nil
}
