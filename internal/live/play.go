package live

import (
	"context"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// The public lists are read by version: each changes as a whole (a new
// order, a new entry) and entry by entry, so a front door that keeps what
// it built of each entry (say, its JSON) rebuilds only what changed. have
// tells which entries it holds at which version; the rows it holds come
// back without their content.

// ChallengeListVersion is the version of the challenge list: it moves with
// any change of an entry, of the order or of who sees what solved.
func (st *State) ChallengeListVersion() uint64 {
	st.mu.RLock()
	defer st.mu.RUnlock()
	return st.listVer
}

// ChallengeListRow is one listed challenge. Summary (with Solved false) is
// nil when the caller holds the entry at Version already.
type ChallengeListRow struct {
	ChallengeID string
	Version     uint64
	Summary     *ChallengeSummary
}

// ChallengeList returns the visible challenges in list order and the
// list's version; have as for Leaderboard.
func (st *State) ChallengeList(have func(challengeID string, version uint64) bool) (uint64, []ChallengeListRow) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	rows := make([]ChallengeListRow, len(st.visible))
	for i, c := range st.visible {
		rows[i] = ChallengeListRow{ChallengeID: c.ID, Version: c.ver}
		if have == nil || !have(c.ID, c.ver) {
			sum := c.summary(false, st.publicURL)
			rows[i].Summary = &sum
		}
	}
	return st.listVer, rows
}

// MarksInList appends to solved and unlocked, for each entry of the
// challenge list in order, whether userID solved it and may submit to it,
// and returns the list's version (see SolvedInList).
func (st *State) MarksInList(userID string, solved, unlocked []bool) (uint64, []bool, []bool) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	u := st.users[userID]
	for _, c := range st.visible {
		solved = append(solved, u != nil && u.solved[c.ID] != nil)
		unlocked = append(unlocked, st.unlocked(c, u))
	}
	return st.listVer, solved, unlocked
}

// SolvedInList appends to solved, for each entry of the challenge list in
// order, whether userID solved it, and returns the list's version: the
// list as that user sees it is the list of that version with these marks.
func (st *State) SolvedInList(userID string, solved []bool) (uint64, []bool) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	u := st.users[userID]
	for _, c := range st.visible {
		solved = append(solved, u != nil && u.solved[c.ID] != nil)
	}
	return st.listVer, solved
}

// ConnectionInfo returns how to reach a visible challenge's service ("nc
// host 1337"), which the contract's views do not carry; "" when none.
func (st *State) ConnectionInfo(slug string) string {
	st.mu.RLock()
	defer st.mu.RUnlock()
	if c := st.visibleBySlug(slug); c != nil {
		return c.ConnectionInfo
	}
	return ""
}

// Prerequisite is a challenge another one requires, and whether the
// caller solved it.
type Prerequisite struct {
	Slug, Title string
	Solved      bool
}

// Requirements are a challenge's prerequisites as a viewer may know them.
type Requirements struct {
	// Open are the prerequisites the viewer may see (openTo), in the
	// challenge's order.
	Open []Prerequisite
	// Unreleased counts the prerequisites the viewer may not see yet (not
	// released, or the event not started) and has not solved: they lock
	// the challenge, so they are told, but never named. A hidden
	// prerequisite locks nothing and is not counted.
	Unreleased int
}

// Prerequisites returns what the challenge slug requires, as v may know it.
func (st *State) Prerequisites(slug string, v ctf.Viewer) (Requirements, error) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	c := st.openBySlug(slug, v)
	if c == nil {
		return Requirements{}, ctf.ErrNoChallenge
	}
	u := st.users[v.ID()]
	out := Requirements{Open: []Prerequisite{}}
	for _, id := range c.Requires {
		p := st.chals[id]
		if p == nil || p.Hidden {
			continue
		}
		solved := u != nil && u.solved[id] != nil
		switch {
		case openTo(p, v):
			out.Open = append(out.Open, Prerequisite{Slug: p.Slug, Title: p.Title, Solved: solved})
		case !solved:
			out.Unreleased++
		}
	}
	return out, nil
}

