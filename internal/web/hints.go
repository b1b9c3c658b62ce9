package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/platform"
)

// A challenge's hints, on its page (docs/product.md#hints): each with its
// cost, its content once the player unlocked it. A hint that costs points
// is unlocked through a confirmation that says what it takes: inline with
// app.js, else on a page of its own; a free hint (or any hint once the
// challenge is solved) is unlocked at once. Whether an unlock is allowed,
// and whether it is charged, is the use case's to say.

// hintItem is a hint as the challenge's page lists it.
type hintItem struct {
	live.HintView
	N int // its place in the list, from 1: "Hint 2"
	// Need is the place of the hint to unlock first (0: none, or unlocked).
	Need int
	// Confirm: unlocking it takes points, so it is asked first.
	Confirm bool
	Answer  flash // what unlocking it said, shown beside it
}

// hintsData is the hints' section of a challenge's page.
type hintsData struct {
	Items []hintItem
	// Taken is the cost of the hints the caller unlocked on a challenge not
	// solved yet: what comes off its value when they solve it.
	Taken int
	// Costly: some hint costs points.
	Costly bool
}

// hintSection is the flash's section for an unlock's answer: "hint-2" is
// hint 2's item, where the page lands.
func hintSection(id int) string { return hintSectionPrefix + strconv.Itoa(id) }

const hintSectionPrefix = "hint-"

// hintsOf lists the hints of the challenge slug as v sees them, with the
// answer of an unlock (answer.Section names its hint). An admin's preview
// of a challenge players do not see yet shows every hint as an admin
// sees it.
func (h *Handler) hintsOf(ctx context.Context, v ctf.Viewer, slug string, solved bool, preview *live.Preview, answer flash) hintsData {
	views, err := h.svc.Play.Hints(ctx, v, slug)
	if err != nil && preview != nil {
		views = preview.Hints
	}
	var d hintsData
	place := map[int]int{}
	unlocked := map[int]bool{}
	for i, hv := range views {
		place[hv.ID], unlocked[hv.ID] = i+1, hv.Unlocked
	}
	for i, hv := range views {
		it := hintItem{HintView: hv, N: i + 1, Confirm: hv.Cost > 0 && !solved}
		if hv.Requires != nil && !unlocked[*hv.Requires] {
			it.Need = place[*hv.Requires]
		}
		if answer.Section == hintSection(hv.ID) {
			it.Answer = answer
		}
		if hv.Unlocked && !solved {
			d.Taken += hv.Cost
		}
		d.Costly = d.Costly || hv.Cost > 0
		d.Items = append(d.Items, it)
	}
	return d
}

// hintConfirm is the page that asks before unlocking a hint that costs
// points (what the Unlock button leads to without app.js).
type hintConfirm struct {
	C    live.ChallengeDetail
	Hint hintItem
}

// hintConfirmPage asks before unlocking hint {id} of the challenge {slug};
// a hint unlocked already goes back to the challenge's page, where it
// shows.
func (h *Handler) hintConfirmPage(w http.ResponseWriter, r *http.Request) {
	v, ok := h.signedIn(w, r)
	if !ok {
		return
	}
	slug := r.PathValue("slug")
	c, err := h.svc.Play.Challenge(slug, v)
	if err != nil {
		h.error(w, r, v, err)
		return
	}
	it, ok := h.hintByID(r, v, slug, c.Solved)
	if !ok {
		h.error(w, r, v, live.ErrNoHint)
		return
	}
	if it.Unlocked {
		redirect(w, r, challengeURL(slug)+"#"+hintSection(it.ID))
		return
	}
	h.render(w, r, "hint-unlock", page{Title: "Unlock hint " + strconv.Itoa(it.N) + " · " + c.Title, Viewer: v, Data: hintConfirm{C: c, Hint: it}})
}

// hintByID is the hint {id} of the challenge slug as v sees it.
func (h *Handler) hintByID(r *http.Request, v ctf.Viewer, slug string, solved bool) (hintItem, bool) {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil {
		return hintItem{}, false
	}
	for _, it := range h.hintsOf(r.Context(), v, slug, solved, nil, flash{}).Items {
		if it.ID == id {
			return it, true
		}
	}
	return hintItem{}, false
}

// unlockHint unlocks hint {id} of the challenge {slug} and goes back to
// the challenge's page, at the hint, which shows it now; a refusal is
// said there, beside the hint.
func (h *Handler) unlockHint(w http.ResponseWriter, r *http.Request) {
	v := h.viewer(w, r)
	slug := r.PathValue("slug")
	if v.User == nil {
		redirect(w, r, "/login?next="+url.QueryEscape(challengeURL(slug)))
		return
	}
	id, perr := strconv.Atoi(r.PathValue("id"))
	if perr != nil {
		h.error(w, r, v, live.ErrNoHint)
		return
	}
	c, _ := h.svc.Play.Challenge(slug, v)
	hv, err := h.svc.Play.UnlockHint(r.Context(), v, slug, id)
	back := challengeURL(slug) + "#" + hintSection(id)
	if err != nil {
		if ctf.ErrorCode(err) == ctf.NotFound {
			h.error(w, r, v, err)
			return
		}
		h.redirectWith(w, r, v, back, flash{Error: h.unlockRefusal(w, r, v, slug, c.Solved, id, err), Section: hintSection(id)})
		return
	}
	n := id
	if it, ok := h.hintByID(r, v, slug, c.Solved); ok {
		n = it.N
	}
	notice := "Hint " + strconv.Itoa(n) + " unlocked."
	if hv.Cost > 0 && !c.Solved {
		notice = "Hint " + strconv.Itoa(n) + " unlocked: " + plural(hv.Cost, "point") + " come off this challenge's value for you when you solve it."
	}
	h.redirectWith(w, r, v, back, flash{Notice: notice, Section: hintSection(id)})
}

// unlockRefusal says why unlocking hint id was refused, in the page's
// words: the hints of a locked challenge wait for its prerequisites; a
// hint that needs another is named by its place in the list (the use
// case names it by its id).
func (h *Handler) unlockRefusal(w http.ResponseWriter, r *http.Request, v ctf.Viewer, slug string, solved bool, id int, err error) string {
	msg := h.refused(w, r, err).Error
	switch {
	case errors.Is(err, platform.ErrLocked):
		return "Solve this challenge's prerequisites first: its hints unlock with it."
	case ctf.ErrorCode(err) == ctf.Forbidden && !errors.Is(err, platform.ErrBanned) && !errors.Is(err, platform.ErrUnverified):
		if it, ok := h.hintByID(r, v, slug, solved); ok && it.ID == id && it.Need != 0 {
			return "Unlock hint " + strconv.Itoa(it.Need) + " first: this hint requires it."
		}
	}
	return msg
}
