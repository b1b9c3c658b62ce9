package webhook

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/platform"
)

// stubResolver resolves every name to the same addresses.
type stubResolver struct {
	ips   []netip.Addr
	mu    sync.Mutex
	asked []string
}

func (r *stubResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, host)
	return r.ips, nil
}

var errNotConnecting = errors.New("test: not connecting")

// publicUnicast is the fuzz target's oracle, written apart from
// platform.PublicAddr with the standard library's own classification: an
// address a webhook may reach is none of loopback, private, link-local,
// multicast, unspecified, CGNAT or a cloud's metadata address, in either
// of its IPv4 forms.
func publicUnicast(a netip.Addr) bool {
	if a.Zone() != "" {
		return false
	}
	a = a.Unmap()
	if nat64 := netip.MustParsePrefix("64:ff9b::/96"); nat64.Contains(a) {
		b := a.As16()
		a = netip.AddrFrom4([4]byte(b[12:]))
	}
	ip := net.IP(a.AsSlice())
	switch {
	case !ip.IsGlobalUnicast(), ip.IsLoopback(), ip.IsPrivate(), ip.IsLinkLocalUnicast(), ip.IsMulticast(), ip.IsUnspecified():
		return false
	case netip.MustParsePrefix("100.64.0.0/10").Contains(a), a == netip.MustParseAddr("169.254.169.254"),
		a == netip.MustParseAddr("fd00:ec2::254"), netip.MustParsePrefix("0.0.0.0/8").Contains(a):
		return false
	}
	return true
}

// FuzzWebhookTarget posts to any URL, with every name resolving to the
// fuzzed address and the connection itself stubbed: whatever the URL says
// (a name, an IPv4 or IPv6 literal, a mapped or numeric form), the worker's
// client connects only to public unicast addresses, and a name resolving
// to anything else is refused before any connection.
func FuzzWebhookTarget(f *testing.F) {
	for _, seed := range []struct {
		url string
		ip  string
	}{
		{"https://discord.com/api/webhooks/1/tok", "162.159.128.233"},
		{"http://hooks.example.com/x", "10.0.0.1"},
		{"http://hooks.example.com:5432/x", "127.0.0.1"},
		{"http://metadata.google.internal/computeMetadata/v1/", "169.254.169.254"},
		{"http://hooks.example.com/", "fd00:ec2::254"},
		{"http://hooks.example.com/", "::ffff:127.0.0.1"},
		{"http://hooks.example.com/", "64:ff9b::7f00:1"},
		{"http://hooks.example.com/", "2606:4700::6810:85e5"},
		{"http://hooks.example.com/", "100.100.100.200"},
		{"http://127.0.0.1:9090/metrics", "93.184.215.14"},
		{"http://[::1]:8080/", "93.184.215.14"},
		{"http://[::ffff:a9fe:a9fe]/", "93.184.215.14"},
		{"http://[fe80::1%25eth0]/", "93.184.215.14"},
		{"http://localhost/", "93.184.215.14"},
		{"http://2130706433/", "127.0.0.1"},
		{"http://0x7f.1/", "93.184.215.14"},
		{"https://93.184.215.14:8443/hook", "10.0.0.1"},
	} {
		f.Add(seed.url, netip.MustParseAddr(seed.ip).AsSlice())
	}
	f.Fuzz(func(t *testing.T, rawURL string, resolved []byte) {
		req, err := http.NewRequest(http.MethodPost, rawURL, strings.NewReader("{}"))
		if err != nil {
			return
		}
		r := &stubResolver{}
		ip, ok := netip.AddrFromSlice(resolved)
		if ok {
			r.ips = []netip.Addr{ip}
		}
		d := newDialer(Options{Resolver: r})
		var mu sync.Mutex
		var dialled []string
		d.connect = func(_ context.Context, _, address string) (net.Conn, error) {
			mu.Lock()
			defer mu.Unlock()
			dialled = append(dialled, address)
			return nil, errNotConnecting
		}
		c := newClient(time.Second, d.DialContext)
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
			t.Fatalf("%q: an answer without a connection", rawURL)
		}
		mu.Lock()
		defer mu.Unlock()
		for _, a := range dialled {
			ap, err := netip.ParseAddrPort(a)
			if err != nil {
				t.Fatalf("%q: connected to %q, which is not an address and port", rawURL, a)
			}
			if !publicUnicast(ap.Addr()) || !platform.PublicAddr(ap.Addr()) {
				t.Fatalf("%q (names resolving to %v): connected to %s", rawURL, ip, a)
			}
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if len(r.asked) > 0 && ok && !publicUnicast(ip) {
			if len(dialled) > 0 {
				t.Fatalf("%q resolved to %v: connected to %v", rawURL, ip, dialled)
			}
			if got := classify(err); got != platform.TryRefused {
				t.Fatalf("%q resolved to %v: logged %q, want %q (%v)", rawURL, ip, got, platform.TryRefused, err)
			}
		}
	})
}

