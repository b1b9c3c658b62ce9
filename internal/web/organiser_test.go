package web_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
)

// TestAdminPreviewsDrafts: an admin opens a hidden or scheduled challenge's
// page as players will see it, marked; the admin's board lists both,
// marked; players and visitors get 404 for both and see neither listed,
// and the public API still knows nothing of them.
func TestAdminPreviewsDrafts(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, releaseEvent)
	root, pam, anon := logIn(t, s, "root"), logIn(t, s, "pam"), newBrowser(t, s)
	want(t, "preview hidden", root.get("/challenges/draft"), 200, "Secret Draft", "Preview: players do not see this challenge",
		`<span class="mark lock">hidden</span>`, `id="flag"`)
	want(t, "preview scheduled", root.get("/challenges/sequel-soon"), 200, "Sequel Soon", "scheduled for",
		`datetime="2099-01-01T00:00:00`)
	if p := root.get("/challenges/warmup"); strings.Contains(p.body, "Preview:") {
		t.Error("a shown challenge is marked as a preview")
	}
	want(t, "admin board", root.get("/"), 200, "Not shown to players", `<a href="/challenges/draft">Secret Draft</a> <span class="mark lock">hidden</span>`,
		`<a href="/challenges/sequel-soon">Sequel Soon</a> <span class="mark lock">scheduled for`)
	for who, b := range map[string]*browser{"pam": pam, "a visitor": anon} {
		for _, slug := range []string{"draft", "sequel-soon"} {
			want(t, who+" on "+slug, b.get("/challenges/"+slug), 404)
		}
		if p := b.get("/"); strings.Contains(p.body, "Not shown to players") || strings.Contains(p.body, "Secret Draft") ||
			strings.Contains(p.body, "Sequel Soon") {
			t.Errorf("%s's board lists the drafts", who)
		}
	}
	// The public API, even for an admin's key, has no hidden challenge.
	if _, err := s.Svc.Play.Challenge("draft", ctf.Viewer{User: &ctf.User{ID: "x", Role: ctf.RoleAdmin}}); ctf.ErrorCode(err) != ctf.NotFound {
		t.Errorf("Play.Challenge of a hidden challenge for an admin: %v, want not found", err)
	}
}

// TestChallengeListsSolvers: a challenge's page lists who solved it and
// when, first solve first; during a freeze a held solve is listed for its
// solver and admins only.
func TestChallengeListsSolvers(t *testing.T) {
	t.Parallel()
	clk := newTestClock()
	s := apitest.Start(t, adminEvent, apitest.Options{Now: clk.now})
	pam, evil, root, anon := logIn(t, s, "pam"), logIn(t, s, "evil"), logIn(t, s, "root"), newBrowser(t, s)
	want(t, "nobody yet", anon.get("/challenges/warmup"), 200, "Solvers", "Nobody has solved it yet.")
	want(t, "pam solves", pam.send("/challenges/warmup/submit", url.Values{"flag": {"flag{warm}"}}), 200, "Correct!")
	freeze := clk.now().Add(time.Minute)
	if _, err := s.Svc.Event.Set(context.Background(), ctf.Operator, ctf.Event{Freeze: &freeze}); err != nil {
		t.Fatal(err)
	}
	clk.add(2 * time.Minute)
	want(t, "evil solves when frozen", evil.send("/challenges/warmup/submit", url.Values{"flag": {"flag{warm}"}}), 200, "Correct!")
	pamLink, evilLink := `<a href="/users/`+mustUser(t, s, "pam")+`">pam</a>`, `/users/`+mustUser(t, s, "evil")+`"`
	for _, c := range []struct {
		who      string
		b        *browser
		seesEvil bool
	}{{"a visitor", anon, false}, {"pam", pam, false}, {"evil", evil, true}, {"root", root, true}} {
		p := c.b.get("/challenges/warmup")
		want(t, c.who, p, 200, pamLink)
		if got := strings.Contains(p.body, evilLink); got != c.seesEvil {
			t.Errorf("%s sees evil's held solve: %v, want %v", c.who, got, c.seesEvil)
		}
		if c.seesEvil && strings.Index(p.body, pamLink) > strings.Index(p.body, evilLink) {
			t.Errorf("%s: the first solver is not listed first", c.who)
		}
	}
}
