package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/store"
)

// TestSignUpLimitPerAddress: one client address opens at most ten accounts
// an hour (serve's default --signup-limit); the eleventh is refused with
// 429 and Retry-After on the sign-up page, and another address still signs
// up (docs/product.md#limits-per-client-address). The count is the
// database's, so it holds across replicas.
func TestSignUpLimitPerAddress(t *testing.T) {
	t.Parallel()
	// The test's client connects from 127.0.0.1: it plays the proxy.
	s := apitest.Start(t, event, apitest.Options{TrustedProxies: "127.0.0.1/32, ::1"})
	signup := func(from string, i int) page {
		name := fmt.Sprintf("newbie%02d", i)
		return newBrowser(t, s).do("POST", "/signup", url.Values{"username": {name}, "email": {name + "@example.com"},
			"password": {"long enough"}, "password2": {"long enough"}}, "X-Forwarded-For: "+from)
	}
	const farm = "198.51.100.7"
	for i := range 10 {
		if p := signup(farm, i); p.status != http.StatusSeeOther {
			t.Fatalf("sign-up %d: %d, want 303\n%.1000s", i+1, p.status, p.body)
		}
	}
	over := newBrowser(t, s).send("/signup", url.Values{"username": {"newbie10"}, "email": {"newbie10@example.com"},
		"password": {"long enough"}, "password2": {"long enough"}}, "X-Forwarded-For: "+farm)
	want(t, "the eleventh sign-up", over, 200, "Too many accounts", "; wait ", `value="newbie10"`)
	if over.header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
	if p := signup("203.0.113.9", 11); p.status != http.StatusSeeOther {
		t.Fatalf("a sign-up from another address: %d, want 303\n%.1000s", p.status, p.body)
	}
	// Another replica counts the same sign-ups.
	r := s.Replica(store.RateLimit{Max: 10, Window: time.Minute})
	p := newBrowser(t, r).send("/signup", url.Values{"username": {"newbie12"}, "email": {"newbie12@example.com"},
		"password": {"long enough"}, "password2": {"long enough"}}, "X-Forwarded-For: "+farm)
	want(t, "the eleventh sign-up on another replica", p, 200, "Too many accounts")
}
