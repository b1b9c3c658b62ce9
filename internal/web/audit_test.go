package web_test

import (
	"context"
	"net/url"
	"regexp"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
)

// TestAuditLogNamesWhatItIsAbout (issue 20, fix 13): the audit log names a
// challenge by its title, a user by their username, an announcement by its
// title, a writeup as one, each linked where there is a page; no id shows
// in place of a name; action codes are kept whole.
func TestAuditLogNamesWhatItIsAbout(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	ctx := context.Background()
	if _, err := s.Svc.Content.SaveChallenge(ctx, ctf.Operator, platform.ChallengeInput{Title: "Audited Thing", Categories: []string{"misc"},
		Difficulty: ctf.Easy, Points: 10, Flags: []ctf.Flag{{Kind: ctf.FlagStatic, Content: "flag{a}"}}}); err != nil {
		t.Fatal(err)
	}
	root, pam := logIn(t, s, "root"), logIn(t, s, "pam")
	pam.send("/challenges/warmup/submit", url.Values{"flag": {"flag{warm}"}})
	pam.send("/challenges/warmup/writeup", url.Values{"title": {"Way"}, "content": {"Easy."}})
	wid := regexp.MustCompile(`name="id" value="([0-9a-f-]{36})"`).FindStringSubmatch(root.get("/admin/writeups").body)
	if wid == nil {
		t.Fatal("no writeup to moderate")
	}
	root.send("/admin/writeups", url.Values{"id": {wid[1]}, "decision": {"reject"}, "reason": {"Too short"}})
	root.post("/admin/announcements", url.Values{"title": {"Hints are out"}, "body": {"See the board."}})
	root.send("/admin/users/evil/ban", url.Values{"reason": {"spam"}})

	for _, path := range []string{"/admin/audit", "/admin"} {
		p := root.get(path)
		want(t, path, p, 200, `<a href="/admin/challenges/audited-thing">Audited Thing</a>`,
			`<a href="/users/`+mustUser(t, s, "evil")+`">evil</a>`, `<code class="nowrap">user.ban</code>`,
			`<a href="/admin/announcements">“Hints are out”</a>`, `<a href="/admin/writeups">a writeup</a>`)
		if m := regexp.MustCompile(`<td>(<a [^>]*>)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-`).FindString(p.body); m != "" {
			t.Errorf("%s names an entry by its id: %s", path, m)
		}
	}
}
