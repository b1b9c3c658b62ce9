package server_test

import (
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
)

// TestProbes: /livez answers while the process serves; /readyz only while
// the database answers too. Closing the database is what an outage looks
// like from here.
func TestProbes(t *testing.T) {
	t.Parallel()
	up := apitest.Start(t, "")
	down := apitest.Start(t, "")
	down.DB.Close()
	for _, c := range []struct {
		name   string
		s      *apitest.Server
		method string
		path   string
		status int
		body   string
	}{
		{"live", up, "GET", "/livez", 200, `{"ok":true}`},
		{"ready", up, "GET", "/readyz", 200, `{"ok":true}`},
		{"ready, HEAD", up, "HEAD", "/readyz", 200, ``},
		{"live without a database", down, "GET", "/livez", 200, `{"ok":true}`},
		{"not ready without a database", down, "GET", "/readyz", 503, `{"ok":false}`},
		{"live, wrong method", up, "POST", "/livez", 405, `{"error":"use GET or HEAD"}`},
		{"ready, wrong method", down, "DELETE", "/readyz", 405, `{"error":"use GET or HEAD"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := c.s.DoRaw(c.method, c.path, nil)
			if r.Status != c.status {
				t.Fatalf("%s %s = %d %s, want %d", c.method, c.path, r.Status, r.Body, c.status)
			}
			if c.body != "" && string(r.Body) != c.body {
				t.Errorf("%s %s body %s, want %s", c.method, c.path, r.Body, c.body)
			}
			if c.status == 405 && r.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("Allow %q", r.Header.Get("Allow"))
			}
			if ct := r.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
				t.Errorf("Cache-Control %q, want no-store", cc)
			}
		})
	}
}
