package web

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
)

// The webhooks page: the targets, a form for a new one, and the delivery
// log of one target with every try.

type webhooksData struct {
	Hooks  []platform.Webhook
	Kinds  []ctf.WebhookKind
	Events []ctf.WebhookEvent
	New    webhookForm
	// Shown is the webhook whose delivery log is open, Log its deliveries.
	Shown *platform.Webhook
	Log   []platform.Delivery
}

type webhookForm struct {
	Name, URL string
	Kind      ctf.WebhookKind
	Events    []ctf.WebhookEvent
	Enabled   bool
	Error     string
	Created   *platform.Webhook
}

// Subscribes reports whether the form has event ticked.
func (f webhookForm) Subscribes(event ctf.WebhookEvent) bool { return slices.Contains(f.Events, event) }

// deliveryLogSize is how many deliveries the log shows.
const deliveryLogSize = 50

// adminWebhooks is the webhooks page, with the delivery log of the one
// the address names; the add form as typed after a refusal, or the
// webhook just added (once).
func (h *Handler) adminWebhooks(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	fl := h.takeFlash(w, r, v)
	p := page{Notice: fl.Notice, Error: fl.Error, flashTaken: true}
	f := webhookForm{Kind: platform.WebhookDiscord, Enabled: true}
	if fl.Section == "new" {
		f.Error, p.Error = fl.Error, ""
		f.Name, f.URL, f.Kind, f.Enabled = fl.Form["name"], fl.Form["url"], ctf.WebhookKind(fl.Form["kind"]), fl.Form["enabled"] == "1"
		for _, e := range strings.Fields(fl.Form["events"]) {
			f.Events = append(f.Events, ctf.WebhookEvent(e))
		}
	}
	shown := r.PathValue("id")
	hooks, err := h.svc.Webhooks.List(r.Context(), v)
	if err != nil {
		h.error(w, r, v, err)
		return
	}
	d := webhooksData{Hooks: hooks, Kinds: platform.WebhookKinds, Events: platform.WebhookEvents, New: f}
	if shown != "" {
		hook, log, err := h.svc.Webhooks.Deliveries(r.Context(), v, shown, deliveryLogSize)
		if err != nil {
			h.error(w, r, v, err)
			return
		}
		d.Shown, d.Log = &hook, log
		if fl.Form["created"] == hook.ID {
			d.New.Created = &hook
		}
	}
	p.Title, p.Viewer, p.Data = "Webhooks · Admin", v, d
	h.render(w, r, "admin-webhooks", p)
}

// adminCreateWebhook adds a webhook; the page then shows it, with the
// secret a json receiver needs. A refusal goes back to the form as typed
// (not the secret).
func (h *Handler) adminCreateWebhook(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	if err := r.ParseForm(); err != nil {
		h.error(w, r, v, ctf.Errorf(ctf.Invalid, "the form could not be read"))
		return
	}
	in := platform.WebhookInput{Name: strings.TrimSpace(r.PostFormValue("name")), Kind: ctf.WebhookKind(r.PostFormValue("kind")),
		URL: strings.TrimSpace(r.PostFormValue("url")), Secret: r.PostFormValue("secret"), Enabled: r.PostFormValue("enabled") == "1"}
	for _, e := range r.PostForm["events"] {
		in.Events = append(in.Events, ctf.WebhookEvent(e))
	}
	hook, err := h.svc.Webhooks.Create(r.Context(), v, in)
	if err != nil {
		h.redirectWith(w, r, v, "/admin/webhooks", flash{Error: h.refused(w, r, err).Error, Section: "new", Form: map[string]string{
			"name": in.Name, "url": in.URL, "kind": string(in.Kind), "enabled": r.PostFormValue("enabled"), "events": strings.Join(r.PostForm["events"], " ")}})
		return
	}
	h.redirectWith(w, r, v, "/admin/webhooks/"+url.PathEscape(hook.ID), flash{Form: map[string]string{"created": hook.ID}})
}

// adminWebhookAction enables, disables or deletes a webhook.
func (h *Handler) adminWebhookAction(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	id, action := r.PostFormValue("id"), r.PostFormValue("action")
	var err error
	to, f := "/admin/webhooks/"+url.PathEscape(id), flash{}
	switch action {
	case "enable", "disable":
		err = h.svc.Webhooks.SetEnabled(r.Context(), v, id, action == "enable")
		f.Notice = "Webhook " + action + "d."
	case "delete":
		err, to = h.svc.Webhooks.Delete(r.Context(), v, id), "/admin/webhooks"
		f.Notice = "Webhook deleted."
	default:
		err = ctf.Errorf(ctf.Invalid, "unknown action %q", action)
	}
	if err != nil {
		to, f = "/admin/webhooks", flash{Error: h.refused(w, r, err).Error}
	}
	h.redirectWith(w, r, v, to, f)
}
