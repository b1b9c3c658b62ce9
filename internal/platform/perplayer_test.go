package platform

import (
	"context"
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// TestPerPlayerFlags: on a challenge whose flags are each player's own, a
// player's own flag solves it and nothing else does (not the challenge's
// own flags); another player's flag, given to their container, is a wrong
// answer recorded as suspected sharing, with both players, the time and
// the door; and a replica reading the same database derives the same flags.
func TestPerPlayerFlags(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	admin := ctf.Operator
	in := ChallengeInput{Title: "Pwn me", Categories: []string{"pwn"}, Difficulty: ctf.Easy, Points: 100,
		Flags:    []ctf.Flag{{Kind: ctf.FlagStatic, Content: "CTF{everyone}"}},
		Instance: &ctf.InstanceSpec{Image: "flagship-test/echo:1", Port: 1337}}
	c, err := f.svc.Content.SaveChallenge(ctx, admin, in)
	if err != nil {
		t.Fatal(err)
	}
	if !c.PerPlayer() || !c.HasInstance || *c.DockerPort != 1337 {
		t.Fatalf("saved %+v", c)
	}
	pam, pat := f.as("pam"), f.as("pat")
	key, err := f.svc.flagKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pamFlag, patFlag := ctf.PlayerFlag(key, pam.User.ID, &c), ctf.PlayerFlag(key, pat.User.ID, &c)
	if other := f.replica(); ctf.PlayerFlag(must(other.flagKey(ctx)), pam.User.ID, &c) != pamFlag {
		t.Fatal("another replica derives other flags")
	}
	// The flag pam's container was given.
	if err := f.db.Play().IssueFlag(ctx, c.ID, pam.User.ID, pamFlag, f.clock.Now()); err != nil {
		t.Fatal(err)
	}

	_, err = f.svc.Play.Submit(ctx, pat, c.Slug, "CTF{everyone}")
	wantCode(t, "the challenge's own flag", err, ctf.Invalid)
	pat.Door = ctf.DoorMCP
	_, err = f.svc.Play.Submit(ctx, pat, c.Slug, pamFlag)
	wantCode(t, "another player's flag", err, ctf.Invalid)
	log, err := f.db.Play().SharingLog(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 1 || log[0].UserID != pat.User.ID || log[0].OwnerID != pam.User.ID || log[0].ChallengeID != c.ID ||
		log[0].Door != ctf.DoorMCP || !log[0].At.Equal(f.clock.Now()) {
		t.Fatalf("sharing log %+v", log)
	}
	// A wrong flag nobody was given is wrong, and no sharing.
	_, err = f.svc.Play.Submit(ctx, pat, c.Slug, "CTF{pwn-me_0000000000000000}")
	wantCode(t, "a made-up flag", err, ctf.Invalid)
	if log, _ := f.db.Play().SharingLog(ctx, 10); len(log) != 1 {
		t.Errorf("a flag nobody was given is recorded as sharing: %+v", log)
	}

	for _, p := range []struct {
		v    ctf.Viewer
		flag string
	}{{pat, patFlag}, {pam, pamFlag}} {
		res, err := f.svc.Play.Submit(ctx, p.v, c.Slug, p.flag)
		if err != nil || !res.Success || res.Points != 100 {
			t.Errorf("%s's own flag: %+v, %v", p.v.User.Username, res, err)
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
