package platform

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/store"
)

// Webhooks: admins point the event's public moments (first bloods,
// announcements, the clock's start, freeze and end) at Discord, Slack or
// any HTTP endpoint. The use cases here configure them; the producer turns
// the live stream into deliveries in the database's outbox, once in the
// cluster; package webhook sends them. Webhooks are read from the database
// when used: they are few and admin-only, so no replica keeps them in
// memory.

// Kinds of webhook (the rules are package ctf's, which datasets share).
const (
	WebhookJSON    = ctf.WebhookJSON    // the generic JSON body, signed
	WebhookDiscord = ctf.WebhookDiscord // a Discord message
	WebhookSlack   = ctf.WebhookSlack   // a Slack message
)

// WebhookKinds are the kinds of webhook.
var WebhookKinds = ctf.WebhookKinds

// Events a webhook may subscribe to.
const (
	HookFirstBlood   = ctf.HookFirstBlood
	HookAnnouncement = ctf.HookAnnouncement
	HookStarted      = ctf.HookStarted
	HookFrozen       = ctf.HookFrozen
	HookEnded        = ctf.HookEnded
)

// WebhookEvents are the events a webhook may subscribe to, in the order
// forms list them; a webhook subscribed to none gets them all.
var WebhookEvents = ctf.WebhookEvents

// Webhook limits.
const (
	MaxWebhookName   = ctf.MaxWebhookName
	MaxWebhookURL    = ctf.MaxWebhookURL
	MinWebhookSecret = ctf.MinWebhookSecret
	MaxWebhookSecret = ctf.MaxWebhookSecret
	// MaxDeliveryLog bounds the deliveries DeliveryLog returns.
	MaxDeliveryLog = 500
)

// Webhook is a webhook as admins see it, secret included: the receiver of
// a json webhook needs it to check signatures.
type Webhook = store.Webhook

// Delivery is a delivery with its tries, for the delivery log.
type Delivery = store.Delivery

// WebhookInput is a new webhook.
type WebhookInput struct {
	Name, URL string
	Kind      ctf.WebhookKind
	// Secret signs the json kind's deliveries; empty: one is generated.
	// The other kinds take none (their URL is their secret).
	Secret  string
	Events  []ctf.WebhookEvent // empty: all
	Enabled bool
}

// WebhookPayload is the generic JSON body of a delivery: what the json
// kind posts as is, and what the Discord and Slack messages are written
// from.
type WebhookPayload struct {
	Event     ctf.WebhookEvent  `json:"event"` // one of WebhookEvents
	Seq       int64             `json:"seq"`   // the live stream's number
	At        string            `json:"at"`
	User      *WebhookUser      `json:"user,omitempty"`      // firstBlood
	Challenge *WebhookChallenge `json:"challenge,omitempty"` // firstBlood; an announcement's link
	Points    *int              `json:"points,omitempty"`    // firstBlood: what the solve is worth
	Value     *int              `json:"value,omitempty"`     // firstBlood: the challenge's value now
	Rank      *int              `json:"rank,omitempty"`      // firstBlood: 1
	Title     string            `json:"title,omitempty"`     // announcement
	Body      string            `json:"body,omitempty"`      // announcement, Markdown
}

// WebhookUser names a player in a payload.
type WebhookUser struct {
	ID       string `json:"id"`
	Username string `json:"username"`
	Name     string `json:"name"`
	Agent    bool   `json:"agent"`
}

// WebhookChallenge names a challenge in a payload.
type WebhookChallenge struct {
	ID    string `json:"id"`
	Slug  string `json:"slug"`
	Title string `json:"title"`
}

// Create adds a webhook (admins).
func (s *Webhooks) Create(ctx context.Context, v ctf.Viewer, in WebhookInput) (Webhook, error) {
	if !v.IsAdmin() {
		return Webhook{}, ctf.ErrNotAdmin
	}
	w, err := validWebhook(in, s.opts.WebhooksAllowPrivate)
	if err != nil {
		return Webhook{}, err
	}
	w.ID, w.CreatedAt = ctf.NewID(), ctf.Millis(s.now())
	host := ""
	if u, err := url.Parse(w.URL); err == nil {
		host = u.Host // not the whole URL: Discord's and Slack's carry their secret
	}
	return s.db.CreateWebhook(ctx, w, s.audit(v, "webhook.create", w.ID,
		map[string]any{"name": w.Name, "kind": w.Kind, "host": host, "events": w.Events}))
}

// validWebhook checks a new webhook and puts it in its stored form, with
// the rules a dataset's webhooks are checked by (ctf.ValidateWebhook); a
// URL on a private host is refused unless allowPrivate.
func validWebhook(in WebhookInput, allowPrivate bool) (Webhook, error) {
	w := Webhook{Name: strings.TrimSpace(in.Name), Kind: ctf.WebhookKind(strings.TrimSpace(string(in.Kind))), URL: strings.TrimSpace(in.URL),
		Secret: strings.TrimSpace(in.Secret), Enabled: in.Enabled}
	if err := ctf.ValidateWebhook(w.Name, w.Kind, w.URL, w.Secret, in.Events); err != nil {
		return w, err
	}
	if !allowPrivate {
		if err := checkTargetURL(w.URL); err != nil {
			return w, err
		}
	}
	w.Events = ctf.WebhookEventsOf(in.Events)
	if w.Kind == WebhookJSON && w.Secret == "" {
		w.Secret = ctf.NewWebhookSecret()
	}
	return w, nil
}

