package ctf

import (
	"time"
	"unicode/utf8"
)

// Event is the event's clock and settings, as organisers set them. Every
// time is optional: an event without a start is open from the beginning,
// one without an end never closes, one without a freeze never freezes.
type Event struct {
	Name  string
	Start *time.Time
	End   *time.Time
	// Freeze is when the public standings stop moving: from then on they
	// show the solves made before it, until an admin unfreezes (Unfrozen)
	// or, with UnfreezeAtEnd, until the end.
	Freeze        *time.Time
	UnfreezeAtEnd bool
	// Unfrozen is when an admin lifted the freeze (nil: not lifted). A
	// new freeze time clears it.
	Unfrozen *time.Time
	// Practice keeps the challenges playable after the end: right flags
	// are answered and recorded as practice solves, which count in no
	// public aggregate.
	Practice   bool
	FlagFormat string // a hint shown to players, such as flag{...}
}

// Phase is where the clock stands.
type Phase int

// The phases of an event, in order.
const (
	BeforeStart Phase = iota
	Running
	Ended
)

func (p Phase) String() string {
	switch p {
	case BeforeStart:
		return "before start"
	case Ended:
		return "ended"
	}
	return "running"
}

// PhaseAt is the phase at now: an instant equal to the start has started,
// one equal to the end has ended.
func (e Event) PhaseAt(now time.Time) Phase {
	switch {
	case e.Start != nil && now.Before(*e.Start):
		return BeforeStart
	case e.End != nil && !now.Before(*e.End):
		return Ended
	}
	return Running
}

// FrozenAt reports whether the public standings are frozen at now, and if
// so the freeze time: solves at or after it are not shown publicly.
func (e Event) FrozenAt(now time.Time) (time.Time, bool) {
	if e.Freeze == nil || now.Before(*e.Freeze) {
		return time.Time{}, false
	}
	if e.Unfrozen != nil && !e.Unfrozen.Before(*e.Freeze) {
		return time.Time{}, false
	}
	if e.UnfreezeAtEnd && e.End != nil && !now.Before(*e.End) {
		return time.Time{}, false
	}
	return *e.Freeze, true
}

// NextChange is the first instant after now at which PhaseAt or FrozenAt
// answers differently (zero: none). Release times of challenges are the
// caller's to add.
func (e Event) NextChange(now time.Time) time.Time {
	var next time.Time
	for _, t := range []*time.Time{e.Start, e.End, e.Freeze} {
		if t != nil && t.After(now) && (next.IsZero() || t.Before(next)) {
			next = *t
		}
	}
	return next
}

// Event limits.
const (
	MaxEventNameChars  = 128
	MaxFlagFormatChars = 128
)

// ValidateEvent checks settings an organiser entered: times in order, and
// bounded texts.
func ValidateEvent(e Event) error {
	if utf8.RuneCountInString(e.Name) > MaxEventNameChars {
		return FieldErrorf("name", "must be at most %d characters", MaxEventNameChars)
	}
	if utf8.RuneCountInString(e.FlagFormat) > MaxFlagFormatChars {
		return FieldErrorf("flagFormat", "must be at most %d characters", MaxFlagFormatChars)
	}
	if e.Start != nil && e.End != nil && !e.End.After(*e.Start) {
		return FieldErrorf("end", "must be after the start")
	}
	if e.Freeze != nil && e.Start != nil && e.Freeze.Before(*e.Start) {
		return FieldErrorf("freeze", "must not be before the start")
	}
	if e.Freeze != nil && e.End != nil && e.Freeze.After(*e.End) {
		return FieldErrorf("freeze", "must not be after the end")
	}
	if e.UnfreezeAtEnd && e.End == nil {
		return FieldErrorf("unfreezeAtEnd", "needs an end time")
	}
	return nil
}

// StreamKind is the kind of an event of the live stream, as the stream's
// log stores it and the SSE endpoint names it.
type StreamKind string

// Kinds of stream event.
const (
	StreamSolve        StreamKind = "solve"
	StreamAnnouncement StreamKind = "announcement"
	StreamReleased     StreamKind = "released" // a scheduled challenge appeared
	StreamStarted      StreamKind = "started"
	StreamFrozen       StreamKind = "frozen"
	StreamUnfrozen     StreamKind = "unfrozen"
	StreamEnded        StreamKind = "ended"
)
