// Package platform is what every front door of Flagship shares: the use
// cases (play, accounts, API keys, reviews and writeups, administration)
// with their rules, and the in-memory hot state that serves reads without
// touching the database, kept current on every replica by applying each
// change as it is recorded.
package platform

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/filecache"
	"github.com/flagshipctf/flagship/internal/store"
)

// Store is the database as the use cases use it: *store.DB and its areas
// (stores.go).
type Store interface {
	Snapshot(ctx context.Context) (*store.Snapshot, error)
	Heads(ctx context.Context) (store.Heads, error)
	Since(ctx context.Context, c store.Cursor) (*store.Delta, error)
	Entities(ctx context.Context, refs []store.ChangeRef) (store.Entities, error)
	SolvesSince(ctx context.Context, after int64, gaps []int64) ([]ctf.Solve, error)
	WrongBaseline(ctx context.Context, userID string, max int64, unseen []int64) (map[string]int64, error)
	RecordSubmissions(ctx context.Context, subs []store.Submission, limit store.RateLimit) ([]store.SubmitOutcome, error)
	Submissions(ctx context.Context, userID string) ([]store.SubmissionRecord, error)
	PruneChanges(ctx context.Context) error
	PruneSignups(ctx context.Context, before time.Time) error
	FileSize(ctx context.Context, sha string) (int64, error)
	FileChunks(ctx context.Context, sha string, fn func([]byte) error) error
	Probe(ctx context.Context, write bool) error

	CreateUser(ctx context.Context, u ctf.User, audit *ctf.AuditEntry) ([]int64, error)
	UpdateUser(ctx context.Context, id string, up store.UserUpdate, keepSession string, audit *ctf.AuditEntry) (ctf.User, []int64, error)
	TwoFactorOf(ctx context.Context, userID string) (store.TwoFactor, error)
	BeginTwoFactor(ctx context.Context, userID, secret string) error
	EnableTwoFactor(ctx context.Context, userID, secret string, step int64, codeHashes []string, keepSession string) (ctf.User, []int64, error)
	DisableTwoFactor(ctx context.Context, userID, keepSession string) (ctf.User, []int64, error)
	UseTOTPStep(ctx context.Context, userID string, step int64) (bool, error)
	UseRecoveryCode(ctx context.Context, userID, codeHash string, at time.Time) (bool, error)
	RecoveryCodesLeft(ctx context.Context, userID string) (int, error)
	ReserveLoginAttempt(ctx context.Context, th store.Throttle, at time.Time) (int64, store.LoginFailures, error)
	ForgiveLoginAttempt(ctx context.Context, id int64) error
	ReserveSignup(ctx context.Context, address string, max int, since, at time.Time) (int64, time.Time, error)
	ForgiveSignup(ctx context.Context, id int64) error
	ClearLoginFailures(ctx context.Context, account string, before time.Time) error

	CreateAPIKey(ctx context.Context, k ctf.APIKey, audit *ctf.AuditEntry) ([]int64, error)
	RevokeAPIKey(ctx context.Context, userID, keyID string, at time.Time, audit *ctf.AuditEntry) (ctf.APIKey, []int64, error)
	TouchAPIKeys(ctx context.Context, touches []store.Touch) ([]int64, error)
	CreateSession(ctx context.Context, s ctf.Session) ([]int64, error)
	RevokeSessions(ctx context.Context, userID, idHash string, all bool, at time.Time) ([]int64, error)
	TouchSessions(ctx context.Context, touches []store.Touch, users []string) ([]int64, error)

	PutReview(ctx context.Context, r ctf.Review) (ctf.Review, []int64, error)
	PutWriteup(ctx context.Context, w ctf.Writeup) (ctf.Writeup, []int64, error)
	ModerateWriteup(ctx context.Context, id string, status ctf.WriteupStatus, reason string, audit *ctf.AuditEntry) (ctf.Writeup, []int64, error)
	PutChallenge(ctx context.Context, c ctf.Challenge, file []byte, audit *ctf.AuditEntry) ([]int64, error)
	AuditLog(ctx context.Context, before int64, limit int) ([]ctf.AuditEntry, error)
	AddAudit(ctx context.Context, a ctf.AuditEntry) error
	PutEvent(ctx context.Context, e ctf.Event, audit *ctf.AuditEntry) ([]int64, error)
	PostAnnouncement(ctx context.Context, a ctf.Announcement, audit *ctf.AuditEntry) ([]int64, error)
	AppendStreamOnce(ctx context.Context, r store.StreamRow) (bool, error)
	StreamAfter(ctx context.Context, after int64, limit int) ([]store.StreamRow, error)
	Webhooks(ctx context.Context) ([]store.Webhook, error)
	Webhook(ctx context.Context, id string) (store.Webhook, error)
	CreateWebhook(ctx context.Context, w store.Webhook, audit *ctf.AuditEntry) (store.Webhook, error)
	SetWebhookEnabled(ctx context.Context, id string, enabled bool, audit *ctf.AuditEntry) error
	DeleteWebhook(ctx context.Context, id string, audit *ctf.AuditEntry) error
	Deliveries(ctx context.Context, webhookID string, limit int) ([]store.Delivery, error)
	ProduceDeliveries(ctx context.Context, upTo int64, build func(after int64, hooks []store.Webhook) ([]store.NewDelivery, int64, error)) (int, error)
	// InLoad and InDump run a dataset's load and dump (package transfer).
	InLoad(ctx context.Context, fn func(*store.LoadTx) error) error
	InDump(ctx context.Context, fn func(*store.DumpTx) error) error
}

