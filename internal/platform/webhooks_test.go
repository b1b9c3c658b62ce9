package platform

import (
	"context"
	"encoding/json"
	"errors"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// TestCreateWebhookValidation: each rule of a new webhook, with the field
// it names; a valid one is stored in canonical form.
func TestCreateWebhookValidation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	ok := WebhookInput{Name: "Discord", Kind: WebhookDiscord, URL: "https://discord.com/api/webhooks/1/tok", Enabled: true}
	with := func(fn func(*WebhookInput)) WebhookInput { in := ok; fn(&in); return in }
	cases := []struct {
		name  string
		in    WebhookInput
		field string // "": accepted
	}{
		{"valid", ok, ""},
		{"no name", with(func(in *WebhookInput) { in.Name = "  " }), "name"},
		{"long name", with(func(in *WebhookInput) { in.Name = strings.Repeat("é", 65) }), "name"},
		{"64 characters", with(func(in *WebhookInput) { in.Name = strings.Repeat("é", 64) }), ""},
		{"unknown kind", with(func(in *WebhookInput) { in.Kind = "teams" }), "kind"},
		{"relative URL", with(func(in *WebhookInput) { in.URL = "/hook" }), "url"},
		{"ftp URL", with(func(in *WebhookInput) { in.URL = "ftp://example.com/hook" }), "url"},
		{"no host", with(func(in *WebhookInput) { in.URL = "https:///hook" }), "url"},
		{"bad URL", with(func(in *WebhookInput) { in.URL = "http://%zz" }), "url"},
		{"long URL", with(func(in *WebhookInput) { in.URL = "https://example.com/" + strings.Repeat("a", 2029) }), "url"},
		{"2048-byte URL", with(func(in *WebhookInput) { in.URL = "https://example.com/" + strings.Repeat("a", 2028) }), ""},
		{"loopback URL", with(func(in *WebhookInput) { in.URL = "http://127.0.0.1:9090/metrics" }), "url"},
		{"localhost URL", with(func(in *WebhookInput) { in.URL = "http://localhost:5432/" }), "url"},
		{"metadata URL", with(func(in *WebhookInput) { in.URL = "http://169.254.169.254/latest/meta-data/" }), "url"},
		{"IPv6 metadata URL", with(func(in *WebhookInput) { in.URL = "http://[fd00:ec2::254]/" }), "url"},
		{"private URL", with(func(in *WebhookInput) { in.URL = "https://10.1.2.3/hook" }), "url"},
		{"unknown event", with(func(in *WebhookInput) { in.Events = []ctf.WebhookEvent{"firstBlood", "solve"} }), "events"},
		{"secret on discord", with(func(in *WebhookInput) { in.Secret = "a-long-enough-secret" }), "secret"},
		{"short json secret", with(func(in *WebhookInput) { in.Kind, in.Secret = WebhookJSON, "short" }), "secret"},
		{"json secret", with(func(in *WebhookInput) { in.Kind, in.Secret = WebhookJSON, "a-long-enough-secret" }), ""},
	}
	for _, tc := range cases {
		w, err := f.svc.Webhooks.Create(ctx, ctf.Operator, tc.in)
		if tc.field == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		var e *ctf.Error
		if err == nil || !errors.As(err, &e) || e.Code != ctf.Invalid || e.Field != tc.field {
			t.Errorf("%s: got %v (%+v), want an invalid %s", tc.name, err, e, tc.field)
		}
		if w.ID != "" {
			t.Errorf("%s: a refused webhook has an id", tc.name)
		}
	}
	hooks, err := f.svc.Webhooks.List(ctx, ctf.Operator)
	if err != nil {
		t.Fatal(err)
	}
	if len(hooks) != 4 {
		t.Fatalf("%d webhooks stored, want the 4 valid ones", len(hooks))
	}
	h := hooks[0]
	if h.Secret != "" || !h.Enabled || !slices.Equal(h.Events, WebhookEvents) {
		t.Errorf("a discord webhook with no events: %+v; want no secret and every event", h)
	}
	if hooks[3].Secret != "a-long-enough-secret" {
		t.Errorf("a json webhook's secret as given: %q", hooks[3].Secret)
	}
	w, err := f.svc.Webhooks.Create(ctx, ctf.Operator, WebhookInput{Name: "x", Kind: WebhookJSON, URL: "https://example.com/x",
		Events: []ctf.WebhookEvent{HookEnded, HookFirstBlood, HookEnded}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(w.Events, []ctf.WebhookEvent{"firstBlood", "ended"}) || w.Enabled || len(w.Secret) != 64 {
		t.Errorf("events %v (want canonical order, once each), enabled %v, secret %q (want 64 hex digits)", w.Events, w.Enabled, w.Secret)
	}
}

// TestWebhookUseCasesAreAdminOnly: a player is refused every webhook use
// case, and nothing is recorded.
func TestWebhookUseCasesAreAdminOnly(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	w, err := f.svc.Webhooks.Create(ctx, f.as("root"), WebhookInput{Name: "mine", Kind: WebhookSlack, URL: "https://hooks.slack.com/x", Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	pam := f.as("pam")
	calls := map[string]func() error{
		"create": func() error {
			_, err := f.svc.Webhooks.Create(ctx, pam, WebhookInput{Name: "p", Kind: WebhookJSON, URL: "https://example.com/"})
			return err
		},
		"list":    func() error { _, err := f.svc.Webhooks.List(ctx, pam); return err },
		"disable": func() error { return f.svc.Webhooks.SetEnabled(ctx, pam, w.ID, false) },
		"delete":  func() error { return f.svc.Webhooks.Delete(ctx, pam, w.ID) },
		"log":     func() error { _, _, err := f.svc.Webhooks.Deliveries(ctx, pam, w.ID, 10); return err },
		"anonymous": func() error {
			_, err := f.svc.Webhooks.List(ctx, ctf.Viewer{})
			return err
		},
	}
	for name, call := range calls {
		wantCode(t, name, call(), ctf.Forbidden)
	}
	hooks, _ := f.svc.Webhooks.List(ctx, ctf.Operator)
	if len(hooks) != 1 || !hooks[0].Enabled || hooks[0].Name != "mine" {
		t.Errorf("after a player's calls: %+v", hooks)
	}
	log, _ := f.svc.Admin.AuditLog(ctx, ctf.Operator, 0, 100)
	var actions []string
	for _, a := range log {
		if strings.HasPrefix(a.Action, "webhook.") {
			actions = append(actions, a.Action+" by "+a.Actor)
		}
	}
	if strings.Join(actions, ";") != "webhook.create by root" {
		t.Errorf("audited %v, want only root's creation", actions)
	}

	// An admin's changes are audited; an unknown id is 404.
	wantCode(t, "disable", f.svc.Webhooks.SetEnabled(ctx, f.as("root"), w.ID, false), "")
	wantCode(t, "delete", f.svc.Webhooks.Delete(ctx, f.as("root"), w.ID), "")
	wantCode(t, "delete again", f.svc.Webhooks.Delete(ctx, f.as("root"), w.ID), ctf.NotFound)
	_, _, err = f.svc.Webhooks.Deliveries(ctx, ctf.Operator, "nope", 10)
	wantCode(t, "log of nothing", err, ctf.NotFound)
	log, _ = f.svc.Admin.AuditLog(ctx, ctf.Operator, 0, 2)
	if len(log) != 2 || log[0].Action != "webhook.delete" || log[1].Action != "webhook.disable" {
		t.Errorf("audit log %+v, want the delete after the disable", log)
	}
}

// TestWebhookProducer: the producer makes one delivery per subscribed,
// enabled webhook and public event (first bloods only among solves),
// once however many replicas run it, and none for what happened before a
// webhook existed.
func TestWebhookProducer(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	root := f.as("root")
	create := func(in WebhookInput) Webhook {
		t.Helper()
		in.URL = "https://example.com/" + in.Name
		w, err := f.svc.Webhooks.Create(ctx, root, in)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	all := create(WebhookInput{Name: "all", Kind: WebhookJSON, Enabled: true})
	news := create(WebhookInput{Name: "news", Kind: WebhookDiscord, Events: []ctf.WebhookEvent{HookAnnouncement}, Enabled: true})
	off := create(WebhookInput{Name: "off", Kind: WebhookSlack})
	other := f.replica()

	pat := f.as("pat")
	if _, err := f.svc.Play.Submit(ctx, pat, "a", "flag{a}"); err != nil { // pam has a's first blood
		t.Fatal(err)
	}
	if _, err := f.svc.Play.Submit(ctx, pat, "b", "flag{b}"); err != nil { // b's first blood
		t.Fatal(err)
	}
	if _, err := other.Event.PostAnnouncement(ctx, root, "Hello", "Welcome.", ""); err != nil {
		t.Fatal(err)
	}
	produce := func() {
		t.Helper()
		for _, s := range []*Service{f.svc, other, f.svc} {
			if err := s.Refresh(ctx); err != nil {
				t.Fatal(err)
			}
			if err := s.produceWebhookDeliveries(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	produce()
	events := func(w Webhook) string {
		t.Helper()
		_, log, err := f.svc.Webhooks.Deliveries(ctx, root, w.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for i := len(log) - 1; i >= 0; i-- {
			var p WebhookPayload
			if err := json.Unmarshal([]byte(log[i].Body), &p); err != nil || p.Event != log[i].Event || p.Seq != log[i].StreamSeq {
				t.Fatalf("delivery body %s: %v", log[i].Body, err)
			}
			if p.Event == HookFirstBlood {
				out = append(out, string(p.Event)+":"+p.Challenge.Slug+":"+p.User.Username)
			} else {
				out = append(out, string(p.Event))
			}
		}
		return strings.Join(out, ",")
	}
	for _, tc := range []struct {
		w    Webhook
		want string
	}{{all, "firstBlood:b:pat,announcement"}, {news, "announcement"}, {off, ""}} {
		if got := events(tc.w); got != tc.want {
			t.Errorf("%s: deliveries %q, want %q", tc.w.Name, got, tc.want)
		}
	}

	// A webhook made now gets what comes next, not what came before.
	late := create(WebhookInput{Name: "late", Kind: WebhookJSON, Enabled: true})
	produce()
	if got := events(late); got != "" {
		t.Errorf("late: deliveries %q of events before it existed", got)
	}
	if _, err := f.svc.Event.PostAnnouncement(ctx, root, "Again", "", ""); err != nil {
		t.Fatal(err)
	}
	produce()
	for _, tc := range []struct {
		w    Webhook
		want string
	}{{all, "firstBlood:b:pat,announcement,announcement"}, {late, "announcement"}} {
		if got := events(tc.w); got != tc.want {
			t.Errorf("%s: deliveries %q, want %q", tc.w.Name, got, tc.want)
		}
	}
	hooks, _ := f.svc.Webhooks.List(ctx, root)
	if hooks[0].Name != "all" || hooks[0].Pending != 3 || hooks[0].Delivered != 0 {
		t.Errorf("counts of %s: %d pending, %d delivered; want 3 and 0", hooks[0].Name, hooks[0].Pending, hooks[0].Delivered)
	}
}

// TestPublicAddr: the addresses a webhook may connect to. Every class the
// review named is refused, in its IPv4-mapped form too.
func TestPublicAddr(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]bool{
		"93.184.215.14":            true,
		"8.8.8.8":                  true,
		"1.1.1.1":                  true,
		"2606:4700::6810:85e5":     true,
		"2a00:1450:4001:82b::2004": true,
		"::ffff:8.8.8.8":           true,
		"64:ff9b::808:808":         true, // 8.8.8.8 through NAT64
		"127.0.0.1":                false,
		"127.255.255.254":          false,
		"::1":                      false,
		"::ffff:127.0.0.1":         false,
		"0.0.0.0":                  false,
		"0.1.2.3":                  false,
		"::":                       false,
		"10.0.0.1":                 false,
		"172.16.0.1":               false,
		"172.31.255.255":           false,
		"192.168.1.1":              false,
		"::ffff:10.0.0.1":          false,
		"::ffff:192.168.0.1":       false,
		"100.64.0.1":               false,
		"100.127.255.254":          false,
		"100.100.100.200":          false, // Alibaba Cloud's metadata, in CGNAT
		"169.254.169.254":          false,
		"::ffff:169.254.169.254":   false,
		"169.254.1.1":              false,
		"fd00:ec2::254":            false,
		"fc00::1":                  false,
		"fe80::1":                  false,
		"fe80::1%eth0":             false,
		"fec0::1":                  false,
		"224.0.0.1":                false,
		"239.255.255.250":          false,
		"ff02::1":                  false,
		"ff0e::1":                  false,
		"255.255.255.255":          false,
		"240.0.0.1":                false,
		"192.0.0.192":              false, // Oracle Cloud's metadata
		"192.0.2.1":                false,
		"198.18.0.1":               false,
		"198.51.100.1":             false,
		"203.0.113.1":              false,
		"64:ff9b::7f00:1":          false, // 127.0.0.1 through NAT64
		"64:ff9b::a9fe:a9fe":       false, // 169.254.169.254 through NAT64
		"64:ff9b:1::a00:1":         false,
		"2002:7f00:1::1":           false, // 6to4 of 127.0.0.1
		"2001::1":                  false, // Teredo
		"2001:db8::1":              false,
		"::7f00:1":                 false, // IPv4-compatible 127.0.0.1
		"100::1":                   false,
	} {
		if got := PublicAddr(netip.MustParseAddr(addr)); got != want {
			t.Errorf("PublicAddr(%s) = %v, want %v", addr, got, want)
		}
	}
	if PublicAddr(netip.Addr{}) {
		t.Error("the zero address is public")
	}
}

// TestCreateWebhookAllowPrivate: with WebhooksAllowPrivate (serve
// --webhooks-allow-private) a URL on a private address or localhost is
// accepted.
func TestCreateWebhookAllowPrivate(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{WebhooksAllowPrivate: true})
	for _, u := range []string{"http://127.0.0.1:9/x", "http://localhost:8080/hook", "http://[fd00:ec2::254]/", "http://10.0.0.1/"} {
		if _, err := f.svc.Webhooks.Create(context.Background(), ctf.Operator, WebhookInput{Name: "local", Kind: WebhookJSON, URL: u}); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
}

// TestDeliveryLogClasses: a try's error as the delivery log shows it.
func TestDeliveryLogClasses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status       int
		stored, want string
	}{
		{204, "", ""},
		{0, TryRefused, TryRefused},
		{0, TryTimeout, TryTimeout},
		{0, TryDNS, TryDNS},
		{0, TryTLS, TryTLS},
		{0, TryConnection, TryConnection},
		{503, "HTTP 5xx", "HTTP 5xx"},
		{503, "HTTP 503 Service Unavailable", "HTTP 5xx"},
		{404, "HTTP 404 Not Found", "HTTP 4xx"},
		{307, "HTTP 307 Temporary Redirect", "HTTP 3xx"},
		{0, "EOF", TryConnection},
		{0, "dial tcp: lookup x on 10.0.0.2:53: no such host", TryConnection},
		{0, "context deadline exceeded (Client.Timeout exceeded while awaiting headers)", TryConnection},
	} {
		if got := tryClass(tc.status, tc.stored); got != tc.want {
			t.Errorf("HTTP %d, %q: shown as %q, want %q", tc.status, tc.stored, got, tc.want)
		}
	}
}
