package platform

import (
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/store"
)

// Webhook targets: a webhook is a request the server makes to a URL an
// admin typed, from inside the network it runs in. Unless the operator
// allows it (serve --webhooks-allow-private), it may reach only public
// addresses: not the metrics port on loopback, the database, a cloud's
// metadata service or anything else on a private network. The form refuses
// the URLs that say so literally; package webhook checks the address of
// every connection it makes, which is the check that counts (a name may
// resolve anywhere, and differently from one minute to the next).

// PublicAddr reports whether a webhook may connect to a: a public unicast
// address. Refused are loopback, unspecified, private (RFC 1918, fc00::/7),
// CGNAT (100.64/10), link-local (169.254/16, fe80::/10, where the cloud
// metadata services live), multicast, broadcast, reserved, documentation
// and benchmarking blocks, and the IPv6 forms that carry an IPv4 address
// (IPv4-mapped, -compatible, NAT64, 6to4, Teredo) when that address is
// refused or cannot be checked. An address with a zone is link-scoped and
// refused.
func PublicAddr(a netip.Addr) bool {
	if !a.IsValid() || a.Zone() != "" {
		return false
	}
	a = a.Unmap()
	if a.Is4() {
		return !slices.ContainsFunc(special4, func(p netip.Prefix) bool { return p.Contains(a) })
	}
	if nat64.Contains(a) {
		b := a.As16()
		return PublicAddr(netip.AddrFrom4([4]byte(b[12:])))
	}
	return global6.Contains(a) && !slices.ContainsFunc(special6, func(p netip.Prefix) bool { return p.Contains(a) })
}

var (
	// special4 are the IPv4 blocks that are not public unicast (IANA's
	// special-purpose registry, and multicast and reserved).
	special4 = prefixes("0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
		"192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24",
		"203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4")
	// global6 is IPv6's global unicast space: loopback, unspecified,
	// IPv4-compatible, ULA (fc00::/7, fd00:ec2::254 included), link- and
	// site-local and multicast all lie outside it.
	global6 = netip.MustParsePrefix("2000::/3")
	// special6 are the blocks of global6 that are not public unicast:
	// IETF protocol assignments (Teredo among them), documentation, and
	// 6to4, which carries an IPv4 address.
	special6 = prefixes("2001::/23", "2001:db8::/32", "2002::/16", "3fff::/20")
	// nat64 is the well-known NAT64 prefix: public when the IPv4 address
	// it carries is (an IPv6-only host reaches IPv4 targets through it).
	nat64 = netip.MustParsePrefix("64:ff9b::/96")
)

func prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// errPrivateTarget is the form's refusal of a URL on a private host.
var errPrivateTarget = ctf.FieldErrorf("url", "must name a public host: loopback, private, link-local and metadata addresses "+
	"and localhost are refused (the operator may allow them with serve --webhooks-allow-private)")

// checkTargetURL refuses a webhook URL whose host is literally not
// public (checkTargetHost).
func checkTargetURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return ctf.FieldErrorf("url", "must be an absolute http or https URL")
	}
	return checkTargetHost(u.Hostname())
}

// checkTargetHost refuses a webhook host that is literally not public: an
// IP address PublicAddr refuses, localhost, or a numeric form some
// resolvers read as an IPv4 address (2130706433, 127.1, 0x7f.1). Other
// names are checked when a delivery connects, on the address they resolve
// to then.
func checkTargetHost(host string) error {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if a, err := netip.ParseAddr(h); err == nil {
		if !PublicAddr(a) {
			return errPrivateTarget
		}
		return nil
	}
	if h == "localhost" || strings.HasSuffix(h, ".localhost") || numericLabel(h[strings.LastIndexByte(h, '.')+1:]) {
		return errPrivateTarget
	}
	return nil
}

// numericLabel reports whether a host name's last label is a number, as no
// top-level domain is: such a name is an IPv4 address in inet_aton's forms.
func numericLabel(s string) bool {
	if t, ok := strings.CutPrefix(s, "0x"); ok {
		_, err := strconv.ParseUint(t, 16, 64)
		return err == nil || t == ""
	}
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil
}

// What the delivery log says of a try that failed before an answer: a
// class, never the error itself, which could tell an admin what answers
// inside the network (a resolver's address, an internal service's EOF).
// The server's log has the error, for the operator.
const (
	TryRefused    = "refused: private address"
	TryTimeout    = "timeout"
	TryDNS        = "DNS lookup failed"
	TryTLS        = "TLS error"
	TryConnection = "connection failed"
	TryInternal   = "internal error"
)

var tryClasses = []string{TryRefused, TryTimeout, TryDNS, TryTLS, TryConnection, TryInternal}

// TryStatus is the class of a try answered with a status other than 2xx:
// "HTTP 5xx". The exact status is logged beside it: the target is public
// (a private one is refused before it can answer), and the status is what
// its owner needs to see.
func TryStatus(code int) string {
	return "HTTP " + strconv.Itoa(code/100) + "xx"
}

// tryClass is what the delivery log shows of a try's stored error: the
// class the worker stored, or the class of what an older version stored
// (the raw error, or the status line the target chose).
func tryClass(status int, stored string) string {
	switch {
	case stored == "" || slices.Contains(tryClasses, stored):
		return stored
	case status != 0:
		return TryStatus(status)
	}
	return TryConnection
}

// coarsenLog puts every try of ds in its class, in place.
func coarsenLog(ds []store.Delivery) {
	for i := range ds {
		for j := range ds[i].Log {
			t := &ds[i].Log[j]
			t.Error = tryClass(t.StatusCode, t.Error)
		}
	}
}
