package ctf

import (
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// WebhookKind says how a webhook's deliveries are written.
type WebhookKind string

// Webhook kinds: how a delivery's body is written.
const (
	WebhookJSON    WebhookKind = "json"    // the generic JSON body, signed
	WebhookDiscord WebhookKind = "discord" // a Discord message
	WebhookSlack   WebhookKind = "slack"   // a Slack message
)

// WebhookKinds are the kinds of webhook.
var WebhookKinds = []WebhookKind{WebhookJSON, WebhookDiscord, WebhookSlack}

// WebhookEvent is the kind of event a webhook may subscribe to: the name
// its payload, its X-Flagship-Event header and its stored subscription
// carry.
type WebhookEvent string

// Events a webhook may subscribe to.
const (
	HookFirstBlood   WebhookEvent = "firstBlood"
	HookAnnouncement WebhookEvent = "announcement"
	HookStarted      WebhookEvent = "started"
	HookFrozen       WebhookEvent = "frozen"
	HookEnded        WebhookEvent = "ended"
)

// WebhookEvents are the events a webhook may subscribe to, in the order
// forms list them; a webhook subscribed to none gets them all.
var WebhookEvents = []WebhookEvent{HookFirstBlood, HookAnnouncement, HookStarted, HookFrozen, HookEnded}

// DeliveryStatus is where a webhook's delivery stands: the store keeps
// it, the sender moves it on, the delivery log shows it.
type DeliveryStatus string

// Delivery statuses.
const (
	DeliveryPending   DeliveryStatus = "pending"   // due a try, first or again
	DeliveryDelivered DeliveryStatus = "delivered" // the target accepted it
	DeliveryFailed    DeliveryStatus = "failed"    // given up: its retries ran out
)

// IsPending reports whether s is DeliveryPending, for the delivery log,
// which says when a pending delivery is tried next.
func (s DeliveryStatus) IsPending() bool { return s == DeliveryPending }

// Webhook limits.
const (
	MaxWebhookName   = 64
	MaxWebhookURL    = 2048
	MinWebhookSecret = 16
	MaxWebhookSecret = 256
)

// ValidateWebhook checks a webhook as an admin's form or a dataset gives
// it (trimmed): a name, a kind, an absolute http(s) URL, known events, and
// a secret only for the json kind (empty there: the caller generates one).
func ValidateWebhook(name string, kind WebhookKind, rawURL, secret string, events []WebhookEvent) error {
	switch n := utf8.RuneCountInString(name); {
	case n == 0:
		return FieldErrorf("name", "is required")
	case n > MaxWebhookName || !utf8.ValidString(name):
		return FieldErrorf("name", "must be 1 to %d characters", MaxWebhookName)
	}
	if !slices.Contains(WebhookKinds, kind) {
		return FieldErrorf("kind", "must be one of %s", joinKinds(WebhookKinds))
	}
	if err := ValidateWebhookURL(rawURL); err != nil {
		return err
	}
	for _, e := range events {
		if !slices.Contains(WebhookEvents, e) {
			return FieldErrorf("events", "has %q, which is none of %s", e, joinKinds(WebhookEvents))
		}
	}
	switch {
	case kind != WebhookJSON && secret != "":
		return FieldErrorf("secret", "is only for json webhooks: Discord and Slack do not check signatures")
	case kind == WebhookJSON && secret != "" && (len(secret) < MinWebhookSecret || len(secret) > MaxWebhookSecret):
		return FieldErrorf("secret", "must be %d to %d bytes, or empty to generate one", MinWebhookSecret, MaxWebhookSecret)
	}
	return nil
}

// ValidateWebhookURL checks a webhook's target as written: an absolute
// http or https URL of at most MaxWebhookURL bytes. Where it may connect is
// decided when it is called.
func ValidateWebhookURL(raw string) error {
	if len(raw) > MaxWebhookURL {
		return FieldErrorf("url", "must be at most %d bytes", MaxWebhookURL)
	}
	if u, err := url.Parse(raw); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return FieldErrorf("url", "must be an absolute http or https URL")
	}
	return nil
}

// WebhookEventsOf returns events as a webhook stores them: in the
// canonical order, each once; none means all.
func WebhookEventsOf(events []WebhookEvent) []WebhookEvent {
	var out []WebhookEvent
	for _, e := range WebhookEvents {
		if len(events) == 0 || slices.Contains(events, e) {
			out = append(out, e)
		}
	}
	return out
}

// NewWebhookSecret returns a secret for a json webhook given none.
func NewWebhookSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// joinKinds lists kinds, comma-separated, for an error message.
func joinKinds[K ~string](kinds []K) string {
	s := make([]string, len(kinds))
	for i, k := range kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}
