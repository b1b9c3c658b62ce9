package platform

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
)

// TestAgents: a person creates agents and mints their keys; the rules of
// docs/product.md#agents hold (an agent is owned, never an admin, owns nothing, cannot
// log in); another replica sees the agent without a rebuild; a run reports
// the agent's attempts beside the first person's solve.
func TestAgents(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	pam, pat := f.as("pam"), f.as("pat")
	other := f.replica()
	rebuilds := other.Rebuilds()

	for _, c := range []struct {
		label string
		v     ctf.Viewer
		in    NewAgent
		code  ctf.Code
	}{
		{"anonymous", ctf.Viewer{}, NewAgent{Username: "bot", Model: "m"}, ctf.Unauthorized},
		{"no model", pam, NewAgent{Username: "bot"}, ctf.Invalid},
		{"bad username", pam, NewAgent{Username: "b", Model: "m"}, ctf.Invalid},
		{"taken username", pam, NewAgent{Username: "pat", Model: "m"}, ctf.Conflict},
		{"for another person", pat, NewAgent{Owner: pam.ID(), Username: "bot", Model: "m"}, ctf.Forbidden},
		{"an operator needs an owner", ctf.Operator, NewAgent{Username: "bot", Model: "m"}, ctf.Invalid},
	} {
		_, err := f.svc.Agents.Create(ctx, c.v, c.in)
		wantCode(t, c.label, err, c.code)
	}
	bot, err := f.svc.Agents.Create(ctx, pam, NewAgent{Username: " pam-bot ", Model: " claude-sonnet-4-5 ", Harness: "react"})
	wantCode(t, "create", err, "")
	if bot.Username != "pam-bot" || bot.Model != "claude-sonnet-4-5" || bot.OwnerID != pam.ID() || !bot.IsAgent() || bot.Role != ctf.RolePlayer {
		t.Fatalf("agent %+v", bot)
	}
	botV := f.as("pam-bot")
	_, err = f.svc.Agents.Create(ctx, botV, NewAgent{Username: "sub-bot", Model: "m"})
	wantCode(t, "an agent creates an agent", err, ctf.Forbidden)
	_, err = f.svc.Accounts.Login(ctx, Login{Username: "pam-bot", Password: "", Address: "127.0.0.1"})
	wantCode(t, "an agent logs in", err, ctf.Unauthorized)

	// Keys: the owner mints them, another player cannot.
	_, secret, err := f.svc.Keys.Create(ctx, pam, NewAPIKey{Owner: bot.ID, Name: "run-1"})
	wantCode(t, "owner mints the agent's key", err, "")
	_, _, err = f.svc.Keys.Create(ctx, pat, NewAPIKey{Owner: bot.ID, Name: "steal"})
	wantCode(t, "another player mints the agent's key", err, ctf.Forbidden)
	_, err = f.svc.Agents.List(ctx, pat, pam.ID())
	wantCode(t, "another player lists the agents", err, ctf.Forbidden)
	list, err := f.svc.Agents.List(ctx, pam, "")
	if err != nil || len(list) != 1 || list[0].ID != bot.ID || len(list[0].Keys) != 1 {
		t.Fatalf("agents %+v %v", list, err)
	}

	// The other replica learns of the agent and its key from the change
	// log, without rebuilding its state.
	if err := other.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	v, err := other.Accounts.AuthenticateKey(ctx, secret)
	if err != nil || v.ID() != bot.ID || !v.User.IsAgent() {
		t.Fatalf("the other replica authenticates the agent: %+v %v", v, err)
	}
	if other.Rebuilds() != rebuilds {
		t.Errorf("the other replica rebuilt its state for an agent")
	}

	// The agent plays; its run reports attempts and times beside pam's
	// (the first person's) solve of a.
	f.clock.Add(time.Minute)
	_, err = f.svc.Play.Submit(ctx, v, "a", "flag{nope}")
	wantCode(t, "wrong", err, ctf.Invalid)
	f.clock.Add(time.Minute)
	if _, err := f.svc.Play.Submit(ctx, v, "a", "flag{a}"); err != nil {
		t.Fatal(err)
	}
	run, err := f.svc.Agents.Run(ctx, ctf.Viewer{}, "pam-bot")
	if err != nil {
		t.Fatal(err)
	}
	a := run.Challenges[0]
	if run.Owner != "pam" || len(run.Challenges) != 2 || a.Slug != "a" || !a.Solved || a.Attempts != 2 || a.TimeToSolve == nil ||
		a.HumanTimeToSolve == nil || *a.HumanTimeToSolve != 4*24*time.Hour+10*time.Hour || run.Challenges[1].Solved {
		t.Fatalf("run %+v", run)
	}
	if len(run.Attempts) != 2 || run.Attempts[0].Correct || !run.Attempts[1].Correct || run.Attempts[1].Door != ctf.DoorAPI ||
		run.Attempts[1].KeyID != v.KeyID {
		t.Fatalf("attempts %+v", run.Attempts)
	}
	_, err = f.svc.Agents.Run(ctx, ctf.Viewer{}, "pam")
	wantCode(t, "a person's run", err, ctf.NotFound)

	// On the board like a player; filtered views keep the board's ranks.
	total, page := f.svc.Scoreboard.LeaderboardPageOf(live.AgentsOnly, 0, 10, false)
	if total != 1 || page[0].Username != "pam-bot" || !page[0].Agent {
		t.Fatalf("agents board %d %+v", total, page)
	}
	total, page = f.svc.Scoreboard.LeaderboardPageOf(live.People, 0, 10, false)
	if total != 1 || page[0].Username != "pam" || page[0].Agent {
		t.Fatalf("people board %d %+v", total, page)
	}
	if place := f.svc.Scoreboard.PlaceAmong(live.AgentsOnly, bot.ID); place != 0 {
		t.Errorf("the agent's place among agents: %d", place)
	}

	// At most ctf.MaxAgentsPerOwner agents a person.
	for i := 1; i < ctf.MaxAgentsPerOwner; i++ {
		_, err := f.svc.Agents.Create(ctx, pam, NewAgent{Username: fmt.Sprint("pam-bot-", i), Model: "m"})
		wantCode(t, "agent", err, "")
	}
	_, err = f.svc.Agents.Create(ctx, pam, NewAgent{Username: "one-too-many", Model: "m"})
	wantCode(t, "one agent too many", err, ctf.Conflict)
	// The operator makes agents for anyone, audited.
	_, err = f.svc.Agents.Create(ctx, ctf.Operator, NewAgent{Owner: pat.ID(), Username: "pat-bot", Model: "m"})
	wantCode(t, "operator", err, "")
	log, err := f.svc.Admin.AuditLog(ctx, ctf.Operator, 0, 10)
	if err != nil || len(log) == 0 || log[0].Action != "agent.create" || log[0].Target != "pat-bot" {
		t.Fatalf("audit log %+v %v", log, err)
	}
}