// Options configure a Service.
type Options struct {
	PublicURL string          // base of file links, without trailing slash
	RateLimit store.RateLimit // wrong submissions per user and challenge
	// RegistrationClosed refuses sign-ups; admins and the operator still
	// create accounts.
	RegistrationClosed bool
	// SignupLimit is how many accounts one client address may open by
	// signing up within an hour (0: no limit); admins and the operator
	// are not limited.
	SignupLimit int
	// MaxFileBytes bounds an uploaded challenge file (0: DefaultMaxFileBytes).
	MaxFileBytes int
	// FilesDir is where challenge files are cached on disk, by SHA-256
	// ("": flagship-files in the system's temporary directory).
	FilesDir string
	Logger   *slog.Logger
	Now      func() time.Time
	// Observer is told what happens, for metrics (nil: nothing).
	Observer Observer
	// WebhooksAllowPrivate lets webhooks target loopback, private,
	// link-local and metadata addresses (serve --webhooks-allow-private).
	WebhooksAllowPrivate bool
}

// Service runs one event.
type Service struct {
	db   Store
	opts Options
	log  *slog.Logger
	now  func() time.Time

	st atomic.Pointer[state]
	// gate lets a catch-up read the database and apply what it read without
	// this process's own writes interleaving: every write holds it shared
	// from its database write until the hot state has the result, and a
	// catch-up holds it exclusively.
	gate     sync.RWMutex
	reloadMu sync.Mutex
	rebuilds atomic.Int64

	batch batcher // submissions waiting for their group commit

	touches  touches
	hashes   chan struct{} // a slot per password hash running (throttle.go)
	missMu   sync.Mutex
	lastMiss time.Time
	health   health
	files    struct {
		once  sync.Once
		cache *filecache.Cache
		err   error
	}
	// fileSizes remembers the sizes of stored files by SHA-256 (FileOf):
	// a file's address is its content, so its size never changes.
	fileSizes sync.Map

	// boardFns are told of every move of the leaderboard (copied on
	// write: they are called under the state's lock).
	boardMu  sync.Mutex
	boardFns atomic.Pointer[[]func()]

	wake  chan struct{}
	obs   Observer
	hub   *hub
	moves clockMoves
}

// New returns a Service over db; call Load before serving.
func New(db *store.DB, opts Options) *Service { return newService(storesOf(db), opts) }

// newService returns a Service over any Store (tests wrap the database's).
func newService(db Store, opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Observer == nil {
		opts.Observer = noObserver{}
	}
	return &Service{db: db, opts: opts, log: opts.Logger, now: opts.Now, wake: make(chan struct{}, 1), obs: opts.Observer, hub: newHub(),
		touches: touches{keys: map[string]int64{}, sessions: map[string]sessionTouch{}}, hashes: make(chan struct{}, runtime.GOMAXPROCS(0))}
}

