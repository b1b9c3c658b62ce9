package platform

import (
	"context"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/secret"
	"github.com/flagshipctf/flagship/internal/store"
)

// Recovery without email: an admin (web) or the operator (CLI) makes a
// one-time reset link for a person, turns their two-factor authentication
// off, or corrects their name and email. Each is audited.

// ResetLink makes a one-time reset link for a person's account, valid for
// AdminResetLifetime, to be passed on by hand: the link is returned once
// and only its hash is kept. It is an absolute URL under the public URL,
// or a path without one. An earlier link still works until it is used or
// one of them is.
func (s *Admin) ResetLink(ctx context.Context, v ctf.Viewer, userID string) (string, error) {
	u, err := s.person(v, userID)
	if err != nil {
		return "", err
	}
	now := s.now()
	origin := "admin"
	if v.User == nil {
		origin = "operator"
	}
	token, hash := secret.NewSessionToken()
	r := store.PasswordReset{TokenHash: hash, UserID: u.ID, Origin: origin, CreatedAt: now, ExpiresAt: now.Add(AdminResetLifetime)}
	if err := s.accounts.db.CreatePasswordReset(ctx, r, nil, s.audit(v, "user.reset-link", u.Username, nil)); err != nil {
		return "", err
	}
	return s.resetLink(token), nil
}

// DisableTwoFactor turns a person's two-factor authentication off (they
// lost their authenticator and their recovery codes) and ends every
// session of theirs. Off already is a Conflict.
func (s *Admin) DisableTwoFactor(ctx context.Context, v ctf.Viewer, userID string) (ctf.User, error) {
	u, err := s.person(v, userID)
	if err != nil {
		return ctf.User{}, err
	}
	if !u.TwoFactor {
		return ctf.User{}, ctf.Errorf(ctf.Conflict, "two-factor authentication is off already for %s", u.Username)
	}
	defer s.live.Write()()
	nu, seqs, err := s.accounts.db.DisableTwoFactor(ctx, u.ID, "", s.audit(v, "user.disable-2fa", u.Username, nil))
	if err != nil {
		return ctf.User{}, err
	}
	s.accounts.applyOwnWithSessions(ctx, nu, seqs)
	return nu, nil
}

// EditUser sets a person's display name and email, with the sign-up
// rules (an email is required, and unique ignoring case).
func (s *Admin) EditUser(ctx context.Context, v ctf.Viewer, userID, name, email string) (ctf.User, error) {
	u, err := s.person(v, userID)
	if err != nil {
		return ctf.User{}, err
	}
	name, email = strings.TrimSpace(name), strings.TrimSpace(email)
	for _, err := range []error{ctf.ValidateDisplayName(name), ctf.ValidateEmail(email)} {
		if err != nil {
			return ctf.User{}, err
		}
	}
	if !strings.EqualFold(email, u.Email) {
		if st := s.live.State(); st != nil && st.Accounts().NameTaken("", email) {
			return ctf.User{}, ctf.Errorf(ctf.Conflict, "that username or email is already taken")
		}
	}
	detail := map[string]any{}
	if name != u.Name {
		detail["name"] = name
	}
	if email != u.Email {
		detail["email"] = email
	}
	if len(detail) == 0 {
		return *u, nil
	}
	return s.accounts.updateUser(ctx, u.ID, store.UserUpdate{Name: &name, Email: &email}, s.audit(v, "user.edit", u.Username, detail))
}

// person checks that v is an admin (or the operator) and returns the
// person userID names: agents have no password, email or second factor.
func (s *Admin) person(v ctf.Viewer, userID string) (*ctf.User, error) {
	if !v.IsAdmin() {
		return nil, ctf.ErrNotAdmin
	}
	u, ok := s.userByID(userID)
	if !ok {
		return nil, ctf.Errorf(ctf.NotFound, "no such user")
	}
	if u.Kind == ctf.KindAgent {
		return nil, ctf.Errorf(ctf.Invalid, "%s is an agent: agents have no password, email or second factor", u.Username)
	}
	return u, nil
}
