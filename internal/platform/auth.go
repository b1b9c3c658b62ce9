package platform

import (
	"context"
	"sync"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/secret"
	"github.com/flagshipctf/flagship/internal/store"
)

var (
	parseKey  = secret.ParseAPIKey
	hashToken = secret.HashToken
	equalHash = secret.EqualHash
)

// Viewer is the caller of a use case: nil User means anonymous.
type Viewer struct {
	User     *ctf.User
	KeyID    string // the API key that authenticated the call, if one did
	ReadOnly bool   // that key is read-only: no submissions
	// Session is the id hash of the web session that authenticated the
	// call, if one did (a password change keeps it, ending the others).
	Session string
	// Operator is the operator's CLI: an admin that is no account.
	Operator bool
	// Door is the front door the call came through (ctf.DoorAPI, DoorWeb,
	// DoorMCP), recorded with a submission: a key authenticates for the
	// API and a session for the web app until a front door says otherwise.
	Door ctf.Door
}

// Operator is the viewer of the operator's commands (flagship user, apikey,
// load): every admin use case is open to it, and the audit log names it.
var Operator = Viewer{Operator: true}

// ID returns the caller's user id, "" for anonymous.
func (v Viewer) ID() string {
	if v.User == nil {
		return ""
	}
	return v.User.ID
}

// admin reports whether v may run the admin use cases.
// IsAdmin reports whether v may use the admin use cases (an admin who is
// not banned, or the operator): front doors ask it to choose what to show.
func (v Viewer) IsAdmin() bool { return v.admin() }

func (v Viewer) admin() bool {
	return v.Operator || (v.User != nil && v.User.Role == ctf.RoleAdmin && !v.User.Banned)
}

var errBadKey = ctf.Errorf(ctf.Unauthorized, "invalid API key")

// keyTouchEvery and sessionTouchEvery coalesce the records of uses:
// docs/product.md#api-keys asks lastUsedAt at most once a minute per key.
const (
	keyTouchEvery     = time.Minute
	sessionTouchEvery = 5 * time.Minute
)

// AuthenticateKey resolves a presented API key from memory: no database
// round trip. Unknown, malformed and revoked keys are all Unauthorized
// with the same message, so a caller learns nothing about which keys
// exist. A key made by another process a moment ago is found by one
// catch-up.
func (s *Accounts) AuthenticateKey(ctx context.Context, key string) (Viewer, error) {
	prefix, err := parseKey(key)
	if err != nil {
		return Viewer{}, errBadKey
	}
	hash := hashToken(key)
	for attempt := 0; ; attempt++ {
		st := s.state()
		st.mu.RLock()
		k := st.keys[prefix]
		var v Viewer
		ok := k != nil && equalHash(k.Hash, hash) && k.RevokedAt == nil
		if ok {
			u := st.users[k.UserID]
			ok = u != nil
			if ok {
				cp := u.User
				v = Viewer{User: &cp, KeyID: k.ID, ReadOnly: k.ReadOnly, Door: ctf.DoorAPI}
				s.touchKey(k)
			}
		}
		st.mu.RUnlock()
		if ok {
			return v, nil
		}
		if attempt > 0 || k != nil || !s.catchUpOnMiss(ctx) {
			return Viewer{}, errBadKey
		}
	}
}

// catchUpOnMiss catches up with the database once, for a credential
// unknown here that another process may have made a moment ago. At most
// one such catch-up runs per missInterval, so a flood of bad keys costs
// the database nothing much; it reports whether it ran.
func (s *core) catchUpOnMiss(ctx context.Context) bool {
	s.missMu.Lock()
	now := time.Now()
	if now.Sub(s.lastMiss) < missInterval {
		s.missMu.Unlock()
		return false
	}
	s.lastMiss = now
	s.missMu.Unlock()
	if err := s.refresh(ctx); err != nil {
		s.log.Warn("catch up for an unknown credential", "err", err)
		return false
	}
	return true
}

const missInterval = 100 * time.Millisecond

var errBadSession = ctf.Errorf(ctf.Unauthorized, "session expired; please log in again")

