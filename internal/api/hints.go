package api

import (
	"net/http"

	"github.com/flagshipctf/flagship/internal/live"
)

// A challenge's hints (docs/product.md#hints), an extension of the
// contract: the use cases decide everything, these handlers only
// translate.

// hintList is the answer of GET .../hints.
type hintList struct {
	Hints []live.HintView `json:"hints"`
}

// hints lists a challenge's hints to whoever may read the challenge, as
// getChallenge does: anonymously too, each hint's content null until the
// caller unlocked it.
func (h *Handler) hints(w http.ResponseWriter, r *http.Request) {
	v, err := h.viewer(w, r, false)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	list, err := h.svc.Play.Hints(r.Context(), v, r.PathValue("slug"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeValue(w, r, audienceOf(v), http.StatusOK, hintList{list})
}

// unlockHint unlocks a hint for the caller and answers it with its
// content; the body, if any, is not read. An id that is not a whole number
// names no hint: it is passed on as 0, which no hint has, so the use case
// answers it as an unknown hint after its own checks of the caller and the
// challenge (401 and 404 for the slug come first, as for submit).
func (h *Handler) unlockHint(w http.ResponseWriter, r *http.Request) {
	v, err := h.viewer(w, r, true)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	id, ok := digits(r.PathValue("id"))
	if !ok {
		id = 0
	}
	hint, err := h.svc.Play.UnlockHint(r.Context(), v, r.PathValue("slug"), id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeValue(w, r, caller, http.StatusOK, hint)
}
