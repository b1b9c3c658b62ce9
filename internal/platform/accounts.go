package platform

import (
	"context"
	"sort"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
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
		Role: ctf.RolePlayer}, true, nil, in.Address)
}

// RegistrationOpen reports whether anyone may sign up.
func (s *Accounts) RegistrationOpen() bool { return !s.opts.RegistrationClosed }

// NewUser is an account an admin or the operator creates.
type NewUser struct {
	Username, Email, Name string
	Password              string   // optional here: without one, the account cannot log in yet
	Role                  ctf.Role // player (default) or admin
}

// CreateUser creates an account for an admin or the operator, with the
// rules of SignUp (the password only if one is given), even when
// registration is closed.
func (s *Accounts) CreateUser(ctx context.Context, v Viewer, in NewUser) (ctf.User, error) {
	if !v.admin() {
		return ctf.User{}, errNotAdmin
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
	u, err := s.insertUser(ctx, u, audit)
	if err != nil {
		// The limit counts accounts: a sign-up that made none is taken back.
		forgive()
	}
	return u, err
}

// insertUser records a new account and applies it to the hot state.
func (s *Accounts) insertUser(ctx context.Context, u ctf.User, audit *ctf.AuditEntry) (ctf.User, error) {
	s.gate.RLock()
	defer s.gate.RUnlock()
	seqs, err := s.db.CreateUser(ctx, u, audit)
	if err != nil {
		return ctf.User{}, err
	}
	s.applyOwn(seqs, func(st *state, dirty dirtySet) { st.putUser(u, dirty) })
	return u, nil
}

// takenName reports whether the hot state knows the username, in any
// case, or the email already (the database's unique keys decide races).
func (s *Accounts) takenName(username, email string) bool {
	st := s.state()
	if st == nil {
		return false
	}
	st.mu.RLock()
	defer st.mu.RUnlock()
	return st.byFold[ctf.FoldUsername(username)] != nil || (email != "" && st.byEmail[strings.ToLower(email)] != nil)
}

// ChangePassword sets a new password after checking the current one, and
// ends every other session of the caller. The check is throttled as a
// log-in is, on the account's counter.
func (s *Accounts) ChangePassword(ctx context.Context, v Viewer, current, next string) error {
	if v.User == nil {
		return errAuthRequired
	}
	u, ok := s.userByID(v.User.ID)
	if !ok {
		return errAuthRequired
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
	s.gate.RLock()
	defer s.gate.RUnlock()
	nu, seqs, err := s.db.UpdateUser(ctx, u.ID, store.UserUpdate{PasswordHash: &hash}, v.Session, nil)
	if err != nil {
		return err
	}
	s.applyOwnWithSessions(ctx, nu, seqs)
	return nil
}

// UpdateProfile sets the caller's display name and avatar URL (http or
// https only).
func (s *Accounts) UpdateProfile(ctx context.Context, v Viewer, name, image string) (ctf.User, error) {
	if v.User == nil {
		return ctf.User{}, errAuthRequired
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
	s.gate.RLock()
	defer s.gate.RUnlock()
	if up.Role != nil || up.Banned != nil {
		if err := s.loadBaselines(ctx, s.state(), s.withAgents(id)); err != nil {
			return ctf.User{}, err
		}
	}
	nu, seqs, err := s.db.UpdateUser(ctx, id, up, "", audit)
	if err != nil {
		return ctf.User{}, err
	}
	s.applyOwn(seqs, func(st *state, dirty dirtySet) { st.putUser(nu, dirty) })
	return nu, nil
}

var (
	errAuthRequired = ctf.Errorf(ctf.Unauthorized, "authentication required")
	errNotAdmin     = ctf.Errorf(ctf.Forbidden, "only admins may do this")
)

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// Me returns the caller's own profile.
func (s *Accounts) Me(ctx context.Context, v Viewer) (MyProfile, error) {
	if v.User == nil {
		return MyProfile{}, ctf.Errorf(ctf.Unauthorized, "authentication required")
	}
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	u := st.users[v.User.ID]
	if u == nil {
		return MyProfile{}, ctf.Errorf(ctf.Unauthorized, "authentication required")
	}
	me := MyProfile{PublicProfile: st.profile(u), Email: strPtr(u.Email), TwoFactorEnabled: u.TwoFactor,
		McpAPIKeys: make([]APIKeyView, 0, len(u.keys))}
	for _, k := range u.keys {
		me.McpAPIKeys = append(me.McpAPIKeys, keyView(k))
	}
	// A player sees their own solves that count nowhere public: those a
	// freeze holds, and practice solves. Totals and ranks stay public.
	var own []*solve
	for _, x := range u.solved {
		if !x.attached && x.chal.shown() {
			own = append(own, x)
		}
	}
	if len(own) > 0 {
		for _, x := range own {
			me.SolvedChallenges = append(me.SolvedChallenges, ProfileSolve{SolvedAt: ctf.FormatTime(x.At), Challenge: profileChallenge(x.chal)})
		}
		sort.SliceStable(me.SolvedChallenges, func(i, j int) bool {
			return me.SolvedChallenges[i].SolvedAt > me.SolvedChallenges[j].SolvedAt
		})
	}
	return me, nil
}

func keyView(k *apiKey) APIKeyView {
	kv := APIKeyView{ID: k.ID, Name: k.Name, KeyPrefix: k.Prefix, CreatedAt: ctf.FormatTime(k.CreatedAt)}
	if t := msTime(k.lastUsed.Load()); t != nil {
		kv.LastUsedAt = strPtr(ctf.FormatTime(*t))
	}
	if k.RevokedAt != nil {
		kv.RevokedAt = strPtr(ctf.FormatTime(*k.RevokedAt))
	}
	return kv
}