// List lists the webhooks, oldest first, with their deliveries counted
// by status (admins).
func (s *Webhooks) List(ctx context.Context, v ctf.Viewer) ([]Webhook, error) {
	if !v.IsAdmin() {
		return nil, ctf.ErrNotAdmin
	}
	return s.db.Webhooks(ctx)
}

// SetEnabled turns a webhook on or off (admins). Off, it gets no
// deliveries for what happens meanwhile, and its pending ones wait.
func (s *Webhooks) SetEnabled(ctx context.Context, v ctf.Viewer, id string, enabled bool) error {
	if !v.IsAdmin() {
		return ctf.ErrNotAdmin
	}
	w, err := s.db.Webhook(ctx, id)
	if err != nil {
		return err
	}
	action := "webhook.disable"
	if enabled {
		action = "webhook.enable"
	}
	return s.db.SetWebhookEnabled(ctx, id, enabled, s.audit(v, action, id, map[string]any{"name": w.Name}))
}

// Delete deletes a webhook with its deliveries and their log
// (admins).
func (s *Webhooks) Delete(ctx context.Context, v ctf.Viewer, id string) error {
	if !v.IsAdmin() {
		return ctf.ErrNotAdmin
	}
	w, err := s.db.Webhook(ctx, id)
	if err != nil {
		return err
	}
	return s.db.DeleteWebhook(ctx, id, s.audit(v, "webhook.delete", id, map[string]any{"name": w.Name}))
}

// Deliveries returns a webhook and its newest deliveries, newest first,
// each with its tries (admins); limit ≤ 0 is 50. A failed try shows the
// class of its failure only (TryRefused, TryTimeout, …, TryStatus).
func (s *Webhooks) Deliveries(ctx context.Context, v ctf.Viewer, webhookID string, limit int) (Webhook, []Delivery, error) {
	if !v.IsAdmin() {
		return Webhook{}, nil, ctf.ErrNotAdmin
	}
	if limit <= 0 {
		limit = 50
	}
	limit = min(limit, MaxDeliveryLog)
	w, err := s.db.Webhook(ctx, webhookID)
	if err != nil {
		return Webhook{}, nil, err
	}
	ds, err := s.db.Deliveries(ctx, webhookID, limit)
	coarsenLog(ds)
	return w, ds, err
}

// produceEventsBatch bounds the events one round of the producer reads.
const produceEventsBatch = 1000

// produceWebhookDeliveries turns the events this replica relayed into
// deliveries, once in the cluster: every replica's watcher calls it, and
// the store holds the webhooks' cursor locked meanwhile, so whichever
// comes first does the work and the others find it done.
func (s *core) produceWebhookDeliveries(ctx context.Context) error {
	upTo := s.live.LastEvent()
	_, err := s.db.ProduceDeliveries(ctx, upTo, func(after int64, hooks []store.Webhook) ([]store.NewDelivery, int64, error) {
		evs, err := s.live.EventsAfter(ctx, after, produceEventsBatch)
		if err != nil {
			return nil, after, err
		}
		var out []store.NewDelivery
		through := after
		for _, ev := range evs {
			if ev.Seq > upTo {
				break
			}
			through = ev.Seq
			p, ok := webhookPayload(ev)
			if !ok {
				continue
			}
			var body []byte
			for _, h := range hooks {
				if ev.Seq <= h.AfterSeq || (len(h.Events) > 0 && !slices.Contains(h.Events, p.Event)) {
					continue
				}
				if body == nil {
					if body, err = json.Marshal(p); err != nil {
						return nil, after, fmt.Errorf("webhook body of event %d: %w", ev.Seq, err)
					}
				}
				out = append(out, store.NewDelivery{WebhookID: h.ID, StreamSeq: ev.Seq, Event: p.Event, Body: string(body)})
			}
		}
		return out, through, nil
	})
	return err
}

// webhookPayload is the payload of an event, and whether webhooks get it
// at all: only public events, and of the solves only first bloods.
func webhookPayload(ev live.StreamEvent) (WebhookPayload, bool) {
	if !ev.Public {
		return WebhookPayload{}, false
	}
	p := WebhookPayload{Seq: ev.Seq, At: ctf.FormatTime(ev.At)}
	switch ev.Kind {
	case ctf.StreamSolve:
		x := ev.Solve
		if x == nil || !x.FirstBlood {
			return p, false
		}
		p.Event = HookFirstBlood
		p.User = &WebhookUser{ID: x.UserID, Username: x.Username, Name: x.Name, Agent: x.Agent}
		p.Challenge = &WebhookChallenge{ID: x.ChallengeID, Slug: x.Slug, Title: x.Title}
		p.Points, p.Value, p.Rank = &x.Points, &x.Value, &x.Rank
	case ctf.StreamAnnouncement:
		a := ev.Announcement
		if a == nil {
			return p, false
		}
		p.Event, p.Title, p.Body = HookAnnouncement, a.Title, a.Body
		if c := a.Challenge; c != nil {
			p.Challenge = &WebhookChallenge{ID: c.ID, Slug: c.Slug, Title: c.Title}
		}
	case ctf.StreamStarted:
		p.Event = HookStarted
	case ctf.StreamFrozen:
		p.Event = HookFrozen
	case ctf.StreamEnded:
		p.Event = HookEnded
	default:
		return p, false
	}
	return p, true
}
