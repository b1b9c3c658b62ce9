package platform

import (
	"context"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// TestDeleteChallenge: a challenge nobody solved is deleted at once; one
// with solves only when the admin confirms their number, and the number
// must be the current one. Every delete is audited, refused to players,
// and reaches the other replica without a rebuild, which then reads as a
// replica built afresh would (board and list alike).
func TestDeleteChallenge(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.svc
	b, seen := f.watchedReplica()
	ctx := context.Background()
	root, pam := f.as("root"), f.as("pam")
	gone := func(svc *Service, slug string) bool {
		_, err := svc.Content.Preview(slug, root)
		return ctf.ErrorCode(err) == ctf.NotFound
	}
	rebuilds := b.live.Rebuilds()

	wantCode(t, "a player deletes", a.Content.DeleteChallenge(ctx, pam, "b", 0), ctf.Forbidden)
	wantCode(t, "unknown", a.Content.DeleteChallenge(ctx, root, "zz", 0), ctf.NotFound)
	wantCode(t, "delete b", a.Content.DeleteChallenge(ctx, root, "b", 0), "")
	if !gone(a, "b") {
		t.Fatal("b is still there on the deleting replica")
	}
	seen("b deleted", func() bool { return gone(b, "b") })

	p, err := a.Content.Preview("a", root)
	wantCode(t, "preview a", err, "")
	if p.Solves != 1 {
		t.Fatalf("a has %d solves, want 1", p.Solves)
	}
	err = a.Content.DeleteChallenge(ctx, root, "a", 0)
	wantCode(t, "delete a unconfirmed", err, ctf.Conflict)
	if !strings.Contains(err.Error(), "1 solve now") {
		t.Errorf("the refusal does not say how many solves go: %v", err)
	}
	if !strings.Contains(boardJSON(b), `"username":"pam"`) {
		t.Fatal("pam is not on the board before the delete")
	}
	wantCode(t, "delete a confirmed", a.Content.DeleteChallenge(ctx, root, "a", p.Solves), "")
	seen("a deleted", func() bool { return gone(b, "a") && !strings.Contains(boardJSON(b), `"username":"pam"`) })
	if d, _ := b.live.State().Accounts().Me(pam.ID()); len(d.SolvedChallenges) != 0 || d.TotalPoints != 0 {
		t.Errorf("pam's profile keeps the deleted solve: %+v", d.PublicProfile)
	}
	if got := b.live.Rebuilds(); got != rebuilds {
		t.Errorf("the other replica rebuilt its state %d times", got-rebuilds)
	}
	fresh := f.replica()
	for name, s := range map[string]*Service{"deleting": a, "other": b} {
		if boardJSON(s) != boardJSON(fresh) || listJSON(s) != listJSON(fresh) {
			t.Errorf("the %s replica differs from a fresh one:\nboard %s\nfresh %s\nlist %s\nfresh %s", name, boardJSON(s), boardJSON(fresh),
				listJSON(s), listJSON(fresh))
		}
	}
	log, _ := a.Admin.AuditLog(ctx, root, 0, 10)
	var deletes []string
	for _, e := range log {
		if e.Action == "challenge.delete" {
			deletes = append(deletes, e.Target+" "+e.Detail)
		}
	}
	if len(deletes) != 2 || !strings.Contains(deletes[0], `"solves":1`) || !strings.HasPrefix(deletes[1], "b ") {
		t.Errorf("the audit log's deletes: %q", deletes)
	}
	if _, err := a.Admin.SubmissionLog(ctx, root, LogQuery{User: "pat"}); err != nil {
		t.Fatal(err)
	} else if l, _ := a.Admin.SubmissionLog(ctx, root, LogQuery{}); len(l.Entries) != 0 {
		t.Errorf("the deleted challenges' submissions are still logged: %+v", l.Entries)
	}
}
