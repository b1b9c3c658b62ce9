package live

import (
	"sort"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/store"
)

// Applying changed entities to the hot state. Each put replaces an entity
// with its current row, so applying a row twice, or an older row after a
// newer one was read from the database again, converges on the database.
// The caller holds st.mu for writing (or owns the state) and marks the
// challenges put in dirty changed.

type dirtySet map[*chal]bool

// changed gives the dirty challenges new list-entry versions.
func (st *State) changed(dirty dirtySet) {
	for c := range dirty {
		st.changedChal(c)
	}
}

func (st *State) addUser(u ctf.User) *user {
	x := &user{User: u, solved: map[string]*solve{}, wrong: map[string]int64{}}
	// An agent's owner may come later in a snapshot: newStateAfter
	// evaluates the agents again once every user is in.
	x.player = st.isPlayer(&u)
	st.users[u.ID] = x
	st.byName[u.Username] = x
	st.byFold[ctf.FoldUsername(u.Username)] = x
	if u.Email != "" {
		st.byEmail[strings.ToLower(u.Email)] = x
	}
	return x
}

// putUser applies a user's row: a new account, or a change of profile,
// role, ban or two-factor state.
func (st *State) putUser(nu ctf.User, dirty dirtySet) {
	u := st.users[nu.ID]
	if u == nil {
		// Every attempt of a user made after the snapshot comes after it.
		st.addUser(nu).base = map[string]int64{}
		// A user with no solve ranks after every ranked player: no
		// public body changes.
		return
	}
	if u.Username != nu.Username {
		delete(st.byName, u.Username)
		delete(st.byFold, ctf.FoldUsername(u.Username))
		st.byName[nu.Username] = u
		st.byFold[ctf.FoldUsername(nu.Username)] = u
	}
	if !strings.EqualFold(u.Email, nu.Email) {
		delete(st.byEmail, strings.ToLower(u.Email))
		if nu.Email != "" {
			st.byEmail[strings.ToLower(nu.Email)] = u
		}
	}
	shown := u.Name != nu.Name || u.Username != nu.Username || u.Image != nu.Image
	banChanged := u.Banned != nu.Banned
	u.User = nu
	if shown {
		u.ver = st.bump()
		st.moveBoard()
		for _, c := range st.chals {
			if c.creator == u {
				dirty[c] = true
				st.listVer++
			}
		}
	}
	if player := st.isPlayer(&u.User); player != u.player {
		st.setPlayer(u, player, dirty)
	}
	// A ban covers the person: their agents follow their ban (ban.go).
	if banChanged && !u.IsAgent() {
		for _, a := range st.agentsOf(u.ID) {
			if player := st.isPlayer(&a.User); player != a.player {
				st.setPlayer(a, player, dirty)
			}
		}
	}
}

// setPlayer moves u in or out of the public aggregates (a ban, an unban,
// a promotion or a demotion): solves, first bloods, attempts, reviews.
func (st *State) setPlayer(u *user, player bool, dirty dirtySet) {
	u.player = player
	sign := int64(1)
	if !player {
		sign = -1
	}
	for _, x := range u.solves {
		c := x.chal
		if player {
			c.playerSolves = insertSolve(c.playerSolves, x)
		} else {
			c.playerSolves = removeSolve(c.playerSolves, x)
		}
		st.revalue(c, false)
		dirty[c] = true
	}
	// u.base was read before (needsBaseline): what the snapshot counted
	// of u's, plus what was applied since.
	for _, counts := range []map[string]int64{u.base, u.wrong} {
		for id, n := range counts {
			if c := st.chals[id]; c != nil {
				c.wrong += sign * n
				dirty[c] = true
			}
		}
	}
	for _, c := range st.chals {
		if r, ok := c.reviews[u.ID]; ok {
			c.countReview(r, int(sign))
			dirty[c] = true
		}
	}
	u.ver = st.bump()
	st.moveBoard()
	st.listVer++
}

// putKey applies an API key's row. Its last use is the later of memory's
// (recorded here first) and the database's.
func (st *State) putKey(k ctf.APIKey) {
	x := st.keyByID[k.ID]
	if x == nil {
		u := st.users[k.UserID]
		if u == nil {
			return
		}
		x = &apiKey{}
		st.keyByID[k.ID] = x
		st.keys[k.Prefix] = x
		x.APIKey = k
		i := sort.Search(len(u.keys), func(i int) bool { return keyBefore(&k, &u.keys[i].APIKey) })
		u.keys = append(u.keys, nil)
		copy(u.keys[i+1:], u.keys[i:])
		u.keys[i] = x
	} else {
		x.APIKey = k
	}
	if k.LastUsedAt != nil {
		setLater(&x.lastUsed, k.LastUsedAt.UnixMilli())
	}
}

func keyBefore(a, b *ctf.APIKey) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.Before(b.CreatedAt)
	}
	return a.ID < b.ID
}

// addSession adds an active session.
func (st *State) addSession(s ctf.Session) {
	u := st.users[s.UserID]
	if u == nil {
		return
	}
	x := &session{Session: s}
	x.lastSeen.Store(s.LastSeenAt.UnixMilli())
	st.sessions[s.IDHash] = x
	u.sessions = append(u.sessions, x)
}

