package platform

import (
	"context"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/store"
)

// Submit checks a flag for the caller, after the caller has been
// authenticated, the slug found and the body decoded (the API does those
// first, as PRODUCT.md orders the checks). What remains, in order: banned,
// read-only, the event over (without practice mode) or locked is
// Forbidden, already solved is Conflict, over the rate limit is
// RateLimited, a wrong flag is Invalid and recorded, a right one is a
// solve — a practice solve after the end, which counts nowhere public.
// Before the start no challenge exists for players; admins may test any
// challenge at any time.
func (s *Service) Submit(ctx context.Context, v Viewer, slug, rawFlag string) (SubmitResult, error) {
	if v.User == nil {
		return SubmitResult{}, ctf.Errorf(ctf.Unauthorized, "authentication required")
	}
	flag, err := ctf.NormalizeFlag(rawFlag)
	if err != nil {
		return SubmitResult{}, err
	}

	s.gate.RLock()
	defer s.gate.RUnlock()
	st := s.state()
	st.mu.RLock()
	c := st.openBySlug(slug, v)
	u := st.users[v.User.ID]
	var check ctf.Challenge
	var locked, solved bool
	if c != nil && u != nil {
		check = c.Challenge
		locked = !st.unlocked(c, u)
		solved = u.solved[c.ID] != nil
	}
	over, practice := st.phase == ctf.Ended && !v.admin(), st.event.Practice
	st.mu.RUnlock()
	switch {
	case c == nil:
		return SubmitResult{}, ErrNoChallenge
	case u == nil:
		return SubmitResult{}, ctf.Errorf(ctf.Unauthorized, "authentication required")
	}
	if err := refusal(u, v, over && !practice, locked, solved); err != nil {
		s.obs.Submitted("refused")
		return SubmitResult{}, err
	}

	correct := check.CheckFlag(flag)
	sub := store.Submission{UserID: u.ID, ChallengeID: check.ID, Flag: flag, Correct: correct, At: s.now(),
		Door: v.Door, KeyID: v.KeyID, Practice: over}
	if correct {
		// Solves of this process are recorded and applied one at a time,
		// with times that never go backwards, so the order in which the
		// hot state sees them is their (time, seq) order: the badges a
		// solve announces (first blood) are the badges it keeps.
		s.solveMu.Lock()
		defer s.solveMu.Unlock()
		sub.At = s.now()
		if sub.At.Before(s.lastSolveAt) {
			sub.At = s.lastSolveAt
		}
		s.lastSolveAt = sub.At
	}
	rec, err := s.db.RecordSubmission(ctx, sub, s.opts.RateLimit)
	s.noteWrite(err)
	if err != nil {
		s.obs.Submitted("refused")
		return SubmitResult{}, err
	}
	if !correct {
		st.applyAttempt(rec.Seq, u.ID, check.ID, over)
		s.obs.Submitted("wrong")
		return SubmitResult{}, ErrWrongFlag
	}
	defer s.Wake() // relay the solve's stream event now
	// The database orders each challenge's solves by commit, so every solve
	// before this one is committed: read those other replicas recorded,
	// so the first blood (and any badge) this solve announces is the one
	// it keeps. The gate and solveMu keep this process's own rows out.
	st.mu.RLock()
	after, gaps := st.solveSeqs.query()
	st.mu.RUnlock()
	others, err := s.db.SolvesSince(ctx, after, gaps)
	if err != nil {
		s.log.Warn("read other replicas' solves before announcing badges", "err", err)
		others = nil
	}
	awards, first := st.applySolve(*rec.Solve, others, s.now())
	if over {
		s.obs.Submitted("practice")
	} else {
		s.obs.Submitted("correct")
		s.obs.SolveApplied(first, true, s.now().Sub(rec.Solve.At))
	}
	res := SubmitResult{Success: true, Points: check.Points, NewBadges: make([]BadgeAward, 0, len(awards))}
	for _, a := range awards {
		res.NewBadges = append(res.NewBadges, BadgeAward{ID: a.ID, Title: a.Title, Icon: a.Icon, Image: a.Image})
	}
	return res, nil
}

// refusal is Submit's answer to a submission it will not check, in
// PRODUCT.md's order: the 403s, then the 409.
func refusal(u *user, v Viewer, over, locked, solved bool) error {
	switch {
	case u.Banned:
		return ErrBanned
	case v.ReadOnly:
		return ErrReadOnlyKey
	case over:
		return ErrEventOver
	case locked:
		return ErrLocked
	case solved:
		return ctf.Errorf(ctf.Conflict, "challenge already solved")
	}
	return nil
}

// The refusals of Submit that a front door may want to tell apart from
// others of the same code (compare with errors.Is).
var (
	ErrBanned      = ctf.Errorf(ctf.Forbidden, "your account is banned")
	ErrReadOnlyKey = ctf.Errorf(ctf.Forbidden, "this API key is read-only: it cannot submit flags")
	ErrLocked      = ctf.Errorf(ctf.Forbidden, "challenge is locked")
	ErrWrongFlag   = ctf.Errorf(ctf.Invalid, "wrong flag")
	ErrEventOver   = ctf.Errorf(ctf.Forbidden, "the event is over")
)

// applyAttempt counts a wrong submission this process recorded.
func (st *state) applyAttempt(seq int64, userID, chalID string, practice bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.attemptSeqs.markOwn(seq)
	if c := st.countAttempt(userID, chalID, practice); c != nil {
		st.changedChal(c)
	}
}

// countAttempt counts a wrong submission and returns the challenge to
// mark changed, or nil when it counts in no public aggregate (an admin's, a
// banned user's, or on a hidden challenge).
func (st *state) countAttempt(userID, chalID string, practice bool) *chal {
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
func (st *state) catchUp(e store.Entities, d *store.Delta, now time.Time, obs Observer) ([]Event, []store.StreamRow) {
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
func (st *state) applySolvesLocked(solves []ctf.Solve, now time.Time, dirty dirtySet) []*solve {
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

// applySolve adds a solve this process recorded, after others: the solves
// other processes recorded that the state has not seen yet. It returns the
// badges the solve earned, and whether it is a first blood.
func (st *state) applySolve(sv ctf.Solve, others []ctf.Solve, now time.Time) ([]ctf.Award, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.solveSeqs.markOwn(sv.Seq)
	dirty := dirtySet{}
	st.applySolvesLocked(others, now, dirty)
	st.changed(dirty)
	u := st.users[sv.UserID]
	if u == nil {
		return nil, false
	}
	before := st.badges(u)
	x := st.addSolve(sv)
	if x == nil {
		return nil, false
	}
	st.changedChal(x.chal)
	return ctf.NewBadges(before, st.badges(u)), x.isFirstBlood()
}
