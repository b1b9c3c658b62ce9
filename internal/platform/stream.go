package platform

import (
	"context"

	"github.com/flagshipctf/flagship/internal/live"
)

// The live stream: what happens in the event that the public may see, in
// the order the database committed it, numbered densely (store's stream
// log), relayed by every replica from the database. A solve the public
// may not see is given no row (state.announces), so the numbers, which
// players read (SSE ids, a page's data-live-after), move only with what
// they may see. A front door reads it with RecentEvents (the SSE
// endpoint) or EventsAfter (webhooks) and waits for more with WaitEvents.

// EventsAfter is live.Replica.EventsAfter.
func (s *Stream) EventsAfter(ctx context.Context, after int64, limit int) ([]live.StreamEvent, error) {
	return s.live.EventsAfter(ctx, after, limit)
}

// ResumeAfter is live.Replica.ResumeAfter.
func (s *Stream) ResumeAfter(after int64) int64 { return s.live.ResumeAfter(after) }

// RecentEvents is live.Replica.RecentEvents.
func (s *Stream) RecentEvents(after int64, limit int) []live.StreamEvent {
	return s.live.RecentEvents(after, limit)
}

// WaitEvents is live.Replica.WaitEvents.
func (s *Stream) WaitEvents(ctx context.Context, after int64) (int64, error) {
	return s.live.WaitEvents(ctx, after)
}

// LastEvent is live.Replica.LastEvent.
func (s *Stream) LastEvent() int64 { return s.live.LastEvent() }
