package webhook_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/webhook"
)

// target is a local webhook receiver that counts the connections made to
// it, so that a test can tell a refused target received nothing at all.
type target struct {
	*httptest.Server
	conns atomic.Int64
}

// newTarget serves h on a loopback listener of network ("tcp4" or
// "tcp6"); it skips the test when the machine has no such loopback.
func newTarget(t *testing.T, network string, h http.Handler) *target {
	t.Helper()
	addr := "127.0.0.1:0"
	if network == "tcp6" {
		addr = "[::1]:0"
	}
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Skipf("no %s loopback here: %v", network, err)
	}
	tg := &target{Server: httptest.NewUnstartedServer(h)}
	tg.Listener.Close()
	tg.Listener = ln
	tg.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			tg.conns.Add(1)
		}
	}
	tg.Start()
	t.Cleanup(tg.Close)
	return tg
}

func (tg *target) port() string {
	_, port, _ := net.SplitHostPort(tg.Listener.Addr().String())
	return port
}

var accept = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })

// tryOnce stores a json webhook to url, as a database holds one made
// before addresses were checked (or by a server that allowed private
// addresses), queues one delivery to it, runs a worker with o until that
// delivery was tried once, and returns the try as stored.
func tryOnce(t *testing.T, url string, o webhook.Options) store.DeliveryTry {
	t.Helper()
	s := apitest.Start(t, "")
	ctx := context.Background()
	hook, err := s.DB.CreateWebhook(ctx, store.Webhook{ID: ctf.NewID(), Name: "target", Kind: platform.WebhookJSON, URL: url,
		Secret: strings.Repeat("s", 32), Events: platform.WebhookEvents, Enabled: true, CreatedAt: time.Now()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB.ProduceDeliveries(ctx, 1, func(int64, []store.Webhook) ([]store.NewDelivery, int64, error) {
		return []store.NewDelivery{{WebhookID: hook.ID, StreamSeq: 1, Event: platform.HookFrozen, Body: `{"event":"frozen","seq":1}`}}, 1, nil
	}); err != nil {
		t.Fatal(err)
	}
	o.Tick = 10 * time.Millisecond
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); webhook.New(s.DB, o).Run(runCtx) }()
	defer func() { stop(); <-done }()
	// Bounded, so that a bug fails instead of hanging.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		ds, err := s.DB.Deliveries(ctx, hook.ID, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) == 1 && len(ds[0].Log) > 0 {
			return ds[0].Log[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("the delivery to %s was not tried within a minute", url)
		}
	}
}

// TestWebhookRefusesPrivateTargets is finding 8: a webhook on a loopback
// address (or a name that resolves to one) is refused when the worker
// connects, by default. The target receives no connection at all, and the
// log says why in words that tell nothing of what listens there.
func TestWebhookRefusesPrivateTargets(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, network string
		url           func(tg *target) string
	}{
		{"IPv4 loopback", "tcp4", func(tg *target) string { return tg.URL + "/hook" }},
		{"localhost", "tcp4", func(tg *target) string { return "http://localhost:" + tg.port() + "/hook" }},
		{"IPv6 loopback", "tcp6", func(tg *target) string { return "http://[::1]:" + tg.port() + "/hook" }},
		{"IPv4-mapped loopback", "tcp4", func(tg *target) string { return "http://[::ffff:127.0.0.1]:" + tg.port() + "/hook" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tg := newTarget(t, tc.network, accept)
			try := tryOnce(t, tc.url(tg), webhook.Options{})
			if n := tg.conns.Load(); n != 0 {
				t.Errorf("the private target received %d connections, want none", n)
			}
			if try.StatusCode != 0 || try.Error != "refused: private address" {
				t.Errorf("logged HTTP %d, %q; want no answer and %q", try.StatusCode, try.Error, "refused: private address")
			}
		})
	}
}

// TestWebhookLogHidesDNSError: a name that does not resolve is logged as
// such, without the resolver's address or the error's text.
func TestWebhookLogHidesDNSError(t *testing.T) {
	t.Parallel()
	try := tryOnce(t, "http://hooks.flagship.invalid/hook", webhook.Options{})
	if try.Error != "DNS lookup failed" {
		t.Errorf("logged %q, want %q", try.Error, "DNS lookup failed")
	}
	for _, leak := range []string{"lookup ", ":53", "hooks.flagship.invalid", "no such host", "dial"} {
		if strings.Contains(try.Error, leak) {
			t.Errorf("the log %q shows %q", try.Error, leak)
		}
	}
}