// Board returns every visible challenge as v sees it, in list order: the
// web app's board, in one read of the state.
func (st *State) Board(v ctf.Viewer) []ChallengeDetail {
	st.mu.RLock()
	defer st.mu.RUnlock()
	list := st.listFor(v)
	out := make([]ChallengeDetail, len(list))
	for i, c := range list {
		out[i] = st.detail(c, v)
	}
	return out
}

// listFor is the list v sees: the visible challenges, and for admins the
// pending ones too. The caller holds st.mu.
func (st *State) listFor(v ctf.Viewer) []*chal {
	if !v.IsAdmin() {
		return st.visible
	}
	var list []*chal
	for _, c := range st.chals {
		if !c.Hidden {
			list = append(list, c)
		}
	}
	if len(list) == len(st.visible) {
		return st.visible
	}
	sortChallenges(list)
	return list
}

// Challenge returns one visible challenge as v sees it.
func (st *State) Challenge(slug string, v ctf.Viewer) (ChallengeDetail, error) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	c := st.openBySlug(slug, v)
	if c == nil {
		return ChallengeDetail{}, ctf.ErrNoChallenge
	}
	return st.detail(c, v), nil
}

// detail is c as v sees it; the caller holds st.mu.
func (st *State) detail(c *chal, v ctf.Viewer) ChallengeDetail {
	u := st.users[v.ID()]
	var mine *solve
	if u != nil {
		mine = u.solved[c.ID]
	}
	d := ChallengeDetail{
		ChallengeSummary: c.summary(mine != nil, st.publicURL),
		Unlocked:         st.unlocked(c, u),
		AvgDifficulty:    c.avgDifficulty(),
		TotalReviews:     c.reviewCount,
	}
	if mine != nil && mine.Flag != "" {
		d.SubmittedFlag = strPtr(mine.Flag)
	}
	if r, ok := c.reviews[v.ID()]; ok && u != nil {
		d.MyReview = &ReviewView{Stars: r.Stars, Difficulty: r.Difficulty}
	}
	return d
}

// Writeups lists a challenge's approved writeups and the caller's own, in
// any status, oldest first, never twice. The caller must have solved the
// challenge.
func (st *State) Writeups(ctx context.Context, slug string, v ctf.Viewer) (Writeups, error) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	c := st.openBySlug(slug, v)
	if c == nil {
		return Writeups{}, ctf.ErrNoChallenge
	}
	if u := st.users[v.ID()]; u == nil || u.solved[c.ID] == nil {
		return Writeups{}, ctf.Errorf(ctf.Forbidden, "solve the challenge before reading its writeups")
	}
	out := Writeups{
		Challenge: WriteupChallenge{ID: c.ID, Title: c.Title, Categories: c.Categories, Difficulty: c.Difficulty, Points: c.value},
		Writeups:  []WriteupView{},
	}
	if out.Challenge.Categories == nil {
		out.Challenge.Categories = []string{}
	}
	for _, w := range c.writeups {
		if w.Status == ctf.WriteupApproved || w.UserID == v.ID() {
			out.Writeups = append(out.Writeups, st.writeupView(w))
		}
	}
	return out, nil
}

// writeupView is w as listings show it; the caller holds st.mu.
func (st *State) writeupView(w *writeup) WriteupView {
	images := w.Images
	if images == nil {
		images = []string{}
	}
	view := WriteupView{ID: w.ID, UserID: w.UserID, ChallengeID: w.ChallengeID, Title: w.Title, Content: w.Content,
		Images: images, Status: w.Status, CreatedAt: ctf.FormatTime(w.CreatedAt), UpdatedAt: ctf.FormatTime(w.UpdatedAt)}
	if u := st.users[w.UserID]; u != nil {
		view.User = WriteupUser{Username: strPtr(u.Username), Name: strPtr(u.Name)}
	}
	return view
}
