package transfer

import (
	"fmt"
	"slices"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// loadHintUnlocks records the unlocks of hints a dataset lists, each once
// by user, challenge and hint (a stored one takes the entry's time, or
// keeps its own when the entry gives none, and the entry's charge). The
// hint must be one the challenge has now. An unlock whose charge is left
// out is charged unless the user had solved the challenge at its time, as
// a live unlock is; the hints' order (requires) is not checked: a dump
// records what happened, under the hints of its time.
func (l *loader) loadHintUnlocks() error {
	if len(l.ds.HintUnlocks) == 0 {
		return nil
	}
	fresh, err := l.fresh("hint_unlocks")
	if err != nil {
		return err
	}
	hints := map[string][]ctf.Hint{} // by challenge id
	ins := l.tx.Play().NewHintUnlocks()
	for i, h := range l.ds.HintUnlocks {
		uid, cid, err := l.refs("hintUnlocks", i, h.User, h.Challenge)
		if err != nil {
			return err
		}
		list, ok := hints[cid]
		if !ok {
			if list, err = l.tx.Content().Hints(cid); err != nil {
				return err
			}
			hints[cid] = list
		}
		if !slices.ContainsFunc(list, func(x ctf.Hint) bool { return x.ID == h.Hint }) {
			return l.fail("hintUnlocks", i, "hint", "challenge %q has no hint %d", h.Challenge, h.Hint)
		}
		u := ctf.HintUnlock{UserID: uid, ChallengeID: cid, HintID: h.Hint, At: l.stamp(h.At)}
		var old ctf.HintUnlock
		exists := false
		if !fresh {
			if old, exists, err = l.tx.Play().HintUnlock(uid, cid, h.Hint); err != nil {
				return fmt.Errorf("load hint unlock: %w", err)
			}
			if exists && h.At == nil {
				u.At = old.At
			}
		}
		if h.Charged != nil {
			u.Charged = *h.Charged
		} else if u.Charged, err = l.chargedAt(uid, cid, u.At); err != nil {
			return err
		}
		if fresh {
			// Each unlock once (Validate): nothing to conflict with.
			if err := ins.Add(u); err != nil {
				return fmt.Errorf("load hint unlock: %w", err)
			}
			l.rep.count("hintUnlocks", true, false)
			continue
		}
		if err := l.tx.Play().UpsertHintUnlock(u); err != nil {
			return fmt.Errorf("load hint unlock: %w", err)
		}
		l.rep.count("hintUnlocks", !exists, exists && (!old.At.Equal(u.At) || old.Charged != u.Charged))
	}
	return ins.Flush()
}

// chargedAt reports whether an unlock at at costs the user points: they
// had not solved the challenge then (no solve at or before at). The
// dataset's solves are stored by now.
func (l *loader) chargedAt(uid, cid string, at time.Time) (bool, error) {
	s, solved, err := l.tx.Play().Solve(uid, cid)
	if err != nil {
		return false, fmt.Errorf("load hint unlock: %w", err)
	}
	return !solved || s.At.After(at), nil
}
