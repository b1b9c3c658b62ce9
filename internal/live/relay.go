package live

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/store"
)

// The relay: every replica reads the live stream's rows from the database
// as it catches up (Since reads them first, so the solves and entities
// they name are read with them), renders each from its hot state, and
// keeps the newest in a ring for the clients waiting on it (filled from
// the database when the state is loaded). Numbers are dense and in commit
// order, so a client that resumes after N on any replica misses nothing
// and gets nothing twice.

// ringSize is how many rendered events a replica keeps: the live stream's
// clients read only these (RecentEvents; ReplayWindow of them on a
// resume, the rest is slack for a client reading a burst); the webhooks'
// producer reads older ones from the database.
const ringSize = 4096

// hub holds the newest events and wakes the clients waiting for more.
type hub struct {
	mu   sync.Mutex
	ring []StreamEvent // contiguous numbers, oldest first
	base int64         // the ring covers the events after base
	last int64         // the newest number relayed
	wake chan struct{}
}

func newHub() *hub { return &hub{wake: make(chan struct{})} }

// publish adds events numbered from h.last+1 on and wakes the waiters.
// Events past a jump (a rebuild of the state read past what was relayed)
// start a new ring.
func (h *hub) publish(evs []StreamEvent, head int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, ev := range evs {
		if ev.Seq <= h.last {
			continue
		}
		if ev.Seq != h.last+1 {
			h.ring, h.base = h.ring[:0], ev.Seq-1
		}
		h.ring = append(h.ring, ev)
		h.last = ev.Seq
	}
	if head > h.last {
		h.ring, h.base, h.last = h.ring[:0], head, head
	}
	if n := len(h.ring) - ringSize; n > 0 {
		h.base = h.ring[n-1].Seq
		h.ring = append(h.ring[:0:0], h.ring[n:]...)
	}
	close(h.wake)
	h.wake = make(chan struct{})
}

// after returns up to limit events after n from the ring, and whether the
// ring covers n.
func (h *hub) after(n int64, limit int) ([]StreamEvent, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if n < h.base {
		return nil, false
	}
	i := int(n - h.base)
	if i >= len(h.ring) {
		return nil, true
	}
	end := min(len(h.ring), i+limit)
	return append([]StreamEvent(nil), h.ring[i:end]...), true
}

// recent returns up to limit events after n, or after the oldest kept
// when n is older.
func (h *hub) recent(n int64, limit int) []StreamEvent {
	h.mu.Lock()
	defer h.mu.Unlock()
	i := int(max(n, h.base) - h.base)
	if i >= len(h.ring) {
		return nil
	}
	end := min(len(h.ring), i+limit)
	return append([]StreamEvent(nil), h.ring[i:end]...)
}

func (r *Replica) lastEvent() int64 {
	r.hub.mu.Lock()
	defer r.hub.mu.Unlock()
	return r.hub.last
}

func (r *Replica) waitEvents(ctx context.Context, after int64) (int64, error) {
	for {
		r.hub.mu.Lock()
		last, wake := r.hub.last, r.hub.wake
		r.hub.mu.Unlock()
		if last > after {
			return last, nil
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return last, ctx.Err()
		}
	}
}

func (r *Replica) eventsAfter(ctx context.Context, after int64, limit int) ([]StreamEvent, error) {
	if limit <= 0 || limit > ringSize {
		limit = ringSize
	}
	if evs, ok := r.hub.after(after, limit); ok {
		return evs, nil
	}
	// Older than the ring: read the rows again and render them as the
	// state stands now, up to what this replica relayed.
	last := r.lastEvent()
	rows, err := r.db.StreamAfter(ctx, after, limit)
	if err != nil {
		return nil, err
	}
	st := r.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	out := make([]StreamEvent, 0, len(rows))
	for _, r := range rows {
		if r.Seq > last {
			break
		}
		out = append(out, st.render(r))
	}
	return out, nil
}

// recentEvents renders the newest events up to head from the database
// for the ring, so that a replica serves resuming clients from memory as
// soon as it starts (or rebuilds its state): one read here, none per
// client.
func (r *Replica) recentEvents(ctx context.Context, st *State, head int64) ([]StreamEvent, error) {
	rows, err := r.db.StreamAfter(ctx, max(0, head-ringSize), ringSize)
	if err != nil {
		return nil, fmt.Errorf("read the newest events of the live stream: %w", err)
	}
	st.mu.RLock()
	defer st.mu.RUnlock()
	out := make([]StreamEvent, 0, len(rows))
	for _, r := range rows {
		if r.Seq > head {
			break // committed after the snapshot: the catch-up relays it
		}
		out = append(out, st.render(r))
	}
	return out, nil
}

