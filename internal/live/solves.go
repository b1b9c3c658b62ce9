package live

import (
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/store"
)

// countAttempt counts a wrong submission and returns the challenge to
// mark changed, or nil when it counts in no public aggregate (an admin's, a
// banned user's, or on a hidden challenge).
func (st *State) countAttempt(userID, chalID string, practice bool) *chal {
	u, c := st.users[userID], st.chals[chalID]
	if u == nil || c == nil || practice {
		return nil
	}
	u.wrong[c.ID]++
	if !u.player {
		return nil
	}
	c.wrong++
	if !c.shown() {
		return nil
	}
	st.listVer++
	return c
}

// catchUp applies what other processes recorded, read by the trackers'
// queries: changed entities first (a solve may name a new user), then
// submissions. The caller excludes this process's own writes between their
// database write and their state update (gate).
func (st *State) catchUp(e store.Entities, d *store.Delta, now time.Time, obs Observer) ([]StreamEvent, []store.StreamRow) {
	st.mu.Lock()
	defer st.mu.Unlock()
	dirty := dirtySet{}
	st.applyEntities(e, dirty)
	var moves []store.StreamRow
	if e.Event != nil {
		st.event = *e.Event
		moves = st.advanceClock(now, dirty)
	}
	for _, x := range st.applySolvesLocked(d.Solves, now, dirty) {
		obs.SolveApplied(x.isFirstBlood(), false, now.Sub(x.At))
	}
	seqs := make([]int64, 0, len(d.Attempts))
	for _, a := range d.Attempts {
		seqs = append(seqs, a.Seq)
		if !st.attemptSeqs.admit(a.Seq) {
			continue
		}
		if c := st.countAttempt(a.UserID, a.ChallengeID, a.Practice); c != nil {
			dirty[c] = true
		}
	}
	st.attemptSeqs.advance(seqs, now)
	st.changed(dirty)
	return st.relay(d.Stream), moves
}

// isFirstBlood reports whether x is its challenge's first solve by a
// player, as the public sees it now.
func (x *solve) isFirstBlood() bool {
	return len(x.chal.playerSolves) > 0 && x.chal.playerSolves[0] == x
}

// applySolvesLocked applies solves read from the database that the state
// has not seen, noting the challenges whose entries changed in dirty, and
// returns them.
func (st *State) applySolvesLocked(solves []ctf.Solve, now time.Time, dirty dirtySet) []*solve {
	seqs := make([]int64, 0, len(solves))
	var added []*solve
	for _, sv := range solves {
		seqs = append(seqs, sv.Seq)
		if !st.solveSeqs.admit(sv.Seq) {
			continue
		}
		if x := st.addSolve(sv); x != nil {
			added = append(added, x)
			if x.chal.shown() {
				dirty[x.chal] = true
			}
		}
	}
	st.solveSeqs.advance(seqs, now)
	return added
}

// applyAttempts counts the wrong submissions of a batch this process
// recorded.
func (st *State) applyAttempts(subs []store.Submission, outs []store.SubmitOutcome) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for i, o := range outs {
		if o.Err != nil || o.Solve != nil {
			continue
		}
		st.attemptSeqs.markOwn(o.Seq)
		if c := st.countAttempt(subs[i].UserID, subs[i].ChallengeID, subs[i].Practice); c != nil {
			st.changedChal(c)
		}
	}
}

// SolveKept is what one of this process's solves earned once applied.
type SolveKept struct {
	Awards []ctf.Award // the badges it earned
	First  bool        // a first blood
	// Points is what the solve is worth to its solver now: the
	// challenge's value with this solve counted, less the hints charged.
	Points int
}

// applySolves adds solves this process recorded, in their order, after
// others: the solves other processes recorded that the state has not seen
// yet. It returns, for each of own, the badges the solve earned and
// whether it is a first blood. charged[i], when given, are the hints
// own[i]'s transaction found its user unlocked before it.
func (st *State) applySolves(own, others []ctf.Solve, charged [][]int, now time.Time) []SolveKept {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, sv := range own {
		st.solveSeqs.markOwn(sv.Seq)
	}
	dirty := dirtySet{}
	st.applySolvesLocked(others, now, dirty)
	st.changed(dirty)
	kept := make([]SolveKept, len(own))
	for i, sv := range own {
		u := st.users[sv.UserID]
		if u == nil {
			continue
		}
		if c := st.chals[sv.ChallengeID]; c != nil && i < len(charged) && len(charged[i]) > 0 {
			st.noteCharged(u, c, charged[i])
		}
		before := st.badges(u)
		x := st.addSolve(sv)
		if x == nil {
			continue
		}
		st.changedChal(x.chal)
		kept[i] = SolveKept{Awards: u.unheld(ctf.NewBadges(before, st.badges(u))), First: x.isFirstBlood(), Points: st.ownWorth(x)}
	}
	return kept
}

// The group commit of submissions applies its results itself (package
// platform, batch.go): the caller holds Write from before the database
// write until the last of these.

// MarkUnannounced marks the right answers among subs that the public may
// not see now (a freeze, a banned solver, a hidden challenge): their solves
// get no row in the live stream.
func (r *Replica) MarkUnannounced(subs []store.Submission) {
	st := r.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	for i := range subs {
		if x := &subs[i]; x.Correct {
			x.Unannounced = !x.Practice && !st.announces(x.UserID, x.ChallengeID, x.At)
		}
	}
}

// ApplyAttempts counts the wrong submissions of a batch this process
// recorded.
func (r *Replica) ApplyAttempts(subs []store.Submission, outs []store.SubmitOutcome) {
	r.state().applyAttempts(subs, outs)
}

// SolveCursor is where the state's solves stand: the newest read and the
// gaps below it, for the database's SolvesSince.
func (r *Replica) SolveCursor() (after int64, gaps []int64) {
	st := r.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	return st.solveSeqs.query()
}

// ApplySolves adds the solves this process recorded, in their order, after
// others (see applySolves), and returns what each earned.
func (r *Replica) ApplySolves(own, others []ctf.Solve, charged [][]int) []SolveKept {
	return r.state().applySolves(own, others, charged, r.now())
}

// Attempt is what the hot state says of a submission before its flag is
// checked.
type Attempt struct {
	Open  bool // the caller may see the challenge (see openBySlug)
	Known bool // the caller's account is known here
	// Challenge is the challenge, when Open and Known.
	Challenge              ctf.Challenge
	Locked, Solved, Banned bool
	Over                   bool // the event is over for the caller (an admin's never is)
	Practice               bool // the event is in practice mode
}

// Attempt reads what a submission of v to the challenge of slug depends
// on, in one consistent view: not during a catch-up (the gate is held for
// the read only; the batch takes it again).
func (r *Replica) Attempt(slug string, v ctf.Viewer) Attempt {
	r.gate.RLock()
	defer r.gate.RUnlock()
	st := r.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	var a Attempt
	c := st.openBySlug(slug, v)
	var u *user
	if v.User != nil {
		u = st.users[v.User.ID]
	}
	a.Open, a.Known = c != nil, u != nil
	if c != nil && u != nil {
		a.Challenge = c.Challenge
		a.Locked = !st.unlocked(c, u)
		a.Solved = u.solved[c.ID] != nil
		a.Banned = st.banned(&u.User)
	}
	a.Over, a.Practice = st.phase == ctf.Ended && !v.IsAdmin(), st.event.Practice
	return a
}
