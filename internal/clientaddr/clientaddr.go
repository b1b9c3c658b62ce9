// Package clientaddr decides which address a request comes from: the peer's,
// or, behind a reverse proxy the operator trusts, the client's that the proxy
// names in X-Forwarded-For. Every per-address rule (the login and sign-up
// throttles, the live stream's connection limit) and the request log use it,
// so that behind a proxy one client never exhausts a limit for everyone.
package clientaddr

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Resolver finds a request's client address. The zero Resolver trusts no
// proxy: the address is always the peer's and X-Forwarded-For is ignored.
type Resolver struct {
	trusted []netip.Prefix
}

// Parse reads a list of trusted proxies, "CIDR[,CIDR…]" (a bare address is
// a /32 or /128). An empty list trusts none.
func Parse(list string) (Resolver, error) {
	var r Resolver
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			a, aerr := netip.ParseAddr(f)
			if aerr != nil {
				return Resolver{}, fmt.Errorf("trusted proxy %q: not an address or a CIDR range", f)
			}
			p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		if p.Addr().Is4In6() {
			p = netip.PrefixFrom(p.Addr().Unmap(), max(p.Bits()-96, 0))
		}
		r.trusted = append(r.trusted, p.Masked())
	}
	return r, nil
}

// Trusts reports whether any proxy is trusted.
func (r Resolver) Trusts() bool { return len(r.trusted) > 0 }

func (r Resolver) trusts(a netip.Addr) bool {
	for _, p := range r.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Address is the client address of req: the peer's, unless the peer is a
// trusted proxy; then the rightmost X-Forwarded-For hop that is not itself
// a trusted proxy. Hops left of it are the client's to write and are never
// read, so a client cannot choose its own address. A hop that is not an
// address stops the walk at the trusted hop to its right.
func (r Resolver) Address(req *http.Request) string {
	peer, ok := parseHop(req.RemoteAddr)
	if !ok {
		return req.RemoteAddr
	}
	if !r.trusts(peer) {
		return peer.String()
	}
	client := peer
	hops := forwardedHops(req.Header.Values("X-Forwarded-For"))
	for i := len(hops) - 1; i >= 0; i-- {
		a, ok := parseHop(hops[i])
		if !ok {
			break
		}
		client = a
		if !r.trusts(a) {
			break
		}
	}
	return client.String()
}

// forwardedHops splits every X-Forwarded-For line into its hops, in order
// (several lines read as one list, RFC 9110's rule for repeated fields).
func forwardedHops(lines []string) []string {
	var hops []string
	for _, l := range lines {
		for _, h := range strings.Split(l, ",") {
			hops = append(hops, strings.TrimSpace(h))
		}
	}
	return hops
}

// parseHop reads "ip", "ip:port", "[ipv6]:port" or "[ipv6]"; IPv4-mapped
// IPv6 reads as IPv4 and a zone is dropped, so one client has one spelling.
func parseHop(s string) (netip.Addr, bool) {
	if host, _, err := net.SplitHostPort(s); err == nil {
		s = host
	}
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap().WithZone(""), true
}

type ctxKey struct{}

// Middleware resolves each request's client address once, for From. With
// no proxy trusted the address is the peer's, which From reads from the
// request itself: no copy of the request is made on that path.
func (r Resolver) Middleware(next http.Handler) http.Handler {
	if !r.Trusts() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		ctx := context.WithValue(req.Context(), ctxKey{}, r.Address(req))
		next.ServeHTTP(w, req.WithContext(ctx))
	})
}

// From is the client address Middleware resolved for req; without the
// middleware (a front door mounted alone in a test), the peer's. It is what
// the request log shows; per-address limits count by Bucket.
func From(req *http.Request) string {
	if a, ok := req.Context().Value(ctxKey{}).(string); ok {
		return a
	}
	return Resolver{}.Address(req)
}

// Bucket is what the per-address limits count req under: an IPv4 address
// itself, an IPv6 address's /64. A subscriber of an ISP or a cloud host
// usually holds a whole /64 and may use any address in it, so counting by
// the /128 would give one client 2^64 fresh counters.
func Bucket(req *http.Request) string { return bucketOf(From(req)) }

func bucketOf(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil || !a.Is6() {
		return addr
	}
	return netip.PrefixFrom(a, 64).Masked().String()
}
