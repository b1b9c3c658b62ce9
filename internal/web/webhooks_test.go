package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/store"
)

// TestAdminWebhooksPage: an admin adds a webhook from the form (a refusal
// shows beside it, the typed values kept), sees its secret and its
// delivery log with each try; a player sees and changes nothing.
func TestAdminWebhooksPage(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	ctx := context.Background()
	root := newBrowser(t, s)
	root.post("/login", url.Values{"username": {"root"}, "password": {"root-password"}})
	want(t, "the page", root.get("/admin/webhooks"), 200, "Add a webhook", `action="/admin/webhooks/new"`, `href="/admin/webhooks">Webhooks</a>`,
		"No webhook yet.")

	form := url.Values{"name": {"Receiver <b>"}, "kind": {"json"}, "url": {"ftp://example.com/hook"}, "events": {"firstBlood", "frozen"}, "enabled": {"1"}}
	want(t, "bad URL", root.send("/admin/webhooks/new", form), 200,
		`<p class="alert error" role="alert" id="new-error">URL must be an absolute http or https URL.</p>`,
		`value="Receiver &lt;b&gt;"`, `value="ftp://example.com/hook"`, `value="frozen" checked`)

	form.Set("url", "https://example.com/hook")
	made := root.send("/admin/webhooks/new", form)
	hooks, err := s.Svc.Webhooks.List(ctx, ctf.Operator)
	if err != nil || len(hooks) != 1 {
		t.Fatalf("webhooks after the form: %+v, %v", hooks, err)
	}
	hook := hooks[0]
	want(t, "made", made, 200, "Added the json webhook Receiver &lt;b&gt;.", hook.Secret, "Delivery log of Receiver &lt;b&gt;",
		"firstBlood, frozen", "No delivery yet.")

	// A delivery tried once and failed, as a worker leaves it.
	if _, err := s.DB.Hooks().ProduceDeliveries(ctx, 1, func(after int64, hs []store.Webhook) ([]store.NewDelivery, int64, error) {
		return []store.NewDelivery{{WebhookID: hook.ID, StreamSeq: 1, Event: platform.HookFrozen, Body: `{"event":"frozen","seq":1}`}}, 1, nil
	}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	claimed, err := s.DB.Hooks().ClaimDeliveries(ctx, now, time.Minute, 10)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claimed %+v, %v", claimed, err)
	}
	retry := now.Add(5 * time.Second).UTC()
	if err := s.DB.Hooks().RecordAttempt(ctx, claimed[0].Seq, store.DeliveryTry{At: now, StatusCode: 503, Error: "HTTP 503 Service Unavailable", Duration: 42 * time.Millisecond},
		store.Outcome{Status: store.DeliveryPending, NextAt: retry}); err != nil {
		t.Fatal(err)
	}
	want(t, "the log", root.get("/admin/webhooks/"+hook.ID), 200, "0 delivered · 1 pending · 0 failed", "frozen <span class=\"hint\">#1 · delivery "+strconv.FormatInt(claimed[0].Seq, 10),
		"HTTP 503, 42 ms; retry at <time datetime=\""+retry.Format("2006-01-02T15:04:05"), "pending, next try")
	want(t, "unknown webhook", root.get("/admin/webhooks/nope"), 404)

	// A player: refused, nothing made or changed, nothing audited.
	pam := newBrowser(t, s)
	pam.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})
	for _, path := range []string{"/admin/webhooks", "/admin/webhooks/" + hook.ID} {
		want(t, "player on "+path, pam.get(path), http.StatusForbidden, "Only admins")
	}
	want(t, "player creates", pam.post("/admin/webhooks/new", form), http.StatusForbidden)
	want(t, "player deletes", pam.post("/admin/webhooks", url.Values{"id": {hook.ID}, "action": {"delete"}}), http.StatusForbidden)
	if hooks, _ := s.Svc.Webhooks.List(ctx, ctf.Operator); len(hooks) != 1 || !hooks[0].Enabled {
		t.Errorf("after a player's posts: %+v", hooks)
	}

	// Disable, enable, delete: each done and audited.
	want(t, "disable", root.send("/admin/webhooks", url.Values{"id": {hook.ID}, "action": {"disable"}}), 200, "Webhook disabled.", `<span class="mark lock">disabled</span>`)
	want(t, "enable", root.send("/admin/webhooks", url.Values{"id": {hook.ID}, "action": {"enable"}}), 200, "Webhook enabled.", `value="disable"`)
	want(t, "bad action", root.send("/admin/webhooks", url.Values{"id": {hook.ID}, "action": {"explode"}}), 200, "Unknown action")
	want(t, "delete", root.send("/admin/webhooks", url.Values{"id": {hook.ID}, "action": {"delete"}}), 200, "Webhook deleted.", "No webhook yet.")
	want(t, "delete again", root.send("/admin/webhooks", url.Values{"id": {hook.ID}, "action": {"delete"}}), 200, "No such webhook")
	log, _ := s.Svc.Admin.AuditLog(ctx, ctf.Operator, 0, 10)
	var actions []string
	for _, a := range log {
		actions = append(actions, a.Action)
	}
	if got := len(actions); got != 4 || actions[0] != "webhook.delete" || actions[3] != "webhook.create" {
		t.Errorf("audit log %v, want create, disable, enable, delete", actions)
	}
}