// TestAgentRunDuringAFreeze: the solves and attempts a freeze holds back
// show on an agent's run to the agent, its owner and admins, and to no one
// else (seesHeld, the rule of the profiles); after the unfreeze, to all.
func TestAgentRunDuringAFreeze(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	pam, root := f.as("pam"), f.as("root")
	bot, err := f.svc.Agents.Create(ctx, pam, NewAgent{Username: "pam-bot", Model: "m"})
	wantCode(t, "create", err, "")
	_, secret, err := f.svc.Keys.Create(ctx, pam, NewAPIKey{Owner: bot.ID, Name: "run"})
	wantCode(t, "key", err, "")
	botV, err := f.svc.Accounts.AuthenticateKey(ctx, secret)
	wantCode(t, "authenticate", err, "")
	_, err = f.svc.Play.Submit(ctx, botV, "a", "flag{nope}")
	wantCode(t, "wrong before the freeze", err, ctf.Invalid)
	f.clock.Add(time.Minute)
	freeze := f.clock.Now()
	_, err = f.svc.Event.Set(ctx, root, ctf.Event{Freeze: &freeze})
	wantCode(t, "freeze", err, "")
	f.clock.Add(time.Minute)
	_, err = f.svc.Play.Submit(ctx, botV, "a", "flag{nope2}")
	wantCode(t, "wrong during the freeze", err, ctf.Invalid)
	_, err = f.svc.Play.Submit(ctx, botV, "a", "flag{a}")
	wantCode(t, "held solve", err, "")

	for _, c := range []struct {
		who  string
		v    ctf.Viewer
		sees bool
	}{
		{"anonymous", ctf.Viewer{}, false},
		{"another player", f.as("pat"), false},
		{"the agent", botV, true},
		{"its owner", pam, true},
		{"an admin", root, true},
		{"the operator", ctf.Operator, true},
	} {
		run, err := f.svc.Agents.Run(ctx, c.v, "pam-bot")
		wantCode(t, c.who, err, "")
		a := run.Challenges[0]
		want := live.RunChallenge{Attempts: 1}
		if c.sees {
			want = live.RunChallenge{Solved: true, Attempts: 3}
		}
		if a.Solved != want.Solved || a.Attempts != want.Attempts || (a.SolvedAt != nil) != want.Solved ||
			(a.TimeToSolve != nil) != want.Solved || len(run.Attempts) != want.Attempts {
			t.Errorf("%s sees a as %+v with %d attempts, want solved %v and %d attempts", c.who, a, len(run.Attempts), want.Solved, want.Attempts)
		}
	}
	wantCode(t, "unfreeze", f.svc.Event.Unfreeze(ctx, root), "")
	if run, _ := f.svc.Agents.Run(ctx, ctf.Viewer{}, "pam-bot"); !run.Challenges[0].Solved || len(run.Attempts) != 3 {
		t.Errorf("after the unfreeze: %+v", run.Challenges[0])
	}
}
