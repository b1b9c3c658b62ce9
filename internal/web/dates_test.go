package web_test

import (
	"net/url"
	"regexp"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
)

// TestDatesReadTheSameEverywhere (issue 20, fix 4): no page shows a raw
// RFC 3339 time; each instant is a <time datetime> in the one readable
// shape.
func TestDatesReadTheSameEverywhere(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	pam, root := logIn(t, s, "pam"), logIn(t, s, "root")
	pam.send("/challenges/warmup/submit", url.Values{"flag": {"flag{warm}"}})
	pam.send("/settings/keys", url.Values{"name": {"laptop"}})
	root.post("/admin/users/new", url.Values{"username": {"dated"}, "email": {"dated@example.com"}, "password": {"long enough"}, "password2": {"long enough"}}) // audited
	raw := regexp.MustCompile(`>[^<]*\d{4}-\d\d-\d\dT\d\d:\d\d`)
	readable := regexp.MustCompile(`<time datetime="\d{4}-\d\d-\d\dT[0-9:.]+Z" data-local>\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d(:\d\d)? UTC</time>`)
	for _, tc := range []struct {
		who  *browser
		path string
		min  int // instants the page shows at least
	}{
		{pam, "/settings", 3},     // a session's two, a key's one
		{root, "/admin/audit", 1}, // the entries
		{root, "/scoreboard", 1},  // pam's last solve
		{pam, "/users/" + mustUser(t, s, "pam"), 2},
	} {
		p := tc.who.get(tc.path)
		want(t, tc.path, p, 200)
		if m := raw.FindString(p.body); m != "" {
			t.Errorf("%s shows a raw time: %q", tc.path, m)
		}
		if n := len(readable.FindAllString(p.body, -1)); n < tc.min {
			t.Errorf("%s shows %d readable times, want at least %d", tc.path, n, tc.min)
		}
	}
}