// TestAdminWebhookFormRefusesPrivateURLs: at the form, a URL
// on a loopback, private, link-local, multicast or metadata address, or on
// localhost, is refused with a clear error beside the form, and nothing is
// stored. A public address is accepted.
func TestAdminWebhookFormRefusesPrivateURLs(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	root := newBrowser(t, s)
	root.post("/login", url.Values{"username": {"root"}, "password": {"root-password"}})
	for _, u := range []string{
		"http://127.0.0.1:9090/metrics",
		"http://localhost:5432/",
		"http://LocalHost./hook",
		"http://app.localhost/hook",
		"http://[::1]:8080/hook",
		"http://169.254.169.254/latest/meta-data/",
		"http://[fd00:ec2::254]/latest/meta-data/",
		"http://[::ffff:127.0.0.1]/hook",
		"http://[::ffff:169.254.169.254]/",
		"http://10.0.0.1/hook",
		"http://172.16.5.4/hook",
		"http://192.168.1.1/hook",
		"http://100.64.0.1/hook",
		"http://0.0.0.0:8080/hook",
		"http://224.0.0.1/hook",
		"http://[fe80::1%25eth0]/hook",
		"http://[fc00::1]/hook",
		"http://2130706433/hook",
		"http://127.1/hook",
		"http://0x7f.0.0.1/hook",
	} {
		form := url.Values{"name": {"internal"}, "kind": {"json"}, "url": {u}, "enabled": {"1"}}
		want(t, u, root.send("/admin/webhooks/new", form), 200, `id="new-error">URL must name a public host`)
	}
	if hooks, _ := s.Svc.Webhooks.List(context.Background(), ctf.Operator); len(hooks) != 0 {
		t.Fatalf("refused URLs stored %d webhooks", len(hooks))
	}
	want(t, "a public address", root.send("/admin/webhooks/new", url.Values{"name": {"public"}, "kind": {"json"},
		"url": {"http://93.184.215.14:8443/hook"}, "enabled": {"1"}}), 200, "Added the json webhook public.")
}

// TestDeliveryLogShowsOnlyClasses: the delivery log shows what kind of
// failure a try met, never the error's text, which could tell an admin what
// answers inside the network: tries an older version logged with the raw
// error are shown by their class too.
func TestDeliveryLogShowsOnlyClasses(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	ctx := context.Background()
	root := newBrowser(t, s)
	root.post("/login", url.Values{"username": {"root"}, "password": {"root-password"}})
	want(t, "made", root.send("/admin/webhooks/new", url.Values{"name": {"old"}, "kind": {"json"},
		"url": {"https://example.com/hook"}, "enabled": {"1"}}), 200)
	hooks, err := s.Svc.Webhooks.List(ctx, ctf.Operator)
	if err != nil || len(hooks) != 1 {
		t.Fatalf("webhooks: %+v, %v", hooks, err)
	}
	raw := []store.DeliveryTry{
		{Error: "dial tcp: lookup hooks.internal on 10.255.255.53:53: no such host"},
		{Error: "EOF"},
		{Error: "read tcp 10.0.0.9:41000->10.0.0.5:5432: read: connection reset by peer"},
		{StatusCode: 503, Error: "HTTP 503 Service Unavailable"},
	}
	if _, err := s.DB.Hooks().ProduceDeliveries(ctx, int64(len(raw)), func(int64, []store.Webhook) ([]store.NewDelivery, int64, error) {
		var ds []store.NewDelivery
		for i := range raw {
			ds = append(ds, store.NewDelivery{WebhookID: hooks[0].ID, StreamSeq: int64(i + 1), Event: platform.HookFrozen, Body: `{}`})
		}
		return ds, int64(len(raw)), nil
	}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	claimed, err := s.DB.Hooks().ClaimDeliveries(ctx, now, time.Minute, 10)
	if err != nil || len(claimed) != len(raw) {
		t.Fatalf("claimed %+v, %v", claimed, err)
	}
	for i, c := range claimed {
		a := raw[c.StreamSeq-1]
		a.At, a.Duration = now, time.Duration(i)*time.Millisecond
		if err := s.DB.Hooks().RecordAttempt(ctx, c.Seq, a, store.Outcome{Status: store.DeliveryFailed, NextAt: now}); err != nil {
			t.Fatal(err)
		}
	}
	p := root.get("/admin/webhooks/" + hooks[0].ID)
	want(t, "the log", p, 200, "connection failed", "HTTP 503")
	for _, leak := range []string{"10.255.255.53", "hooks.internal", "EOF", "10.0.0.5", "reset by peer", "Service Unavailable", "dial tcp", "lookup"} {
		if strings.Contains(p.body, leak) {
			t.Errorf("the delivery log shows %q", leak)
		}
	}
}

// TestAdminWebhookFormAllowsPrivateURLs: a server run with
// --webhooks-allow-private accepts a local target from the form.
func TestAdminWebhookFormAllowsPrivateURLs(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent, apitest.Options{WebhooksAllowPrivate: true})
	root := newBrowser(t, s)
	root.post("/login", url.Values{"username": {"root"}, "password": {"root-password"}})
	for _, u := range []string{"http://127.0.0.1:9090/hook", "http://localhost:8080/hook", "http://[::1]/hook"} {
		want(t, u, root.send("/admin/webhooks/new", url.Values{"name": {"local"}, "kind": {"json"}, "url": {u}, "enabled": {"1"}}),
			200, "Added the json webhook local.")
	}
}
