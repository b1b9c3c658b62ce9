package platform

import (
	"context"
	"crypto/subtle"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
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
func (s *Play) Submit(ctx context.Context, v ctf.Viewer, slug, rawFlag string) (live.SubmitResult, error) {
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
func (s *Play) SubmitFrom(ctx context.Context, v ctf.Viewer, slug string, source FlagSource) (live.SubmitResult, error) {
	if v.User == nil {
		return live.SubmitResult{}, ctf.Errorf(ctf.Unauthorized, "authentication required")
	}
	if s.opts.RequireEmailVerification && s.unverified(v) {
		return live.SubmitResult{}, ErrUnverified
	}

	// The hot state refuses what it can without the database, before the
	// flag is read (a body from the network).
	a := s.live.Attempt(slug, v)
	switch {
	case !a.Open:
		return live.SubmitResult{}, ctf.ErrNoChallenge
	case !a.Known:
		return live.SubmitResult{}, ctf.Errorf(ctf.Unauthorized, "authentication required")
	}
	raw, err := source()
	if err != nil {
		return live.SubmitResult{}, err
	}
	flag, err := ctf.NormalizeFlag(raw)
	if err != nil {
		return live.SubmitResult{}, err
	}
	if err := refusal(a.Banned, v, a.Over && !a.Practice, a.Locked, a.Solved); err != nil {
		s.obs.Submitted("refused")
		return live.SubmitResult{}, err
	}
	correct, sharing, err := s.check(ctx, v, &a.Challenge, flag)
	if err != nil {
		return live.SubmitResult{}, err
	}
	sub := store.Submission{UserID: v.User.ID, ChallengeID: a.Challenge.ID, Flag: flag, Correct: correct, CheckSharing: sharing,
		Door: v.Door, KeyID: v.KeyID, Practice: a.Over, Hints: a.Challenge.HasCostlyHints()}
	return s.record(&pending{sub: sub})
}

// check checks flag against c for v: against the challenge's flags, or,
// when its flags are each player's own, against v's (docs/product.md#instances),
// where a wrong flag is also looked up among those given to other players
// (sharing).
func (s *Play) check(ctx context.Context, v ctf.Viewer, c *ctf.Challenge, flag string) (correct, sharing bool, err error) {
	if !c.PerPlayer() {
		return c.CheckFlag(flag), false, nil
	}
	key, err := s.flagKey(ctx)
	if err != nil {
		return false, false, err
	}
	own := ctf.PlayerFlag(key, v.User.ID, c)
	correct = subtle.ConstantTimeCompare([]byte(flag), []byte(own)) == 1
	return correct, !correct, nil
}

// refusal is Submit's answer to a submission it will not check, in
// the order of docs/product.md#submitting-a-flag: the 403s, then the 409. banned is the user's ban or,
// for an agent, its owner's.
func refusal(banned bool, v ctf.Viewer, over, locked, solved bool) error {
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
