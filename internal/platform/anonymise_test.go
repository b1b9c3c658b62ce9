package platform

import (
	"context"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// TestAnonymiseUser: an admin anonymises a player by typing their username:
// the account takes an anonymous name, loses its email and password, its
// sessions and keys end on every replica, its solves stay on the board
// under the new name; the old username is free again. A wrong confirmation,
// a player, and an admin on themselves are refused.
func TestAnonymiseUser(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.svc
	b, seen := f.watchedReplica()
	ctx := context.Background()
	root, pam := f.as("root"), f.as("pam")
	_, key, err := a.Keys.Create(ctx, pam, NewAPIKey{Name: "laptop"})
	wantCode(t, "key", err, "")
	sess, err := a.Accounts.Login(ctx, Login{Username: "pam", Password: "pam-password"})
	wantCode(t, "log in", err, "")

	_, err = a.Admin.AnonymiseUser(ctx, root, pam.ID(), "Pam")
	wantCode(t, "wrong confirmation", err, ctf.Invalid)
	_, err = a.Admin.AnonymiseUser(ctx, f.as("pat"), pam.ID(), "pam")
	wantCode(t, "a player", err, ctf.Forbidden)
	_, err = a.Admin.AnonymiseUser(ctx, root, root.ID(), "root")
	wantCode(t, "oneself", err, ctf.Forbidden)

	nu, err := a.Admin.AnonymiseUser(ctx, root, pam.ID(), "pam")
	wantCode(t, "anonymise", err, "")
	if nu.Username != AnonymisedName(pam.ID()) || nu.Email != "" || nu.Name != "" || nu.PasswordHash != "" {
		t.Fatalf("anonymised: %+v", nu)
	}
	seen("the new name on the board", func() bool {
		board := boardJSON(b)
		return strings.Contains(board, `"username":"`+nu.Username+`"`) && !strings.Contains(board, `"username":"pam"`)
	})
	for name, s := range map[string]*Service{"deleting": a, "other": b} {
		if _, err := s.Accounts.AuthenticateKey(ctx, key); err == nil {
			t.Errorf("the %s replica still takes pam's key", name)
		}
		if _, err := s.Accounts.AuthenticateSession(ctx, sess.Token); err == nil {
			t.Errorf("the %s replica still takes pam's session", name)
		}
	}
	_, err = a.Accounts.Login(ctx, Login{Username: "pam", Password: "pam-password"})
	if err == nil {
		t.Error("pam logs in after the anonymisation")
	}
	if _, err := a.Accounts.SignUp(ctx, SignUp{Username: "pam", Email: "pam@example.com", Password: "a long password"}); err != nil {
		t.Errorf("the old username and email are not free: %v", err)
	}
	log, _ := a.Admin.AuditLog(ctx, root, 0, 5)
	if len(log) == 0 || log[0].Action != "user.anonymise" || log[0].Target != nu.Username {
		t.Errorf("the audit log: %+v", log)
	}
}