// AuthenticateSession resolves a web session cookie value from memory.
func (s *Accounts) AuthenticateSession(ctx context.Context, token string) (Viewer, error) {
	if token == "" || len(token) > 128 {
		return Viewer{}, errBadSession
	}
	hash := hashToken(token)
	now := s.now()
	for attempt := 0; ; attempt++ {
		st := s.state()
		st.mu.RLock()
		x := st.sessions[hash]
		var v Viewer
		ok := false
		if x != nil {
			sess := x.Session
			sess.LastSeenAt = time.UnixMilli(x.lastSeen.Load())
			// A banned user's sessions stop while the ban lasts.
			if u := st.users[x.UserID]; u != nil && sess.Active(now) && !st.banned(&u.User) {
				cp := u.User
				v, ok = Viewer{User: &cp, Session: hash, Door: ctf.DoorWeb}, true
				s.touchSession(x, now)
			}
		}
		st.mu.RUnlock()
		if ok {
			return v, nil
		}
		if attempt > 0 || x != nil || !s.catchUpOnMiss(ctx) {
			return Viewer{}, errBadSession
		}
	}
}

// touches are the uses of keys and sessions noted in memory and not yet
// written: lastUsedAt is written off the request path, so a busy database
// never slows a read.
type touches struct {
	mu       sync.Mutex
	keys     map[string]int64 // key id -> Unix ms
	sessions map[string]sessionTouch
}

type sessionTouch struct {
	user string
	at   int64
}

// touchKey notes a use of k, at most once per keyTouchEvery; the caller
// holds the state's read lock.
func (s *core) touchKey(k *apiKey) {
	now := s.now().UnixMilli()
	last := k.lastUsed.Load()
	if now-last < keyTouchEvery.Milliseconds() || !k.lastUsed.CompareAndSwap(last, now) {
		return
	}
	s.touches.mu.Lock()
	s.touches.keys[k.ID] = now
	s.touches.mu.Unlock()
}

func (s *core) touchSession(x *session, now time.Time) {
	ms := now.UnixMilli()
	last := x.lastSeen.Load()
	if ms-last < sessionTouchEvery.Milliseconds() || !x.lastSeen.CompareAndSwap(last, ms) {
		return
	}
	s.touches.mu.Lock()
	s.touches.sessions[x.IDHash] = sessionTouch{user: x.UserID, at: ms}
	s.touches.mu.Unlock()
}

// FlushTouches writes the uses of keys and sessions noted since the last
// flush, in one transaction each, and logs them so every replica shows
// them. What fails to be written is kept for the next flush.
func (s *core) flushTouches(ctx context.Context) {
	s.touches.mu.Lock()
	keys, sessions := s.touches.keys, s.touches.sessions
	if len(keys) == 0 && len(sessions) == 0 {
		s.touches.mu.Unlock()
		return
	}
	s.touches.keys, s.touches.sessions = map[string]int64{}, map[string]sessionTouch{}
	s.touches.mu.Unlock()

	requeue := func() {
		s.touches.mu.Lock()
		defer s.touches.mu.Unlock()
		for id, at := range keys {
			if s.touches.keys[id] < at {
				s.touches.keys[id] = at
			}
		}
		for id, t := range sessions {
			if s.touches.sessions[id].at < t.at {
				s.touches.sessions[id] = t
			}
		}
	}
	s.gate.RLock()
	defer s.gate.RUnlock()
	var seqs []int64
	if len(keys) > 0 {
		list := make([]store.Touch, 0, len(keys))
		for id, at := range keys {
			list = append(list, store.Touch{ID: id, At: time.UnixMilli(at)})
		}
		ks, err := s.db.TouchAPIKeys(ctx, list)
		if err != nil {
			s.log.Warn("record API key uses", "err", err)
			requeue()
			return
		}
		seqs = append(seqs, ks...)
	}
	if len(sessions) > 0 {
		list := make([]store.Touch, 0, len(sessions))
		users := map[string]bool{}
		var ids []string
		for id, t := range sessions {
			list = append(list, store.Touch{ID: id, At: time.UnixMilli(t.at)})
			if !users[t.user] {
				users[t.user] = true
				ids = append(ids, t.user)
			}
		}
		ss, err := s.db.TouchSessions(ctx, list, ids)
		if err != nil {
			s.log.Warn("record session uses", "err", err)
			requeue()
			return
		}
		seqs = append(seqs, ss...)
	}
	// Memory has these times already.
	s.applyOwn(seqs, func(*state, dirtySet) {})
}

// userByID returns a copy of a user from the hot state.
func (s *core) userByID(id string) (*ctf.User, bool) {
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	u := st.users[id]
	if u == nil {
		return nil, false
	}
	cp := u.User
	return &cp, true
}
