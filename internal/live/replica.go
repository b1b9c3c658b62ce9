// Package live is the event's hot state: everything the reads need, in
// memory, kept current on every replica by applying each change as it is
// recorded — this process's own writes at once (Apply), other processes'
// from the database's change log (Refresh). Reads never touch the
// database. The use cases (package platform) decide and write; this
// package only remembers and answers (docs/architecture.md).
package live

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flagshipctf/flagship/internal/store"
)

// Source is what a replica reads of the database: the snapshot it starts
// from, the change log it follows, the stream it relays and records the
// clock's moves in.
type Source interface {
	Snapshot(ctx context.Context) (*store.Snapshot, error)
	Heads(ctx context.Context) (store.Heads, error)
	Since(ctx context.Context, c store.Cursor) (*store.Delta, error)
	Entities(ctx context.Context, refs []store.ChangeRef) (store.Entities, error)
	WrongBaseline(ctx context.Context, userID string, max int64, unseen []int64) (map[string]int64, error)
	StreamAfter(ctx context.Context, after int64, limit int) ([]store.StreamRow, error)
	AppendStreamOnce(ctx context.Context, r store.StreamRow) (bool, error)
}

// Observer is told of every solve applied, for metrics.
type Observer interface {
	// SolveApplied: first if it is its challenge's first blood, own if
	// this process recorded it, lag from its time to now.
	SolveApplied(first, own bool, lag time.Duration)
}

// Options configure a Replica.
type Options struct {
	PublicURL string // base of file links, without trailing slash
	Logger    *slog.Logger
	Now       func() time.Time
	Observer  Observer
	// Wake is called when something waits to be written or relayed (a
	// move of the clock): the watcher's cue to run now (nil: none).
	Wake func()
}

// Replica is this process's copy of the hot state.
type Replica struct {
	db   Source
	opts Options
	log  *slog.Logger
	now  func() time.Time
	obs  Observer

	st atomic.Pointer[State]
	// gate lets a catch-up read the database and apply what it read without
	// this process's own writes interleaving: every write holds it shared
	// from its database write until the hot state has the result (Write,
	// Apply), and a catch-up holds it exclusively.
	gate     sync.RWMutex
	reloadMu sync.Mutex
	rebuilds atomic.Int64

	// boardFns are told of every move of the leaderboard (copied on
	// write: they are called under the state's lock).
	boardMu  sync.Mutex
	boardFns atomic.Pointer[[]func()]

	hub   *hub
	moves clockMoves

	// writeDone is gate.RUnlock as Write returns it, made once: a method
	// value made per call would cost every submission an allocation.
	writeDone func()
}

// New returns a Replica over src; call Load before reading.
func New(src Source, opts Options) *Replica {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Observer == nil {
		opts.Observer = noObserver{}
	}
	if opts.Wake == nil {
		opts.Wake = func() {}
	}
	r := &Replica{db: src, opts: opts, log: opts.Logger, now: opts.Now, obs: opts.Observer, hub: newHub()}
	r.writeDone = r.gate.RUnlock
	return r
}

type noObserver struct{}

func (noObserver) SolveApplied(bool, bool, time.Duration) {}

func (r *Replica) wakeUp() { r.opts.Wake() }

// State returns the hot state, its clock moved to now first if an instant
// passed (see tick); nil before Load.
func (r *Replica) State() *State { return r.state() }

// Load builds the hot state from the database.
func (r *Replica) Load(ctx context.Context) error { return r.load(ctx) }

// Refresh brings the hot state up to date with the database: it applies
// what other processes recorded since the last refresh, or rebuilds the
// state after a bulk load, or if the change log was pruned past what this
// process has read.
func (r *Replica) Refresh(ctx context.Context) error { return r.refresh(ctx) }

// Write marks the start of a write of this process: call the returned
// func once the write is applied (Apply) or failed. Between the two no
// catch-up runs, so a catch-up never reads this process's row before its
// own Apply has marked it.
func (r *Replica) Write() (done func()) {
	r.gate.RLock()
	return r.writeDone
}

// Tick moves the clock if an instant passed, waiting for the state's lock
// (the watcher's round; a read only tries), and records the moves noted in
// the stream.
func (r *Replica) Tick(ctx context.Context) {
	if st := r.st.Load(); st != nil {
		r.tick(st, true)
	}
	r.recordClockMoves(ctx)
}

// state returns the hot state, its clock moved to now first if an instant
// passed (see tick).
func (r *Replica) state() *State {
	st := r.st.Load()
	if st != nil {
		r.tick(st, false)
	}
	return st
}

