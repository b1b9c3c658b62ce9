package platform

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

func TestAPIKeys(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	pam, pat := f.as("pam"), f.as("pat")
	view, secret, err := f.svc.Keys.Create(ctx, pam, NewAPIKey{Name: " laptop "})
	wantCode(t, "create", err, "")
	if view.Name != "laptop" || !strings.HasPrefix(secret, view.KeyPrefix+"_") || view.RevokedAt != nil {
		t.Fatalf("created %+v", view)
	}
	v, err := f.svc.Accounts.AuthenticateKey(ctx, secret)
	if err != nil || v.ID() != pam.ID() || v.ReadOnly {
		t.Fatalf("authenticate: %+v %v", v, err)
	}
	_, _, err = f.svc.Keys.Create(ctx, pam, NewAPIKey{Name: " "})
	wantCode(t, "no name", err, ctf.Invalid)
	_, _, err = f.svc.Keys.Create(ctx, pat, NewAPIKey{Owner: pam.ID(), Name: "theirs"})
	wantCode(t, "a player mints a key for another", err, ctf.Forbidden)
	_, err = f.svc.Keys.List(ctx, pat, pam.ID())
	wantCode(t, "a player lists another's keys", err, ctf.Forbidden)
	_, err = f.svc.Keys.Revoke(ctx, pat, "", view.ID)
	wantCode(t, "a player revokes another's key", err, ctf.NotFound)

	// Read-only: reads everything, cannot submit.
	_, ro, err := f.svc.Keys.Create(ctx, pam, NewAPIKey{Name: "agent", ReadOnly: true})
	wantCode(t, "read-only key", err, "")
	rov, err := f.svc.Accounts.AuthenticateKey(ctx, ro)
	if err != nil || !rov.ReadOnly {
		t.Fatalf("read-only key: %+v %v", rov, err)
	}
	_, err = f.svc.Play.Submit(ctx, rov, "b", "flag{b}")
	wantCode(t, "submit with a read-only key", err, ctf.Forbidden)
	if _, err := f.svc.Accounts.Me(ctx, rov); err != nil {
		t.Fatalf("read with a read-only key: %v", err)
	}

	// Revoked: refused at once by this process.
	_, err = f.svc.Keys.Revoke(ctx, pam, "", view.ID)
	wantCode(t, "revoke", err, "")
	_, err = f.svc.Accounts.AuthenticateKey(ctx, secret)
	wantCode(t, "revoked key", err, ctf.Unauthorized)
	keys, _ := f.svc.Keys.List(ctx, pam, "")
	if len(keys) != 2 || keys[0].RevokedAt == nil || keys[1].RevokedAt != nil {
		t.Fatalf("keys %+v", keys)
	}
	// At most 20 active keys.
	for i := 0; i < ctf.MaxActiveAPIKeys-1; i++ {
		_, _, err := f.svc.Keys.Create(ctx, pam, NewAPIKey{Name: fmt.Sprint("k", i)})
		wantCode(t, "key", err, "")
	}
	_, _, err = f.svc.Keys.Create(ctx, pam, NewAPIKey{Name: "one too many"})
	wantCode(t, "21st active key", err, ctf.Conflict)
	// The operator mints for anyone, and the audit log says so.
	_, _, err = f.svc.Keys.Create(ctx, ctf.Operator, NewAPIKey{Owner: pat.ID(), Name: "from the CLI"})
	wantCode(t, "operator", err, "")
	log, err := f.svc.Admin.AuditLog(ctx, ctf.Operator, 0, 10)
	if err != nil || len(log) != 1 || log[0].Action != "apikey.create" || log[0].Actor != "operator" || log[0].Target != "pat" {
		t.Fatalf("audit log %+v %v", log, err)
	}
}

func TestLastUsedIsWrittenOffTheRequestPath(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	_, secret, err := f.svc.Keys.Create(ctx, f.as("pam"), NewAPIKey{Name: "k"})
	wantCode(t, "create", err, "")
	if _, err := f.svc.Accounts.AuthenticateKey(ctx, secret); err != nil {
		t.Fatal(err)
	}
	keys, _ := f.db.Accounts().APIKeys(ctx, f.as("pam").ID())
	if keys[0].LastUsedAt != nil {
		t.Fatal("lastUsedAt written during the request")
	}
	me, _ := f.svc.Accounts.Me(ctx, f.as("pam"))
	if me.McpAPIKeys[0].LastUsedAt == nil {
		t.Fatal("/me does not show the use")
	}
	other := f.replica()
	f.svc.FlushTouches(ctx)
	keys, _ = f.db.Accounts().APIKeys(ctx, f.as("pam").ID())
	if keys[0].LastUsedAt == nil || !keys[0].LastUsedAt.Equal(ctf.Millis(f.clock.Now())) {
		t.Fatalf("lastUsedAt after the flush: %v", keys[0].LastUsedAt)
	}
	// Within the minute, no new write; the other replica shows the use.
	f.clock.Add(30 * time.Second)
	f.svc.Accounts.AuthenticateKey(ctx, secret)
	f.svc.touches.mu.Lock()
	pending := len(f.svc.touches.keys)
	f.svc.touches.mu.Unlock()
	if pending != 0 {
		t.Fatal("a second use within the minute was queued")
	}
	if err := other.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	om, _ := other.Accounts.Me(ctx, f.as("pam"))
	if om.McpAPIKeys[0].LastUsedAt == nil {
		t.Fatal("the other replica does not show the use")
	}
}

