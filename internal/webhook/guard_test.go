package webhook_test

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/testtime"
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
	hook, err := s.DB.Hooks().CreateWebhook(ctx, store.Webhook{ID: ctf.NewID(), Name: "target", Kind: platform.WebhookJSON, URL: url,
		Secret: strings.Repeat("s", 32), Events: platform.WebhookEvents, Enabled: true, CreatedAt: time.Now()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB.Hooks().ProduceDeliveries(ctx, 1, func(int64, []store.Webhook) ([]store.NewDelivery, int64, error) {
		return []store.NewDelivery{{WebhookID: hook.ID, StreamSeq: 1, Event: platform.HookFrozen, Body: `{"event":"frozen","seq":1}`}}, 1, nil
	}); err != nil {
		t.Fatal(err)
	}
	o.Tick = 10 * time.Millisecond
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); webhook.New(s.DB.Hooks(), o).Run(runCtx) }()
	defer func() { stop(); <-done }()
	// Bounded, so that a bug fails instead of hanging.
	for deadline := time.Now().Add(testtime.Scale(time.Minute)); ; time.Sleep(10 * time.Millisecond) {
		ds, err := s.DB.Hooks().Deliveries(ctx, hook.ID, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) == 1 && len(ds[0].Log) > 0 {
			return ds[0].Log[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("the delivery to %s was not tried within %v", url, testtime.Scale(time.Minute))
		}
	}
}

// TestWebhookRefusesPrivateTargets: a webhook on a loopback
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
	for _, leak := range []string{"lookup hooks", ":53", "hooks.flagship.invalid", "no such host", "dial"} {
		if strings.Contains(try.Error, leak) {
			t.Errorf("the log %q shows %q", try.Error, leak)
		}
	}
}

// TestWebhookAllowPrivate: with --webhooks-allow-private (AllowPrivate) a
// local target is called as before.
func TestWebhookAllowPrivate(t *testing.T) {
	t.Parallel()
	tg := newTarget(t, "tcp4", accept)
	try := tryOnce(t, "http://localhost:"+tg.port()+"/hook", webhook.Options{AllowPrivate: true})
	if try.StatusCode != http.StatusNoContent || try.Error != "" || tg.conns.Load() == 0 {
		t.Errorf("logged HTTP %d, %q after %d connections; want 204 from the local target", try.StatusCode, try.Error, tg.conns.Load())
	}
}

// TestWebhookRedirectToPrivateRefused: a target the check allows (here,
// exactly the first server's port: both servers are on loopback) answers
// with a redirect to one it refuses. The redirect is not followed and the
// second server receives nothing; sent there directly, the same check
// refuses it.
func TestWebhookRedirectToPrivateRefused(t *testing.T) {
	t.Parallel()
	inner := newTarget(t, "tcp4", accept)
	outer := newTarget(t, "tcp4", http.RedirectHandler(inner.URL+"/hook", http.StatusTemporaryRedirect))
	onlyOuter := func(a netip.AddrPort) bool { return strconv.Itoa(int(a.Port())) == outer.port() }
	try := tryOnce(t, outer.URL+"/hook", webhook.Options{Allowed: onlyOuter})
	if try.StatusCode != http.StatusTemporaryRedirect || try.Error != platform.TryStatus(307) {
		t.Errorf("logged HTTP %d, %q; want the redirect as a failed try", try.StatusCode, try.Error)
	}
	if outer.conns.Load() == 0 || inner.conns.Load() != 0 {
		t.Errorf("%d connections to the allowed target, %d to the refused one; want some and none", outer.conns.Load(), inner.conns.Load())
	}
	if try := tryOnce(t, inner.URL+"/hook", webhook.Options{Allowed: onlyOuter}); try.Error != platform.TryRefused || inner.conns.Load() != 0 {
		t.Errorf("the refused target directly: %q after %d connections", try.Error, inner.conns.Load())
	}
}

// resolver answers every lookup from a table, as DNS would.
type resolver map[string][]netip.Addr

func (r resolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if ips, ok := r[host]; ok {
		return ips, nil
	}
	// What a failing resolver says: its own (internal) address included.
	return nil, &net.DNSError{Err: "server misbehaving", Name: host, Server: "10.0.0.2:53", IsTemporary: true}
}