// load builds the hot state from the database.
func (r *Replica) load(ctx context.Context) error {
	r.reloadMu.Lock()
	defer r.reloadMu.Unlock()
	r.gate.Lock()
	defer r.gate.Unlock()
	snap, err := r.db.Snapshot(ctx)
	if err != nil {
		return fmt.Errorf("load event state: %w", err)
	}
	var after uint64
	if old := r.st.Load(); old != nil {
		old.mu.RLock()
		after = old.lastVersion()
		old.mu.RUnlock()
	}
	st := newStateAfter(snap, r.opts.PublicURL, r.now(), after)
	st.onBoard = r.boardMoved
	recent, err := r.recentEvents(ctx, st, snap.Stream)
	if err != nil {
		return fmt.Errorf("load event state: %w", err)
	}
	r.st.Store(st)
	r.rebuilds.Add(1)
	r.hub.publish(recent, snap.Stream)
	// The snapshot, as big as the state, is garbage now. Give the memory
	// back at once: the runtime would keep it for minutes, and a replica's
	// resident size would be that of its rebuild, not of its state.
	snap = nil
	debug.FreeOSMemory()
	r.boardMoved()
	return nil
}

// OnLeaderboardChange registers fn to be called whenever the leaderboard's
// version moves (LeaderboardVersion), on this replica's writes and on what
// it reads of others', so a front door can rebuild what it derives from the
// board without asking after every request. fn is called with the event's
// state locked: it must return at once and must not call the Service.
func (r *Replica) OnLeaderboardChange(fn func()) {
	r.boardMu.Lock()
	defer r.boardMu.Unlock()
	old := r.boardFns.Load()
	fns := []func(){fn}
	if old != nil {
		fns = append(append([]func(){}, *old...), fn)
	}
	r.boardFns.Store(&fns)
}

func (r *Replica) boardMoved() {
	if fns := r.boardFns.Load(); fns != nil {
		for _, fn := range *fns {
			fn()
		}
	}
}

// Rebuilds counts how many times the hot state was built from a full read
// of the database (Load): once at start, then only after a bulk change
// (flagship load); every other change applies incrementally.
func (r *Replica) Rebuilds() int64 { return r.rebuilds.Load() }

// refresh is Refresh.
func (r *Replica) refresh(ctx context.Context) error {
	h, err := r.db.Heads(ctx)
	if err != nil {
		return err
	}
	if cur := r.state(); cur != nil && cur.revision == h.Revision && !cur.missedChanges(h) {
		return r.catchUp(ctx, h)
	}
	start := time.Now()
	if err := r.load(ctx); err != nil {
		return err
	}
	r.log.Info("event state rebuilt", "revision", h.Revision, "duration", time.Since(start))
	return nil
}

// missedChanges reports whether the change log lost rows this state never
// read (pruned while this process was stalled).
func (st *State) missedChanges(h store.Heads) bool {
	st.mu.RLock()
	defer st.mu.RUnlock()
	return h.OldestChange > st.changeSeqs.max+1 && h.Change > st.changeSeqs.max
}

func (r *Replica) catchUp(ctx context.Context, h store.Heads) error {
	st := r.state()
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
	r.gate.Lock()
	defer r.gate.Unlock()
	st = r.state()
	st.mu.RLock()
	var c store.Cursor
	c.StreamAfter = st.streamMax
	c.SolveAfter, c.SolveGaps = st.solveSeqs.query()
	c.AttemptAfter, c.AttemptGaps = st.attemptSeqs.query()
	c.ChangeAfter, c.ChangeGaps = st.changeSeqs.query()
	st.mu.RUnlock()
	d, err := r.db.Since(ctx, c)
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
	st.changeSeqs.advance(seqs, r.now())
	st.mu.Unlock()
	var e store.Entities
	if len(fresh) > 0 {
		if e, err = r.db.Entities(ctx, fresh); err != nil {
			return err
		}
		st.mu.RLock()
		ids := st.needsBaseline(e.Users)
		st.mu.RUnlock()
		if err := r.loadBaselines(ctx, st, ids); err != nil {
			return err
		}
	}
	evs, moves := st.catchUp(e, d, r.now(), r.obs)
	r.hub.publish(evs, 0)
	r.noteClockMoves(moves)
	return nil
}

// loadBaselines reads what the snapshot counted of the wrong submissions
// of users whose player status is about to change (a ban, a promotion),
// so the public counts move by exactly their share. Rare, so not read for
// every user at start.
func (r *Replica) loadBaselines(ctx context.Context, st *State, ids []string) error {
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
		base, err := r.db.WrongBaseline(ctx, id, max, unseen)
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

// Apply applies this process's own write to the hot state: seqs are its
// rows in the change log (skipped when a catch-up reads them), fn the
// change (nil: none to apply here, the rows are only marked). The caller
// holds Write since before its database write.
func (r *Replica) Apply(seqs []int64, fn func(tx *Tx)) {
	st := r.state()
	if st == nil {
		return
	}
	st.mu.Lock()
	for _, seq := range seqs {
		st.changeSeqs.markOwn(seq)
	}
	tx := &Tx{st: st, dirty: dirtySet{}, now: r.now}
	if fn != nil {
		fn(tx)
	}
	st.changed(tx.dirty)
	st.mu.Unlock()
	r.noteClockMoves(tx.moves)
}

// BeforeStatusChange prepares a change of a user's ban or role: it reads
// what the snapshot counted of the wrong submissions of the user and their
// agents, so the public counts move by exactly their share. The caller
// holds Write.
func (r *Replica) BeforeStatusChange(ctx context.Context, userID string) error {
	st := r.state()
	return r.loadBaselines(ctx, st, st.withAgents(userID))
}
