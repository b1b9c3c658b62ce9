package platform

import (
	"context"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// Reviews and writeups: a player's own, after solving.

// solvedVisible returns the visible challenge of slug if the caller solved
// it: NotFound for an unknown or hidden slug, Forbidden before the solve.
func (s *core) solvedVisible(v Viewer, slug, what string) (ctf.Challenge, error) {
	if v.User == nil {
		return ctf.Challenge{}, errAuthRequired
	}
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	c := st.openBySlug(slug, v)
	if c == nil {
		return ctf.Challenge{}, ErrNoChallenge
	}
	if u := st.users[v.User.ID]; u == nil || u.solved[c.ID] == nil {
		return ctf.Challenge{}, ctf.Errorf(ctf.Forbidden, "solve the challenge before you %s it", what)
	}
	return c.Challenge, nil
}

// Review creates or changes the caller's review of a challenge they
// solved: stars 1–5, difficulty 1–10.
func (s *Play) Review(ctx context.Context, v Viewer, slug string, stars, difficulty int) (ReviewView, error) {
	c, err := s.solvedVisible(v, slug, "review")
	if err != nil {
		return ReviewView{}, err
	}
	if err := ctf.ValidateReview(stars, difficulty); err != nil {
		return ReviewView{}, err
	}
	s.gate.RLock()
	defer s.gate.RUnlock()
	r, seqs, err := s.db.PutReview(ctx, ctf.Review{ID: ctf.NewID(), UserID: v.User.ID, ChallengeID: c.ID, Stars: stars,
		Difficulty: difficulty, CreatedAt: ctf.Millis(s.now())})
	if err != nil {
		return ReviewView{}, err
	}
	s.applyOwn(seqs, func(st *state, dirty dirtySet) {
		if c := st.putReview(r); c != nil {
			dirty[c] = true
		}
	})
	return ReviewView{Stars: r.Stars, Difficulty: r.Difficulty}, nil
}

// WriteupInput is what an author writes.
type WriteupInput struct {
	Title, Content string // Content is Markdown
	Images         []string
}

// SaveWriteup creates or edits the caller's writeup of a challenge they
// solved. Every save puts it back in the moderation queue (pending).
func (s *Play) SaveWriteup(ctx context.Context, v Viewer, slug string, in WriteupInput) (WriteupView, error) {
	c, err := s.solvedVisible(v, slug, "write up")
	if err != nil {
		return WriteupView{}, err
	}
	in.Title = strings.TrimSpace(in.Title)
	images := make([]string, 0, len(in.Images))
	for _, img := range in.Images {
		if img = strings.TrimSpace(img); img != "" {
			images = append(images, img)
		}
	}
	if err := ctf.ValidateWriteup(in.Title, in.Content, images); err != nil {
		return WriteupView{}, err
	}
	now := ctf.Millis(s.now())
	s.gate.RLock()
	defer s.gate.RUnlock()
	w, seqs, err := s.db.PutWriteup(ctx, ctf.Writeup{ID: ctf.NewID(), UserID: v.User.ID, ChallengeID: c.ID, Title: in.Title,
		Content: in.Content, Images: images, Status: ctf.WriteupPending, CreatedAt: now, UpdatedAt: now})
	if err != nil {
		return WriteupView{}, err
	}
	return s.applyWriteup(seqs, w), nil
}

// applyWriteup applies this process's write of w and returns its view.
func (s *core) applyWriteup(seqs []int64, w ctf.Writeup) (view WriteupView) {
	s.applyOwn(seqs, func(st *state, _ dirtySet) {
		st.putWriteup(w)
		view = st.writeupView(st.writeups[w.ID])
	})
	return view
}

// MyWriteup returns the caller's writeup of a challenge and the reason it
// was rejected, if it was; NotFound when there is none.
func (s *Play) MyWriteup(ctx context.Context, v Viewer, slug string) (WriteupView, string, error) {
	if v.User == nil {
		return WriteupView{}, "", errAuthRequired
	}
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	c := st.openBySlug(slug, v)
	if c == nil {
		return WriteupView{}, "", ErrNoChallenge
	}
	for _, w := range c.writeups {
		if w.UserID == v.User.ID {
			return st.writeupView(w), w.Reason, nil
		}
	}
	return WriteupView{}, "", ctf.Errorf(ctf.NotFound, "you have not written up this challenge")
}
