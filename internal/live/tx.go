package live

import (
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/store"
)

// Tx is one write of this process as Apply applies it: the state locked,
// and what changed noted so every version moves once.
type Tx struct {
	st    *State
	dirty dirtySet
	now   func() time.Time
	moves []store.StreamRow
}

// PutUser adds or replaces a user.
func (tx *Tx) PutUser(u ctf.User) { tx.st.putUser(u, tx.dirty) }

// AddSession adds a new session.
func (tx *Tx) AddSession(s ctf.Session) { tx.st.addSession(s) }

// PutSessions replaces a user's active sessions.
func (tx *Tx) PutSessions(userID string, sessions []ctf.Session) {
	tx.st.putSessions(userID, sessions)
}

// PutKey adds or replaces an API key, and returns its view.
func (tx *Tx) PutKey(k ctf.APIKey) (view APIKeyView) {
	tx.st.putKey(k)
	if x := tx.st.keyByID[k.ID]; x != nil {
		view = keyView(x)
	}
	return view
}

// PutReview adds or replaces a review.
func (tx *Tx) PutReview(r ctf.Review) {
	if c := tx.st.putReview(r); c != nil {
		tx.dirty[c] = true
	}
}

// PutWriteup adds or replaces a writeup, and returns its view.
func (tx *Tx) PutWriteup(w ctf.Writeup) WriteupView {
	tx.st.putWriteup(w)
	return tx.st.writeupView(tx.st.writeups[w.ID])
}

// PutChallenge adds or replaces a challenge.
func (tx *Tx) PutChallenge(c ctf.Challenge) { tx.st.putChallenge(c, tx.dirty) }

// PutAnnouncement adds an announcement, and returns its view.
func (tx *Tx) PutAnnouncement(a ctf.Announcement) AnnouncementView {
	tx.st.putAnnouncement(a)
	return tx.st.announcementView(a)
}

// SetEvent replaces the event's settings and moves the clock to now.
func (tx *Tx) SetEvent(e ctf.Event) {
	tx.st.event = e
	tx.moves = append(tx.moves, tx.st.advanceClock(tx.now(), tx.dirty)...)
}

// PutPage replaces one of the event's pages.
func (tx *Tx) PutPage(p ctf.Page) { tx.st.pages[p.Name] = p }

// SetLogo replaces the event's logo (nil: none).
func (tx *Tx) SetLogo(l *ctf.Logo) { tx.st.logo = l }
