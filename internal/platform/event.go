package platform

import (
	"context"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
)

// Current returns the event's settings and where its clock stands.
func (s *Event) Current() live.EventView { return s.live.State().EventView(s.now()) }

// Set replaces the event's settings (admins and the operator). The
// unfreeze mark survives an edit that keeps the freeze time, and is
// cleared by a new one.
func (s *Event) Set(ctx context.Context, v ctf.Viewer, e ctf.Event) (ctf.Event, error) {
	if !v.IsAdmin() {
		return ctf.Event{}, ctf.ErrNotAdmin
	}
	for _, t := range []**time.Time{&e.Start, &e.End, &e.Freeze, &e.Unfrozen} {
		if *t != nil {
			m := ctf.Millis(**t)
			*t = &m
		}
	}
	if err := ctf.ValidateEvent(e); err != nil {
		return ctf.Event{}, err
	}
	cur := s.Current().Event
	if e.Unfrozen == nil && cur.Unfrozen != nil && e.Freeze != nil && cur.Freeze != nil && e.Freeze.Equal(*cur.Freeze) {
		e.Unfrozen = cur.Unfrozen
	}
	if e.Freeze == nil {
		e.Unfrozen = nil
	}
	return e, s.putEvent(ctx, v, e, "event.update")
}

// Unfreeze lifts the freeze now: the public standings show every solve.
func (s *Event) Unfreeze(ctx context.Context, v ctf.Viewer) error {
	if !v.IsAdmin() {
		return ctf.ErrNotAdmin
	}
	ev := s.Current()
	if !ev.Frozen {
		return ctf.Errorf(ctf.Conflict, "the scoreboard is not frozen")
	}
	e := ev.Event
	now := ctf.Millis(s.now())
	if now.Before(*e.Freeze) {
		now = *e.Freeze
	}
	e.Unfrozen = &now
	return s.putEvent(ctx, v, e, "event.unfreeze")
}

func (s *Event) putEvent(ctx context.Context, v ctf.Viewer, e ctf.Event, action string) error {
	defer s.live.Write()()
	seqs, err := s.db.PutEvent(ctx, e, s.audit(v, action, "event", eventDetail(e)))
	s.noteWrite(err)
	if err != nil {
		return err
	}
	s.live.Apply(seqs, func(tx *live.Tx) { tx.SetEvent(e) })
	return nil
}

func eventDetail(e ctf.Event) map[string]any {
	d := map[string]any{"name": e.Name, "practice": e.Practice, "unfreezeAtEnd": e.UnfreezeAtEnd}
	for k, t := range map[string]*time.Time{"start": e.Start, "end": e.End, "freeze": e.Freeze, "unfrozen": e.Unfrozen} {
		if t != nil {
			d[k] = ctf.FormatTime(*t)
		}
	}
	return d
}

// Rules are the rules of the event a player must know: what the prompt for
// agents and the web app's pages explain.
type Rules struct {
	// RateLimit is how many wrong flags a player may send per challenge
	// within RateWindow (0: no limit).
	RateLimit  int
	RateWindow time.Duration
	MaxFlag    int // bytes
}

// Rules returns the event's rules.
func (s *Event) Rules() Rules {
	return Rules{RateLimit: s.opts.RateLimit.Max, RateWindow: s.opts.RateLimit.Window, MaxFlag: ctf.MaxFlagBytes}
}
