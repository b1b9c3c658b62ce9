package web

import (
	"net/http"
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

func (h *Handler) adminWebhooks(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	h.webhooksPage(w, r, v, page{}, r.PathValue("id"), webhookForm{Kind: platform.WebhookDiscord, Enabled: true})
}

func (h *Handler) webhooksPage(w http.ResponseWriter, r *http.Request, v ctf.Viewer, p page, shown string, f webhookForm) {
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
	}
	p.Title, p.Viewer, p.Data = "Webhooks · Admin", v, d
	h.render(w, r, "admin-webhooks", p)
}

// adminCreateWebhook adds a webhook; the page then shows it, with the
// secret a json receiver needs.
func (h *Handler) adminCreateWebhook(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	if err := r.ParseForm(); err != nil {
		h.error(w, r, v, ctf.Errorf(ctf.Invalid, "the form could not be read"))
		return
	}
	f := webhookForm{Name: strings.TrimSpace(r.PostFormValue("name")), Kind: ctf.WebhookKind(r.PostFormValue("kind")),
		URL: strings.TrimSpace(r.PostFormValue("url")), Enabled: r.PostFormValue("enabled") == "1"}
	for _, e := range r.PostForm["events"] {
		f.Events = append(f.Events, ctf.WebhookEvent(e))
	}
	hook, err := h.svc.Webhooks.Create(r.Context(), v, platform.WebhookInput{Name: f.Name, Kind: f.Kind, URL: f.URL,
		Secret: r.PostFormValue("secret"), Events: f.Events, Enabled: f.Enabled})
	if err != nil {
		p := h.refused(w, r, err)
		f.Error = p.Error
		h.webhooksPage(w, r, v, page{Status: p.Status}, "", f)
		return
	}
	h.webhooksPage(w, r, v, page{}, hook.ID, webhookForm{Kind: platform.WebhookDiscord, Enabled: true, Created: &hook})
}

// adminWebhookAction enables, disables or deletes a webhook.
func (h *Handler) adminWebhookAction(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	id, action := r.PostFormValue("id"), r.PostFormValue("action")
	var err error
	shown := id
	switch action {
	case "enable", "disable":
		err = h.svc.Webhooks.SetEnabled(r.Context(), v, id, action == "enable")
	case "delete":
		err, shown = h.svc.Webhooks.Delete(r.Context(), v, id), ""
	default:
		err = ctf.Errorf(ctf.Invalid, "unknown action %q", action)
	}
	p := page{Notice: "Done."}
	if err != nil {
		p, shown = h.refused(w, r, err), ""
	}
	h.webhooksPage(w, r, v, p, shown, webhookForm{Kind: platform.WebhookDiscord, Enabled: true})
}