// TestDialControlChecksTheDialledAddress: the socket's own check, on the
// address the operating system is about to connect to, refuses what the
// lookup's check would; it is what the worker's connections go through.
func TestDialControlChecksTheDialledAddress(t *testing.T) {
	t.Parallel()
	d := newDialer(Options{})
	for addr, ok := range map[string]bool{
		"93.184.215.14:443":           true,
		"[2606:4700::6810:85e5]:80":   true,
		"127.0.0.1:9090":              false,
		"[::1]:80":                    false,
		"[::ffff:169.254.169.254]:80": false,
		"10.1.2.3:5432":               false,
		"[fd00:ec2::254]:80":          false,
		"[fe80::1%eth0]:80":           false,
		"not an address":              false,
	} {
		if err := d.control("tcp", addr, nil); (err == nil) != ok {
			t.Errorf("control(%q) = %v, want allowed %v", addr, err, ok)
		}
	}

	// The real connect runs it: a loopback listener is refused before the
	// connection is made, even when asked for by its address directly.
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	c, err := d.connect(context.Background(), "tcp", srv.Listener.Addr().String())
	if err == nil {
		c.Close()
	}
	if !errors.Is(err, errRefused) || classify(err) != platform.TryRefused {
		t.Errorf("connect to %s: %v, want a refusal", srv.Listener.Addr(), err)
	}
	// A refused connect never reaches the listener; a request after it
	// would show up first if it had.
	if resp, err := http.Get(srv.URL); err == nil {
		resp.Body.Close()
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("the listener saw %d connections, want only the test's own", n)
	}
}

// TestRedirectIsANewDial: were redirects followed, each would be a new
// connection, checked like the first: a client that follows them, sent to
// an allowed target that redirects to a refused one, stops at the
// refusal and the refused target receives nothing.
func TestRedirectIsANewDial(t *testing.T) {
	t.Parallel()
	var innerConns atomic.Int64
	inner := httptest.NewUnstartedServer(http.NotFoundHandler())
	inner.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			innerConns.Add(1)
		}
	}
	inner.Start()
	t.Cleanup(inner.Close)
	outer := httptest.NewServer(http.RedirectHandler(inner.URL, http.StatusTemporaryRedirect))
	t.Cleanup(outer.Close)
	outerAddr := netip.MustParseAddrPort(outer.Listener.Addr().String())
	d := newDialer(Options{Allowed: func(a netip.AddrPort) bool { return a == outerAddr }})
	c := newClient(5*time.Second, d.DialContext)
	c.CheckRedirect = nil // follow, unlike the worker
	resp, err := c.Post(outer.URL, "application/json", strings.NewReader("{}"))
	if err == nil {
		resp.Body.Close()
		t.Fatalf("followed the redirect to %s: HTTP %d", inner.URL, resp.StatusCode)
	}
	if classify(err) != platform.TryRefused || innerConns.Load() != 0 {
		t.Errorf("%v (%s) after %d connections to the refused target", err, classify(err), innerConns.Load())
	}
}