// TestWebhookResolvedAddressesChecked: a name is resolved when the worker
// connects, and every address it resolves to is checked: one private
// address among public ones refuses the name. Resolution is stubbed, so
// that names can resolve to any address without connecting anywhere.
func TestWebhookResolvedAddressesChecked(t *testing.T) {
	t.Parallel()
	a := netip.MustParseAddr
	dns := resolver{
		"ten.example.com":       {a("10.0.0.1")},
		"cgnat.example.com":     {a("100.64.1.1")},
		"metadata.example.com":  {a("169.254.169.254")},
		"ec2v6.example.com":     {a("fd00:ec2::254")},
		"mapped.example.com":    {a("::ffff:127.0.0.1")},
		"nat64.example.com":     {a("64:ff9b::a9fe:a9fe")}, // 169.254.169.254 through NAT64
		"linklocal.example.com": {a("fe80::1")},
		"mixed.example.com":     {a("93.184.215.14"), a("10.0.0.1")},
		"empty.example.com":     {},
	}
	for host := range dns {
		t.Run(host, func(t *testing.T) {
			t.Parallel()
			var log lockedBuffer
			want := platform.TryRefused
			if host == "empty.example.com" {
				want = platform.TryDNS
			}
			try := tryOnce(t, "http://"+host+"/hook", webhook.Options{Resolver: dns, Logger: slog.New(slog.NewTextHandler(&log, nil))})
			if try.Error != want {
				t.Errorf("logged %q, want %q", try.Error, want)
			}
			if want == platform.TryRefused && !strings.Contains(log.String(), "is not a public address") {
				t.Errorf("the server log does not say which address was refused:\n%s", log.String())
			}
		})
	}
	t.Run("resolver error", func(t *testing.T) {
		t.Parallel()
		var log lockedBuffer
		try := tryOnce(t, "http://nowhere.example.com/hook", webhook.Options{Resolver: dns, Logger: slog.New(slog.NewTextHandler(&log, nil))})
		if try.Error != platform.TryDNS || strings.Contains(try.Error, "10.0.0.2") {
			t.Errorf("logged %q, want %q", try.Error, platform.TryDNS)
		}
		if !strings.Contains(log.String(), "10.0.0.2:53") {
			t.Errorf("the server log lacks the raw error for the operator:\n%s", log.String())
		}
	})
}

// TestWebhookLogClasses: each way a try can fail is logged as its class
// only; the raw error goes to the server log, for the operator.
func TestWebhookLogClasses(t *testing.T) {
	t.Parallel()
	eof := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		c, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			c.Close()
		}
	})
	// hang answers only when its test ends: the client gave up long
	// before, unseen by a server that does not read the request's body.
	hang := func(t *testing.T) string {
		release := make(chan struct{})
		tg := newTarget(t, "tcp4", http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
		t.Cleanup(func() { close(release) }) // before tg.Close, which waits for the handler
		return tg.URL
	}
	unavailable := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) })
	closed, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedURL := "http://" + closed.Addr().String() + "/hook"
	closed.Close()
	for _, tc := range []struct {
		name      string
		url       func(t *testing.T) string
		status    int
		class     string
		serverLog string // in the server log, not in the delivery log
	}{
		{"EOF", func(t *testing.T) string { return newTarget(t, "tcp4", eof).URL }, 0, platform.TryConnection, "EOF"},
		{"timeout", hang, 0, platform.TryTimeout, "Timeout"},
		{"refused connection", func(*testing.T) string { return closedURL }, 0, platform.TryConnection, "connection refused"},
		{"untrusted certificate", func(t *testing.T) string {
			tg := httptest.NewTLSServer(accept)
			t.Cleanup(tg.Close)
			return tg.URL
		}, 0, platform.TryTLS, "x509"},
		{"not TLS", func(t *testing.T) string { return "https://" + sshServer(t) }, 0, platform.TryTLS, "tls"},
		{"503", func(t *testing.T) string { return newTarget(t, "tcp4", unavailable).URL }, 503, "HTTP 5xx", "503 Service Unavailable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var log lockedBuffer
			timeout := 30 * time.Second // a TLS handshake under -race on a busy machine is slow
			if tc.class == platform.TryTimeout {
				timeout = 300 * time.Millisecond
			}
			try := tryOnce(t, tc.url(t), webhook.Options{AllowPrivate: true, Timeout: timeout,
				Logger: slog.New(slog.NewTextHandler(&log, nil))})
			if try.StatusCode != tc.status || try.Error != tc.class {
				t.Errorf("logged HTTP %d, %q; want %d, %q", try.StatusCode, try.Error, tc.status, tc.class)
			}
			if strings.Contains(try.Error, tc.serverLog) && tc.serverLog != "" {
				t.Errorf("the delivery log shows %q", tc.serverLog)
			}
			if !strings.Contains(log.String(), tc.serverLog) {
				t.Errorf("the server log lacks %q:\n%s", tc.serverLog, log.String())
			}
		})
	}
}

// sshServer listens on loopback and greets every connection as an SSH
// server does, then closes it; it returns its address.
func sshServer(t *testing.T) string {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n"))
			c.Close()
		}
	}()
	return ln.Addr().String()
}

// lockedBuffer is a log's output that the worker's tries write at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
