package live

import (
	"sort"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// The lookups the use cases decide with: copies, so nothing of the state
// escapes its lock.

// Accounts are the state's reads of users: accounts, credentials, agents.
type Accounts struct{ st *State }

// Accounts returns the reads of users.
func (st *State) Accounts() Accounts { return Accounts{st} }

// ChallengeBySlug returns a challenge by slug, hidden ones included.
func (st *State) ChallengeBySlug(slug string) (ctf.Challenge, bool) {
	return st.challenge(func() *chal { return st.bySlug[slug] })
}

// ChallengeByID returns a challenge by id, hidden ones included.
func (st *State) ChallengeByID(id string) (ctf.Challenge, bool) {
	return st.challenge(func() *chal { return st.chals[id] })
}

// VisibleChallenge returns the challenge of slug if players see it now.
func (st *State) VisibleChallenge(slug string) (ctf.Challenge, bool) {
	return st.challenge(func() *chal { return st.visibleBySlug(slug) })
}

// challenge copies the challenge find returns under the read lock.
func (st *State) challenge(find func() *chal) (ctf.Challenge, bool) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	if c := find(); c != nil {
		return c.Challenge, true
	}
	return ctf.Challenge{}, false
}

// KeysOf returns a user's API keys, oldest first, revoked ones included;
// false for an unknown user.
func (a Accounts) KeysOf(userID string) ([]APIKeyView, bool) {
	st := a.st
	st.mu.RLock()
	defer st.mu.RUnlock()
	u := st.users[userID]
	if u == nil {
		return nil, false
	}
	out := make([]APIKeyView, 0, len(u.keys))
	for _, k := range u.keys {
		out = append(out, keyView(k))
	}
	return out, true
}

// OpenChallenge returns the challenge of slug if v may see it now (not
// hidden, released, or v an admin), and whether v solved it.
func (st *State) OpenChallenge(slug string, v ctf.Viewer) (c ctf.Challenge, open, solved bool) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	x := st.openBySlug(slug, v)
	if x == nil {
		return ctf.Challenge{}, false, false
	}
	if v.User != nil {
		if u := st.users[v.User.ID]; u != nil && u.solved[x.ID] != nil {
			solved = true
		}
	}
	return x.Challenge, true, solved
}

// WriteupOf returns v's writeup of the challenge of slug and the reason it
// was rejected, if it was: open is false when v may not see the challenge,
// found when v wrote none.
func (st *State) WriteupOf(slug string, v ctf.Viewer) (w WriteupView, reason string, open, found bool) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	c := st.openBySlug(slug, v)
	if c == nil || v.User == nil {
		return WriteupView{}, "", c != nil, false
	}
	for _, x := range c.writeups {
		if x.UserID == v.User.ID {
			return st.writeupView(x), x.Reason, true, true
		}
	}
	return WriteupView{}, "", true, false
}

// NameTaken reports whether a user has the username, in any case, or the
// email already.
func (a Accounts) NameTaken(username, email string) bool {
	st := a.st
	st.mu.RLock()
	defer st.mu.RUnlock()
	return st.byFold[ctf.FoldUsername(username)] != nil || (email != "" && st.byEmail[strings.ToLower(email)] != nil)
}

// Serves reports whether a visible challenge serves the stored file sha
// under name.
func (st *State) Serves(sha, name string) bool {
	st.mu.RLock()
	defer st.mu.RUnlock()
	for _, c := range st.visible {
		if c.FileSHA256 == sha && c.FileName == name {
			return true
		}
	}
	return false
}

// FileOf returns the file the visible challenge of slug serves: its name,
// where to download it ("" when it has none) and its SHA-256 ("" for a
// link elsewhere); ok is false when no visible challenge has the slug.
func (st *State) FileOf(slug string) (name, url, sha string, ok bool) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	c := st.visibleBySlug(slug)
	if c == nil {
		return "", "", "", false
	}
	return c.FileName, c.fileURL(st.publicURL), c.FileSHA256, true
}