func TestReviewsAndWriteups(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	pam, pat, root := f.as("pam"), f.as("pat"), f.as("root")
	_, err := f.svc.Play.Review(ctx, pat, "a", 5, 5)
	wantCode(t, "review before solving", err, ctf.Forbidden)
	_, err = f.svc.Play.SaveWriteup(ctx, pat, "a", WriteupInput{Title: "t", Content: "c"})
	wantCode(t, "writeup before solving", err, ctf.Forbidden)
	_, err = f.svc.Play.Review(ctx, pam, "nope", 5, 5)
	wantCode(t, "review of an unknown challenge", err, ctf.NotFound)
	for _, b := range [][2]int{{0, 5}, {6, 5}, {3, 0}, {3, 11}} {
		_, err = f.svc.Play.Review(ctx, pam, "a", b[0], b[1])
		wantCode(t, fmt.Sprint("review out of bounds ", b), err, ctf.Invalid)
	}
	_, err = f.svc.Play.Review(ctx, pam, "a", 4, 3)
	wantCode(t, "review", err, "")
	_, err = f.svc.Play.Review(ctx, pam, "a", 2, 7)
	wantCode(t, "change the review", err, "")
	d, _ := f.svc.Play.Challenge("a", pam)
	if d.TotalReviews != 1 || *d.AvgStars != 2 || *d.AvgDifficulty != 7 || d.MyReview == nil || d.MyReview.Stars != 2 {
		t.Fatalf("detail after the review: %+v", d)
	}
	// A writeup enters the queue; an edit after approval re-enters it.
	_, err = f.svc.Play.SaveWriteup(ctx, pam, "a", WriteupInput{Title: "How", Content: "I did it", Images: []string{"javascript:x"}})
	wantCode(t, "writeup with a javascript image", err, ctf.Invalid)
	w, err := f.svc.Play.SaveWriteup(ctx, pam, "a", WriteupInput{Title: "How", Content: "I did it", Images: []string{"https://i.example/1.png"}})
	wantCode(t, "writeup", err, "")
	if w.Status != ctf.WriteupPending {
		t.Fatalf("status %q", w.Status)
	}
	_, err = f.svc.Content.ModerateWriteup(ctx, pam, w.ID, true, "")
	wantCode(t, "a player moderates", err, ctf.Forbidden)
	q, _ := f.svc.Content.ModerationQueue(ctx, root)
	if len(q) != 1 || q[0].ID != w.ID {
		t.Fatalf("queue %+v", q)
	}
	_, err = f.svc.Content.ModerateWriteup(ctx, root, w.ID, true, "")
	wantCode(t, "approve", err, "")
	// pat solves b? No: pat solves a, then reads the approved writeup.
	if _, err := f.svc.Play.Submit(ctx, pat, "a", "flag{a}"); err != nil {
		t.Fatal(err)
	}
	list, _ := f.svc.Play.Writeups(ctx, "a", pat)
	if len(list.Writeups) != 1 || list.Writeups[0].Title != "How" || *list.Writeups[0].User.Username != "pam" {
		t.Fatalf("writeups for pat: %+v", list)
	}
	w2, err := f.svc.Play.SaveWriteup(ctx, pam, "a", WriteupInput{Title: "How, revised", Content: "Better"})
	wantCode(t, "edit", err, "")
	if w2.ID != w.ID || w2.Status != ctf.WriteupPending {
		t.Fatalf("edit: %+v", w2)
	}
	if list, _ := f.svc.Play.Writeups(ctx, "a", pat); len(list.Writeups) != 0 {
		t.Fatalf("an edited writeup awaiting moderation is listed to others: %+v", list)
	}
	if list, _ := f.svc.Play.Writeups(ctx, "a", pam); len(list.Writeups) != 1 || list.Writeups[0].Status != ctf.WriteupPending {
		t.Fatalf("its author does not see it: %+v", list)
	}
	_, err = f.svc.Content.ModerateWriteup(ctx, root, w.ID, false, "Spoils another challenge")
	wantCode(t, "reject", err, "")
	mine, reason, err := f.svc.Play.MyWriteup(ctx, pam, "a")
	if err != nil || mine.Status != ctf.WriteupRejected || reason != "Spoils another challenge" {
		t.Fatalf("my writeup: %+v %q %v", mine, reason, err)
	}
	log, _ := f.svc.Admin.AuditLog(ctx, root, 0, 10)
	var actions []string
	for _, e := range log {
		actions = append(actions, e.Action+" by "+e.Actor)
	}
	if strings.Join(actions, ", ") != "writeup.reject by root, writeup.approve by root" {
		t.Fatalf("audit log: %v", actions)
	}
}
