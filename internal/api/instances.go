package api

import (
	"net/http"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
)

// A player's own instance of a challenge (docs/product.md#instances): the
// use cases decide everything, these handlers only translate.

// instanceJSON is an instance as the API writes it.
type instanceJSON struct {
	Status     string `json:"status"`
	Host       string `json:"host"`
	Port       int    `json:"port"`
	Connection string `json:"connection"`
	StartedAt  string `json:"startedAt"`
	ExpiresAt  string `json:"expiresAt"`
}

// instanceBody is the answer of every instance endpoint but DELETE; a
// nil Instance is written as null (none runs).
type instanceBody struct {
	Instance *instanceJSON `json:"instance"`
}

func instanceOf(v *platform.InstanceView) instanceBody {
	if v == nil {
		return instanceBody{}
	}
	return instanceBody{&instanceJSON{Status: v.Status, Host: v.Host, Port: v.Port, Connection: v.Connection,
		StartedAt: ctf.FormatTime(v.StartedAt), ExpiresAt: ctf.FormatTime(v.ExpiresAt)}}
}

func (h *Handler) instance(w http.ResponseWriter, r *http.Request) {
	v, err := h.viewer(w, r, true)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	inst, err := h.svc.Instances.Get(r.Context(), v, r.PathValue("slug"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeValue(w, r, caller, http.StatusOK, instanceOf(inst))
}

// startInstance answers 201 with the instance it started, 200 with the one
// that ran already.
func (h *Handler) startInstance(w http.ResponseWriter, r *http.Request) {
	v, err := h.viewer(w, r, true)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	inst, created, err := h.svc.Instances.Start(r.Context(), v, r.PathValue("slug"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeValue(w, r, caller, status, instanceOf(&inst))
}

func (h *Handler) extendInstance(w http.ResponseWriter, r *http.Request) {
	v, err := h.viewer(w, r, true)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	inst, err := h.svc.Instances.Extend(r.Context(), v, r.PathValue("slug"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeValue(w, r, caller, http.StatusOK, instanceOf(&inst))
}

func (h *Handler) stopInstance(w http.ResponseWriter, r *http.Request) {
	v, err := h.viewer(w, r, true)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if err := h.svc.Instances.Stop(r.Context(), v, r.PathValue("slug")); err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
}
