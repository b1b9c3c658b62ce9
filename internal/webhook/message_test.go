package webhook_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/webhook"
)

func payload(t *testing.T, p platform.WebhookPayload) string {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// strict decodes body into v refusing unknown fields and trailing data:
// the chat services take exactly these shapes.
func strict(t *testing.T, body []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	if dec.More() {
		t.Fatalf("body %s: trailing data", body)
	}
}

// TestChatMessages: Discord gets {content, allowed_mentions: {parse: []}}
// and Slack {text}, one readable line per event, with what players named
// escaped so it can neither format nor ping.
func TestChatMessages(t *testing.T) {
	t.Parallel()
	points, rank := 100, 1
	blood := platform.WebhookPayload{Event: platform.HookFirstBlood, Seq: 7, At: "2026-01-05T10:00:00.000Z",
		User:      &platform.WebhookUser{ID: "u1", Username: "alice", Name: "alice"},
		Challenge: &platform.WebhookChallenge{ID: "c1", Slug: "baby-rsa", Title: "Baby RSA"}, Points: &points, Rank: &rank}
	sneaky := blood
	sneaky.User = &platform.WebhookUser{Username: "x", Name: "@everyone <!channel> *bold*"}
	noName := blood
	noName.User = &platform.WebhookUser{Username: "bob_"}
	announce := platform.WebhookPayload{Event: platform.HookAnnouncement, Seq: 8, Title: "Hint", Body: "Look at **e** & <n>"}
	cases := []struct {
		name           string
		p              platform.WebhookPayload
		discord, slack string
	}{
		{"first blood", blood, "🩸 First blood on **Baby RSA** by alice", "🩸 First blood on *Baby RSA* by alice"},
		{"hostile name", sneaky, `🩸 First blood on **Baby RSA** by @everyone <!channel\> \*bold\*`, "🩸 First blood on *Baby RSA* by @everyone &lt;!channel&gt; *bold*"},
		{"no display name", noName, `🩸 First blood on **Baby RSA** by bob\_`, "🩸 First blood on *Baby RSA* by bob_"},
		{"announcement", announce, "📢 **Hint**\nLook at **e** & <n>", "📢 *Hint*\nLook at **e** &amp; &lt;n&gt;"},
		{"started", platform.WebhookPayload{Event: platform.HookStarted}, "🏁 The event has started", "🏁 The event has started"},
		{"frozen", platform.WebhookPayload{Event: platform.HookFrozen}, "🧊 The scoreboard is frozen", "🧊 The scoreboard is frozen"},
		{"ended", platform.WebhookPayload{Event: platform.HookEnded}, "🏆 The event is over", "🏆 The event is over"},
	}
	now := time.Unix(1767607200, 0)
	for _, tc := range cases {
		c := store.Claimed{Seq: 42, Event: tc.p.Event, Body: payload(t, tc.p)}
		c.Webhook.Kind = platform.WebhookDiscord
		body, h, err := webhook.Request(c, now)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var d webhook.DiscordMessage
		strict(t, body, &d)
		if d.Content != tc.discord {
			t.Errorf("%s: Discord content %q, want %q", tc.name, d.Content, tc.discord)
		}
		if d.AllowedMentions.Parse == nil || len(d.AllowedMentions.Parse) != 0 || !bytes.Contains(body, []byte(`"allowed_mentions":{"parse":[]}`)) {
			t.Errorf("%s: Discord may ping: %s", tc.name, body)
		}
		if h.Get(webhook.HeaderSignature) != "" || h.Get("Content-Type") != "application/json" || h.Get(webhook.HeaderDelivery) != "42" {
			t.Errorf("%s: Discord headers %v", tc.name, h)
		}

		c.Webhook.Kind = platform.WebhookSlack
		body, _, err = webhook.Request(c, now)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var s webhook.SlackMessage
		strict(t, body, &s)
		if s.Text != tc.slack {
			t.Errorf("%s: Slack text %q, want %q", tc.name, s.Text, tc.slack)
		}
	}
}

// TestGenericRequest: the json kind posts the body as stored, signed over
// timestamp + "." + body.
func TestGenericRequest(t *testing.T) {
	t.Parallel()
	c := store.Claimed{Seq: 9, Event: platform.HookFrozen, Body: `{"event":"frozen","seq":3,"at":"2026-01-05T10:00:00.000Z"}`}
	c.Webhook.Kind, c.Webhook.Secret = platform.WebhookJSON, "s3cret-s3cret-s3cret"
	body, h, err := webhook.Request(c, time.Unix(1767607200, 0))
	if err != nil {
		t.Fatal(err)
	}
	if string(body) != c.Body {
		t.Errorf("body %s, want %s", body, c.Body)
	}
	want := map[string]string{"Content-Type": "application/json", webhook.HeaderEvent: "frozen", webhook.HeaderDelivery: "9",
		webhook.HeaderTimestamp: "1767607200",
		// printf '%s' "1767607200.$body" | openssl dgst -sha256 -hmac s3cret-s3cret-s3cret
		webhook.HeaderSignature: "sha256=d72d0338f8b54ab458ad2176493412d5853eece8d9589693e38738ab8f1034e2"}
	for k, v := range want {
		if h.Get(k) != v {
			t.Errorf("%s: %q, want %q", k, h.Get(k), v)
		}
	}
	if !webhook.VerifySignature(c.Webhook.Secret, "1767607200", body, h.Get(webhook.HeaderSignature)) {
		t.Error("the signature does not verify")
	}
	if webhook.VerifySignature(c.Webhook.Secret, "1767607201", body, h.Get(webhook.HeaderSignature)) {
		t.Error("the signature verifies with another timestamp")
	}
}

// TestBackoff: base, doubling, capped.
func TestBackoff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n    int
		want time.Duration
	}{{1, 5 * time.Second}, {2, 10 * time.Second}, {3, 20 * time.Second}, {10, 2560 * time.Second}, {11, time.Hour}, {1000, time.Hour}} {
		if got := webhook.Backoff(tc.n, 5*time.Second, time.Hour); got != tc.want {
			t.Errorf("Backoff(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
}
