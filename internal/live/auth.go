package live

import (
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/secret"
)

// Credentials are checked from memory on every request. A use of a key or
// a session is noted in the state at most once per interval (atomically,
// under the read lock); the caller writes what it is told to.

// KeyUse is a use of an API key to record: at (Unix ms) is 0 when none is due.
type KeyUse struct {
	KeyID string
	At    int64
}

// AuthenticateKey resolves an API key given by its prefix and the hash of
// the whole key: the caller as a viewer, whether any key has the prefix
// (known: a miss of an unknown prefix may be a key another process made),
// and the use to record, if one is due (once per every).
func (a Accounts) AuthenticateKey(prefix, hash string, now time.Time, every time.Duration) (v ctf.Viewer, ok, known bool, use KeyUse) {
	st := a.st
	st.mu.RLock()
	defer st.mu.RUnlock()
	k := st.keys[prefix]
	if k == nil {
		return ctf.Viewer{}, false, false, KeyUse{}
	}
	if !secret.EqualHash(k.Hash, hash) || k.RevokedAt != nil {
		return ctf.Viewer{}, false, true, KeyUse{}
	}
	u := st.users[k.UserID]
	if u == nil {
		return ctf.Viewer{}, false, true, KeyUse{}
	}
	cp := u.User
	ms := now.UnixMilli()
	if last := k.lastUsed.Load(); ms-last >= every.Milliseconds() && k.lastUsed.CompareAndSwap(last, ms) {
		use = KeyUse{KeyID: k.ID, At: ms}
	}
	return ctf.Viewer{User: &cp, KeyID: k.ID, ReadOnly: k.ReadOnly, Door: ctf.DoorAPI}, true, true, use
}

// SessionUse is a use of a session to record: at (Unix ms) is 0 when none
// is due.
type SessionUse struct {
	IDHash, UserID string
	At             int64
}

// AuthenticateSession resolves a web session by the hash of its token: the
// caller as a viewer (a banned user's sessions stop while the ban lasts),
// whether the session is known here at all, and the use to record, if one
// is due (once per every).
func (a Accounts) AuthenticateSession(hash string, now time.Time, every time.Duration) (v ctf.Viewer, ok, known bool, use SessionUse) {
	st := a.st
	st.mu.RLock()
	defer st.mu.RUnlock()
	x, u, known := st.activeSession(hash, now)
	if u == nil || st.banned(&u.User) {
		return ctf.Viewer{}, false, known, SessionUse{}
	}
	cp := u.User
	ms := now.UnixMilli()
	if last := x.lastSeen.Load(); ms-last >= every.Milliseconds() && x.lastSeen.CompareAndSwap(last, ms) {
		use = SessionUse{IDHash: x.IDHash, UserID: x.UserID, At: ms}
	}
	return ctf.Viewer{User: &cp, Session: hash, Door: ctf.DoorWeb}, true, true, use
}

// activeSession returns the session whose token hashes to hash and its
// user, or a nil user when the session has ended (or its user is gone);
// known: whether the session is known here at all. The caller holds st.mu.
func (st *State) activeSession(hash string, now time.Time) (x *session, u *user, known bool) {
	x = st.sessions[hash]
	if x == nil {
		return nil, nil, false
	}
	sess := x.Session
	sess.LastSeenAt = time.UnixMilli(x.lastSeen.Load())
	if !sess.Active(now) {
		return x, nil, true
	}
	return x, st.users[x.UserID], true
}

// User returns a copy of a user.
func (a Accounts) User(id string) (*ctf.User, bool) {
	st := a.st
	st.mu.RLock()
	defer st.mu.RUnlock()
	u := st.users[id]
	if u == nil {
		return nil, false
	}
	cp := u.User
	return &cp, true
}
