package live

import (
	"context"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// The live stream: what happens in the event that the public may see, in
// the order the database committed it, numbered densely (store's stream
// log), relayed by every replica from the database. A solve the public
// may not see is given no row (State.announces), so the numbers, which
// players read (SSE ids, a page's data-live-after), move only with what
// they may see. A front door reads it with RecentEvents (the SSE
// endpoint) or EventsAfter (webhooks) and waits for more with WaitEvents.

// StreamEvent is one event of the stream as this replica renders it.
type StreamEvent struct {
	Seq  int64
	Kind ctf.StreamKind
	At   time.Time
	// Public is false when what the event is about may not be shown now:
	// a solve whose solver was banned, or whose challenge was hidden,
	// since it was recorded; a release of a challenge hidden since; and
	// the rows of private solves a database kept from before they were
	// left out of the stream. Such events keep their number (a client
	// skips it) but carry nothing else.
	Public       bool
	Solve        *SolveEvent       // Kind solve
	Announcement *AnnouncementView // Kind announcement
	Challenge    *EventChallenge   // Kind released; the challenge an announcement links
}

// SolveEvent is a solve as the stream tells it.
type SolveEvent struct {
	UserID, Username, Name string
	Agent                  bool
	ChallengeID, Slug      string
	Title                  string
	Points                 int // what the solve is worth to its solver
	Value                  int // the challenge's public value, this solve counted
	Rank                   int // 1-based place among the challenge's solvers
	FirstBlood             bool
}

// EventChallenge names a challenge in an event.
type EventChallenge struct {
	ID, Slug, Title string
}

// AnnouncementView is an announcement as players see it.
type AnnouncementView struct {
	ID        string
	Title     string
	Body      string // Markdown, for the front door to render
	Challenge *EventChallenge
	CreatedAt time.Time
}

// ReplayWindow is how many of the newest events a client resuming the
// live stream may be sent again, at most: a resume is served from the
// replica's memory, never from the database, so a client that was away
// for longer than that starts from the oldest of them (and, its first id
// not following its last, knows it missed some: a page reloads).
const ReplayWindow = 1000

// EventsAfter returns up to limit events numbered after `after`, oldest
// first (an empty list when none yet), reading the database for those
// older than the replica keeps: for the webhooks' producer, which must
// miss none; a client of the live stream reads RecentEvents.
func (r *Replica) EventsAfter(ctx context.Context, after int64, limit int) ([]StreamEvent, error) {
	return r.eventsAfter(ctx, after, limit)
}

// ResumeAfter is the number after which a client that asks for the events
// after `after` is sent them: after itself, or, when more than
// ReplayWindow events were relayed since, the number before the oldest of
// the newest ReplayWindow.
func (r *Replica) ResumeAfter(after int64) int64 {
	return max(after, r.lastEvent()-ReplayWindow)
}

// RecentEvents returns up to limit events numbered after `after`, oldest
// first, from the events this replica keeps in memory (the newest
// thousands, more than ReplayWindow): it never reads the database, so
// events older than those kept are not returned and the list starts at
// the oldest kept. Empty when none yet.
func (r *Replica) RecentEvents(after int64, limit int) []StreamEvent {
	if limit <= 0 || limit > ringSize {
		limit = ringSize
	}
	return r.hub.recent(after, limit)
}

// WaitEvents blocks until an event numbered after `after` has been relayed
// or ctx ends, and returns the newest number relayed.
func (r *Replica) WaitEvents(ctx context.Context, after int64) (int64, error) {
	return r.waitEvents(ctx, after)
}

// LastEvent is the number of the newest event this replica relayed.
func (r *Replica) LastEvent() int64 { return r.lastEvent() }
