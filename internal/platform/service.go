// Package platform is what every front door of Flagship shares: the rules of
// play (submit, unlocking, writeups, profiles, the leaderboard) and the
// in-memory hot state that serves reads without touching the database.
package platform

import (
	"context"

	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/store"
)

// Store is the part of the database the service uses.
type Store interface {
	Snapshot(ctx context.Context) (*store.Snapshot, error)
	Revision(ctx context.Context) (int64, error)
	RecordSubmission(ctx context.Context, s store.Submission, limit store.RateLimit) (store.Recorded, error)
	Sequences(ctx context.Context) (solve, attempt int64, err error)
	ChangesSince(ctx context.Context, solveAfter int64, solveGaps []int64, attemptAfter int64, attemptGaps []int64) ([]ctf.Solve, []store.AttemptRef, error)
	SolvesSince(ctx context.Context, after int64, gaps []int64) ([]ctf.Solve, error)
	APIKeyByPrefix(ctx context.Context, prefix string) (ctf.APIKey, error)
	APIKeys(ctx context.Context, userID string) ([]ctf.APIKey, error)
	TouchAPIKey(ctx context.Context, keyID string, at time.Time) error
	SessionByHash(ctx context.Context, idHash string) (ctf.Session, error)
	Writeups(ctx context.Context, challengeID, userID string) ([]ctf.Writeup, error)
	File(ctx context.Context, sha string) ([]byte, error)
	Ping(ctx context.Context) error
}

// Options configure a Service.
type Options struct {
	PublicURL string          // base of file links, without trailing slash
	RateLimit store.RateLimit // wrong submissions per user and challenge
	Logger    *slog.Logger
	Now       func() time.Time
}

// Service runs one event.
type Service struct {
	db   Store
	opts Options
	log  *slog.Logger
	now  func() time.Time

	st atomic.Pointer[state]
	// gate lets a reload take a consistent snapshot: submissions hold it
	// shared from their database write until the hot state has the result.
	gate     sync.RWMutex
	reloadMu sync.Mutex

	solveMu     sync.Mutex
	lastSolveAt time.Time

	wake chan struct{}
}

// New returns a Service over db; call Load before serving.
func New(db Store, opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{db: db, opts: opts, log: opts.Logger, now: opts.Now, wake: make(chan struct{}, 1)}
}

func (s *Service) state() *state { return s.st.Load() }

// Load builds the hot state from the database.
func (s *Service) Load(ctx context.Context) error {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	s.gate.Lock()
	defer s.gate.Unlock()
	snap, err := s.db.Snapshot(ctx)
	if err != nil {
		return fmt.Errorf("load event state: %w", err)
	}
	s.st.Store(newState(snap, s.opts.PublicURL, s.now()))
	return nil
}

// Refresh brings the hot state up to date with the database: it rebuilds
// it if an operator changed the event, else it applies the submissions that
// other processes on the same database recorded.
func (s *Service) Refresh(ctx context.Context) error {
	rev, err := s.db.Revision(ctx)
	if err != nil {
		return err
	}
	if cur := s.state(); cur != nil && cur.revision == rev {
		return s.catchUp(ctx)
	}
	start := time.Now()
	if err := s.Load(ctx); err != nil {
		return err
	}
	s.log.Info("event state reloaded", "revision", rev, "duration", time.Since(start))
	return nil
}

func (s *Service) catchUp(ctx context.Context) error {
	solveMax, attemptMax, err := s.db.Sequences(ctx)
	if err != nil {
		return err
	}
	st := s.state()
	st.mu.RLock()
	behind := solveMax > st.solveSeqs.max || attemptMax > st.attemptSeqs.max ||
		len(st.solveSeqs.gaps) > 0 || len(st.attemptSeqs.gaps) > 0
	st.mu.RUnlock()
	if !behind {
		return nil
	}
	// With the gate held no submission of this process is between its
	// database write and its state update, so every row the trackers ask
	// for is either another process's or known as their own.
	s.gate.Lock()
	defer s.gate.Unlock()
	st = s.state()
	st.mu.RLock()
	solveAfter, solveGaps := st.solveSeqs.query()
	attemptAfter, attemptGaps := st.attemptSeqs.query()
	st.mu.RUnlock()
	solves, attempts, err := s.db.ChangesSince(ctx, solveAfter, solveGaps, attemptAfter, attemptGaps)
	if err != nil {
		return err
	}
	st.catchUp(solves, attempts, s.now())
	return nil
}

