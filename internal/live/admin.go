package live

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// UserView is an account as admins and the operator see it.
type UserView struct {
	ID, Username, Name, Email string
	Role                      ctf.Role
	Banned, TwoFactor         bool
	BanReason                 string // while banned: the reason the admin gave, "" for none
	// OwnerBanned: an agent not banned itself whose owner is, and so is
	// treated as banned (docs/product.md#banning).
	OwnerBanned bool
	CreatedAt   string
}

// userView is u as the admin pages list it; st.mu is held.
func (st *State) userView(u *user) UserView {
	return UserView{ID: u.ID, Username: u.Username, Name: u.Name, Email: u.Email, Role: u.Role, Banned: u.Banned,
		BanReason: u.BanReason, OwnerBanned: !u.Banned && st.banned(&u.User), TwoFactor: u.TwoFactor,
		CreatedAt: ctf.FormatTime(u.CreatedAt)}
}

// Users lists the accounts whose username, name or email contains query
// (all for ""), oldest first.
func (a Accounts) Users(ctx context.Context, v ctf.Viewer, query string) ([]UserView, error) {
	st := a.st
	if !v.IsAdmin() {
		return nil, ctf.ErrNotAdmin
	}
	q := strings.ToLower(strings.TrimSpace(query))
	st.mu.RLock()
	out := []UserView{}
	for _, u := range st.users {
		if q == "" || strings.Contains(strings.ToLower(u.Username), q) || strings.Contains(strings.ToLower(u.Name), q) ||
			strings.Contains(strings.ToLower(u.Email), q) {
			out = append(out, st.userView(u))
		}
	}
	st.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].CreatedAt != out[j].CreatedAt {
			return out[i].CreatedAt < out[j].CreatedAt
		}
		return out[i].Username < out[j].Username
	})
	return out, nil
}

// UserByName returns the account with that username, for admins and the
// operator.
func (a Accounts) UserByName(ctx context.Context, v ctf.Viewer, username string) (UserView, error) {
	st := a.st
	if !v.IsAdmin() {
		return UserView{}, ctf.ErrNotAdmin
	}
	st.mu.RLock()
	defer st.mu.RUnlock()
	u := st.byName[username]
	if u == nil {
		return UserView{}, ctf.Errorf(ctf.NotFound, "no user %q", username)
	}
	return st.userView(u), nil
}

// Overview is the event at a glance, for its organisers.
type Overview struct {
	Players, Ranked, Solves int
	Attempts                int64
	SolvesPerHour           []HourCount // the last 48 hours with a solve, oldest first
	Challenges              []ChallengeCount
	FirstBloods             []FirstBlood // newest first
}

// HourCount is how many solves an hour saw.
type HourCount struct {
	Hour  time.Time
	Count int
}

// FirstBlood is a challenge's first solve by a player.
type FirstBlood struct {
	Slug, Title, UserID, Username string
	At                            time.Time
}

// Overview returns the event at a glance: counts, solves per hour, the
// challenges by solves (most solved first) and the latest first bloods.
func (st *State) Overview(ctx context.Context, v ctf.Viewer) (Overview, error) {
	if !v.IsAdmin() {
		return Overview{}, ctf.ErrNotAdmin
	}
	st.mu.RLock()
	defer st.mu.RUnlock()
	var o Overview
	perHour := map[time.Time]int{}
	for _, u := range st.users {
		if u.player {
			o.Players++
			if len(u.solves) > 0 {
				o.Ranked++
			}
		}
	}
	for _, c := range st.visible {
		o.Challenges = append(o.Challenges, ChallengeCount{Slug: c.Slug, Title: c.Title, Solves: len(c.playerSolves), Attempts: c.attempts()})
		o.Solves += len(c.playerSolves)
		o.Attempts += c.attempts()
		for _, x := range c.playerSolves {
			perHour[x.At.UTC().Truncate(time.Hour)]++
		}
		if len(c.playerSolves) > 0 {
			x := c.playerSolves[0]
			o.FirstBloods = append(o.FirstBloods, FirstBlood{Slug: c.Slug, Title: c.Title, UserID: x.user.ID, Username: x.user.Username, At: x.At})
		}
	}
	for h, n := range perHour {
		o.SolvesPerHour = append(o.SolvesPerHour, HourCount{Hour: h, Count: n})
	}
	sort.Slice(o.SolvesPerHour, func(i, j int) bool { return o.SolvesPerHour[i].Hour.Before(o.SolvesPerHour[j].Hour) })
	if n := len(o.SolvesPerHour); n > 48 {
		o.SolvesPerHour = o.SolvesPerHour[n-48:]
	}
	sort.SliceStable(o.Challenges, func(i, j int) bool { return o.Challenges[i].Solves > o.Challenges[j].Solves })
	sort.Slice(o.FirstBloods, func(i, j int) bool { return o.FirstBloods[i].At.After(o.FirstBloods[j].At) })
	if len(o.FirstBloods) > 10 {
		o.FirstBloods = o.FirstBloods[:10]
	}
	return o, nil
}

