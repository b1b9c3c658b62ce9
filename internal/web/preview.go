package web

import (
	"net/http"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
)

// preview is, for an admin, the challenge of slug as players will see it
// when players do not see it yet (hidden or pending); nil otherwise, and
// for everyone else: players get the usual "no challenge".
func (h *Handler) preview(slug string, v ctf.Viewer) *live.Preview {
	if !v.IsAdmin() {
		return nil
	}
	p, err := h.svc.Content.Preview(slug, v)
	if err != nil || (!p.Hidden && !p.Pending) {
		return nil
	}
	return &p
}

// unshown lists, for an admin's board, the challenges players do not see
// yet (hidden, or pending until the start or their release), so a draft
// is one click from its preview. Nil for everyone else.
func (h *Handler) unshown(r *http.Request, v ctf.Viewer) []live.ChallengeCount {
	if !v.IsAdmin() {
		return nil
	}
	all, err := h.svc.Content.AdminChallenges(r.Context(), v)
	if err != nil {
		return nil
	}
	var out []live.ChallengeCount
	for _, c := range all {
		if c.Hidden || c.Pending {
			out = append(out, c)
		}
	}
	return out
}
