package live

import (
	"slices"
	"sort"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// LeaderboardVersion is the version of the leaderboard: it moves with any
// change of order or of an entry.
func (st *State) LeaderboardVersion() uint64 {
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
func (st *State) Leaderboard(have func(userID string, version uint64) bool) (uint64, []LeaderboardRow) {
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
func (st *State) PlaceAmong(who Who, userID string) int {
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
func (st *State) LeaderboardPage(offset, limit int, solves bool) (total int, page []RankedEntry) {
	return st.LeaderboardPageOf(Everyone, offset, limit, solves)
}

// LeaderboardPageOf is LeaderboardPage for the players who picks; total
// counts them, and each keeps its rank on the whole board.
func (st *State) LeaderboardPageOf(who Who, offset, limit int, solves bool) (total int, page []RankedEntry) {
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
		e.Solves[i] = LeaderboardSolve{SolvedAt: sv.At, Points: sv.worth}
	}
	if last, ok := u.lastSolvedAt(); ok {
		e.LastSolvedAt = last.At
	}
	return e
}

// Profile returns the public profile of a user, or nil when there is none.
func (st *State) Profile(userID string) *PublicProfile {
	st.mu.RLock()
	defer st.mu.RUnlock()
	u := st.users[userID]
	if u == nil {
		return nil
	}
	p := st.profile(u)
	return &p
}

func profileChallenge(c *chal) ProfileChallenge {
	cats := c.Categories
	if cats == nil {
		cats = []string{}
	}
	return ProfileChallenge{ID: c.ID, Slug: c.Slug, Title: c.Title, Points: c.value, Categories: cats,
		Difficulty: c.Difficulty, CreatedAt: ctf.FormatTime(c.CreatedAt)}
}

// solvedView is x in a profile, its challenge's points what x is worth
// (worth): a profile's solves add up to its total.
func solvedView(x *solve, worth int) ProfileSolve {
	pc := profileChallenge(x.chal)
	pc.Points = worth
	return ProfileSolve{SolvedAt: ctf.FormatTime(x.At), Challenge: pc}
}

// profile builds u's public profile; the caller holds st.mu for reading.
func (st *State) profile(u *user) PublicProfile {
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
		p.SolvedChallenges = append(p.SolvedChallenges, solvedView(sv, sv.worth))
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
func (st *State) badges(u *user) []ctf.Award {
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
func (st *State) LiveLeaderboardPageOf(v ctf.Viewer, who Who, offset, limit int, solves bool) (total int, page []RankedEntry, err error) {
	if !v.IsAdmin() {
		return 0, nil, ctf.ErrNotAdmin
	}
	st.mu.RLock()
	defer st.mu.RUnlock()
	if !st.frozen {
		order, _ := st.rankingLocked()
		total, page = pageOf(order, who, offset, limit, solves)
		return total, page, nil
	}
	// Shadow users carrying the live solves, worth the live values, ranked
	// as the board ranks.
	solvers := map[*chal]int{}
	for _, u := range st.users {
		for _, x := range u.solved {
			if u.player && x.chal.shown() && !x.Practice {
				solvers[x.chal]++
			}
		}
	}
	var order []*user
	for _, u := range st.users {
		if !u.player {
			continue
		}
		live := &user{User: u.User, player: true}
		for _, x := range u.solved {
			if x.chal.shown() && !x.Practice {
				shadow := *x
				shadow.worth = ctf.Worth(x.chal.Value(solvers[x.chal]), x.chal.cost(u))
				live.solves = insertSolve(live.solves, &shadow)
				live.points += shadow.worth
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

// ProfileByName returns the public profile of the user called username
// (case-insensitively), or nil when there is none: agents name players by
// the usernames the leaderboard shows.
func (st *State) ProfileByName(username string) *PublicProfile {
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
func (st *State) userByNameFold(name string) *user {
	if u := st.byName[name]; u != nil {
		return u
	}
	return st.byFold[ctf.FoldUsername(name)]
}

// RankOf returns the caller's 1-based place on the leaderboard, 0 when the
// caller is not ranked (no solve yet, an admin or banned).
func (st *State) RankOf(userID string) int {
	st.mu.RLock()
	defer st.mu.RUnlock()
	_, ranks := st.rankingLocked()
	return ranks[userID]
}

// Me returns a user's own profile: their public profile with what only
// they see.
func (a Accounts) Me(userID string) (MyProfile, bool) {
	st := a.st
	st.mu.RLock()
	defer st.mu.RUnlock()
	u := st.users[userID]
	if u == nil {
		return MyProfile{}, false
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
			me.SolvedChallenges = append(me.SolvedChallenges, solvedView(x, st.ownWorth(x)))
		}
		sort.SliceStable(me.SolvedChallenges, func(i, j int) bool {
			return me.SolvedChallenges[i].SolvedAt > me.SolvedChallenges[j].SolvedAt
		})
	}
	return me, true
}

// A badge is announced once. Badges follow the counted solves, so a
// change of a challenge can take one away (hidden or deleted, its solves
// count no more; a new challenge in a category, its badge is not complete)
// and a later solve give it back: that solve does not announce it again.
// Before such a change, the badges of the users it may touch are noted
// (user.held); a solve announces only the badges not noted.

// noteBadges notes the badges held now by the users a change of c (nil
// for a new challenge) may take one from: its solvers, and those of the
// challenges of its categories and of cats (its categories after the
// change). The caller holds st.mu.
func (st *State) noteBadges(c *chal, cats []string) {
	seen := map[*user]bool{}
	note := func(list []*solve) {
		for _, x := range list {
			u := x.user
			if seen[u] {
				continue
			}
			seen[u] = true
			for _, a := range st.badges(u) {
				if u.held == nil {
					u.held = map[string]bool{}
				}
				u.held[a.ID] = true
			}
		}
	}
	if c != nil {
		note(c.solves)
		cats = append(slices.Clip(cats), c.Categories...)
	}
	for _, o := range st.visible {
		if o != c && slices.ContainsFunc(o.Categories, func(x string) bool { return slices.Contains(cats, x) }) {
			note(o.solves)
		}
	}
}

// unheld returns the awards of new whose badge u was not noted holding.
func (u *user) unheld(awards []ctf.Award) []ctf.Award {
	out := awards[:0:0]
	for _, a := range awards {
		if !u.held[a.ID] {
			out = append(out, a)
		}
	}
	return out
}
