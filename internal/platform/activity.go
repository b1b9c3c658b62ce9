package platform

import (
	"context"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
)

// Reviews and writeups: a player's own, after solving.

// solvedVisible returns the visible challenge of slug if the caller solved
// it: NotFound for an unknown or hidden slug, Forbidden before the solve.
func (s *core) solvedVisible(v ctf.Viewer, slug, what string) (ctf.Challenge, error) {
	if v.User == nil {
		return ctf.Challenge{}, ctf.ErrAuthRequired
	}
	c, open, solved := s.live.State().OpenChallenge(slug, v)
	if !open {
		return ctf.Challenge{}, ctf.ErrNoChallenge
	}
	if !solved {
		return ctf.Challenge{}, ctf.Errorf(ctf.Forbidden, "solve the challenge before you %s it", what)
	}
	return c, nil
}

// Review creates or changes the caller's review of a challenge they
// solved: stars 1–5, difficulty 1–10.
func (s *Play) Review(ctx context.Context, v ctf.Viewer, slug string, stars, difficulty int) (live.ReviewView, error) {
	c, err := s.solvedVisible(v, slug, "review")
	if err != nil {
		return live.ReviewView{}, err
	}
	if err := ctf.ValidateReview(stars, difficulty); err != nil {
		return live.ReviewView{}, err
	}
	defer s.live.Write()()
	r, seqs, err := s.db.PutReview(ctx, ctf.Review{ID: ctf.NewID(), UserID: v.User.ID, ChallengeID: c.ID, Stars: stars,
		Difficulty: difficulty, CreatedAt: ctf.Millis(s.now())})
	if err != nil {
		return live.ReviewView{}, err
	}
	s.live.Apply(seqs, func(tx *live.Tx) { tx.PutReview(r) })
	return live.ReviewView{Stars: r.Stars, Difficulty: r.Difficulty}, nil
}

// WriteupInput is what an author writes.
type WriteupInput struct {
	Title, Content string // Content is Markdown
	Images         []string
}

// SaveWriteup creates or edits the caller's writeup of a challenge they
// solved. Every save puts it back in the moderation queue (pending).
func (s *Play) SaveWriteup(ctx context.Context, v ctf.Viewer, slug string, in WriteupInput) (live.WriteupView, error) {
	c, err := s.solvedVisible(v, slug, "write up")
	if err != nil {
		return live.WriteupView{}, err
	}
	in.Title = strings.TrimSpace(in.Title)
	images := make([]string, 0, len(in.Images))
	for _, img := range in.Images {
		if img = strings.TrimSpace(img); img != "" {
			images = append(images, img)
		}
	}
	if err := ctf.ValidateWriteup(in.Title, in.Content, images); err != nil {
		return live.WriteupView{}, err
	}
	now := ctf.Millis(s.now())
	defer s.live.Write()()
	w, seqs, err := s.db.PutWriteup(ctx, ctf.Writeup{ID: ctf.NewID(), UserID: v.User.ID, ChallengeID: c.ID, Title: in.Title,
		Content: in.Content, Images: images, Status: ctf.WriteupPending, CreatedAt: now, UpdatedAt: now})
	if err != nil {
		return live.WriteupView{}, err
	}
	return s.applyWriteup(seqs, w), nil
}

// applyWriteup applies this process's write of w and returns its view.
func (s *core) applyWriteup(seqs []int64, w ctf.Writeup) (view live.WriteupView) {
	s.live.Apply(seqs, func(tx *live.Tx) { view = tx.PutWriteup(w) })
	return view
}

// MyWriteup returns the caller's writeup of a challenge and the reason it
// was rejected, if it was; NotFound when there is none.
func (s *Play) MyWriteup(ctx context.Context, v ctf.Viewer, slug string) (live.WriteupView, string, error) {
	if v.User == nil {
		return live.WriteupView{}, "", ctf.ErrAuthRequired
	}
	w, reason, open, found := s.live.State().WriteupOf(slug, v)
	switch {
	case !open:
		return live.WriteupView{}, "", ctf.ErrNoChallenge
	case found:
		return w, reason, nil
	}
	return live.WriteupView{}, "", ctf.Errorf(ctf.NotFound, "you have not written up this challenge")
}
