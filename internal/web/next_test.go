package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
)

// TestLoginNextStaysOnSite: after a login, the browser goes where next=
// says only when that is a path of this site as every browser reads it; a
// value a browser could read as another site (a tab or a newline it
// strips, a backslash it takes for a slash, a scheme, a host) goes home.
func TestLoginNextStaysOnSite(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	for _, tc := range []struct{ next, want string }{
		// The review's case: next=/%09/evil.com in the form body.
		{"/\t/evil.com", "/"},
		{"/\n/evil.com", "/"},
		{"/\r\n/evil.com", "/"},
		{"\t//evil.com", "/"},
		{"/\x00", "/"},
		{"/\x00/evil.com", "/"},
		{"/\x7f/evil.com", "/"},
		{"/\u0085/evil.com", "/"}, // C1 control (next line)
		{"//evil.com", "/"},
		{"///evil.com", "/"},
		{"/\\evil.com", "/"},
		{"/\\/evil.com", "/"},
		{"\\\\evil.com", "/"},
		{"/x\\..\\..\\/evil.com", "/"},
		{"https://evil.com", "/"},
		{"https:/evil.com", "/"},
		{"http:evil.com", "/"},
		{"javascript:alert(1)", "/"},
		{"evil.com", "/"},
		{"", "/"},
		{" /x", "/"},
		{"/ /evil", "/"},
		{"/\u00a0/evil.com", "/"},   // no-break space
		{"/\u3000/evil.com", "/"},   // ideographic space
		{"/\u200b/evil.com", "/"},   // zero-width space
		{"/\u202e/moc.live", "/"},   // right-to-left override
		{"/\ufeff/evil.com", "/"},   // byte-order mark
		{"/\xff/evil.com", "/"},     // not UTF-8
		{"/\xc0\xaf/evil.com", "/"}, // overlong "/"
		// Paths of this site, kept (a browser does not decode escapes in
		// a path, nor fold a fullwidth solidus into one).
		{"/challenges/x?y=1#z", "/challenges/x?y=1#z"},
		{"/scoreboard", "/scoreboard"},
		{"/settings/agents", "/settings/agents"},
		{"/%09/evil.com", "/%09/evil.com"},
		{"/%2F%2Fevil.com", "/%2F%2Fevil.com"},
		{"/https://evil.com", "/https:/evil.com"}, // the redirect cleans the path
		{"/\uff0f\uff0fevil.com", "/%ef%bc%8f%ef%bc%8fevil.com"},
		{"/challenges/é", "/challenges/%c3%a9"},
	} {
		form := url.Values{"username": {"pam"}, "password": {"pam-password"}, "next": {tc.next}}
		req, err := http.NewRequest("POST", s.URL+"/login", strings.NewReader(form.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		// A transport, not a client: a client refuses to read some of the
		// Locations this test is about.
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Errorf("next=%q: %v", tc.next, err)
			continue
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("next=%q: status %d, want 303", tc.next, resp.StatusCode)
		}
		if got := resp.Header.Get("Location"); got != tc.want {
			t.Errorf("next=%q: Location %q, want %q", tc.next, got, tc.want)
		}
	}
}
