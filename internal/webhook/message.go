// Package webhook sends the event's webhook deliveries: a worker on every
// replica claims due deliveries from the database's outbox, posts them in
// the target's shape (the generic JSON, signed; a Discord or a Slack
// message), logs every try and retries failures with exponential backoff
// for a day. It runs beside the request path, never on it, so a slow or
// failing target slows no submission.
//
// # Signatures
//
// A json webhook's delivery carries
//
//	X-Flagship-Event:     the event (firstBlood, announcement, started, frozen, ended)
//	X-Flagship-Delivery:  the delivery's id, the same on every retry: dedupe by it
//	X-Flagship-Timestamp: Unix seconds when this try was sent
//	X-Flagship-Signature: sha256=HEX, HEX = hex(HMAC-SHA256(secret, timestamp + "." + body))
//
// A receiver recomputes the HMAC over the raw body (VerifySignature does),
// compares in constant time, and should refuse timestamps more than a few
// minutes old, so a captured request cannot be replayed later.
package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/store"
)

// The headers of a delivery.
const (
	HeaderEvent     = "X-Flagship-Event"
	HeaderDelivery  = "X-Flagship-Delivery"
	HeaderTimestamp = "X-Flagship-Timestamp"
	HeaderSignature = "X-Flagship-Signature"
)

// Sign returns the X-Flagship-Signature of body sent at timestamp (Unix
// seconds, as in X-Flagship-Timestamp).
func Sign(secret, timestamp string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(timestamp))
	m.Write([]byte{'.'})
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// VerifySignature reports whether header (X-Flagship-Signature) signs
// body sent at timestamp (X-Flagship-Timestamp) with secret. It does not
// judge the timestamp's age: that is the receiver's policy.
func VerifySignature(secret, timestamp string, body []byte, header string) bool {
	return hmac.Equal([]byte(Sign(secret, timestamp, body)), []byte(header))
}

// DiscordMessage is the body of a Discord webhook (the fields Flagship
// sets).
type DiscordMessage struct {
	Content         string          `json:"content"`
	AllowedMentions AllowedMentions `json:"allowed_mentions"`
}

// AllowedMentions with Parse empty lets no text of the message ping
// anyone: a player named "@everyone" stays text.
type AllowedMentions struct {
	Parse []string `json:"parse"`
}

// SlackMessage is the body of a Slack incoming webhook.
type SlackMessage struct {
	Text string `json:"text"`
}

// maxMessage bounds a chat message in runes: Discord refuses content over
// 2,000 characters.
const maxMessage = 1900

// Request returns the body and headers of a try of the delivery c at now.
func Request(c store.Claimed, now time.Time) ([]byte, http.Header, error) {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "Flagship-Webhook")
	h.Set(HeaderEvent, string(c.Event))
	h.Set(HeaderDelivery, strconv.FormatInt(c.Seq, 10))
	if c.Webhook.Kind == platform.WebhookJSON {
		body := []byte(c.Body)
		ts := strconv.FormatInt(now.Unix(), 10)
		h.Set(HeaderTimestamp, ts)
		h.Set(HeaderSignature, Sign(c.Webhook.Secret, ts, body))
		return body, h, nil
	}
	var p platform.WebhookPayload
	if err := json.Unmarshal([]byte(c.Body), &p); err != nil {
		return nil, nil, fmt.Errorf("delivery %d: its body: %w", c.Seq, err)
	}
	var msg any
	switch c.Webhook.Kind {
	case platform.WebhookDiscord:
		msg = DiscordMessage{Content: text(p, discordEscape), AllowedMentions: AllowedMentions{Parse: []string{}}}
	case platform.WebhookSlack:
		msg = SlackMessage{Text: text(p, slackEscape)}
	default:
		return nil, nil, fmt.Errorf("delivery %d: unknown kind of webhook %q", c.Seq, c.Webhook.Kind)
	}
	body, err := json.Marshal(msg)
	return body, h, err
}

// text is the chat message of an event. esc escapes the names and titles
// players and admins chose for the chat's markup, which also marks bold.
func text(p platform.WebhookPayload, esc *markup) string {
	var s string
	switch p.Event {
	case platform.HookFirstBlood:
		who, what := "someone", "a challenge"
		if p.User != nil {
			who = esc.text(p.User.Name)
			if who == "" {
				who = esc.text(p.User.Username)
			}
		}
		if p.Challenge != nil {
			what = esc.bold(p.Challenge.Title)
		}
		s = "🩸 First blood on " + what + " by " + who
	case platform.HookAnnouncement:
		s = "📢 " + esc.bold(p.Title)
		if b := strings.TrimSpace(p.Body); b != "" {
			// Discord renders the Markdown; Slack's markup is close enough
			// that the text reads, escaped of its mentions.
			s += "\n" + esc.body(b)
		}
	case platform.HookStarted:
		s = "🏁 The event has started"
	case platform.HookFrozen:
		s = "🧊 The scoreboard is frozen"
	case platform.HookEnded:
		s = "🏆 The event is over"
	default:
		s = string(p.Event)
	}
	return truncate(s, maxMessage)
}

// markup is a chat's escaping.
type markup struct {
	names *strings.Replacer // names and titles: no formatting at all
	rich  *strings.Replacer // an announcement's Markdown: formatting kept
	star  string            // bold
}

var slackSpecials = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func (m *markup) text(s string) string { return m.names.Replace(s) }
func (m *markup) bold(s string) string { return m.star + m.text(s) + m.star }
func (m *markup) body(s string) string { return m.rich.Replace(s) }

var (
	// Discord: its Markdown's specials; mentions are disarmed by
	// allowed_mentions, not by escaping.
	discordEscape = &markup{
		names: strings.NewReplacer(`\`, `\\`, `*`, `\*`, `_`, `\_`, `~`, `\~`, "`", "\\`", `|`, `\|`, `>`, `\>`, `#`, `\#`, `[`, `\[`, `]`, `\]`, `(`, `\(`, `)`, `\)`),
		rich:  strings.NewReplacer(),
		star:  "**",
	}
	// Slack: & < > are its control characters (<!everyone>, <@U123>);
	// escaped, a name can neither ping nor link. Slack has no escape for
	// * _ ~, which at worst make part of a name bold or italic.
	slackEscape = &markup{
		names: slackSpecials,
		rich:  slackSpecials,
		star:  "*",
	}
)

// truncate cuts s to at most n runes, marking the cut.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