// ChallengeCount is a challenge's solves and attempts.
type ChallengeCount struct {
	Slug, Title string
	Solves      int
	Attempts    int64
	Hidden      bool
	// Pending: not open to players yet (before the start or its release,
	// ReleaseAt when set).
	Pending   bool
	ReleaseAt *time.Time
}

// AdminChallenges lists every challenge, pending and hidden ones included,
// in list order (pending, then hidden, last): an organiser sets up the
// event before it opens.
func (st *State) AdminChallenges(ctx context.Context, v ctf.Viewer) ([]ChallengeCount, error) {
	if !v.IsAdmin() {
		return nil, ctf.ErrNotAdmin
	}
	st.mu.RLock()
	defer st.mu.RUnlock()
	out := []ChallengeCount{}
	for _, c := range st.visible {
		out = append(out, ChallengeCount{Slug: c.Slug, Title: c.Title, Solves: len(c.playerSolves), Attempts: c.attempts(), ReleaseAt: c.ReleaseAt})
	}
	var pending, hidden []ChallengeCount
	for _, c := range st.chals {
		switch {
		case c.Hidden:
			hidden = append(hidden, ChallengeCount{Slug: c.Slug, Title: c.Title, Hidden: true, Attempts: c.wrong, ReleaseAt: c.ReleaseAt})
		case c.pending:
			pending = append(pending, ChallengeCount{Slug: c.Slug, Title: c.Title, Pending: true, Attempts: c.wrong, ReleaseAt: c.ReleaseAt})
		}
	}
	sort.Slice(pending, func(i, j int) bool { return pending[i].Slug < pending[j].Slug })
	sort.Slice(hidden, func(i, j int) bool { return hidden[i].Slug < hidden[j].Slug })
	return append(append(out, pending...), hidden...), nil
}

// AdminList returns, for an admin while challenges are pending (before the
// start, before their release), the challenge list as they see it: every
// challenge that is not hidden, in list order. ok is false for everyone
// else, and when nothing is pending: their list is the public one.
func (st *State) AdminList(v ctf.Viewer) (list []ChallengeSummary, ok bool) {
	if !v.IsAdmin() {
		return nil, false
	}
	st.mu.RLock()
	defer st.mu.RUnlock()
	chals := st.listFor(v)
	if len(chals) == len(st.visible) {
		return nil, false
	}
	u := st.users[v.ID()]
	for _, c := range chals {
		list = append(list, c.summary(u != nil && u.solved[c.ID] != nil, st.publicURL))
	}
	return list, true
}

// ModerationQueue lists the writeups awaiting moderation, oldest first.
func (st *State) ModerationQueue(ctx context.Context, v ctf.Viewer) ([]WriteupView, error) {
	if !v.IsAdmin() {
		return nil, ctf.ErrNotAdmin
	}
	st.mu.RLock()
	defer st.mu.RUnlock()
	var pending []*writeup
	for _, w := range st.writeups {
		if w.Status == ctf.WriteupPending {
			pending = append(pending, w)
		}
	}
	sort.Slice(pending, func(i, j int) bool {
		if !pending[i].UpdatedAt.Equal(pending[j].UpdatedAt) {
			return pending[i].UpdatedAt.Before(pending[j].UpdatedAt)
		}
		return pending[i].ID < pending[j].ID
	})
	out := make([]WriteupView, 0, len(pending))
	for _, w := range pending {
		out = append(out, st.writeupView(w))
	}
	return out, nil
}
