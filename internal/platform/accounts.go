package platform

import (
	"context"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/secret"
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

// Login throttle (docs/product.md#login-throttling): 5 failures of an account or 50 from one
// address within loginWindow refuse further tries for loginWindow.
const (
	loginWindow          = 15 * time.Minute
	maxAccountFailures   = 5
	maxAddressFailures   = 50
	loginFailureMessage  = "wrong username or password"
	loginThrottleMessage = "too many failed logins; wait before trying again"
)

// Login is a log-in attempt.
type Login struct {
	Username  string // or the account's email
	Password  string
	Code      string // a TOTP code or a recovery code, for an account with 2FA
	Address   string // the client's address, for the throttle
	UserAgent string // shown in the list of sessions
}

// LoginResult is a successful log-in, or a request for the second factor.
type LoginResult struct {
	// NeedCode: the password is right and the account has two-factor
	// authentication; call again with Code. No session was made.
	NeedCode  bool
	Token     string // the session's secret, for the cookie
	ExpiresAt time.Time
	User      ctf.User
}

// Login checks a password (and a second factor when the account has one)
// and opens a web session. Each try is reserved in the database before the
// password is checked, per account and per address; past the throttle the
// answer is RateLimited with the wait. A wrong username and a wrong
// password read the same.
func (s *Accounts) Login(ctx context.Context, in Login) (LoginResult, error) {
	name := strings.TrimSpace(in.Username)
	if !loginName(name) {
		// No account has such a name, and Unicode would fold some of them
		// onto one that does ("ſessions" onto "sessions"): a failure of
		// the address only.
		if _, err := s.reserve(ctx, "", in.Address); err != nil {
			return LoginResult{}, err
		}
		return LoginResult{}, ctf.Errorf(ctf.Unauthorized, "%s", loginFailureMessage)
	}
	u := s.userByLogin(name)
	// One counter per account however its name is spelled; an unknown
	// name counts under its folded self.
	account := ctf.FoldUsername(name)
	if u != nil {
		account = u.ID
	}
	t, err := s.reserve(ctx, account, in.Address)
	if err != nil {
		return LoginResult{}, err
	}
	var hash string
	if u != nil {
		hash = u.PasswordHash
	}
	// Checked even for an unknown name, so the time taken says nothing.
	ok, err := s.checkPassword(ctx, hash, in.Password)
	if err != nil {
		t.forgive(ctx)
		return LoginResult{}, err
	}
	if !ok {
		return LoginResult{}, ctf.Errorf(ctf.Unauthorized, "%s", loginFailureMessage)
	}
	if u.TwoFactor {
		if strings.TrimSpace(in.Code) == "" {
			t.forgive(ctx)
			return LoginResult{NeedCode: true, User: *u}, nil
		}
		ok, err := s.checkSecondFactor(ctx, u.ID, in.Code)
		if err != nil {
			t.forgive(ctx) // not checked: the database failed
			return LoginResult{}, err
		}
		if !ok {
			return LoginResult{}, ctf.Errorf(ctf.Unauthorized, "wrong or already used code")
		}
	}
	t.succeed(ctx)
	if err := s.loginRefusal(u); err != nil {
		return LoginResult{}, err
	}
	now := s.now()
	token, idHash := secret.NewSessionToken()
	sess := ctf.Session{IDHash: idHash, UserID: u.ID, CreatedAt: ctf.Millis(now), ExpiresAt: ctf.Millis(now.Add(ctf.SessionLifetime)),
		LastSeenAt: ctf.Millis(now), UserAgent: truncate(in.UserAgent, 256)}
	s.gate.RLock()
	defer s.gate.RUnlock()
	seqs, err := s.db.CreateSession(ctx, sess)
	if err != nil {
		return LoginResult{}, err
	}
	s.applyOwn(seqs, func(st *state, _ dirtySet) { st.addSession(sess) })
	return LoginResult{Token: token, ExpiresAt: sess.ExpiresAt, User: *u}, nil
}

// loginName reports whether name may be an account's: a username by the
// username rule, or an email address.
func loginName(name string) bool {
	return ctf.ValidateUsername(name) == nil || (strings.Contains(name, "@") && ctf.ValidateEmail(name) == nil)
}

// dummyPasswordHash is checked against when there is no account, so an
// unknown name takes as long as a wrong password.
var dummyPasswordHash = sync.OnceValue(func() string { return secret.HashPassword("not the password of any account") })

// userByLogin finds an account by username (exactly, else ignoring the
// case of its letters), or by email when the name has an @.
func (s *Accounts) userByLogin(name string) *ctf.User {
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	u := st.byName[name]
	if u == nil && strings.Contains(name, "@") {
		u = st.byEmail[strings.ToLower(name)]
	}
	if u == nil {
		u = st.userByNameFold(name)
	}
	if u == nil {
		return nil
	}
	cp := u.User
	return &cp
}

// Logout ends the session that authenticated v.
func (s *Accounts) Logout(ctx context.Context, v Viewer) error {
	if v.User == nil || v.Session == "" {
		return nil
	}
	return s.revokeSessions(ctx, v.User.ID, v.Session, false)
}

// SessionView is a web session as its owner sees it in settings.
type SessionView struct {
	ID         string // the session's id hash: what RevokeSession takes
	CreatedAt  time.Time
	LastSeenAt time.Time
	ExpiresAt  time.Time
	UserAgent  string
	Current    bool // the session of this call
}

// Sessions lists the caller's active sessions, newest first.
func (s *Accounts) Sessions(ctx context.Context, v Viewer) ([]SessionView, error) {
	if v.User == nil {
		return nil, errAuthRequired
	}
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	u := st.users[v.User.ID]
	if u == nil {
		return nil, errAuthRequired
	}
	now := s.now()
	out := []SessionView{}
	for _, x := range u.sessions {
		sess := x.Session
		sess.LastSeenAt = time.UnixMilli(x.lastSeen.Load()).UTC()
		if sess.Active(now) {
			out = append(out, SessionView{ID: x.IDHash, CreatedAt: sess.CreatedAt, LastSeenAt: sess.LastSeenAt,
				ExpiresAt: sess.ExpiresAt, UserAgent: sess.UserAgent, Current: x.IDHash == v.Session})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.After(out[j].CreatedAt) })
	return out, nil
}

// RevokeSession ends one of the caller's sessions.
func (s *Accounts) RevokeSession(ctx context.Context, v Viewer, id string) error {
	if v.User == nil {
		return errAuthRequired
	}
	return s.revokeSessions(ctx, v.User.ID, id, false)
}

// RevokeOtherSessions ends every session of the caller but the current one.
func (s *Accounts) RevokeOtherSessions(ctx context.Context, v Viewer) error {
	if v.User == nil {
		return errAuthRequired
	}
	return s.revokeSessions(ctx, v.User.ID, v.Session, true)
}

func (s *Accounts) revokeSessions(ctx context.Context, userID, idHash string, allBut bool) error {
	s.gate.RLock()
	defer s.gate.RUnlock()
	// The change log's rows are not marked as this process's own: if the
	// read below fails, the next catch-up applies them.
	if _, err := s.db.RevokeSessions(ctx, userID, idHash, allBut, s.now()); err != nil {
		return err
	}
	// The sessions left are read back, as on every replica. The sessions
	// are ended whatever the read does.
	e, err := s.db.Entities(context.WithoutCancel(ctx), []store.ChangeRef{{Kind: store.ChangeSessions, Entity: userID}})
	if err != nil {
		s.log.Warn("read a user's sessions back after ending some; the next catch-up applies it", "user", userID, "err", err)
		return nil
	}
	s.applyOwn(nil, func(st *state, _ dirtySet) { st.putSessions(userID, e.Sessions[userID]) })
	return nil
}

// applyOwnWithSessions applies this process's committed change of a user
// that also ended sessions of theirs (seqs: its rows in the change log):
// the user as written and their sessions as read back. The change stands
// whatever the read does, so its failure is logged, not returned (an
// error would tell the caller that turning two-factor on failed, and lose
// the recovery codes, while it is on); the rows are then not marked as
// this process's own, and the next catch-up applies them, the ended
// sessions included. The caller holds the gate shared.
func (s *Accounts) applyOwnWithSessions(ctx context.Context, u ctf.User, seqs []int64) {
	e, err := s.db.Entities(context.WithoutCancel(ctx), []store.ChangeRef{{Kind: store.ChangeSessions, Entity: u.ID}})
	if err != nil {
		s.log.Warn("read a user's sessions back after a change; the next catch-up applies it", "user", u.ID, "err", err)
		seqs = nil
	}
	s.applyOwn(seqs, func(st *state, dirty dirtySet) {
		st.putUser(u, dirty)
		if err == nil {
			st.putSessions(u.ID, e.Sessions[u.ID])
		}
	})
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
