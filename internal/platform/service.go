// Package platform is what every front door of Flagship shares: the use
// cases, grouped by area (accounts, keys, agents, play, the scoreboard,
// content, administration, the event, the live stream, webhooks), with
// their rules. A use case checks, writes through its area's narrow store
// interface (stores.go) and applies the result to the hot state (package
// live), which answers every read. docs/architecture.md draws the layers.
package platform

import (
	"context"
	"log/slog"
	"runtime"
	"sync"
	"time"

	"github.com/flagshipctf/flagship/internal/filecache"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/store"
)

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
	// Instances configure players' instances (off without an engine).
	Instances InstanceOptions
	// WebhooksAllowPrivate lets webhooks target loopback, private,
	// link-local and metadata addresses (serve --webhooks-allow-private).
	WebhooksAllowPrivate bool
	// Mail says an SMTP server is configured (serve --smtp-url): the
	// outbox's messages are sent, and players may ask for a password
	// reset by email.
	Mail bool
	// RequireEmailVerification: an account signed up confirms its address
	// by a mailed link before it may submit (serve
	// --require-email-verification; needs Mail).
	RequireEmailVerification bool
}

// Service runs one event: the use cases grouped by area, over the hot state
// they share. A front door reaches a use case through its area
// (svc.Play.Submit, svc.Accounts.Login); the Service itself only starts,
// refreshes and watches the state (docs/architecture.md).
type Service struct {
	*core

	Accounts   *Accounts   // sign-up, login, sessions, 2FA, authentication
	Keys       *Keys       // API keys
	Agents     *Agents     // AI agents and their runs
	Play       *Play       // the challenges as players see them, submissions, reviews, writeups
	Scoreboard *Scoreboard // the leaderboard, profiles, the CTFtime standings
	Content    *Content    // challenges and writeups as admins edit and moderate them
	Admin      *Admin      // users, roles, bans, the audit log, import and export
	Event      *Event      // the event's clock and settings, announcements
	Stream     *Stream     // the live stream of what happens, from this replica's memory
	Webhooks   *Webhooks   // outgoing webhooks and their deliveries
	Instances  *Instances  // players' instances of challenges, on a container engine
}

// The areas: each is a set of use cases over the shared core.
type (
	Accounts struct {
		*core
		db accountStore
	}
	Keys struct {
		*core
		db keyStore
	}
	Agents struct {
		*core
		db       agentStore
		accounts *Accounts
	}
	Play struct {
		*core
		db        playStore
		instances *Instances // the shared instances' connection lines
	}
	Scoreboard struct{ *core }
	Content    struct {
		*core
		db contentStore
	}
	Admin struct {
		*core
		db       adminStore
		accounts *Accounts
	}
	Event struct {
		*core
		db eventStore
	}
	Stream   struct{ *core }
	Webhooks struct {
		*core
		db webhookStore
	}
	Instances struct {
		*core
		db       instanceStore
		opts     InstanceOptions
		lastReap time.Time // the watcher's goroutine only (reap)
	}
)

// core is what every area shares: the database, the hot state and the gate
// that orders this process's writes with its catch-ups, and the machinery
// around them (batches, touches, password hashing slots, the stream hub).
type core struct {
	db   coreStore
	opts Options
	log  *slog.Logger
	now  func() time.Time

	// live is the hot state every read is answered from; a write holds
	// live.Write from its database write until it has applied the result.
	live *live.Replica

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
	// zipListings remembers the members of stored zip archives by SHA-256
	// (FileMembers), for the same reason.
	zipListings sync.Map

	flagSecret flagSecret // keys the per-player flags (flagkey.go)

	wake chan struct{}
	obs  Observer
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
	c := &core{db: db, opts: opts, log: opts.Logger, now: opts.Now, wake: make(chan struct{}, 1), obs: opts.Observer,
		touches: touches{keys: map[string]int64{}, sessions: map[string]sessionTouch{}}, hashes: make(chan struct{}, runtime.GOMAXPROCS(0))}
	c.live = live.New(db, live.Options{PublicURL: opts.PublicURL, Logger: opts.Logger, Now: opts.Now, Observer: opts.Observer, Wake: c.wakeUp})
	accounts := &Accounts{c, db}
	inst := &Instances{core: c, db: db, opts: instanceDefaults(opts.Instances)}
	return &Service{core: c, Accounts: accounts, Keys: &Keys{c, db}, Agents: &Agents{c, db, accounts}, Play: &Play{c, db, inst},
		Scoreboard: &Scoreboard{c}, Content: &Content{c, db}, Admin: &Admin{c, db, accounts}, Event: &Event{c, db},
		Stream: &Stream{c}, Webhooks: &Webhooks{c, db}, Instances: inst}
}

// Load builds the hot state from the database.
func (s *Service) Load(ctx context.Context) error { return s.live.Load(ctx) }

// Refresh brings the hot state up to date with the database: it applies
// what other processes recorded since the last refresh, or rebuilds the
// state after a bulk load, or if the change log was pruned past what this
// process has read.
func (s *Service) Refresh(ctx context.Context) error { return s.live.Refresh(ctx) }

// OnLeaderboardChange is live.Replica.OnLeaderboardChange.
func (s *Service) OnLeaderboardChange(fn func()) { s.live.OnLeaderboardChange(fn) }

// Rebuilds is live.Replica.Rebuilds.
func (s *Service) Rebuilds() int64 { return s.live.Rebuilds() }

// FlushTouches writes the uses of keys and sessions noted since the last
// flush (Watch does it on every tick and once more as it returns).
func (s *Service) FlushTouches(ctx context.Context) { s.flushTouches(ctx) }

// Wake asks the watcher to catch up now rather than at its next tick:
// called when the database announces another process's write.
func (s *Service) Wake() { s.wakeUp() }

func (s *core) wakeUp() {
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
			s.flushTouches(flushCtx)
			cancel()
			return
		case <-t.C:
		case <-s.wake:
		}
		if err := s.live.Refresh(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("refresh event state", "err", err)
		}
		if err := s.produceWebhookDeliveries(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("make webhook deliveries", "err", err)
		}
		if err := s.Instances.reap(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("stop expired instances", "err", err)
		}
		s.live.Tick(ctx)
		s.flushTouches(ctx)
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
