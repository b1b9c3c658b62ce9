package platform

import (
	"context"
	"sync"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/secret"
	"github.com/flagshipctf/flagship/internal/store"
)

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
func (s *Accounts) AuthenticateKey(ctx context.Context, key string) (ctf.Viewer, error) {
	prefix, err := secret.ParseAPIKey(key)
	if err != nil {
		return ctf.Viewer{}, errBadKey
	}
	hash := secret.HashToken(key)
	for attempt := 0; ; attempt++ {
		v, ok, known, use := s.live.State().Accounts().AuthenticateKey(prefix, hash, s.now(), keyTouchEvery)
		if use.At != 0 {
			s.touches.mu.Lock()
			s.touches.keys[use.KeyID] = use.At
			s.touches.mu.Unlock()
		}
		if ok {
			return v, nil
		}
		if attempt > 0 || known || !s.catchUpOnMiss(ctx) {
			return ctf.Viewer{}, errBadKey
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
	if err := s.live.Refresh(ctx); err != nil {
		s.log.Warn("catch up for an unknown credential", "err", err)
		return false
	}
	return true
}

const missInterval = 100 * time.Millisecond

var errBadSession = ctf.Errorf(ctf.Unauthorized, "session expired; please log in again")

// sessionHash is the hash a session is known by, of a cookie's value;
// false for a value no session can have.
func sessionHash(token string) (string, bool) {
	if token == "" || len(token) > 128 {
		return "", false
	}
	return secret.HashToken(token), true
}

// AuthenticateSession resolves a web session cookie value from memory.
func (s *Accounts) AuthenticateSession(ctx context.Context, token string) (ctf.Viewer, error) {
	hash, ok := sessionHash(token)
	if !ok {
		return ctf.Viewer{}, errBadSession
	}
	now := s.now()
	for attempt := 0; ; attempt++ {
		v, ok, known, use := s.live.State().Accounts().AuthenticateSession(hash, now, sessionTouchEvery)
		if use.At != 0 {
			s.touches.mu.Lock()
			s.touches.sessions[use.IDHash] = sessionTouch{user: use.UserID, at: use.At}
			s.touches.mu.Unlock()
		}
		if ok {
			return v, nil
		}
		if attempt > 0 || known || !s.catchUpOnMiss(ctx) {
			return ctf.Viewer{}, errBadSession
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
	defer s.live.Write()()
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
	s.live.Apply(seqs, nil)
}

// userByID returns a copy of a user from the hot state.
func (s *core) userByID(id string) (*ctf.User, bool) { return s.live.State().Accounts().User(id) }