// announces reports whether a solve by userID of chalID at `at` is told
// on the live stream: a player's, of a challenge shown, not held by the
// freeze (as render would tell it). It is decided once, as the solve is
// recorded: a solve it refuses gets no stream row (Unannounced), so the
// numbers the public reads skip nothing it may not see, the same on every
// replica (they are the database's), and a held solve is not numbered
// after the freeze is lifted either. The caller holds st.mu.
func (st *State) announces(userID, chalID string, at time.Time) bool {
	u, c := st.users[userID], st.chals[chalID]
	if u == nil || c == nil || !u.player || !c.shown() {
		return false
	}
	_, frozen := st.event.FrozenAt(at)
	return !frozen
}

// render is a stream row as the state tells it; the caller holds st.mu.
func (st *State) render(r store.StreamRow) StreamEvent {
	ev := StreamEvent{Seq: r.Seq, Kind: r.Kind, At: r.At}
	switch r.Kind {
	case ctf.StreamSolve:
		u, c := st.users[r.UserID], st.chals[r.ChallengeID]
		if u == nil || c == nil || !u.player {
			return ev
		}
		x := u.solved[c.ID]
		if x == nil || x.ID != r.Ref || !x.attached {
			return ev
		}
		rank := 0
		for i, y := range c.playerSolves {
			if y == x {
				rank = i + 1
				break
			}
		}
		if rank == 0 {
			return ev
		}
		ev.Public = true
		ev.Solve = &SolveEvent{UserID: u.ID, Username: u.Username, Name: displayName(u), Agent: u.IsAgent(),
			ChallengeID: c.ID, Slug: c.Slug, Title: c.Title, Points: x.worth, Value: c.value, Rank: rank, FirstBlood: rank == 1}
	case ctf.StreamAnnouncement:
		for i := len(st.announcements) - 1; i >= 0; i-- {
			if a := st.announcements[i]; a.ID == r.Ref {
				v := st.announcementView(a)
				ev.Public, ev.Announcement, ev.Challenge = true, &v, v.Challenge
				break
			}
		}
	case ctf.StreamReleased:
		if c := st.chals[r.ChallengeID]; c != nil && c.shown() {
			ev.Public, ev.Challenge = true, &EventChallenge{ID: c.ID, Slug: c.Slug, Title: c.Title}
		}
	default:
		ev.Public = true
	}
	return ev
}

// relay renders the stream rows a catch-up read; the caller holds st.mu
// for writing and has applied what the rows name.
func (st *State) relay(rows []store.StreamRow) []StreamEvent {
	evs := make([]StreamEvent, 0, len(rows))
	for _, r := range rows {
		if r.Seq <= st.streamMax {
			continue
		}
		evs = append(evs, st.render(r))
		st.streamMax = r.Seq
	}
	return evs
}

// announcementView is a as players see it; the caller holds st.mu.
func (st *State) announcementView(a ctf.Announcement) AnnouncementView {
	v := AnnouncementView{ID: a.ID, Title: a.Title, Body: a.Body, CreatedAt: a.CreatedAt}
	if c := st.chals[a.ChallengeID]; c != nil && c.shown() {
		v.Challenge = &EventChallenge{ID: c.ID, Slug: c.Slug, Title: c.Title}
	}
	return v
}

// putAnnouncement applies an announcement's row.
func (st *State) putAnnouncement(a ctf.Announcement) {
	for i := range st.announcements {
		if st.announcements[i].ID == a.ID {
			st.announcements[i] = a
			return
		}
	}
	i := sort.Search(len(st.announcements), func(i int) bool {
		b := st.announcements[i]
		if !a.CreatedAt.Equal(b.CreatedAt) {
			return a.CreatedAt.Before(b.CreatedAt)
		}
		return a.ID < b.ID
	})
	st.announcements = append(st.announcements, ctf.Announcement{})
	copy(st.announcements[i+1:], st.announcements[i:])
	st.announcements[i] = a
}
