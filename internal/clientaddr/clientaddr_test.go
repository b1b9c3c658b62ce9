package clientaddr

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestAddress(t *testing.T) {
	tests := []struct {
		name    string
		trusted string
		peer    string
		xff     []string
		want    string
	}{
		{"no proxy trusted: the peer", "", "203.0.113.5:4000", []string{"10.0.0.1"}, "203.0.113.5"},
		{"untrusted peer: header ignored", "10.0.0.0/8", "203.0.113.5:4000", []string{"198.51.100.1"}, "203.0.113.5"},
		{"trusted peer: the hop it appended", "10.0.0.0/8", "10.0.0.2:4000", []string{"198.51.100.1"}, "198.51.100.1"},
		{"client-written hops left of it are not read", "10.0.0.0/8", "10.0.0.2:4000", []string{"1.2.3.4, 198.51.100.1"}, "198.51.100.1"},
		{"a chain of trusted proxies", "10.0.0.0/8, 192.168.1.1", "10.0.0.2:4000", []string{"198.51.100.1, 192.168.1.1, 10.0.0.9"}, "198.51.100.1"},
		{"several header lines are one list", "10.0.0.0/8", "10.0.0.2:4000", []string{"7.7.7.7", "198.51.100.1"}, "198.51.100.1"},
		{"no header: the proxy itself", "10.0.0.0/8", "10.0.0.2:4000", nil, "10.0.0.2"},
		{"every hop trusted: the leftmost", "10.0.0.0/8", "10.0.0.2:4000", []string{"10.1.1.1, 10.0.0.3"}, "10.1.1.1"},
		{"garbage stops at the trusted hop to its right", "10.0.0.0/8", "10.0.0.2:4000", []string{"not-an-ip, 10.0.0.3"}, "10.0.0.3"},
		{"garbage right after the proxy", "10.0.0.0/8", "10.0.0.2:4000", []string{"unknown"}, "10.0.0.2"},
		{"hops with ports and brackets", "10.0.0.0/8", "10.0.0.2:4000", []string{"[2001:db8::1]:443"}, "2001:db8::1"},
		{"IPv4-mapped peer and hop", "10.0.0.0/8", "[::ffff:10.0.0.2]:4000", []string{"::ffff:198.51.100.1"}, "198.51.100.1"},
		{"IPv6 proxy", "::1", "[::1]:4000", []string{"198.51.100.1"}, "198.51.100.1"},
		{"a bare address is one host", "10.0.0.2", "10.0.0.3:4000", []string{"198.51.100.1"}, "10.0.0.3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Parse(tt.trusted)
			if err != nil {
				t.Fatal(err)
			}
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.RemoteAddr = tt.peer
			for _, v := range tt.xff {
				req.Header.Add("X-Forwarded-For", v)
			}
			if got := r.Address(req); got != tt.want {
				t.Errorf("Address = %q, want %q", got, tt.want)
			}
			var seen string
			r.Middleware(http.HandlerFunc(func(_ http.ResponseWriter, req *http.Request) { seen = From(req) })).
				ServeHTTP(httptest.NewRecorder(), req)
			if seen != tt.want {
				t.Errorf("From after Middleware = %q, want %q", seen, tt.want)
			}
		})
	}
}

func TestParseRefusesNonsense(t *testing.T) {
	for _, in := range []string{"10.0.0.0/33", "proxy.internal", "10.0.0.0/8,,nope"} {
		if _, err := Parse(in); err == nil {
			t.Errorf("Parse(%q): no error", in)
		}
	}
	r, err := Parse(" , ")
	if err != nil || r.Trusts() {
		t.Errorf("Parse of an empty list = %v, %v; want trusting none", r, err)
	}
}

func TestFromWithoutMiddlewareIsThePeer(t *testing.T) {
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.RemoteAddr = "192.0.2.1:1234"
	req.Header.Set("X-Forwarded-For", "10.0.0.1")
	if got := From(req); got != "192.0.2.1" {
		t.Errorf("From = %q, want the peer", got)
	}
}

func TestBucket(t *testing.T) {
	tests := []struct{ peer, want string }{
		{"192.0.2.1:1", "192.0.2.1"},
		{"[::ffff:192.0.2.1]:1", "192.0.2.1"},
		{"[2001:db8:1:2:aaaa::1]:1", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:ffff:ffff:ffff:ffff]:1", "2001:db8:1:2::/64"},
		{"[2001:db8:1:3::1]:1", "2001:db8:1:3::/64"},
		{"[::1]:1", "::/64"},
		{"not an address", "not an address"},
	}
	for _, tt := range tests {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.RemoteAddr = tt.peer
		if got := Bucket(req); got != tt.want {
			t.Errorf("Bucket(%s) = %q, want %q", tt.peer, got, tt.want)
		}
	}
}
