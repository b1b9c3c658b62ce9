package web

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
)

// deleteData is the page that deletes a challenge: how many solves go with
// it, and the choice to hide it instead.
type deleteData struct {
	Slug, Title string
	P           live.Preview
}

// adminDeletePage asks before deleting a challenge.
func (h *Handler) adminDeletePage(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	h.deletePage(w, r, v, page{})
}

func (h *Handler) deletePage(w http.ResponseWriter, r *http.Request, v ctf.Viewer, p page) {
	prev, err := h.svc.Content.Preview(r.PathValue("slug"), v)
	if err != nil {
		h.error(w, r, v, err)
		return
	}
	p.Title, p.Viewer = "Delete "+prev.Detail.Title+" · Admin", v
	p.Data = deleteData{Slug: prev.Detail.Slug, Title: prev.Detail.Title, P: prev}
	h.render(w, r, "admin-delete", p)
}

// adminDeleteChallenge deletes a challenge once confirmed: the form sends
// the number of solves the admin was shown (and, with solves, a ticked
// box), which must still be the challenge's.
func (h *Handler) adminDeleteChallenge(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	slug := r.PathValue("slug")
	solves, err := strconv.Atoi(r.PostFormValue("solves"))
	if err != nil || solves < 0 {
		h.deletePage(w, r, v, h.refused(w, r, ctf.Errorf(ctf.Invalid, "the form lacks the number of solves to delete; reload the page")))
		return
	}
	if solves > 0 && r.PostFormValue("confirm") != "yes" {
		h.deletePage(w, r, v, h.refused(w, r, ctf.Errorf(ctf.Invalid, "tick the box that says the solves will be deleted too")))
		return
	}
	if err := h.svc.Content.DeleteChallenge(r.Context(), v, slug, solves); err != nil {
		if ctf.ErrorCode(err) == ctf.NotFound {
			h.error(w, r, v, err)
			return
		}
		h.deletePage(w, r, v, h.refused(w, r, err))
		return
	}
	h.redirectWith(w, r, v, "/admin/challenges", flash{Notice: "Deleted the challenge " + slug + "."})
}

// adminHideChallenge hides a challenge, keeping its solves: the other
// choice the delete page offers.
func (h *Handler) adminHideChallenge(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	slug := r.PathValue("slug")
	if _, err := h.svc.Content.SetChallengeHidden(r.Context(), v, slug, true); err != nil {
		h.error(w, r, v, err)
		return
	}
	h.redirectWith(w, r, v, "/admin/challenges/"+url.PathEscape(slug), flash{Notice: "Challenge hidden: players no longer see it; its solves are kept."})
}