// Wake asks the watcher to catch up now rather than at its next tick:
// called when the database announces another process's submission.
func (s *Service) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Watch refreshes the hot state every interval until ctx ends.
func (s *Service) Watch(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.wake:
		}
		if err := s.Refresh(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("refresh event state", "err", err)
		}
	}
}

// Healthy reports whether the database answers within a second.
func (s *Service) Healthy(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	return s.db.Ping(ctx) == nil
}

// Viewer is the caller of a request: nil User means anonymous.
type Viewer struct {
	User  *ctf.User
	KeyID string
}

// ID returns the caller's user id, "" for anonymous.
func (v Viewer) ID() string {
	if v.User == nil {
		return ""
	}
	return v.User.ID
}

var errBadKey = ctf.Errorf(ctf.Unauthorized, "invalid API key")

// AuthenticateKey resolves a presented API key. Unknown, malformed and
// revoked keys are all Unauthorized with the same message, so a caller
// learns nothing about which keys exist.
func (s *Service) AuthenticateKey(ctx context.Context, key string) (Viewer, error) {
	prefix, err := parseKey(key)
	if err != nil {
		return Viewer{}, errBadKey
	}
	k, err := s.db.APIKeyByPrefix(ctx, prefix)
	if ctf.ErrorCode(err) == ctf.NotFound {
		return Viewer{}, errBadKey
	}
	if err != nil {
		return Viewer{}, err
	}
	if !equalHash(k.Hash, hashToken(key)) || k.RevokedAt != nil {
		return Viewer{}, errBadKey
	}
	u, err := s.userByID(ctx, k.UserID)
	if err != nil {
		return Viewer{}, err
	}
	now := s.now()
	if k.LastUsedAt == nil || now.Sub(*k.LastUsedAt) >= time.Minute {
		if err := s.db.TouchAPIKey(ctx, k.ID, now); err != nil {
			s.log.Warn("touch API key", "err", err)
		}
	}
	return Viewer{User: u, KeyID: k.ID}, nil
}

var errBadSession = ctf.Errorf(ctf.Unauthorized, "session expired; please log in again")

// AuthenticateSession resolves a web session cookie value.
func (s *Service) AuthenticateSession(ctx context.Context, token string) (Viewer, error) {
	if token == "" || len(token) > 128 {
		return Viewer{}, errBadSession
	}
	sess, err := s.db.SessionByHash(ctx, hashToken(token))
	if ctf.ErrorCode(err) == ctf.NotFound {
		return Viewer{}, errBadSession
	}
	if err != nil {
		return Viewer{}, err
	}
	if sess.RevokedAt != nil || !s.now().Before(sess.ExpiresAt) {
		return Viewer{}, errBadSession
	}
	u, err := s.userByID(ctx, sess.UserID)
	if err != nil {
		return Viewer{}, err
	}
	return Viewer{User: u}, nil
}

// userByID finds a user in the hot state, refreshing it once if the user is
// newer than the state (created by the operator a moment ago).
func (s *Service) userByID(ctx context.Context, id string) (*ctf.User, error) {
	for attempt := 0; attempt < 2; attempt++ {
		st := s.state()
		st.mu.RLock()
		u := st.users[id]
		st.mu.RUnlock()
		if u != nil {
			cp := u.User
			return &cp, nil
		}
		if attempt == 0 {
			if err := s.Refresh(ctx); err != nil {
				return nil, err
			}
		}
	}
	return nil, errBadKey
}

// ErrNoChallenge is the answer for unknown and hidden challenges alike.
var ErrNoChallenge = ctf.Errorf(ctf.NotFound, "challenge not found")

// ChallengeExists reports whether slug names a visible challenge.
func (s *Service) ChallengeExists(slug string) bool {
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	return st.visibleBySlug(slug) != nil
}

// File returns the bytes of a challenge file if a visible challenge serves
// it under that name.
func (s *Service) File(ctx context.Context, sha, name string) ([]byte, error) {
	st := s.state()
	st.mu.RLock()
	served := false
	for _, c := range st.visible {
		if c.FileSHA256 == sha && c.FileName == name {
			served = true
			break
		}
	}
	st.mu.RUnlock()
	if !served {
		return nil, ctf.Errorf(ctf.NotFound, "file not found")
	}
	data, err := s.db.File(ctx, sha)
	if ctf.ErrorCode(err) == ctf.NotFound {
		return nil, ctf.Errorf(ctf.NotFound, "file not found")
	}
	return data, err
}
