package platform

import (
	"context"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/store"
)

// Accounts: sign-up, log-in with its throttle and second factor, sessions,
// password and profile changes. Every write goes to the database and then,
// at once, to this process's hot state; other replicas apply it from the
// change log.

// SignUp is what a newcomer gives to open an account.
type SignUp struct {
	Username, Email, Password, Name string
	Address                         string // the client's address, for the sign-up limit
}

// SignUp opens a player's account. Closed registration is Forbidden; a
// taken username or email is a Conflict; every rule of ctf's is checked;
// past Options.SignupLimit accounts from one address within the hour the
// answer is RateLimited with the wait.
func (s *Accounts) SignUp(ctx context.Context, in SignUp) (ctf.User, error) {
	if s.opts.RegistrationClosed {
		return ctf.User{}, ctf.Errorf(ctf.Forbidden, "registration is closed; ask the organisers for an account")
	}
	return s.createUser(ctx, NewUser{Username: in.Username, Email: in.Email, Password: in.Password, Name: in.Name,
		Role: ctf.RolePlayer, verify: s.opts.RequireEmailVerification}, true, nil, in.Address)
}

// RegistrationOpen reports whether anyone may sign up.
func (s *Accounts) RegistrationOpen() bool { return !s.opts.RegistrationClosed }

// NewUser is an account an admin or the operator creates.
type NewUser struct {
	Username, Email, Name string
	Password              string   // optional here: without one, the account cannot log in yet
	Role                  ctf.Role // player (default) or admin
	verify                bool     // a sign-up that confirms its address by a link
}

// CreateUser creates an account for an admin or the operator, with the
// rules of SignUp (the password only if one is given), even when
// registration is closed.
func (s *Accounts) CreateUser(ctx context.Context, v ctf.Viewer, in NewUser) (ctf.User, error) {
	if !v.IsAdmin() {
		return ctf.User{}, ctf.ErrNotAdmin
	}
	if in.Role == "" {
		in.Role = ctf.RolePlayer
	}
	return s.createUser(ctx, in, in.Password != "", s.audit(v, "user.create", in.Username, map[string]any{"role": in.Role}), "")
}

// createUser checks and records a new account; signupFrom is the client
// address of a sign-up (counted against the sign-up limit), "" for an
// account an admin or the operator creates.
func (s *Accounts) createUser(ctx context.Context, in NewUser, needPassword bool, audit *ctf.AuditEntry, signupFrom string) (ctf.User, error) {
	in.Username, in.Email, in.Name = strings.TrimSpace(in.Username), strings.TrimSpace(in.Email), strings.TrimSpace(in.Name)
	checks := []error{ctf.ValidateUsername(in.Username), ctf.ValidateEmail(in.Email), ctf.ValidateDisplayName(in.Name), ctf.ValidateRole(in.Role)}
	if needPassword {
		checks = append(checks, ctf.ValidatePassword(in.Password, in.Username))
	}
	for _, err := range checks {
		if err != nil {
			return ctf.User{}, err
		}
	}
	if s.takenName(in.Username, in.Email) {
		return ctf.User{}, ctf.Errorf(ctf.Conflict, "that username or email is already taken")
	}
	forgive := func() {}
	if signupFrom != "" && s.opts.SignupLimit > 0 {
		var err error
		if forgive, err = s.reserveSignup(ctx, signupFrom); err != nil {
			return ctf.User{}, err
		}
	}
	u := ctf.User{ID: ctf.NewID(), Username: in.Username, Email: in.Email, Name: in.Name, Role: in.Role, CreatedAt: ctf.Millis(s.now())}
	if needPassword {
		hash, err := s.hashPassword(ctx, in.Password)
		if err != nil {
			forgive()
			return ctf.User{}, err
		}
		u.PasswordHash = hash
	}
	var err error
	if in.verify {
		u, err = s.insertUserToVerify(ctx, u)
	} else {
		u, err = s.insertUser(ctx, u, audit)
	}
	if err != nil {
		// The limit counts accounts: a sign-up that made none is taken back.
		forgive()
	}
	return u, err
}

