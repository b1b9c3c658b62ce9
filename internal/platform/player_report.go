package platform

import (
	"context"
	"fmt"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/store"
)

// PlayerReport is one account as an organiser checks it: what it solved
// and tried, how it plays (keys, agents, sessions) and the signs that it
// shares flags.
type PlayerReport struct {
	User     live.UserView
	Solves   []LogEntry // every solve, newest first
	Recent   []LogEntry // the latest submissions, right and wrong
	More     bool       // more submissions than Recent shows
	Keys     []live.APIKeyView
	Agents   []live.AgentView
	Sessions int // active web sessions
	Shared   []SharedWrongFlag
}

// SharedWrongFlag is a wrong flag the player sent that others sent to the
// same challenge too.
type SharedWrongFlag struct {
	Slug, Title, Flag string
	Others            []live.UserView
}

// maxReportSolves bounds the solves a report lists (more than any event's
// challenges).
const maxReportSolves = 1000

// PlayerReport returns the report of the user of username: for admins only.
func (s *Admin) PlayerReport(ctx context.Context, v ctf.Viewer, username string) (PlayerReport, error) {
	if !v.IsAdmin() {
		return PlayerReport{}, ctf.ErrNotAdmin
	}
	st := s.live.State()
	u, err := st.Accounts().UserByName(ctx, v, username)
	if err != nil {
		return PlayerReport{}, err
	}
	yes := true
	solves, err := s.db.SubmissionLog(ctx, store.LogFilter{UserID: u.ID, Correct: &yes, Limit: maxReportSolves})
	if err != nil {
		return PlayerReport{}, fmt.Errorf("read the solves of %s: %w", username, err)
	}
	recent, err := s.db.SubmissionLog(ctx, store.LogFilter{UserID: u.ID, Limit: LogPageSize + 1})
	if err != nil {
		return PlayerReport{}, fmt.Errorf("read the submissions of %s: %w", username, err)
	}
	r := PlayerReport{User: u, Solves: s.logEntries(solves), More: len(recent) > LogPageSize}
	r.Recent = s.logEntries(recent[:min(len(recent), LogPageSize)])
	r.Keys, _ = st.Accounts().KeysOf(u.ID)
	r.Agents = st.Accounts().AgentsOf(u.ID)
	sessions, _ := st.Accounts().SessionsOf(u.ID, "", s.now())
	r.Sessions = len(sessions)
	shared, err := s.db.SharedWrongFlags(ctx, u.ID)
	if err != nil {
		return PlayerReport{}, fmt.Errorf("read the shared flags of %s: %w", username, err)
	}
	for _, f := range shared {
		x := SharedWrongFlag{Flag: f.Flag}
		if c, ok := st.ChallengeByID(f.ChallengeID); ok {
			x.Slug, x.Title = c.Slug, c.Title
		}
		for _, id := range f.Others {
			if o, ok := st.Accounts().User(id); ok {
				x.Others = append(x.Others, live.UserView{ID: o.ID, Username: o.Username, Name: o.Name})
			}
		}
		r.Shared = append(r.Shared, x)
	}
	return r, nil
}
