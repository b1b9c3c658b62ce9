package platform

import (
	"context"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/store"
)

// FlagSource gives a submission's flag as its front door received it. Submit
// calls it only once the challenge is known to exist, since an unknown slug
// is answered before a bad body (the API's source reads and decodes the
// request body); an error it returns is the answer as it stands.
type FlagSource func() (string, error)

// Flag is the FlagSource of a flag already in hand.
func Flag(raw string) FlagSource { return func() (string, error) { return raw, nil } }

// Submit checks a flag for the caller: SubmitFrom with the flag in hand.
func (s *Play) Submit(ctx context.Context, v Viewer, slug, rawFlag string) (SubmitResult, error) {
	return s.SubmitFrom(ctx, v, slug, Flag(rawFlag))
}

// SubmitFrom is the one place of the order of checks of
// docs/product.md#submitting-a-flag, for every front door: unauthenticated
// is Unauthorized; an unknown (or hidden, or not yet released) slug is
// NotFound; a flag that cannot be read, or is empty or too long once
// trimmed, is Invalid; then banned, read-only, the event over (without
// practice mode) or locked is Forbidden, already solved is Conflict, over
// the rate limit is RateLimited, a wrong flag is ErrWrongFlag (Invalid) and
// recorded, a right one is a solve — a practice solve after the end, which
// counts nowhere public. Before the start no challenge exists for players;
// admins may test any challenge at any time.
func (s *Play) SubmitFrom(ctx context.Context, v Viewer, slug string, source FlagSource) (SubmitResult, error) {
	if v.User == nil {
		return SubmitResult{}, ctf.Errorf(ctf.Unauthorized, "authentication required")
	}

	// The hot state refuses what it can without the database; the gate is
	// held only while it is read, since the batch takes it again, and not
	// while the flag is read (a body from the network).
	s.gate.RLock()
	st := s.state()
	st.mu.RLock()
	c := st.openBySlug(slug, v)
	u := st.users[v.User.ID]
	var check ctf.Challenge
	var locked, solved, banned bool
	if c != nil && u != nil {
		check = c.Challenge
		locked = !st.unlocked(c, u)
		solved = u.solved[c.ID] != nil
		banned = st.banned(&u.User)
	}
	over, practice := st.phase == ctf.Ended && !v.admin(), st.event.Practice
	st.mu.RUnlock()
	s.gate.RUnlock()
	switch {
	case c == nil:
		return SubmitResult{}, ErrNoChallenge
	case u == nil:
		return SubmitResult{}, ctf.Errorf(ctf.Unauthorized, "authentication required")
	}
	raw, err := source()
	if err != nil {
		return SubmitResult{}, err
	}
	flag, err := ctf.NormalizeFlag(raw)
	if err != nil {
		return SubmitResult{}, err
	}
	if err := refusal(banned, v, over && !practice, locked, solved); err != nil {
		s.obs.Submitted("refused")
		return SubmitResult{}, err
	}
	sub := store.Submission{UserID: u.ID, ChallengeID: check.ID, Flag: flag, Correct: check.CheckFlag(flag),
		Door: v.Door, KeyID: v.KeyID, Practice: over}
	return s.record(&pending{sub: sub, points: check.Points})
}

// refusal is Submit's answer to a submission it will not check, in
// the order of docs/product.md#submitting-a-flag: the 403s, then the 409. banned is the user's ban or,
// for an agent, its owner's.
func refusal(banned bool, v Viewer, over, locked, solved bool) error {
	switch {
	case banned:
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
func (st *state) catchUp(e store.Entities, d *store.Delta, now time.Time, obs Observer) ([]StreamEvent, []store.StreamRow) {
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
