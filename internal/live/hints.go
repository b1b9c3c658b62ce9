package live

import (
	"github.com/flagshipctf/flagship/internal/ctf"
)

// HintView is a challenge's hint as a viewer sees it: its content only
// once they unlocked it (admins, who write hints, see every one).
type HintView struct {
	ID       int     `json:"id"`
	Cost     int     `json:"cost"`
	Unlocked bool    `json:"unlocked"`
	Content  *string `json:"content"`
	// Requires is the hint that must be unlocked first, null for none.
	Requires *int `json:"requires"`
}

// ErrNoHint is the answer for a hint the challenge does not have.
var ErrNoHint = ctf.Errorf(ctf.NotFound, "hint not found")

// Hints returns the hints of the challenge slug as v sees them; an unknown
// challenge, or one v may not see, is ErrNoChallenge.
func (st *State) Hints(slug string, v ctf.Viewer) ([]HintView, error) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	c := st.openBySlug(slug, v)
	if c == nil {
		return nil, ctf.ErrNoChallenge
	}
	u := st.users[v.ID()]
	out := make([]HintView, 0, len(c.Hints))
	for _, h := range c.Hints {
		_, unlocked := c.unlock(u, h.ID)
		out = append(out, hintView(h, unlocked, v.IsAdmin()))
	}
	return out, nil
}

func hintView(h ctf.Hint, unlocked, admin bool) HintView {
	hv := HintView{ID: h.ID, Cost: h.Cost, Unlocked: unlocked}
	if unlocked || admin {
		hv.Content = strPtr(h.Content)
	}
	if h.Requires != 0 {
		r := h.Requires
		hv.Requires = &r
	}
	return hv
}

// HintCheck is what the hot state says of an unlock before it is
// recorded, and of the hint after.
type HintCheck struct {
	Hint ctf.Hint
	View HintView // the hint as the caller sees it now
	// Unlocked: the caller unlocked it already.
	Unlocked bool
	// Required: the caller has not unlocked the hint it requires.
	Required bool
}

// CheckHint reads hint id of the challenge slug as v sees it, and what
// unlocking it depends on; an unknown hint is ErrNoHint (the challenge's
// own refusals are Attempt's).
func (st *State) CheckHint(slug string, v ctf.Viewer, id int) (HintCheck, error) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	c := st.openBySlug(slug, v)
	if c == nil {
		return HintCheck{}, ctf.ErrNoChallenge
	}
	h, ok := c.HintByID(id)
	if !ok {
		return HintCheck{}, ErrNoHint
	}
	u := st.users[v.ID()]
	_, unlocked := c.unlock(u, id)
	_, required := c.unlock(u, h.Requires)
	return HintCheck{Hint: h, View: hintView(h, unlocked, v.IsAdmin()), Unlocked: unlocked,
		Required: h.Requires != 0 && !required}, nil
}

// PutHintUnlock applies an unlock this process recorded.
func (tx *Tx) PutHintUnlock(h ctf.HintUnlock) { tx.st.putHintUnlocks([]ctf.HintUnlock{h}) }
