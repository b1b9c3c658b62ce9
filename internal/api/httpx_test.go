package api_test

import (
	"net/http"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
)

// TestGzipFollowsTheWeights: the API gzips as Accept-Encoding's weights
// say, the wildcard included (it once took only a listed gzip).
func TestGzipFollowsTheWeights(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, `
users:
  - {username: pam, email: pam@example.com, password: pam-password}
challenges:
  - {slug: warmup, title: Warmup, categories: [misc], difficulty: Easy, points: 50, flags: ['flag{warm}']}
`)
	for _, tc := range []struct {
		accept, coding string
	}{
		{"gzip", "gzip"},
		{"deflate, gzip;q=0.5", "gzip"},
		{"*", "gzip"},
		{"gzip;q=0", ""},
		{"gzip;q=0, *", ""},
		{"*;q=0", ""},
		{"br", ""},
	} {
		r := s.DoRaw("GET", "/api/public/openapi.json", nil, "Accept-Encoding: "+tc.accept)
		if r.Status != http.StatusOK || r.Header.Get("Content-Encoding") != tc.coding {
			t.Errorf("openapi.json with Accept-Encoding %q: %d, Content-Encoding %q; want 200, %q",
				tc.accept, r.Status, r.Header.Get("Content-Encoding"), tc.coding)
		}
	}
}
