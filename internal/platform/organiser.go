package platform

import (
	"context"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
)

// Preview is live.State.Preview: an admin sees a hidden or pending
// challenge as players will.
func (s *Content) Preview(slug string, v ctf.Viewer) (live.Preview, error) {
	return s.live.State().Preview(slug, v)
}

// Solvers is live.State.Solvers: who solved a challenge and when.
func (s *Play) Solvers(slug string, v ctf.Viewer) ([]live.Solver, error) {
	return s.live.State().Solvers(slug, v)
}

// DeleteChallenge deletes the challenge of slug, hidden or not, with its
// solves, attempts, reviews and writeups: for admins only, audited, and
// applied by every replica (store.ChangeChallengeDeleted). solves is the
// number of solves the admin was told will go and confirmed (0 for a
// challenge nobody solved): when it is not the challenge's number now,
// nothing is deleted (a Conflict that names it), so a solve made while the
// admin read the page is never deleted unannounced. Hiding it
// (SetChallengeHidden) keeps its solves instead.
func (s *Content) DeleteChallenge(ctx context.Context, v ctf.Viewer, slug string, solves int) error {
	if !v.IsAdmin() {
		return ctf.ErrNotAdmin
	}
	c, ok := s.live.State().ChallengeBySlug(slug)
	if !ok {
		return ctf.ErrNoChallenge
	}
	defer s.live.Write()()
	seqs, err := s.db.DeleteChallenge(ctx, c.ID, solves,
		s.audit(v, "challenge.delete", c.Slug, map[string]any{"title": c.Title, "solves": solves}))
	if err != nil {
		return err
	}
	s.live.Apply(seqs, func(tx *live.Tx) { tx.DeleteChallenge(c.ID) })
	return nil
}
