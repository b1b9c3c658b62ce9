package platform

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/transfer"
)

// The admin use cases: open to admins and to the operator's CLI, each
// recorded in the audit log in the same transaction as its change.

// audit returns the audit entry of an admin action.
func (s *core) audit(v Viewer, action, target string, detail map[string]any) *ctf.AuditEntry {
	a := &ctf.AuditEntry{Actor: "operator", Action: action, Target: target, At: ctf.Millis(s.now())}
	if v.User != nil {
		a.ActorID, a.Actor = v.User.ID, v.User.Username
	}
	if len(detail) > 0 {
		b, _ := json.Marshal(detail)
		a.Detail = string(b)
	}
	return a
}

// AuditLog returns up to limit entries of the audit log, newest first,
// older than before (0: the newest).
func (s *Admin) AuditLog(ctx context.Context, v Viewer, before int64, limit int) ([]ctf.AuditEntry, error) {
	if !v.admin() {
		return nil, errNotAdmin
	}
	if limit <= 0 || limit > 500 {
		limit = 100
	}
	return s.db.AuditLog(ctx, before, limit)
}

// UserView is an account as admins and the operator see it.
type UserView struct {
	ID, Username, Name, Email string
	Role                      ctf.Role
	Banned, TwoFactor         bool
	CreatedAt                 string
}

// Users lists the accounts whose username, name or email contains query
// (all for ""), oldest first.
func (s *Admin) Users(ctx context.Context, v Viewer, query string) ([]UserView, error) {
	if !v.admin() {
		return nil, errNotAdmin
	}
	q := strings.ToLower(strings.TrimSpace(query))
	st := s.state()
	st.mu.RLock()
	out := []UserView{}
	for _, u := range st.users {
		if q == "" || strings.Contains(strings.ToLower(u.Username), q) || strings.Contains(strings.ToLower(u.Name), q) ||
			strings.Contains(strings.ToLower(u.Email), q) {
			out = append(out, UserView{ID: u.ID, Username: u.Username, Name: u.Name, Email: u.Email, Role: u.Role,
				Banned: u.Banned, TwoFactor: u.TwoFactor, CreatedAt: ctf.FormatTime(u.CreatedAt)})
		}
	}
	st.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].CreatedAt != out[j].CreatedAt {
			return out[i].CreatedAt < out[j].CreatedAt
		}
		return out[i].Username < out[j].Username
	})
	return out, nil
}

// UserByName returns the account with that username, for admins and the
// operator.
func (s *Admin) UserByName(ctx context.Context, v Viewer, username string) (UserView, error) {
	if !v.admin() {
		return UserView{}, errNotAdmin
	}
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	u := st.byName[username]
	if u == nil {
		return UserView{}, ctf.Errorf(ctf.NotFound, "no user %q", username)
	}
	return UserView{ID: u.ID, Username: u.Username, Name: u.Name, Email: u.Email, Role: u.Role, Banned: u.Banned,
		TwoFactor: u.TwoFactor, CreatedAt: ctf.FormatTime(u.CreatedAt)}, nil
}

// SetBanned bans or unbans a user: a banned user's solves, attempts and
// reviews leave every public aggregate, and they cannot submit.
func (s *Admin) SetBanned(ctx context.Context, v Viewer, userID string, banned bool) (ctf.User, error) {
	u, err := s.adminOnOther(v, userID, "ban or unban")
	if err != nil {
		return ctf.User{}, err
	}
	action := "user.unban"
	if banned {
		action = "user.ban"
	}
	return s.accounts.updateUser(ctx, u.ID, store.UserUpdate{Banned: &banned}, s.audit(v, action, u.Username, nil))
}

// SetRole promotes a user to admin or demotes them to player.
func (s *Admin) SetRole(ctx context.Context, v Viewer, userID string, role ctf.Role) (ctf.User, error) {
	if err := ctf.ValidateRole(role); err != nil {
		return ctf.User{}, err
	}
	u, err := s.adminOnOther(v, userID, "change the role of")
	if err != nil {
		return ctf.User{}, err
	}
	return s.accounts.updateUser(ctx, u.ID, store.UserUpdate{Role: &role}, s.audit(v, "user.role", u.Username, map[string]any{"role": role}))
}

// adminOnOther checks that v is an admin acting on another account (an
// admin who banned or demoted themselves would lock the event's admins
// out) and returns that account.
func (s *core) adminOnOther(v Viewer, userID, what string) (*ctf.User, error) {
	if !v.admin() {
		return nil, errNotAdmin
	}
	if v.User != nil && v.User.ID == userID {
		return nil, ctf.Errorf(ctf.Forbidden, "you cannot %s yourself; ask another admin", what)
	}
	u, ok := s.userByID(userID)
	if !ok {
		return nil, ctf.Errorf(ctf.NotFound, "no such user")
	}
	return u, nil
}

// ImportReport is what a load did, and what the operator should know of
// what it loaded.
type ImportReport struct {
	transfer.LoadReport
	// Warnings name the entries that loaded but will not work as they
	// are, with the file, entry and field, e.g. a webhook on a private
	// host while this service refuses those.
	Warnings []string `json:"warnings,omitempty"`
}

