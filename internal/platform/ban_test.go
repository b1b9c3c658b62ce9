package platform

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// TestBanCoversAgents: a ban covers the person (docs/product.md#banning): while pam is
// banned she has no session, cannot log in or mint keys, and her agent
// counts as banned (its submit refused, off the board, out of the counts and
// first bloods), on the replica that banned her, on one that reads the ban
// from the change log, and as a fresh build reads it; unbanned, both boards
// are exactly as before. The replicas start after the agent played, so its
// attempts are in their snapshots: the ban must read its baseline too.
func TestBanCoversAgents(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	pam, pat, root := f.as("pam"), f.as("pat"), f.as("root")
	bot, err := f.svc.Agents.Create(ctx, pam, NewAgent{Username: "pam-bot", Model: "m"})
	wantCode(t, "create the agent", err, "")
	_, secret, err := f.svc.Keys.Create(ctx, pam, NewAPIKey{Owner: bot.ID, Name: "run"})
	wantCode(t, "mint its key", err, "")
	botV, err := f.svc.Accounts.AuthenticateKey(ctx, secret)
	wantCode(t, "authenticate the agent", err, "")
	f.clock.Add(time.Minute)
	_, err = f.svc.Play.Submit(ctx, botV, "a", "flag{nope}")
	wantCode(t, "the agent's wrong flag", err, ctf.Invalid)
	for _, p := range []struct {
		v          ctf.Viewer
		slug, flag string
	}{{botV, "a", "flag{a}"}, {botV, "b", "flag{b}"}, {pat, "a", "flag{a}"}, {pat, "b", "flag{b}"}} {
		f.clock.Add(time.Minute)
		_, err := f.svc.Play.Submit(ctx, p.v, p.slug, p.flag)
		wantCode(t, p.v.User.Username+" solves "+p.slug, err, "")
	}
	r, other := f.replica(), f.replica()
	login, err := r.Accounts.Login(ctx, Login{Username: "pam", Password: "pam-password", Address: "192.0.2.1"})
	wantCode(t, "pam logs in", err, "")
	board, list := boardJSON(r), listJSON(r)
	if !strings.Contains(board, `"username":"pam-bot"`) || r.Scoreboard.Profile(pat.ID()).FirstBloodCount != 0 {
		t.Fatalf("before the ban: %s", board)
	}

	_, err = r.Admin.SetBanned(ctx, root, pam.ID(), true, "")
	wantCode(t, "ban pam", err, "")
	wantCode(t, "the other replica reads the ban", other.Refresh(ctx), "")
	fresh := f.replica()
	for name, s := range map[string]*Service{"the banning replica": r, "the other replica": other} {
		if b := boardJSON(s); strings.Contains(b, "pam") || b != boardJSON(fresh) {
			t.Errorf("%s's board during the ban:\n%s\nrebuilt:\n%s", name, b, boardJSON(fresh))
		}
		if l := listJSON(s); l != listJSON(fresh) || l == list {
			t.Errorf("%s's challenge list during the ban:\n%s\nrebuilt:\n%s", name, l, listJSON(fresh))
		}
		if p := s.Scoreboard.Profile(pat.ID()); p.FirstBloodCount != 2 || p.Rank != 1 {
			t.Errorf("%s: pat has %d first bloods and rank %d, want 2 and 1", name, p.FirstBloodCount, p.Rank)
		}
		if p := s.Scoreboard.Profile(bot.ID); p.Rank != 0 {
			t.Errorf("%s: the agent ranks %d, want 0", name, p.Rank)
		}
		v, err := s.Accounts.AuthenticateKey(ctx, secret)
		wantCode(t, "the agent's key still reads", err, "")
		f.clock.Add(time.Minute)
		if _, err := s.Play.Submit(ctx, v, "a", "flag{again}"); !errors.Is(err, ErrBanned) {
			t.Errorf("%s: the agent of a banned owner submits: %v, want ErrBanned", name, err)
		}
		if _, err := s.Accounts.AuthenticateSession(ctx, login.Token); ctf.ErrorCode(err) != ctf.Unauthorized {
			t.Errorf("%s: a banned player's session authenticates: %v", name, err)
		}
		_, err = s.Accounts.Login(ctx, Login{Username: "pam", Password: "pam-password", Address: "192.0.2.1"})
		wantCode(t, name+": a banned player logs in", err, ctf.Forbidden)
		banned, _ := s.userByID(pam.ID())
		for _, c := range []struct {
			who   string
			v     ctf.Viewer
			owner string
		}{{"pam", ctf.Viewer{User: banned}, ""}, {"pam for her agent", ctf.Viewer{User: banned}, bot.ID}, {"the operator for the agent", ctf.Operator, bot.ID}} {
			_, _, err := s.Keys.Create(ctx, c.v, NewAPIKey{Owner: c.owner, Name: "k"})
			wantCode(t, name+": "+c.who+" mints a key", err, ctf.Forbidden)
		}
	}

	_, err = other.Admin.SetBanned(ctx, root, pam.ID(), false, "")
	wantCode(t, "unban pam", err, "")
	wantCode(t, "the banning replica reads the unban", r.Refresh(ctx), "")
	for name, s := range map[string]*Service{"the banning replica": r, "the other replica": other} {
		if b, l := boardJSON(s), listJSON(s); b != board || l != list {
			t.Errorf("%s after the unban:\n%s\n%s\nwant as before the ban:\n%s\n%s", name, b, l, board, list)
		}
		if _, err := s.Accounts.AuthenticateSession(ctx, login.Token); err != nil {
			t.Errorf("%s: pam's session after the unban: %v", name, err)
		}
	}
	if n := other.Rebuilds(); n != 1 {
		t.Errorf("the other replica built its state %d times, want once", n)
	}
}
