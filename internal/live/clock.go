package live

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/store"
)

// The event's clock. What the clock decides (the phase, the freeze, which
// challenges are released) is state, recomputed at the instants it changes
// rather than per request: each read checks one atomic number, the next
// instant, and the first read past it moves the state. Every replica reads
// the same settings and moves at the same instant, whether or not it hears
// from the others.

// pendingAt reports whether c is not open to the public at now: before the
// event's start, or before its own release.
func (st *State) pendingAt(c *chal, now time.Time) bool {
	return st.event.PhaseAt(now) == ctf.BeforeStart || !c.ReleasedAt(now)
}

// setClock computes what the clock decides at now, for a state being
// built (before its solves are added).
func (st *State) setClock(now time.Time) {
	st.clockAt = now
	st.phase = st.event.PhaseAt(now)
	st.freezeAt, st.frozen = st.event.FrozenAt(now)
	for _, c := range st.chals {
		c.pending = st.pendingAt(c, now)
	}
	st.rearm()
}

// advanceClock moves the state to now (or applies new settings), counting
// solves again where the freeze or a challenge's visibility moved, and
// returns the moves every replica notices, as stream rows to record once.
// The caller holds st.mu for writing.
func (st *State) advanceClock(now time.Time, dirty dirtySet) []store.StreamRow {
	if now.Before(st.clockAt) {
		now = st.clockAt // the clock never goes back
	}
	st.clockAt = now
	var moves []store.StreamRow
	phase := st.event.PhaseAt(now)
	if phase != st.phase {
		if st.phase == ctf.BeforeStart {
			moves = append(moves, clockRow(ctf.StreamStarted, st.event.Start, now, ""))
		}
		if phase == ctf.Ended {
			moves = append(moves, clockRow(ctf.StreamEnded, st.event.End, now, ""))
		}
		st.phase = phase
	}
	freezeAt, frozen := st.event.FrozenAt(now)
	refreeze := frozen != st.frozen || !freezeAt.Equal(st.freezeAt)
	if refreeze {
		if frozen {
			moves = append(moves, clockRow(ctf.StreamFrozen, &freezeAt, now, ""))
		} else {
			until := now
			if st.event.Unfrozen != nil {
				until = *st.event.Unfrozen
			} else if st.event.End != nil && st.event.UnfreezeAtEnd {
				until = *st.event.End
			}
			moves = append(moves, clockRow(ctf.StreamUnfrozen, &until, now, msKey(st.freezeAt)))
		}
		st.frozen, st.freezeAt = frozen, freezeAt
	}
	moved := false
	for _, c := range st.chals {
		pending := st.pendingAt(c, now)
		if pending == c.pending && !refreeze {
			continue
		}
		if c.pending && !pending && !c.Hidden && c.ReleaseAt != nil && phase != ctf.BeforeStart {
			moves = append(moves, clockRow(ctf.StreamReleased, c.ReleaseAt, now, c.ID))
		}
		if pending != c.pending {
			moved = true
		}
		if pending != c.pending {
			st.noteBadges(c, nil) // a release (or a release moved back) changes its categories' badges
		}
		c.pending = pending
		st.recountChallenge(c)
		dirty[c] = true
	}
	if moved || refreeze {
		st.sortVisible()
		st.moveBoard()
		st.listVer++
	}
	st.rearm()
	return moves
}

// clockRow is the stream row of a move of the clock, keyed by its kind,
// its instant and what it is about, so the cluster records it once.
func clockRow(kind ctf.StreamKind, at *time.Time, now time.Time, about string) store.StreamRow {
	when := now
	if at != nil {
		when = *at
	}
	r := store.StreamRow{Kind: kind, At: when, Key: fmt.Sprintf("%s:%d", kind, when.UnixMilli())}
	if about != "" {
		r.Key += ":" + about
	}
	if kind == ctf.StreamReleased {
		r.ChallengeID = about
	}
	return r
}

func later(a, b time.Time) time.Time {
	if a.Before(b) {
		return b
	}
	return a
}

func msKey(t time.Time) string { return fmt.Sprint(t.UnixMilli()) }

// rearm computes the next instant at which the clock decides otherwise.
// The caller holds st.mu for writing.
func (st *State) rearm() {
	next := st.event.NextChange(st.clockAt)
	for _, c := range st.chals {
		if c.ReleaseAt != nil && c.ReleaseAt.After(st.clockAt) && !c.Hidden && (next.IsZero() || c.ReleaseAt.Before(next)) {
			next = *c.ReleaseAt
		}
	}
	if next.IsZero() {
		st.next.Store(math.MaxInt64)
	} else {
		st.next.Store(next.UnixMilli())
	}
}

// tick moves st's clock when now has passed its next instant. From a read
// it only tries (a caller may hold the state's lock already); the watcher
// waits for the lock, so the move is never later than its next round.
func (r *Replica) tick(st *State, wait bool) {
	now := r.now()
	if now.UnixMilli() < st.next.Load() {
		return
	}
	if wait {
		st.mu.Lock()
	} else if !st.mu.TryLock() {
		return
	}
	dirty := dirtySet{}
	moves := st.advanceClock(now, dirty)
	st.changed(dirty)
	st.mu.Unlock()
	r.noteClockMoves(moves)
}

// clockMoves are the moves of the clock waiting to be recorded in the
// stream by the watcher (a read must not write).
type clockMoves struct {
	mu   sync.Mutex
	rows []store.StreamRow
}

func (r *Replica) noteClockMoves(rows []store.StreamRow) {
	if len(rows) == 0 {
		return
	}
	r.moves.mu.Lock()
	r.moves.rows = append(r.moves.rows, rows...)
	r.moves.mu.Unlock()
	r.wakeUp()
}

// recordClockMoves records the noted moves in the stream, each once in
// the cluster: the first replica to get there writes it.
func (r *Replica) recordClockMoves(ctx context.Context) {
	r.moves.mu.Lock()
	rows := r.moves.rows
	r.moves.rows = nil
	r.moves.mu.Unlock()
	for i, row := range rows {
		if _, err := r.db.AppendStreamOnce(ctx, row); err != nil {
			r.log.Warn("record a move of the clock", "kind", row.Kind, "err", err)
			r.moves.mu.Lock()
			r.moves.rows = append(rows[i:], r.moves.rows...)
			r.moves.mu.Unlock()
			return
		}
	}
}
