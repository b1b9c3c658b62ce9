package platform

import (
	"context"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/transfer"
)

// TestBanReason (issue 20): a ban carries a reason of at most 500
// characters, stored trimmed, audited, on every replica and in a dump; the
// banned player reads it at log-in (after the right password only) and by
// their session's cookie, nobody else by anything; an unban clears it.
func TestBanReason(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	root := f.as("root")
	pamID := f.as("pam").ID()
	login, err := f.svc.Accounts.Login(ctx, Login{Username: "pam", Password: "pam-password", Address: "192.0.2.1"})
	wantCode(t, "pam logs in", err, "")
	patLogin, err := f.svc.Accounts.Login(ctx, Login{Username: "pat", Password: "pat-password", Address: "192.0.2.2"})
	wantCode(t, "pat logs in", err, "")
	leaving, err := f.svc.Accounts.Login(ctx, Login{Username: "pam", Password: "pam-password", Address: "192.0.2.1"})
	wantCode(t, "pam logs in again", err, "")

	_, err = f.svc.Admin.SetBanned(ctx, root, pamID, true, strings.Repeat("é", ctf.MaxReasonChars+1))
	wantCode(t, "a reason of 501 characters", err, ctf.Invalid)
	if msg := ctf.ErrorMessage(err); msg != "reason must be at most 500 characters" {
		t.Errorf("the refusal reads %q", msg)
	}
	if f.svc.userBanned(pamID) {
		t.Fatal("a refused ban banned pam")
	}
	_, err = f.svc.Admin.SetBanned(ctx, root, pamID, true, strings.Repeat("é", ctf.MaxReasonChars))
	wantCode(t, "a reason of 500 characters", err, "")
	u, err := f.svc.Admin.SetBanned(ctx, root, pamID, true, "  shared flags with pat  ")
	wantCode(t, "ban pam with a reason", err, "")
	if u.BanReason != "shared flags with pat" {
		t.Errorf("the stored reason is %q", u.BanReason)
	}
	log, _ := f.svc.Admin.AuditLog(ctx, root, 0, 1)
	if len(log) != 1 || log[0].Action != "user.ban" || log[0].Target != "pam" || log[0].Detail != `{"reason":"shared flags with pat"}` {
		t.Errorf("the audit entry: %+v", log)
	}

	const notice = "Your account is banned: shared flags with pat. You cannot submit flags or log in; ask the organisers if you think this is a mistake."
	other := f.replica()
	for name, s := range map[string]*Service{"the banning replica": f.svc, "another replica": other} {
		if v, _ := s.Admin.UserByName(ctx, root, "pam"); !v.Banned || v.BanReason != "shared flags with pat" {
			t.Errorf("%s shows admins %+v", name, v)
		}
		if got, ok := s.Accounts.SessionBanNotice(ctx, login.Token); !ok || got != notice {
			t.Errorf("%s: pam's session is told %q, %v", name, got, ok)
		}
		for who, token := range map[string]string{"pat's session": patLogin.Token, "an unknown token": "x" + login.Token[1:], "no token": ""} {
			if got, ok := s.Accounts.SessionBanNotice(ctx, token); ok || got != "" {
				t.Errorf("%s: %s is told %q", name, who, got)
			}
		}
		_, err := s.Accounts.Login(ctx, Login{Username: "pam", Password: "pam-password", Address: "192.0.2.3"})
		if ctf.ErrorCode(err) != ctf.Forbidden || ctf.ErrorMessage(err) != notice {
			t.Errorf("%s: pam's log-in: %v", name, err)
		}
		_, err = s.Accounts.Login(ctx, Login{Username: "pam", Password: "wrong password", Address: "192.0.2.3"})
		if ctf.ErrorCode(err) != ctf.Unauthorized || strings.Contains(ctf.ErrorMessage(err), "shared") {
			t.Errorf("%s: a wrong password for pam: %v", name, err)
		}
	}
	// Logging out from the notice ends the banned session; it ends
	// nobody else's.
	wantCode(t, "pat's session logs out as banned", f.svc.Accounts.LogoutBanned(ctx, patLogin.Token), "")
	wantCode(t, "pam logs out from the notice", other.Accounts.LogoutBanned(ctx, leaving.Token), "")
	wantCode(t, "the first replica reads the log-out", f.svc.Refresh(ctx), "")
	if _, ok := f.svc.Accounts.SessionBanNotice(ctx, leaving.Token); ok {
		t.Error("a session logged out from the notice still reads it")
	}
	if _, err := f.svc.Accounts.AuthenticateSession(ctx, patLogin.Token); err != nil {
		t.Errorf("pat's session after LogoutBanned of it: %v", err)
	}
	ds, err := transfer.Dump(ctx, f.db)
	wantCode(t, "dump", err, "")
	for _, du := range ds.Users {
		if du.Username == "pam" && (!du.Banned || du.BanReason != "shared flags with pat") {
			t.Errorf("the dump holds pam as %+v", du)
		}
	}

	_, err = other.Admin.SetBanned(ctx, root, pamID, false, "ignored")
	wantCode(t, "unban pam", err, "")
	wantCode(t, "the first replica reads the unban", f.svc.Refresh(ctx), "")
	for name, s := range map[string]*Service{"the banning replica": f.svc, "the unbanning replica": other} {
		if v, _ := s.Admin.UserByName(ctx, root, "pam"); v.Banned || v.BanReason != "" {
			t.Errorf("%s after the unban: %+v", name, v)
		}
		if got, ok := s.Accounts.SessionBanNotice(ctx, login.Token); ok {
			t.Errorf("%s: pam's session is still told %q", name, got)
		}
	}
	log, _ = f.svc.Admin.AuditLog(ctx, root, 0, 1)
	if len(log) != 1 || log[0].Action != "user.unban" || log[0].Detail != "" {
		t.Errorf("the unban's audit entry: %+v", log)
	}
	if _, err := f.svc.Accounts.AuthenticateSession(ctx, login.Token); err != nil {
		t.Errorf("pam's session after the unban: %v", err)
	}
	if _, err := f.svc.Accounts.AuthenticateSession(ctx, leaving.Token); err == nil {
		t.Error("the session logged out during the ban is back after the unban")
	}
	if v, _ := f.replica().Admin.UserByName(ctx, root, "pam"); v.Banned || v.BanReason != "" {
		t.Errorf("a fresh replica after the unban: %+v", v)
	}
}
