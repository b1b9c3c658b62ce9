package platform

import (
	"context"

	"github.com/flagshipctf/flagship/internal/live"
)

// The live stream, as the hot state relays it (see live/stream.go).

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
