package live

import (
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// EventView is the event's clock as everyone may see it.
type EventView struct {
	ctf.Event
	Phase  ctf.Phase
	Frozen bool // the public standings are frozen now
	// FrozenAt is the freeze time in force when Frozen.
	FrozenAt time.Time
	// Now is the service's clock at the read (never before the state's
	// last move), for countdowns computed server-side.
	Now time.Time
}

// EventView returns the event's settings and where its clock stands at
// now.
func (st *State) EventView(now time.Time) EventView {
	st.mu.RLock()
	defer st.mu.RUnlock()
	return EventView{Event: st.event, Phase: st.phase, Frozen: st.frozen, FrozenAt: st.freezeAt, Now: later(now, st.clockAt)}
}