// putSessions replaces a user's sessions with the active ones listed.
func (st *State) putSessions(userID string, list []ctf.Session) {
	u := st.users[userID]
	if u == nil {
		return
	}
	seen := map[string]int64{}
	for _, x := range u.sessions {
		seen[x.IDHash] = x.lastSeen.Load()
		delete(st.sessions, x.IDHash)
	}
	u.sessions = nil
	for _, s := range list {
		st.addSession(s)
		if t, ok := seen[s.IDHash]; ok {
			setLater(&st.sessions[s.IDHash].lastSeen, t)
		}
	}
}

// putReview applies a review's row.
func (st *State) putReview(r ctf.Review) *chal {
	c, u := st.chals[r.ChallengeID], st.users[r.UserID]
	if c == nil || u == nil {
		return nil
	}
	if old, ok := c.reviews[r.UserID]; ok && u.player {
		c.countReview(old, -1)
	}
	c.reviews[r.UserID] = r
	if u.player {
		c.countReview(r, 1)
	}
	st.listVer++
	return c
}

// putWriteup applies a writeup's row.
func (st *State) putWriteup(w ctf.Writeup) {
	c := st.chals[w.ChallengeID]
	if c == nil {
		return
	}
	if x := st.writeups[w.ID]; x != nil {
		x.Writeup = w
		return
	}
	x := &writeup{Writeup: w}
	st.writeups[w.ID] = x
	i := sort.Search(len(c.writeups), func(i int) bool {
		y := c.writeups[i]
		if !w.CreatedAt.Equal(y.CreatedAt) {
			return w.CreatedAt.Before(y.CreatedAt)
		}
		return w.ID < y.ID
	})
	c.writeups = append(c.writeups, nil)
	copy(c.writeups[i+1:], c.writeups[i:])
	c.writeups[i] = x
}

// putChallenge applies a challenge's row: a new one, or an edit of any
// field. Its solves are counted again under the new points and
// visibility: only its solvers' entries change, never the whole state.
func (st *State) putChallenge(nc ctf.Challenge, dirty dirtySet) {
	c := st.chals[nc.ID]
	st.noteBadges(c, nc.Categories)
	if c == nil {
		c = &chal{Challenge: nc, reviews: map[string]ctf.Review{}, value: nc.Value(0)}
		st.chals[nc.ID] = c
	} else {
		for _, x := range c.solves {
			st.detach(x)
		}
		if c.Slug != nc.Slug {
			delete(st.bySlug, c.Slug)
		}
		c.Challenge = nc
		st.forgetRemovedHints(c)
	}
	st.bySlug[nc.Slug] = c
	c.creator = st.users[nc.AuthorID]
	c.pending = st.pendingAt(c, st.clockAt)
	st.recountChallenge(c)
	st.sortVisible()
	st.rearm() // its release may be the next instant
	dirty[c] = true
	st.moveBoard()
	st.listVer++
}

// applyEntities applies a catch-up's changed entities, in an order where
// what an entity names is there first (users and challenges before keys,
// sessions, reviews and writeups).
func (st *State) applyEntities(e store.Entities, dirty dirtySet) {
	for _, u := range e.Users {
		st.putUser(u, dirty)
	}
	for _, c := range e.Challenges {
		st.putChallenge(c, dirty)
	}
	for _, k := range e.APIKeys {
		st.putKey(k)
	}
	for id, list := range e.Sessions {
		st.putSessions(id, list)
	}
	for _, r := range e.Reviews {
		if c := st.putReview(r); c != nil {
			dirty[c] = true
		}
	}
	for _, w := range e.Writeups {
		st.putWriteup(w)
	}
	st.putHintUnlocks(e.HintUnlocks)
	for _, a := range e.Announcements {
		st.putAnnouncement(a)
	}
	for _, p := range e.Pages {
		st.pages[p.Name] = p
	}
	if e.LogoChanged {
		st.logo = e.Logo
	}
	// Last: a deleted challenge's rows are gone, so nothing above named it.
	for _, id := range e.DeletedChallenges {
		st.deleteChallenge(id, dirty)
	}
}

// setLater moves an atomic Unix-ms time forward to t, never back.
func setLater(a interface {
	Load() int64
	CompareAndSwap(old, new int64) bool
}, t int64) {
	for {
		cur := a.Load()
		if t <= cur || a.CompareAndSwap(cur, t) {
			return
		}
	}
}

func msTime(ms int64) *time.Time {
	if ms == 0 {
		return nil
	}
	t := time.UnixMilli(ms).UTC()
	return &t
}

// needsBaseline returns the users whose player status the change may move
// and whose snapshot counts are not read yet: the changed users, and the
// agents of those whose ban changes. The caller holds st.mu.
func (st *State) needsBaseline(changed []ctf.User) []string {
	var ids []string
	seen := map[string]bool{}
	need := func(u *user) {
		if u.base == nil && !seen[u.ID] {
			seen[u.ID] = true
			ids = append(ids, u.ID)
		}
	}
	for _, nu := range changed {
		u := st.users[nu.ID]
		if u == nil {
			continue
		}
		if u.player != st.isPlayer(&nu) {
			need(u)
		}
		if u.Banned != nu.Banned {
			for _, a := range st.agentsOf(u.ID) {
				need(a)
			}
		}
	}
	return ids
}
