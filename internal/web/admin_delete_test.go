package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
)

// TestAdminDeletesChallenges: a challenge nobody solved is deleted from
// its page; one with solves asks first, says how many go, offers to hide
// it instead, refuses an unticked form and a stale count, and deletes
// once confirmed. Players get 403 and delete nothing; the deletes are
// audited.
func TestAdminDeletesChallenges(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	pam, root := logIn(t, s, "pam"), logIn(t, s, "root")
	want(t, "pam solves", pam.send("/challenges/warmup/submit", url.Values{"flag": {"flag{warm}"}}), 200, "Correct!")

	want(t, "editor links", root.get("/admin/challenges/draft"), 200, `<a href="/admin/challenges/draft/delete">Delete it</a>`)
	want(t, "no solves", root.get("/admin/challenges/draft/delete"), 200, "Nobody has solved it", `name="solves" value="0"`)
	want(t, "a player's page", pam.get("/admin/challenges/draft/delete"), http.StatusForbidden)
	want(t, "a player deletes", pam.post("/admin/challenges/draft/delete", url.Values{"solves": {"0"}}), http.StatusForbidden)
	want(t, "a player hides", pam.post("/admin/challenges/warmup/hide", nil), http.StatusForbidden)
	want(t, "after the delete", root.send("/admin/challenges/draft/delete", url.Values{"solves": {"0"}}), 200, "Deleted the challenge draft.")
	want(t, "draft gone", root.get("/admin/challenges/draft"), 404)

	ask := root.get("/admin/challenges/warmup/delete")
	want(t, "with solves", ask, 200, "<strong>1 solve</strong>", "Hide it instead", `name="solves" value="1"`, `name="confirm" value="yes" required`)
	want(t, "unticked", root.post("/admin/challenges/warmup/delete", url.Values{"solves": {"1"}}), 400, "Tick the box")
	want(t, "stale count", root.post("/admin/challenges/warmup/delete", url.Values{"solves": {"0"}, "confirm": {"yes"}}), 409,
		"1 solve now, not 0")
	want(t, "no count", root.post("/admin/challenges/warmup/delete", url.Values{}), 400, "number of solves")
	want(t, "still there", pam.get("/challenges/warmup"), 200)
	if r := root.post("/admin/challenges/warmup/delete", url.Values{"solves": {"1"}, "confirm": {"yes"}}); r.status != http.StatusSeeOther {
		t.Fatalf("confirmed delete: %d\n%.1000s", r.status, r.body)
	}
	want(t, "warmup gone", pam.get("/challenges/warmup"), 404)
	log, _ := s.Svc.Admin.AuditLog(context.Background(), ctf.Operator, 0, 10)
	if len(log) < 2 || log[0].Action != "challenge.delete" || log[0].Target != "warmup" || log[1].Target != "draft" {
		t.Errorf("the audit log: %+v", log)
	}
}

// TestAdminHidesInsteadOfDeleting: the delete page's other choice hides the
// challenge and keeps its solves.
func TestAdminHidesInsteadOfDeleting(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	pam, root := logIn(t, s, "pam"), logIn(t, s, "root")
	want(t, "pam solves", pam.send("/challenges/warmup/submit", url.Values{"flag": {"flag{warm}"}}), 200, "Correct!")
	want(t, "hide", root.send("/admin/challenges/warmup/hide", url.Values{}), 200, "Challenge hidden: players no longer see it")
	want(t, "hidden", pam.get("/challenges/warmup"), 404)
	want(t, "its solve stays", root.get("/admin/challenges/warmup/delete"), 200, "<strong>1 solve</strong>")
	want(t, "listed hidden", root.get("/admin/challenges"), 200, `<span class="mark draft">Hidden (draft)</span>`)
}
