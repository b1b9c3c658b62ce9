package platform

import (
	"context"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// Attempts is where a player stands against the rate limit of one
// challenge (docs/product.md#submitting-a-flag).
type Attempts struct {
	// Limited is false when no rate limit is set: Left and Max mean
	// nothing then.
	Limited bool
	Max     int           // wrong flags allowed per window
	Window  time.Duration // the window's length
	// Left is how many more wrong flags the limit lets through now.
	Left int
	// NextAt is when one more comes back (the oldest wrong flag counted
	// leaves the window); zero when none is counted.
	NextAt time.Time
}

// AttemptsLeft tells v how many wrong flags the challenge of slug still
// takes in the current window of the rate limit. It counts what the limit
// counts, with the same statement (store.Play.RecentWrong), so a player
// told N left is refused at the N+1th wrong flag, not before. An unknown
// or hidden slug is ErrNoChallenge.
func (s *Play) AttemptsLeft(ctx context.Context, v ctf.Viewer, slug string) (Attempts, error) {
	if v.User == nil {
		return Attempts{}, ctf.Errorf(ctf.Unauthorized, "authentication required")
	}
	c, open, _ := s.live.State().OpenChallenge(slug, v)
	if !open {
		return Attempts{}, ctf.ErrNoChallenge
	}
	limit := s.opts.RateLimit
	if limit.Max <= 0 {
		return Attempts{}, nil
	}
	n, oldest, err := s.db.RecentWrong(ctx, v.User.ID, c.ID, s.now(), limit.Window)
	if err != nil {
		return Attempts{}, err
	}
	a := Attempts{Limited: true, Max: limit.Max, Window: limit.Window, Left: max(limit.Max-n, 0)}
	if !oldest.IsZero() {
		a.NextAt = oldest.Add(limit.Window)
	}
	return a, nil
}

// FlagFormat is the shape of the flag of the challenge of slug as v is
// told it (ctf.FlagFormatOf, the event's format as the fallback); an
// unknown or hidden slug is ErrNoChallenge.
func (s *Play) FlagFormat(slug string, v ctf.Viewer) (string, error) {
	st := s.live.State()
	c, open, _ := st.OpenChallenge(slug, v)
	if !open {
		return "", ctf.ErrNoChallenge
	}
	return ctf.FlagFormatOf(c, st.EventView(s.now()).FlagFormat), nil
}