// insertUser records a new account and applies it to the hot state.
func (s *Accounts) insertUser(ctx context.Context, u ctf.User, audit *ctf.AuditEntry) (ctf.User, error) {
	defer s.live.Write()()
	seqs, err := s.db.CreateUser(ctx, u, audit)
	if err != nil {
		return ctf.User{}, err
	}
	s.live.Apply(seqs, func(tx *live.Tx) { tx.PutUser(u) })
	return u, nil
}

// takenName reports whether the hot state knows the username, in any
// case, or the email already (the database's unique keys decide races).
func (s *Accounts) takenName(username, email string) bool {
	st := s.live.State()
	return st != nil && st.Accounts().NameTaken(username, email)
}

// caller is the signed-in person's own account as the hot state holds it:
// a use case on one's own account asks for a signed-in user.
func (s *core) caller(v ctf.Viewer) (*ctf.User, error) {
	if v.User == nil {
		return nil, ctf.ErrAuthRequired
	}
	u, ok := s.userByID(v.User.ID)
	if !ok {
		return nil, ctf.ErrAuthRequired
	}
	return u, nil
}

// ChangePassword sets a new password after checking the current one, and
// ends every other session of the caller. The check is throttled as a
// log-in is, on the account's counter.
func (s *Accounts) ChangePassword(ctx context.Context, v ctf.Viewer, current, next string) error {
	u, err := s.caller(v)
	if err != nil {
		return err
	}
	if err := ctf.ValidatePassword(next, u.Username); err != nil {
		return err
	}
	if u.PasswordHash != "" {
		t, err := s.reserve(ctx, u.ID, "")
		if err != nil {
			return err
		}
		ok, err := s.checkPassword(ctx, u.PasswordHash, current)
		if err != nil {
			t.forgive(ctx)
			return err
		}
		if !ok {
			return ctf.FieldErrorf("current password", "is wrong")
		}
		t.succeed(ctx)
	}
	hash, err := s.hashPassword(ctx, next)
	if err != nil {
		return err
	}
	defer s.live.Write()()
	nu, seqs, err := s.db.UpdateUser(ctx, u.ID, store.UserUpdate{PasswordHash: &hash}, v.Session, nil)
	if err != nil {
		return err
	}
	s.applyOwnWithSessions(ctx, nu, seqs)
	return nil
}

// UpdateProfile sets the caller's display name and avatar URL (http or
// https only).
func (s *Accounts) UpdateProfile(ctx context.Context, v ctf.Viewer, name, image string) (ctf.User, error) {
	if v.User == nil {
		return ctf.User{}, ctf.ErrAuthRequired
	}
	name, image = strings.TrimSpace(name), strings.TrimSpace(image)
	if err := ctf.ValidateDisplayName(name); err != nil {
		return ctf.User{}, err
	}
	if err := ctf.ValidateWebURL("image", image); err != nil {
		return ctf.User{}, err
	}
	return s.updateUser(ctx, v.User.ID, store.UserUpdate{Name: &name, Image: &image}, nil)
}

func (s *Accounts) updateUser(ctx context.Context, id string, up store.UserUpdate, audit *ctf.AuditEntry) (ctf.User, error) {
	defer s.live.Write()()
	if up.Role != nil || up.Banned != nil {
		if err := s.live.BeforeStatusChange(ctx, id); err != nil {
			return ctf.User{}, err
		}
	}
	nu, seqs, err := s.db.UpdateUser(ctx, id, up, "", audit)
	if err != nil {
		return ctf.User{}, err
	}
	s.live.Apply(seqs, func(tx *live.Tx) { tx.PutUser(nu) })
	return nu, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// Me returns the caller's own profile.
func (s *Accounts) Me(ctx context.Context, v ctf.Viewer) (live.MyProfile, error) {
	if v.User == nil {
		return live.MyProfile{}, ctf.ErrAuthRequired
	}
	me, ok := s.live.State().Accounts().Me(v.User.ID)
	if !ok {
		return live.MyProfile{}, ctf.ErrAuthRequired
	}
	return me, nil
}
