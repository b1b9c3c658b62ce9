package platform

import (
	"context"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// TestReplicaAppliesChangesIncrementally: on two replicas of one database,
// a sign-up, a key's creation and revocation, a ban, a review, a writeup's
// moderation and a challenge edit made on A are seen by B within a second
// (B watches as flagship serve does: polling every quarter second, and on
// PostgreSQL woken by notifications), and B never rebuilt its state. The
// second is scaled by testtime.Factor: the race detector on a shared
// machine slows B's applier more than the product's bound allows for.
func TestReplicaAppliesChangesIncrementally(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.svc
	b, seen := f.watchedReplica()
	ctx := context.Background()
	root, pam := f.as("root"), f.as("pam")

	u, err := a.Accounts.SignUp(ctx, SignUp{Username: "newbie", Email: "newbie@example.com", Password: "a long password"})
	wantCode(t, "sign up", err, "")
	seen("sign-up", func() bool { return b.Scoreboard.Profile(u.ID) != nil })

	_, key, err := a.Keys.Create(ctx, ctf.Viewer{User: &u}, NewAPIKey{Name: "laptop"})
	wantCode(t, "create key", err, "")
	seen("new key", func() bool { _, err := b.Accounts.AuthenticateKey(ctx, key); return err == nil })
	keys, _ := a.Keys.List(ctx, ctf.Viewer{User: &u}, "")
	_, err = a.Keys.Revoke(ctx, ctf.Viewer{User: &u}, "", keys[0].ID)
	wantCode(t, "revoke key", err, "")
	if _, err := a.Accounts.AuthenticateKey(ctx, key); ctf.ErrorCode(err) != ctf.Unauthorized {
		t.Fatalf("the revoking replica still accepts the key: %v", err)
	}
	seen("key revocation", func() bool { _, err := b.Accounts.AuthenticateKey(ctx, key); return err != nil })

	_, err = a.Admin.SetBanned(ctx, root, pam.ID(), true, "")
	wantCode(t, "ban", err, "")
	seen("ban", func() bool { return !strings.Contains(boardJSON(b), `"username":"pam"`) })
	_, err = a.Admin.SetBanned(ctx, root, pam.ID(), false, "")
	wantCode(t, "unban", err, "")
	seen("unban", func() bool { return strings.Contains(boardJSON(b), `"username":"pam"`) })

	_, err = a.Play.Review(ctx, pam, "a", 5, 4)
	wantCode(t, "review", err, "")
	seen("review", func() bool {
		d, _ := b.Play.Challenge("a", ctf.Viewer{})
		return d.TotalReviews == 1 && *d.AvgStars == 5
	})

	w, err := a.Play.SaveWriteup(ctx, pam, "a", WriteupInput{Title: "How", Content: "Like this"})
	wantCode(t, "writeup", err, "")
	_, err = a.Content.ModerateWriteup(ctx, root, w.ID, true, "")
	wantCode(t, "approve", err, "")
	seen("writeup moderation", func() bool {
		l, _ := b.Play.Writeups(ctx, "a", pam)
		return len(l.Writeups) == 1 && l.Writeups[0].Status == ctf.WriteupApproved
	})

	edit, _ := a.Content.ChallengeForEdit(ctx, root, "a")
	edit.Points, edit.Title = 175, "A, revised"
	_, err = a.Content.SaveChallenge(ctx, root, edit)
	wantCode(t, "challenge edit", err, "")
	seen("challenge edit", func() bool {
		d, _ := b.Play.Challenge("a", ctf.Viewer{})
		return d.Points == 175 && d.Title == "A, revised" && b.Scoreboard.Profile(pam.ID()).TotalPoints == 175
	})

	if n := b.Rebuilds(); n != 1 {
		t.Errorf("the other replica built its state %d times, want once (at start)", n)
	}
	// And what B built incrementally is what a fresh build reads.
	c := f.replica()
	for _, body := range []struct{ name, x, y string }{
		{"leaderboard", boardJSON(b), boardJSON(c)},
		{"challenge list", listJSON(b), listJSON(c)},
	} {
		if body.x != body.y {
			t.Errorf("%s: incremental\n%s\nrebuilt\n%s", body.name, body.x, body.y)
		}
	}
}
