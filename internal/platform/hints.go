package platform

import (
	"context"
	"errors"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/store"
)

// Hints returns the hints of the challenge slug as the caller sees them
// (docs/product.md#hints): every hint's id and cost, its content once
// unlocked. Anyone who may see the challenge may list them.
func (s *Play) Hints(ctx context.Context, v ctf.Viewer, slug string) ([]live.HintView, error) {
	return s.live.State().Hints(slug, v)
}

// ErrHintRequired refuses a hint whose required hint is still locked.
func errHintRequired(id int) error {
	return ctf.Errorf(ctf.Forbidden, "unlock hint %d first: this hint requires it", id)
}

// UnlockHint unlocks hint id of the challenge slug for the caller and
// returns it with its content. Unlocking is recorded once: unlocking again
// answers the same. A hint unlocked before the caller solves the
// challenge costs its cost at the solve; after, nothing. Refused as a
// submission is: unauthenticated, an unknown challenge (or hint), banned,
// a read-only key, a locked challenge; and a hint whose required hint is
// not unlocked.
func (s *Play) UnlockHint(ctx context.Context, v ctf.Viewer, slug string, id int) (live.HintView, error) {
	if v.User == nil {
		return live.HintView{}, ctf.ErrAuthRequired
	}
	if s.opts.RequireEmailVerification && s.unverified(v) {
		return live.HintView{}, ErrUnverified
	}
	a := s.live.Attempt(slug, v)
	switch {
	case !a.Open:
		return live.HintView{}, ctf.ErrNoChallenge
	case !a.Known:
		return live.HintView{}, ctf.ErrAuthRequired
	}
	check, err := s.live.State().CheckHint(slug, v, id)
	if err != nil {
		return live.HintView{}, err
	}
	if check.Unlocked {
		return check.View, nil
	}
	switch {
	case a.Banned:
		return live.HintView{}, ErrBanned
	case v.ReadOnly:
		return live.HintView{}, ctf.Errorf(ctf.Forbidden, "this API key is read-only: it cannot unlock hints")
	case a.Locked:
		return live.HintView{}, ErrLocked
	case check.Required:
		return live.HintView{}, errHintRequired(check.Hint.Requires)
	}
	defer s.live.Write()()
	h, _, seqs, err := s.db.UnlockHint(ctx, v.User.ID, a.Challenge.ID, id, check.Hint.Requires)
	if errors.Is(err, store.ErrHintRequired) {
		return live.HintView{}, errHintRequired(check.Hint.Requires)
	}
	if err != nil {
		return live.HintView{}, err
	}
	s.live.Apply(seqs, func(tx *live.Tx) { tx.PutHintUnlock(h) })
	check, err = s.live.State().CheckHint(slug, v, id)
	return check.View, err
}
