package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
)

// Behind a trusted reverse proxy every client reaches the server from the
// proxy's address: the login throttle counts the client the proxy names,
// so fifty failures from one client lock out that client only
// (docs/product.md#client-addresses-and-trusted-proxies).
func TestLoginThrottleBehindTrustedProxy(t *testing.T) {
	t.Parallel()
	// The test's client connects from 127.0.0.1: it plays the proxy.
	s := apitest.Start(t, event, apitest.Options{TrustedProxies: "127.0.0.1/32, ::1"})
	login := func(from, user, password string) page {
		return newBrowser(t, s).do("POST", "/login", url.Values{"username": {user}, "password": {password}}, "X-Forwarded-For: "+from)
	}
	refused := func(from, user, password string) page {
		return newBrowser(t, s).send("/login", url.Values{"username": {user}, "password": {password}}, "X-Forwarded-For: "+from)
	}
	const attacker = "198.51.100.1"
	for i := range 50 {
		p := refused(attacker, fmt.Sprintf("nobody%d", i), "wrong-password")
		want(t, fmt.Sprintf("failure %d", i), p, 200, "Wrong username or password")
	}
	// The attacker is refused without the password being checked, even
	// the right one, and even when it writes another address to the left
	// of what the proxy appended.
	for _, from := range []string{attacker, "192.0.2.77, " + attacker} {
		p := refused(from, "pam", "pam-password")
		want(t, "attacker past the limit from "+from, p, 200, "; wait ")
		if p.header.Get("Retry-After") == "" {
			t.Errorf("%s: no Retry-After", from)
		}
	}
	// Everyone else logs in.
	ok := login("203.0.113.9", "pam", "pam-password")
	if ok.status != http.StatusSeeOther {
		t.Fatalf("another client behind the same proxy: %d, want 303 (locked out by someone else)\n%.500s", ok.status, ok.body)
	}
}

// Without --trusted-proxies, X-Forwarded-For is the client's to write and is
// ignored: a client cannot escape the address limit by naming new addresses.
func TestForwardedForIgnoredFromUntrustedPeers(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	for i := range 50 {
		p := newBrowser(t, s).send("/login", url.Values{"username": {fmt.Sprintf("nobody%d", i)}, "password": {"wrong-password"}},
			fmt.Sprintf("X-Forwarded-For: 198.51.100.%d", i))
		want(t, fmt.Sprintf("failure %d", i), p, 200, "Wrong username or password")
	}
	p := newBrowser(t, s).send("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}}, "X-Forwarded-For: 203.0.113.200")
	want(t, "a fresh X-Forwarded-For from an untrusted peer", p, 200, "; wait ")
	if p.header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
}

// An IPv6 client usually holds a whole /64: the address limits count the
// /64, so fifty failures spread over its addresses lock it out, and only it.
func TestLoginThrottleCountsAnIPv6Slash64(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event, apitest.Options{TrustedProxies: "127.0.0.1, ::1"})
	login := func(from, user, password string) page {
		return newBrowser(t, s).do("POST", "/login", url.Values{"username": {user}, "password": {password}}, "X-Forwarded-For: "+from)
	}
	refused := func(from, user, password string) page {
		return newBrowser(t, s).send("/login", url.Values{"username": {user}, "password": {password}}, "X-Forwarded-For: "+from)
	}
	for i := range 50 {
		p := refused(fmt.Sprintf("2001:db8:1:2::%x", i+1), fmt.Sprintf("nobody%d", i), "wrong-password")
		want(t, fmt.Sprintf("failure %d", i), p, 200, "Wrong username or password")
	}
	want(t, "another address of the same /64", refused("2001:db8:1:2:ffff::9", "pam", "pam-password"), 200, "; wait ")
	if p := login("2001:db8:1:3::1", "pam", "pam-password"); p.status != http.StatusSeeOther {
		t.Fatalf("the next /64: %d, want 303", p.status)
	}
}