// UserByLogin finds an account by username (exactly, else ignoring the
// case of its letters), or by email when the name has an @.
func (a Accounts) UserByLogin(name string) *ctf.User {
	st := a.st
	st.mu.RLock()
	defer st.mu.RUnlock()
	u := st.byName[name]
	if u == nil && strings.Contains(name, "@") {
		u = st.byEmail[strings.ToLower(name)]
	}
	if u == nil {
		u = st.userByNameFold(name)
	}
	if u == nil {
		return nil
	}
	cp := u.User
	return &cp
}

// SessionView is a web session as its owner sees it in settings.
type SessionView struct {
	ID         string // the session's id hash: what RevokeSession takes
	CreatedAt  time.Time
	LastSeenAt time.Time
	ExpiresAt  time.Time
	UserAgent  string
	Current    bool // the session of this call
}

// SessionsOf lists a user's active sessions at now, newest first, current
// the id hash of the session asking; false for an unknown user.
func (a Accounts) SessionsOf(userID, current string, now time.Time) ([]SessionView, bool) {
	st := a.st
	st.mu.RLock()
	defer st.mu.RUnlock()
	u := st.users[userID]
	if u == nil {
		return nil, false
	}
	out := []SessionView{}
	for _, x := range u.sessions {
		sess := x.Session
		sess.LastSeenAt = time.UnixMilli(x.lastSeen.Load()).UTC()
		if sess.Active(now) {
			out = append(out, SessionView{ID: x.IDHash, CreatedAt: sess.CreatedAt, LastSeenAt: sess.LastSeenAt,
				ExpiresAt: sess.ExpiresAt, UserAgent: sess.UserAgent, Current: x.IDHash == current})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.After(out[j].CreatedAt) })
	return out, true
}

// RequiresPath returns a cycle that giving id the prerequisites reqs would
// make (slugs, from id back to id), or nil.
func (st *State) RequiresPath(id string, reqs []string) []string {
	st.mu.RLock()
	defer st.mu.RUnlock()
	edges := func(x string) []string {
		if x == id {
			return reqs
		}
		if c := st.chals[x]; c != nil {
			return c.Requires
		}
		return nil
	}
	seen := map[string]bool{}
	var path []string
	var visit func(x string) bool
	visit = func(x string) bool {
		for _, y := range edges(x) {
			if y == id {
				path = append(path, x)
				return true
			}
			if !seen[y] {
				seen[y] = true
				if visit(y) {
					path = append(path, x)
					return true
				}
			}
		}
		return false
	}
	if !visit(id) {
		return nil
	}
	out := []string{}
	slug := func(x string) string {
		if c := st.chals[x]; c != nil {
			return c.Slug
		}
		return x
	}
	for i := len(path) - 1; i >= 0; i-- {
		out = append(out, slug(path[i]))
	}
	return append(out, slug(id))
}

// UserIDByName returns the id of the user called username.
func (a Accounts) UserIDByName(username string) (string, bool) {
	st := a.st
	st.mu.RLock()
	defer st.mu.RUnlock()
	u := st.byName[username]
	if u == nil {
		return "", false
	}
	return u.ID, true
}

// ChallengeForEdit returns a challenge by slug, hidden or not, with its
// prerequisites by slug and its author's username ("" for none).
func (st *State) ChallengeForEdit(slug string) (c ctf.Challenge, requires []string, author string, ok bool) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	x := st.bySlug[slug]
	if x == nil {
		return ctf.Challenge{}, nil, "", false
	}
	for _, id := range x.Requires {
		if p := st.chals[id]; p != nil {
			requires = append(requires, p.Slug)
		}
	}
	if x.creator != nil {
		author = x.creator.Username
	}
	return x.Challenge, requires, author, true
}

// SharedInstances returns the challenges players see now whose instance is
// shared (one for everyone), in list order.
func (st *State) SharedInstances() []ctf.Challenge {
	st.mu.RLock()
	defer st.mu.RUnlock()
	var out []ctf.Challenge
	for _, c := range st.visible {
		if c.Instance != nil && c.Instance.Shared {
			out = append(out, c.Challenge)
		}
	}
	return out
}
