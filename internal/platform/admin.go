package platform

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/transfer"
)

// The admin use cases: open to admins and to the operator's CLI, each
// recorded in the audit log in the same transaction as its change.

// audit returns the audit entry of an admin action.
func (s *core) audit(v ctf.Viewer, action, target string, detail map[string]any) *ctf.AuditEntry {
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
func (s *Admin) AuditLog(ctx context.Context, v ctf.Viewer, before int64, limit int) ([]ctf.AuditEntry, error) {
	if !v.IsAdmin() {
		return nil, ctf.ErrNotAdmin
	}
	if limit <= 0 || limit > 500 {
		limit = 100
	}
	return s.db.AuditLog(ctx, before, limit)
}

// SetBanned bans or unbans a user: a banned user's solves, attempts and
// reviews leave every public aggregate, and they cannot submit. A ban may
// carry a reason (at most ctf.MaxReasonChars characters), which the user
// is shown and admins see; an unban clears it.
func (s *Admin) SetBanned(ctx context.Context, v ctf.Viewer, userID string, banned bool, reason string) (ctf.User, error) {
	u, err := s.adminOnOther(v, userID, "ban or unban")
	if err != nil {
		return ctf.User{}, err
	}
	action, detail := "user.unban", map[string]any(nil)
	if reason = strings.TrimSpace(reason); !banned {
		reason = ""
	} else if err := ctf.ValidateReason("reason", reason); err != nil {
		return ctf.User{}, err
	} else {
		action, detail = "user.ban", map[string]any{"reason": reason}
	}
	return s.accounts.updateUser(ctx, u.ID, store.UserUpdate{Banned: &banned, BanReason: &reason}, s.audit(v, action, u.Username, detail))
}

// SetRole promotes a user to admin or demotes them to player.
func (s *Admin) SetRole(ctx context.Context, v ctf.Viewer, userID string, role ctf.Role) (ctf.User, error) {
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
func (s *core) adminOnOther(v ctf.Viewer, userID, what string) (*ctf.User, error) {
	if !v.IsAdmin() {
		return nil, ctf.ErrNotAdmin
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
func (s *Admin) Import(ctx context.Context, v ctf.Viewer, ds *dataset.Dataset) (ImportReport, error) {
	if !v.IsAdmin() {
		return ImportReport{}, ctf.ErrNotAdmin
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
	if s.live.State() != nil {
		if err := s.live.Load(ctx); err != nil {
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

// Export reads the whole platform as one dataset (flagship dump). A dump
// holds every secret's hash: who took one, and when, is audited.
func (s *Admin) Export(ctx context.Context, v ctf.Viewer) (*dataset.Dataset, error) {
	if !v.IsAdmin() {
		return nil, ctf.ErrNotAdmin
	}
	s.flushTouches(ctx)
	ds, err := transfer.Dump(ctx, s.db)
	if err != nil {
		return nil, err
	}
	summary := fmt.Sprintf("%d challenges, %d users", len(ds.Challenges), len(ds.Users))
	if err := s.db.AddAudit(ctx, *s.audit(v, "event.dump", summary, nil)); err != nil {
		return nil, err
	}
	return ds, nil
}

// Users is live.State.Users.
func (s *Admin) Users(ctx context.Context, v ctf.Viewer, query string) ([]live.UserView, error) {
	return s.live.State().Accounts().Users(ctx, v, query)
}

// UserByName is live.State.UserByName.
func (s *Admin) UserByName(ctx context.Context, v ctf.Viewer, username string) (live.UserView, error) {
	return s.live.State().Accounts().UserByName(ctx, v, username)
}

// live.Overview is live.State.Overview.
func (s *Admin) Overview(ctx context.Context, v ctf.Viewer) (live.Overview, error) {
	return s.live.State().Overview(ctx, v)
}
