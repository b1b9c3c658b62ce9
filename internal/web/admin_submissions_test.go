package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
)

// TestAdminSubmissionLog: the log lists every attempt with its player,
// challenge, door and result, the text of wrong flags only, filters by
// player, challenge and result (kept in the form), says why a filter is
// refused, and is for admins only.
func TestAdminSubmissionLog(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	pam, evil, root := logIn(t, s, "pam"), logIn(t, s, "evil"), logIn(t, s, "root")
	want(t, "pam misses", pam.send("/challenges/warmup/submit", url.Values{"flag": {"flag{guess-1}"}}), 200, "Wrong flag.")
	want(t, "pam solves", pam.send("/challenges/warmup/submit", url.Values{"flag": {"flag{warm}"}}), 200, "Correct!")
	want(t, "evil misses", evil.send("/challenges/warmup/submit", url.Values{"flag": {"flag{guess-1}"}}), 200, "Wrong flag.")

	all := root.get("/admin/submissions")
	want(t, "the log", all, 200, "<h1>Submissions</h1>", `<a href="/admin/players/pam">pam</a>`, `<a href="/admin/players/evil">evil</a>`,
		"<code>flag{guess-1}</code>", `<span class="mark ok">correct</span>`, "<td>web</td>")
	if strings.Contains(all.body, "flag{warm}") {
		t.Error("the log shows a correct flag")
	}
	if n := strings.Count(all.body, "<tr><td><time"); n != 3 {
		t.Errorf("the log has %d rows, want 3", n)
	}
	for _, c := range []struct {
		query string
		rows  int
		has   string
	}{
		{"?user=evil", 1, `<input name="user" value="evil"`},
		{"?result=correct", 1, `<option value="correct" selected>`},
		{"?user=pam&result=wrong", 1, "flag{guess-1}"},
		{"?challenge=next", 0, "No submission."},
	} {
		p := root.get("/admin/submissions" + c.query)
		want(t, c.query, p, 200, c.has)
		if n := strings.Count(p.body, "<tr><td><time"); n != c.rows {
			t.Errorf("%s: %d rows, want %d", c.query, n, c.rows)
		}
	}
	want(t, "unknown player", root.get("/admin/submissions?user=nobody"), 400, "no user is named", `value="nobody"`)
	want(t, "bad result", root.get("/admin/submissions?result=maybe"), 400, "correct, wrong or empty")
	want(t, "a player", pam.get("/admin/submissions"), http.StatusForbidden, "Only admins")
	want(t, "a visitor", newBrowser(t, s).get("/admin/submissions"), http.StatusSeeOther)
}

// TestAdminPlayerPage: a player's admin page shows their solves, their
// latest submissions, keys, agents and sessions, and the wrong flags other
// players sent too; players get 403.
func TestAdminPlayerPage(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	pam, evil, root := logIn(t, s, "pam"), logIn(t, s, "evil"), logIn(t, s, "root")
	want(t, "pam misses", pam.send("/challenges/warmup/submit", url.Values{"flag": {"flag{copied}"}}), 200, "Wrong flag.")
	want(t, "evil misses alike", evil.send("/challenges/warmup/submit", url.Values{"flag": {"flag{copied}"}}), 200, "Wrong flag.")
	want(t, "pam solves", pam.send("/challenges/warmup/submit", url.Values{"flag": {"flag{warm}"}}), 200, "Correct!")
	p := root.get("/admin/players/pam")
	want(t, "pam's page", p, 200, "<h1>pam", "<dt>Solves</dt><dd>1</dd>", "<dt>Active sessions</dt><dd>1</dd>",
		"Wrong flags others sent too", "<code>flag{copied}</code>", `<a href="/admin/players/evil">evil</a>`,
		`href="/admin/submissions?user=pam"`)
	if strings.Contains(p.body, "flag{warm}") {
		t.Error("pam's page shows the correct flag")
	}
	want(t, "from the users list", root.get("/admin/users"), 200, `<a href="/admin/players/pam">pam</a>`)
	want(t, "unknown", root.get("/admin/players/nobody"), 404)
	want(t, "a player", evil.get("/admin/players/pam"), http.StatusForbidden, "Only admins")
}

// TestAdminAnonymisesAPlayer: from a player's admin page, an admin types
// the username to anonymise the account; a wrong confirmation is refused
// and changes nothing; the player's session ends; players cannot do it.
func TestAdminAnonymisesAPlayer(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	pam, evil, root := logIn(t, s, "pam"), logIn(t, s, "evil"), logIn(t, s, "root")
	want(t, "pam solves", pam.send("/challenges/warmup/submit", url.Values{"flag": {"flag{warm}"}}), 200, "Correct!")
	want(t, "pam on the scoreboard", root.get("/scoreboard"), 200, ">pam<")
	want(t, "the form", root.get("/admin/players/pam"), 200, `action="/admin/players/pam/anonymise"`, "Type <strong>pam</strong> to confirm")
	want(t, "a player", evil.post("/admin/players/pam/anonymise", url.Values{"confirm": {"pam"}}), http.StatusForbidden)
	want(t, "wrong confirmation", root.send("/admin/players/pam/anonymise", url.Values{"confirm": {"evil"}}), 200,
		"type the account&#39;s username, pam, to confirm")
	want(t, "pam still signed in", pam.get("/settings"), 200, "pam")
	done := root.post("/admin/players/pam/anonymise", url.Values{"confirm": {"pam"}})
	loc := done.header.Get("Location")
	if done.status != http.StatusSeeOther || !strings.HasPrefix(loc, "/admin/players/anonymous-") {
		t.Fatalf("anonymise: %d %s\n%.1000s", done.status, loc, done.body)
	}
	want(t, "the anonymised page", root.get(loc), 200, "The account is anonymised", "<dt>Solves</dt><dd>1</dd>")
	if p := root.get("/scoreboard"); strings.Contains(p.body, ">pam<") {
		t.Error("the scoreboard still names pam")
	}
	want(t, "pam's session ended", pam.get("/settings"), http.StatusSeeOther)
}