// state returns the hot state, its clock moved to now first if an instant
// passed (see tick).
func (s *Service) state() *state {
	st := s.st.Load()
	if st != nil {
		s.tick(st, false)
	}
	return st
}

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
	var after uint64
	if old := s.st.Load(); old != nil {
		old.mu.RLock()
		after = old.lastVersion()
		old.mu.RUnlock()
	}
	st := newStateAfter(snap, s.opts.PublicURL, s.now(), after)
	st.onBoard = s.boardMoved
	recent, err := s.recentEvents(ctx, st, snap.Stream)
	if err != nil {
		return fmt.Errorf("load event state: %w", err)
	}
	s.st.Store(st)
	s.rebuilds.Add(1)
	s.hub.publish(recent, snap.Stream)
	// The snapshot, as big as the state, is garbage now. Give the memory
	// back at once: the runtime would keep it for minutes, and a replica's
	// resident size would be that of its rebuild, not of its state.
	snap = nil
	debug.FreeOSMemory()
	s.boardMoved()
	return nil
}

// OnLeaderboardChange registers fn to be called whenever the leaderboard's
// version moves (LeaderboardVersion), on this replica's writes and on what
// it reads of others', so a front door can rebuild what it derives from the
// board without asking after every request. fn is called with the event's
// state locked: it must return at once and must not call the Service.
func (s *Service) OnLeaderboardChange(fn func()) {
	s.boardMu.Lock()
	defer s.boardMu.Unlock()
	old := s.boardFns.Load()
	fns := []func(){fn}
	if old != nil {
		fns = append(append([]func(){}, *old...), fn)
	}
	s.boardFns.Store(&fns)
}

func (s *Service) boardMoved() {
	if fns := s.boardFns.Load(); fns != nil {
		for _, fn := range *fns {
			fn()
		}
	}
}

// Rebuilds counts how many times the hot state was built from a full read
// of the database (Load): once at start, then only after a bulk change
// (flagship load); every other change applies incrementally.
func (s *Service) Rebuilds() int64 { return s.rebuilds.Load() }

// Refresh brings the hot state up to date with the database: it applies
// what other processes recorded since the last refresh, or rebuilds the
// state after a bulk load, or if the change log was pruned past what this
// process has read.
func (s *Service) Refresh(ctx context.Context) error {
	h, err := s.db.Heads(ctx)
	if err != nil {
		return err
	}
	if cur := s.state(); cur != nil && cur.revision == h.Revision && !cur.missedChanges(h) {
		return s.catchUp(ctx, h)
	}
	start := time.Now()
	if err := s.Load(ctx); err != nil {
		return err
	}
	s.log.Info("event state rebuilt", "revision", h.Revision, "duration", time.Since(start))
	return nil
}

// missedChanges reports whether the change log lost rows this state never
// read (pruned while this process was stalled).
func (st *state) missedChanges(h store.Heads) bool {
	st.mu.RLock()
	defer st.mu.RUnlock()
	return h.OldestChange > st.changeSeqs.max+1 && h.Change > st.changeSeqs.max
}