// Import loads a dataset (flagship load): a bulk change, after which every
// replica rebuilds its state once.
func (s *Admin) Import(ctx context.Context, v Viewer, ds *dataset.Dataset) (ImportReport, error) {
	if !v.admin() {
		return ImportReport{}, errNotAdmin
	}
	lr, err := transfer.Load(ctx, s.db, ds)
	rep := ImportReport{LoadReport: lr}
	if err != nil {
		return rep, err
	}
	detail := map[string]any{"created": rep.Created, "updated": rep.Updated}
	if err := s.db.AddAudit(ctx, *s.audit(v, "event.load", fmt.Sprintf("%d challenges, %d users", len(ds.Challenges), len(ds.Users)), detail)); err != nil {
		return rep, err
	}
	if s.state() != nil {
		if err := s.load(ctx); err != nil {
			return rep, err
		}
	}
	rep.Warnings = s.webhookWarnings(ds)
	return rep, nil
}

// webhookWarnings names the dataset's webhooks whose URL the admin form
// would refuse as naming a private host. They load (a file restores what
// an operator had, perhaps on a server that allows them), but unless the
// server allows private targets every delivery to them will be refused.
func (s *core) webhookWarnings(ds *dataset.Dataset) []string {
	if s.opts.WebhooksAllowPrivate {
		return nil
	}
	var out []string
	for i, w := range ds.Webhooks {
		if err := checkTargetURL(w.URL); err != nil {
			out = append(out, ds.Errorf("webhooks", i, "url", "names a private host (loopback, private, link-local or localhost): "+
				"its deliveries will be refused unless serve runs with --webhooks-allow-private").Error())
		}
	}
	return out
}

// Export reads the whole platform as one dataset (flagship dump).
func (s *Admin) Export(ctx context.Context, v Viewer) (*dataset.Dataset, error) {
	if !v.admin() {
		return nil, errNotAdmin
	}
	s.flushTouches(ctx)
	return transfer.Dump(ctx, s.db)
}

// Overview is the event at a glance, for its organisers.
type Overview struct {
	Players, Ranked, Solves int
	Attempts                int64
	SolvesPerHour           []HourCount // the last 48 hours with a solve, oldest first
	Challenges              []ChallengeCount
	FirstBloods             []FirstBlood // newest first
}

// HourCount is how many solves an hour saw.
type HourCount struct {
	Hour  time.Time
	Count int
}

// ChallengeCount is a challenge's solves and attempts.
type ChallengeCount struct {
	Slug, Title string
	Solves      int
	Attempts    int64
	Hidden      bool
	// Pending: not open to players yet (before the start or its release,
	// ReleaseAt when set).
	Pending   bool
	ReleaseAt *time.Time
}

// FirstBlood is a challenge's first solve by a player.
type FirstBlood struct {
	Slug, Title, UserID, Username string
	At                            time.Time
}

// Overview returns the event at a glance: counts, solves per hour, the
// challenges by solves (most solved first) and the latest first bloods.
func (s *Admin) Overview(ctx context.Context, v Viewer) (Overview, error) {
	if !v.admin() {
		return Overview{}, errNotAdmin
	}
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	var o Overview
	perHour := map[time.Time]int{}
	for _, u := range st.users {
		if u.player {
			o.Players++
			if len(u.solves) > 0 {
				o.Ranked++
			}
		}
	}
	for _, c := range st.visible {
		o.Challenges = append(o.Challenges, ChallengeCount{Slug: c.Slug, Title: c.Title, Solves: len(c.playerSolves), Attempts: c.attempts()})
		o.Solves += len(c.playerSolves)
		o.Attempts += c.attempts()
		for _, x := range c.playerSolves {
			perHour[x.At.UTC().Truncate(time.Hour)]++
		}
		if len(c.playerSolves) > 0 {
			x := c.playerSolves[0]
			o.FirstBloods = append(o.FirstBloods, FirstBlood{Slug: c.Slug, Title: c.Title, UserID: x.user.ID, Username: x.user.Username, At: x.At})
		}
	}
	for h, n := range perHour {
		o.SolvesPerHour = append(o.SolvesPerHour, HourCount{Hour: h, Count: n})
	}
	sort.Slice(o.SolvesPerHour, func(i, j int) bool { return o.SolvesPerHour[i].Hour.Before(o.SolvesPerHour[j].Hour) })
	if n := len(o.SolvesPerHour); n > 48 {
		o.SolvesPerHour = o.SolvesPerHour[n-48:]
	}
	sort.SliceStable(o.Challenges, func(i, j int) bool { return o.Challenges[i].Solves > o.Challenges[j].Solves })
	sort.Slice(o.FirstBloods, func(i, j int) bool { return o.FirstBloods[i].At.After(o.FirstBloods[j].At) })
	if len(o.FirstBloods) > 10 {
		o.FirstBloods = o.FirstBloods[:10]
	}
	return o, nil
}
