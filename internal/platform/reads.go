package platform

import (
	"context"
	"sort"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// The public lists are read by version: each changes as a whole (a new
// order, a new entry) and entry by entry, so a front door that keeps what
// it built of each entry (say, its JSON) rebuilds only what changed. have
// tells which entries it holds at which version; the rows it holds come
// back without their content.

// LeaderboardVersion is the version of the leaderboard: it moves with any
// change of order or of an entry.
func (s *Scoreboard) LeaderboardVersion() uint64 {
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	return st.solveVer
}

// LeaderboardRow is one ranked player. Entry is nil when the caller holds
// the entry at Version already.
type LeaderboardRow struct {
	UserID  string
	Version uint64
	Entry   *LeaderboardEntry
}

// Leaderboard returns the ranked players in order and the leaderboard's
// version. have (nil: holds nothing) reports whether the caller holds a
// user's entry at a version.
func (s *Scoreboard) Leaderboard(have func(userID string, version uint64) bool) (uint64, []LeaderboardRow) {
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	order, _ := st.rankingLocked()
	rows := make([]LeaderboardRow, len(order))
	for i, u := range order {
		rows[i] = LeaderboardRow{UserID: u.ID, Version: u.ver}
		if have == nil || !have(u.ID, u.ver) {
			rows[i].Entry = u.leaderboardEntry()
		}
	}
	return st.solveVer, rows
}

// RankedEntry is a leaderboard entry with its rank and solve count.
type RankedEntry struct {
	Rank        int
	TotalSolves int
	Agent       bool // an AI agent's account (docs/product.md#agents): the web app marks it
	LeaderboardEntry
}

// Who picks the players of a leaderboard view.
type Who int

// The views of the leaderboard: everyone, people only, agents only. Ranks
// are always places on the one board.
const (
	Everyone Who = iota
	People
	AgentsOnly
)

func (w Who) includes(u *user) bool { return w.Includes(&u.User) }

// Includes reports whether the view w lists u.
func (w Who) Includes(u *ctf.User) bool {
	return w == Everyone || (w == AgentsOnly) == u.IsAgent()
}

// PlaceAmong returns the 0-based place of a ranked user among the players
// who picks, -1 when the user is not ranked there: which page of a
// filtered board holds their row.
func (s *Scoreboard) PlaceAmong(who Who, userID string) int {
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	order, ranks := st.rankingLocked()
	r, ok := ranks[userID]
	if !ok {
		return -1
	}
	if who == Everyone {
		return r - 1
	}
	place := 0
	for _, u := range order[:r-1] {
		if who.includes(u) {
			place++
		}
	}
	return place
}

// LeaderboardPage returns the ranked players from offset (0-based), at most
// limit of them, and how many are ranked: a page of a board too big to send
// whole. Without solves, each entry's Solves is empty (TotalSolves says
// how many): a table needs no timeline.
func (s *Scoreboard) LeaderboardPage(offset, limit int, solves bool) (total int, page []RankedEntry) {
	return s.LeaderboardPageOf(Everyone, offset, limit, solves)
}

// LeaderboardPageOf is LeaderboardPage for the players who picks; total
// counts them, and each keeps its rank on the whole board.
func (s *Scoreboard) LeaderboardPageOf(who Who, offset, limit int, solves bool) (total int, page []RankedEntry) {
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	order, _ := st.rankingLocked()
	return pageOf(order, who, offset, limit, solves)
}

// pageOf is a page of the ranked users in order; the caller holds st.mu.
func pageOf(order []*user, who Who, offset, limit int, solves bool) (total int, page []RankedEntry) {
	// The places (0-based) of the players picked; everyone's are 0..n-1,
	// and a filtered view is one pass over the ranking.
	var places []int
	total = len(order)
	if who != Everyone {
		for i, u := range order {
			if who.includes(u) {
				places = append(places, i)
			}
		}
		total = len(places)
	}
	offset = min(max(offset, 0), total)
	end := min(offset+max(limit, 0), total)
	page = make([]RankedEntry, 0, end-offset)
	for n := offset; n < end; n++ {
		i := n
		if who != Everyone {
			i = places[n]
		}
		u := order[i]
		e := RankedEntry{Rank: i + 1, TotalSolves: len(u.solves), Agent: u.IsAgent()}
		if solves {
			e.LeaderboardEntry = *u.leaderboardEntry()
		} else {
			e.LeaderboardEntry = LeaderboardEntry{ID: u.ID, Name: displayName(u), Username: u.Username, Image: u.Image, TotalPoints: u.points}
			if last, ok := u.lastSolvedAt(); ok {
				e.LastSolvedAt = last.At
			}
		}
		page = append(page, e)
	}
	return total, page
}

// leaderboardEntry is u's entry; the caller holds the state's lock.
func (u *user) leaderboardEntry() *LeaderboardEntry {
	e := &LeaderboardEntry{ID: u.ID, Name: displayName(u), Username: u.Username, Image: u.Image, TotalPoints: u.points,
		Solves: make([]LeaderboardSolve, len(u.solves))}
	for i, sv := range u.solves {
		e.Solves[i] = LeaderboardSolve{SolvedAt: sv.At, Points: sv.chal.Points}
	}
	if last, ok := u.lastSolvedAt(); ok {
		e.LastSolvedAt = last.At
	}
	return e
}

// ChallengeListVersion is the version of the challenge list: it moves with
// any change of an entry, of the order or of who sees what solved.
func (s *Play) ChallengeListVersion() uint64 {
	st := s.state()
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
func (s *Play) ChallengeList(have func(challengeID string, version uint64) bool) (uint64, []ChallengeListRow) {
	st := s.state()
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
func (s *Play) MarksInList(userID string, solved, unlocked []bool) (uint64, []bool, []bool) {
	st := s.state()
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
func (s *Play) SolvedInList(userID string, solved []bool) (uint64, []bool) {
	st := s.state()
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
func (s *Play) ConnectionInfo(slug string) string {
	st := s.state()
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
func (s *Play) Prerequisites(slug string, v Viewer) (Requirements, error) {
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	c := st.openBySlug(slug, v)
	if c == nil {
		return Requirements{}, ErrNoChallenge
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
func (s *Play) Board(v Viewer) []ChallengeDetail {
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	list := st.listFor(v)
	out := make([]ChallengeDetail, len(list))
	for i, c := range list {
		out[i] = st.detail(c, v)
	}
	return out
}

// AdminList returns, for an admin while challenges are pending (before the
// start, before their release), the challenge list as they see it: every
// challenge that is not hidden, in list order. ok is false for everyone
// else, and when nothing is pending: their list is the public one.
func (s *Content) AdminList(v Viewer) (list []ChallengeSummary, ok bool) {
	if !v.admin() {
		return nil, false
	}
	st := s.state()
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

// listFor is the list v sees: the visible challenges, and for admins the
// pending ones too. The caller holds st.mu.
func (st *state) listFor(v Viewer) []*chal {
	if !v.admin() {
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
func (s *Play) Challenge(slug string, v Viewer) (ChallengeDetail, error) {
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	c := st.openBySlug(slug, v)
	if c == nil {
		return ChallengeDetail{}, ErrNoChallenge
	}
	return st.detail(c, v), nil
}

// detail is c as v sees it; the caller holds st.mu.
func (st *state) detail(c *chal, v Viewer) ChallengeDetail {
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
func (s *Play) Writeups(ctx context.Context, slug string, v Viewer) (Writeups, error) {
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	c := st.openBySlug(slug, v)
	if c == nil {
		return Writeups{}, ErrNoChallenge
	}
	if u := st.users[v.ID()]; u == nil || u.solved[c.ID] == nil {
		return Writeups{}, ctf.Errorf(ctf.Forbidden, "solve the challenge before reading its writeups")
	}
	out := Writeups{
		Challenge: WriteupChallenge{ID: c.ID, Title: c.Title, Categories: c.Categories, Difficulty: c.Difficulty, Points: c.Points},
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
func (st *state) writeupView(w *writeup) WriteupView {
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

// Profile returns the public profile of a user, or nil when there is none.
func (s *Scoreboard) Profile(userID string) *PublicProfile {
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	u := st.users[userID]
	if u == nil {
		return nil
	}
	p := st.profile(u)
	return &p
}

// Me returns the caller's own profile.
func (s *Accounts) Me(ctx context.Context, v Viewer) (MyProfile, error) {
	if v.User == nil {
		return MyProfile{}, ctf.Errorf(ctf.Unauthorized, "authentication required")
	}
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	u := st.users[v.User.ID]
	if u == nil {
		return MyProfile{}, ctf.Errorf(ctf.Unauthorized, "authentication required")
	}
	me := MyProfile{PublicProfile: st.profile(u), Email: strPtr(u.Email), TwoFactorEnabled: u.TwoFactor,
		McpAPIKeys: make([]APIKeyView, 0, len(u.keys))}
	for _, k := range u.keys {
		me.McpAPIKeys = append(me.McpAPIKeys, keyView(k))
	}
	// A player sees their own solves that count nowhere public: those a
	// freeze holds, and practice solves. Totals and ranks stay public.
	var own []*solve
	for _, x := range u.solved {
		if !x.attached && x.chal.shown() {
			own = append(own, x)
		}
	}
	if len(own) > 0 {
		for _, x := range own {
			me.SolvedChallenges = append(me.SolvedChallenges, ProfileSolve{SolvedAt: ctf.FormatTime(x.At), Challenge: profileChallenge(x.chal)})
		}
		sort.SliceStable(me.SolvedChallenges, func(i, j int) bool {
			return me.SolvedChallenges[i].SolvedAt > me.SolvedChallenges[j].SolvedAt
		})
	}
	return me, nil
}

func keyView(k *apiKey) APIKeyView {
	kv := APIKeyView{ID: k.ID, Name: k.Name, KeyPrefix: k.Prefix, CreatedAt: ctf.FormatTime(k.CreatedAt)}
	if t := msTime(k.lastUsed.Load()); t != nil {
		kv.LastUsedAt = strPtr(ctf.FormatTime(*t))
	}
	if k.RevokedAt != nil {
		kv.RevokedAt = strPtr(ctf.FormatTime(*k.RevokedAt))
	}
	return kv
}

func profileChallenge(c *chal) ProfileChallenge {
	cats := c.Categories
	if cats == nil {
		cats = []string{}
	}
	return ProfileChallenge{ID: c.ID, Slug: c.Slug, Title: c.Title, Points: c.Points, Categories: cats,
		Difficulty: c.Difficulty, CreatedAt: ctf.FormatTime(c.CreatedAt)}
}

// profile builds u's public profile; the caller holds st.mu for reading.
func (st *state) profile(u *user) PublicProfile {
	p := PublicProfile{
		ID: u.ID, Name: strPtr(u.Name), Username: strPtr(u.Username), Image: strPtr(u.Image),
		CreatedAt:         ctf.FormatTime(u.CreatedAt),
		SolvedChallenges:  make([]ProfileSolve, 0, len(u.solves)),
		CreatedChallenges: []ProfileChallenge{},
		TotalPoints:       u.points,
		CategoryCounts:    map[string]int{},
		DifficultyCounts:  map[ctf.Difficulty]int{},
	}
	for i := len(u.solves) - 1; i >= 0; i-- {
		sv := u.solves[i]
		p.SolvedChallenges = append(p.SolvedChallenges, ProfileSolve{SolvedAt: ctf.FormatTime(sv.At), Challenge: profileChallenge(sv.chal)})
		for _, cat := range sv.chal.Categories {
			p.CategoryCounts[cat]++
		}
		p.DifficultyCounts[sv.chal.Difficulty]++
	}
	for i := len(st.visible) - 1; i >= 0; i-- {
		if c := st.visible[i]; c.creator == u {
			p.CreatedChallenges = append(p.CreatedChallenges, profileChallenge(c))
		}
	}
	sort.SliceStable(p.CreatedChallenges, func(i, j int) bool { return p.CreatedChallenges[i].CreatedAt > p.CreatedChallenges[j].CreatedAt })
	if u.player {
		for _, sv := range u.solves {
			if i := podium(sv); i == 0 {
				p.FirstBloodCount++
				p.Top3Count++
			} else if i > 0 {
				p.Top3Count++
			}
		}
		if len(u.solves) > 0 {
			_, rank := st.rankingLocked()
			p.Rank = rank[u.ID]
		} else {
			order, _ := st.rankingLocked()
			p.Rank = len(order) + 1
		}
	}
	awards := st.badges(u)
	p.Badges = make([]ProfileBadge, 0, len(awards))
	for _, a := range awards {
		p.Badges = append(p.Badges, ProfileBadge{BadgeID: a.ID, AwardedAt: ctf.FormatTime(a.AwardedAt)})
	}
	return p
}

// podium returns the 0-based place of a player's solve among the first
// three players to solve its challenge, or -1.
func podium(sv *solve) int {
	for i, x := range sv.chal.playerSolves {
		if i >= 3 {
			break
		}
		if x == sv {
			return i
		}
	}
	return -1
}

// badges computes u's awards from the hot state; the caller holds st.mu.
func (st *state) badges(u *user) []ctf.Award {
	hist := make([]ctf.BadgeSolve, len(u.solves))
	for i, sv := range u.solves {
		hist[i] = ctf.BadgeSolve{At: sv.At, Categories: sv.chal.Categories, Difficulty: sv.chal.Difficulty,
			FirstBlood: u.player && podium(sv) == 0}
	}
	return ctf.Badges(hist, st.catTotal)
}

// LiveLeaderboardPageOf is LeaderboardPageOf as the standings really are,
// for admins during a freeze: the solves the freeze holds back from the
// public count here. Ranked the same way; not cached (admins are few).
func (s *Scoreboard) LiveLeaderboardPageOf(v Viewer, who Who, offset, limit int, solves bool) (total int, page []RankedEntry, err error) {
	if !v.admin() {
		return 0, nil, errNotAdmin
	}
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	if !st.frozen {
		order, _ := st.rankingLocked()
		total, page = pageOf(order, who, offset, limit, solves)
		return total, page, nil
	}
	// Shadow users carrying the live solves, ranked as the board ranks.
	var order []*user
	for _, u := range st.users {
		if !u.player {
			continue
		}
		live := &user{User: u.User, player: true}
		for _, x := range u.solved {
			if x.chal.shown() && !x.Practice {
				live.solves = insertSolve(live.solves, x)
				live.points += x.chal.Points
			}
		}
		if len(live.solves) > 0 {
			order = append(order, live)
		}
	}
	sort.Slice(order, func(i, j int) bool { return ctf.RanksBefore(order[i].standing(), order[j].standing()) })
	total, page = pageOf(order, who, offset, limit, solves)
	return total, page, nil
}
