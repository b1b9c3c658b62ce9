package webhook

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"syscall"
	"time"

	"github.com/flagshipctf/flagship/internal/platform"
)

// Resolver looks up the addresses of a host: *net.Resolver does.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// errRefused marks a connection refused because of its address.
var errRefused = errors.New("not a public address")

// refusedError is a refusal, with the address, for the server's log.
type refusedError struct{ addr string }

func (e *refusedError) Error() string {
	return fmt.Sprintf("webhook target %s is not a public address (serve --webhooks-allow-private allows it)", e.addr)
}

func (e *refusedError) Unwrap() error { return errRefused }

// dialer makes the worker's connections: it resolves the target's host
// itself, refuses the host when any of its addresses is not allowed, and
// connects to the checked addresses by number, so that no second lookup
// can answer otherwise (DNS rebinding). The socket checks its address
// again just before it connects (control), which is the check no code path
// can go around: a redirect, were it followed, or a proxy would be a new
// connection, checked the same way.
type dialer struct {
	resolver Resolver
	allowed  func(netip.AddrPort) bool
	// connect dials an address already checked (an IP and a port); tests
	// stub it to connect nowhere.
	connect func(ctx context.Context, network, address string) (net.Conn, error)
}

func newDialer(o Options) *dialer {
	d := &dialer{resolver: o.Resolver, allowed: o.Allowed}
	if d.resolver == nil {
		d.resolver = net.DefaultResolver
	}
	if d.allowed == nil {
		d.allowed = func(a netip.AddrPort) bool { return platform.PublicAddr(a.Addr()) }
		if o.AllowPrivate {
			d.allowed = func(netip.AddrPort) bool { return true }
		}
	}
	d.connect = (&net.Dialer{Control: d.control}).DialContext
	return d
}

// DialContext connects to address (host:port), as http.Transport asks.
func (d *dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, p, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fmt.Errorf("webhook target %q: %w", address, err)
	}
	port, err := strconv.ParseUint(p, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("webhook target %q: port: %w", address, err)
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else {
		lookup := "ip"
		switch network {
		case "tcp4":
			lookup = "ip4"
		case "tcp6":
			lookup = "ip6"
		}
		if ips, err = d.resolver.LookupNetIP(ctx, lookup, host); err != nil {
			return nil, err
		}
		if len(ips) == 0 {
			return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
		}
	}
	// All or nothing: a name with one address inside the network is
	// refused, rather than tried on its other addresses in some order.
	targets := make([]netip.AddrPort, len(ips))
	for i, ip := range ips {
		targets[i] = netip.AddrPortFrom(ip, uint16(port))
		if !d.allowed(targets[i]) {
			return nil, &refusedError{addr: targets[i].String()}
		}
	}
	var last error
	for _, t := range targets {
		c, err := d.connect(ctx, network, netip.AddrPortFrom(t.Addr().Unmap(), t.Port()).String())
		if err == nil {
			return c, nil
		}
		last = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, last
}

// control is the socket's check of the address it is about to connect to.
func (d *dialer) control(_, address string, _ syscall.RawConn) error {
	a, err := netip.ParseAddrPort(address)
	if err != nil || !d.allowed(a) {
		return &refusedError{addr: address}
	}
	return nil
}

// newClient is the worker's HTTP client: every connection through dial, no
// proxy (a proxy would connect to the target for it, unchecked), and no
// redirect followed: a redirect is an answer that is not 2xx (following it
// would turn the POST into a GET somewhere else).
func newClient(timeout time.Duration, dial func(ctx context.Context, network, address string) (net.Conn, error)) *http.Client {
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			Proxy:                 nil,
			DialContext:           dial,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          100,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   10 * time.Second,
			ExpectContinueTimeout: time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// classify is the class the delivery log shows of a try that got no
// answer (platform.TryRefused, …).
func classify(err error) string {
	var (
		dns     *net.DNSError
		netErr  net.Error
		verify  *tls.CertificateVerificationError
		record  tls.RecordHeaderError
		alert   tls.AlertError
		unknown x509.UnknownAuthorityError
		name    x509.HostnameError
		invalid x509.CertificateInvalidError
		op      *net.OpError
	)
	switch {
	case errors.Is(err, errRefused):
		return platform.TryRefused
	case errors.As(err, &dns):
		return platform.TryDNS
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return platform.TryTimeout
	case errors.As(err, &verify), errors.As(err, &record), errors.As(err, &alert),
		errors.As(err, &unknown), errors.As(err, &name), errors.As(err, &invalid),
		errors.As(err, &op) && op.Op == "remote error": // the TLS alert the server sent

		return platform.TryTLS
	}
	return platform.TryConnection
}
