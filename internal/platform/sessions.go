package platform

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/secret"
	"github.com/flagshipctf/flagship/internal/store"
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
	defer s.live.Write()()
	seqs, err := s.db.CreateSession(ctx, sess)
	if err != nil {
		return LoginResult{}, err
	}
	s.live.Apply(seqs, func(tx *live.Tx) { tx.AddSession(sess) })
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
	return s.live.State().Accounts().UserByLogin(name)
}

// Logout ends the session that authenticated v.
func (s *Accounts) Logout(ctx context.Context, v ctf.Viewer) error {
	if v.User == nil || v.Session == "" {
		return nil
	}
	return s.revokeSessions(ctx, v.User.ID, v.Session, false)
}

// Sessions lists the caller's active sessions, newest first.
func (s *Accounts) Sessions(ctx context.Context, v ctf.Viewer) ([]live.SessionView, error) {
	if v.User == nil {
		return nil, ctf.ErrAuthRequired
	}
	out, ok := s.live.State().Accounts().SessionsOf(v.User.ID, v.Session, s.now())
	if !ok {
		return nil, ctf.ErrAuthRequired
	}
	return out, nil
}

// RevokeSession ends one of the caller's sessions.
func (s *Accounts) RevokeSession(ctx context.Context, v ctf.Viewer, id string) error {
	if v.User == nil {
		return ctf.ErrAuthRequired
	}
	return s.revokeSessions(ctx, v.User.ID, id, false)
}

// RevokeOtherSessions ends every session of the caller but the current one.
func (s *Accounts) RevokeOtherSessions(ctx context.Context, v ctf.Viewer) error {
	if v.User == nil {
		return ctf.ErrAuthRequired
	}
	return s.revokeSessions(ctx, v.User.ID, v.Session, true)
}

func (s *Accounts) revokeSessions(ctx context.Context, userID, idHash string, allBut bool) error {
	defer s.live.Write()()
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
	s.live.Apply(nil, func(tx *live.Tx) { tx.PutSessions(userID, e.Sessions[userID]) })
	return nil
}

// applyOwnWithSessions applies this process's committed change of a user
// that also ended sessions of theirs (seqs: its rows in the change log):
// the user as written and their sessions as read back. The change stands
// whatever the read does, so its failure is logged, not returned (an
// error would tell the caller that turning two-factor on failed, and lose
// the recovery codes, while it is on); the rows are then not marked as
// this process's own, and the next catch-up applies them, the ended
// sessions included. The caller holds live.Write.
func (s *Accounts) applyOwnWithSessions(ctx context.Context, u ctf.User, seqs []int64) {
	e, err := s.db.Entities(context.WithoutCancel(ctx), []store.ChangeRef{{Kind: store.ChangeSessions, Entity: u.ID}})
	if err != nil {
		s.log.Warn("read a user's sessions back after a change; the next catch-up applies it", "user", u.ID, "err", err)
		seqs = nil
	}
	s.live.Apply(seqs, func(tx *live.Tx) {
		tx.PutUser(u)
		if err == nil {
			tx.PutSessions(u.ID, e.Sessions[u.ID])
		}
	})
}
