package platform

import (
	"context"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// ProfileByName returns the public profile of the user called username
// (case-insensitively), or nil when there is none: agents name players by
// the usernames the leaderboard shows.
func (s *Scoreboard) ProfileByName(username string) *PublicProfile {
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	u := st.userByNameFold(username)
	if u == nil {
		return nil
	}
	p := st.profile(u)
	return &p
}

// userByNameFold finds a user by username, exactly or else ignoring the
// case of ASCII letters (the one way usernames are unique); the caller
// holds st.mu.
func (st *state) userByNameFold(name string) *user {
	if u := st.byName[name]; u != nil {
		return u
	}
	return st.byFold[ctf.FoldUsername(name)]
}

// RankOf returns the caller's 1-based place on the leaderboard, 0 when the
// caller is not ranked (no solve yet, an admin or banned).
func (s *Scoreboard) RankOf(userID string) int {
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	_, ranks := st.rankingLocked()
	return ranks[userID]
}

// ChallengeFile describes the file a visible challenge serves.
type ChallengeFile struct {
	Name   string
	URL    string // where to download it
	SHA256 string // "" for a link elsewhere
	Size   int64  // bytes; -1 for a link elsewhere
}

// FileOf returns the file challenge slug serves, nil when it has none. The
// size of a stored file is read once from the database and remembered: a
// file is addressed by its SHA-256, so its size never changes.
func (s *Play) FileOf(ctx context.Context, slug string) (*ChallengeFile, error) {
	st := s.state()
	st.mu.RLock()
	c := st.visibleBySlug(slug)
	var f *ChallengeFile
	if c != nil {
		if u := c.fileURL(st.publicURL); u != "" {
			f = &ChallengeFile{Name: c.FileName, URL: u, SHA256: c.FileSHA256, Size: -1}
		}
	}
	st.mu.RUnlock()
	switch {
	case c == nil:
		return nil, ErrNoChallenge
	case f == nil || f.SHA256 == "":
		return f, nil
	}
	if size, ok := s.fileSizes.Load(f.SHA256); ok {
		f.Size = size.(int64)
		return f, nil
	}
	size, err := s.db.FileSize(ctx, f.SHA256)
	if err != nil {
		return nil, err
	}
	s.fileSizes.Store(f.SHA256, size)
	f.Size = size
	return f, nil
}

// Rules are the rules of the event a player must know: what the prompt for
// agents and the web app's pages explain.
type Rules struct {
	// RateLimit is how many wrong flags a player may send per challenge
	// within RateWindow (0: no limit).
	RateLimit  int
	RateWindow time.Duration
	MaxFlag    int // bytes
}

// Rules returns the event's rules.
func (s *Event) Rules() Rules {
	return Rules{RateLimit: s.opts.RateLimit.Max, RateWindow: s.opts.RateLimit.Window, MaxFlag: ctf.MaxFlagBytes}
}