func (s *Service) catchUp(ctx context.Context, h store.Heads) error {
	st := s.state()
	st.mu.RLock()
	behind := h.Solve > st.solveSeqs.max || h.Attempt > st.attemptSeqs.max || h.Change > st.changeSeqs.max || h.Stream > st.streamMax ||
		len(st.solveSeqs.gaps) > 0 || len(st.attemptSeqs.gaps) > 0 || len(st.changeSeqs.gaps) > 0
	st.mu.RUnlock()
	if !behind {
		return nil
	}
	// With the gate held no write of this process is between its database
	// write and its state update, so every row the trackers ask for is
	// either another process's or known as their own.
	s.gate.Lock()
	defer s.gate.Unlock()
	st = s.state()
	st.mu.RLock()
	var c store.Cursor
	c.StreamAfter = st.streamMax
	c.SolveAfter, c.SolveGaps = st.solveSeqs.query()
	c.AttemptAfter, c.AttemptGaps = st.attemptSeqs.query()
	c.ChangeAfter, c.ChangeGaps = st.changeSeqs.query()
	st.mu.RUnlock()
	d, err := s.db.Since(ctx, c)
	if err != nil {
		return err
	}
	// The change log names entities; their current rows are read only for
	// the changes this process did not make itself.
	st.mu.Lock()
	var fresh []store.ChangeRef
	seqs := make([]int64, 0, len(d.Changes))
	for _, r := range d.Changes {
		seqs = append(seqs, r.Seq)
		if st.changeSeqs.admit(r.Seq) {
			fresh = append(fresh, r)
		}
	}
	st.changeSeqs.advance(seqs, s.now())
	st.mu.Unlock()
	var e store.Entities
	if len(fresh) > 0 {
		if e, err = s.db.Entities(ctx, fresh); err != nil {
			return err
		}
		st.mu.RLock()
		ids := st.needsBaseline(e.Users)
		st.mu.RUnlock()
		if err := s.loadBaselines(ctx, st, ids); err != nil {
			return err
		}
	}
	evs, moves := st.catchUp(e, d, s.now(), s.obs)
	s.hub.publish(evs, 0)
	s.noteClockMoves(moves)
	return nil
}

// loadBaselines reads what the snapshot counted of the wrong submissions
// of users whose player status is about to change (a ban, a promotion),
// so the public counts move by exactly their share. Rare, so not read for
// every user at start.
func (s *Service) loadBaselines(ctx context.Context, st *state, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	st.mu.RLock()
	max, unseen := st.snapAttempts.max, st.snapAttempts.unseen
	var need []string
	for _, id := range ids {
		if u := st.users[id]; u != nil && u.base == nil {
			need = append(need, id)
		}
	}
	st.mu.RUnlock()
	for _, id := range need {
		base, err := s.db.WrongBaseline(ctx, id, max, unseen)
		if err != nil {
			return err
		}
		st.mu.Lock()
		if u := st.users[id]; u != nil && u.base == nil {
			u.base = base
		}
		st.mu.Unlock()
	}
	return nil
}

// Wake asks the watcher to catch up now rather than at its next tick:
// called when the database announces another process's write.
func (s *Service) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Watch refreshes the hot state every interval until ctx ends, and writes
// the uses of keys and sessions noted meanwhile. It flushes them once more
// as it returns.
func (s *Service) Watch(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	lastPrune := time.Time{}
	for {
		select {
		case <-ctx.Done():
			flushCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			s.FlushTouches(flushCtx)
			cancel()
			return
		case <-t.C:
		case <-s.wake:
		}
		if err := s.Refresh(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("refresh event state", "err", err)
		}
		if err := s.produceWebhookDeliveries(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("make webhook deliveries", "err", err)
		}
		if st := s.st.Load(); st != nil {
			s.tick(st, true)
		}
		s.recordClockMoves(ctx)
		s.FlushTouches(ctx)
		if now := s.now(); now.Sub(lastPrune) > 10*time.Minute {
			lastPrune = now
			if err := s.db.PruneChanges(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("prune the change log", "err", err)
			}
			// A sign-up deletes its own address's old rows only.
			if err := s.db.PruneSignups(ctx, now.Add(-signupWindow)); err != nil && ctx.Err() == nil {
				s.log.Warn("prune old sign-ups", "err", err)
			}
		}
	}
}

// applyOwn applies this process's own write to the hot state: seqs are its
// rows in the change log (skipped when a catch-up reads them), fn the
// change. The caller holds the gate shared since before its write.
func (s *Service) applyOwn(seqs []int64, fn func(st *state, dirty dirtySet)) {
	st := s.state()
	if st == nil {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, seq := range seqs {
		st.changeSeqs.markOwn(seq)
	}
	dirty := dirtySet{}
	fn(st, dirty)
	st.changed(dirty)
}

// ErrNoChallenge is the answer for unknown and hidden challenges alike.
var ErrNoChallenge = ctf.Errorf(ctf.NotFound, "challenge not found")
