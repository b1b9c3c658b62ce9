package web

import (
	"net/http"
	"sort"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
)

type profileData struct {
	P            *live.PublicProfile
	Own          bool
	Badges       []badgeView
	Categories   []countView
	Difficulties []countView
	Run          *live.Run // an agent's run, beside the people's times
	MayExport    bool      // the viewer may download the run: its owner or an admin
}

type badgeView struct {
	ctf.Badge
	AwardedAt string
}

type countView struct {
	Name  string
	Count int
}

// profile is a player's public page; one's own says so.
func (h *Handler) profile(w http.ResponseWriter, r *http.Request) {
	v := h.viewer(w, r)
	p := h.svc.Scoreboard.Profile(r.PathValue("id"))
	if p == nil {
		h.error(w, r, v, ctf.Errorf(ctf.NotFound, "no such player"))
		return
	}
	d := profileData{P: p, Own: v.ID() == p.ID}
	for _, b := range p.Badges {
		if badge, ok := ctf.BadgeByID(b.BadgeID); ok {
			d.Badges = append(d.Badges, badgeView{Badge: badge, AwardedAt: b.AwardedAt})
		}
	}
	if p.Username != nil {
		if run, err := h.svc.Agents.Run(r.Context(), v, *p.Username); err == nil {
			d.Run = &run
			d.MayExport = h.svc.Agents.MayExport(v, run.Agent)
		}
	}
	d.Categories = counts(p.CategoryCounts)
	d.Difficulties = counts(p.DifficultyCounts)
	title := p.ID
	if p.Username != nil {
		title = *p.Username
	}
	h.render(w, r, "profile", page{Title: title, Viewer: v, Data: d})
}

// me sends the caller to their own profile.
func (h *Handler) me(w http.ResponseWriter, r *http.Request) {
	v, ok := h.signedIn(w, r)
	if !ok {
		return
	}
	redirect(w, r, "/users/"+v.ID())
}

func counts[K ~string](m map[K]int) []countView {
	out := make([]countView, 0, len(m))
	for k, n := range m {
		out = append(out, countView{string(k), n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Name < out[j].Name
	})
	return out
}
