package web

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
)

// instancePanel is the caller's instance of a challenge with instances of
// its own, on the challenge's page.
type instancePanel struct {
	Run   *platform.InstanceView // nil: none runs
	Error string                 // why it could not be read
}

// CanExtend reports whether an extension would move the expiry.
func (p instancePanel) CanExtend() bool {
	return p.Run != nil && p.Run.Status != "stopping" && p.Run.ExpiresAt.Before(p.Run.MaxUntil)
}

// instancePanelOf is v's instance panel of the challenge of slug, nil when
// there is none to show: signed out, or a challenge without instances of
// its own.
func (h *Handler) instancePanelOf(ctx context.Context, v ctf.Viewer, slug string) *instancePanel {
	if v.User == nil {
		return nil
	}
	run, err := h.svc.Instances.Get(ctx, v, slug)
	switch {
	case err == nil:
		return &instancePanel{Run: run}
	case ctf.ErrorCode(err) == ctf.NotFound || ctf.ErrorCode(err) == ctf.Unauthorized:
		return nil
	}
	h.log.Warn("read a player's instance", "challenge", slug, "err", err)
	return &instancePanel{Error: sentence(ctf.ErrorMessage(err), 0)}
}

// instanceNotices are what the challenge's page says after each action,
// by the done parameter of the redirect.
var instanceNotices = map[string]string{
	"started":  "Your instance runs.",
	"extended": "Your instance runs longer.",
	"stopped":  "Your instance is stopped.",
}

// instanceAction answers the panel's forms: start, extend and stop. On
// success it goes back to the page (a reload does not repeat the action);
// a refusal shows on the page as the flag form's do.
func (h *Handler) instanceAction(act func(h *Handler, ctx context.Context, v ctf.Viewer, slug string) error, done string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v := h.viewer(w, r)
		slug := r.PathValue("slug")
		if v.User == nil {
			redirect(w, r, "/login?next="+url.QueryEscape("/challenges/"+slug))
			return
		}
		if err := act(h, r.Context(), v, slug); err != nil {
			// Back to the challenge's page, which is a 404 when there is
			// no such challenge.
			h.redirectWith(w, r, v, challengeURL(slug)+"#instance", flash{Error: h.refused(w, r, err).Error})
			return
		}
		redirect(w, r, "/challenges/"+url.PathEscape(slug)+"?done="+done+"#instance")
	}
}

func startInstance(h *Handler, ctx context.Context, v ctf.Viewer, slug string) error {
	_, _, err := h.svc.Instances.Start(ctx, v, slug)
	return err
}

func extendInstance(h *Handler, ctx context.Context, v ctf.Viewer, slug string) error {
	_, err := h.svc.Instances.Extend(ctx, v, slug)
	return err
}

func stopInstance(h *Handler, ctx context.Context, v ctf.Viewer, slug string) error {
	return h.svc.Instances.Stop(ctx, v, slug)
}

// adminInstancesData is the admin page of running instances.
type adminInstancesData struct {
	Running []platform.RunningInstance
	Sharing []platform.SharingView
	Now     time.Time
}

// Age is how long an instance has run, as a person says it.
func (d adminInstancesData) Age(started time.Time) string { return countdown(d.Now.Sub(started)) }

// sharingShown is how many suspected sharings the admin page lists.
const sharingShown = 200

func (h *Handler) adminInstances(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	var p page
	running, err := h.svc.Instances.Running(r.Context(), v)
	if err != nil {
		h.error(w, r, v, err)
		return
	}
	sharing, err := h.svc.Instances.Sharing(r.Context(), v, sharingShown)
	if err != nil {
		h.error(w, r, v, err)
		return
	}
	p.Title, p.Viewer, p.Data = "Instances · Admin", v, adminInstancesData{Running: running, Sharing: sharing, Now: h.clock().Now}
	h.render(w, r, "admin-instances", p)
}

// adminStopInstance stops an instance by its id (the use case audits it).
func (h *Handler) adminStopInstance(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	if err := h.svc.Instances.StopByID(r.Context(), v, r.PostFormValue("id")); err != nil {
		h.redirectWith(w, r, v, "/admin/instances", flash{Error: h.refused(w, r, err).Error})
		return
	}
	h.redirectWith(w, r, v, "/admin/instances", flash{Notice: "The instance is stopped."})
}
