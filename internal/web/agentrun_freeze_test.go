package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
)

// agentEvent is adminEvent with an agent of pam's.
var agentEvent = strings.Replace(adminEvent, "challenges:\n",
	"  - {username: pam-bot, kind: agent, owner: pam, model: claude-sonnet-4-5}\nchallenges:\n", 1)

// TestAgentRunKeepsTheFreeze: during a freeze, an agent's public page shows
// its run as the public standings stand: a solve the freeze holds back is
// not shown as solved (nor its time, nor the tries made since the freeze)
// to visitors and other players, while the agent's owner and the admins
// see it, as a player sees their own held solves. After the unfreeze
// everyone sees it.
func TestAgentRunKeepsTheFreeze(t *testing.T) {
	t.Parallel()
	clk := newTestClock()
	s := apitest.Start(t, agentEvent, apitest.Options{Now: clk.now})
	ctx := context.Background()
	bot := s.Key("pam-bot")
	freeze := clk.now().Add(-time.Hour)
	if _, err := s.Svc.Event.Set(ctx, ctf.Operator, ctf.Event{Freeze: &freeze}); err != nil {
		t.Fatal(err)
	}
	postFlag(t, s, bot, "warmup", "flag{nope}", 400)
	clk.add(time.Minute)
	postFlag(t, s, bot, "warmup", "flag{warm}", 200)

	profile := "/users/" + mustUser(t, s, "pam-bot")
	visitor, evil, pam, root := newBrowser(t, s), logIn(t, s, "evil"), logIn(t, s, "pam"), logIn(t, s, "root")
	for _, c := range []struct {
		who  string
		b    *browser
		sees bool
	}{
		{"a visitor", visitor, false},
		{"another player", evil, false},
		{"the agent's owner", pam, true},
		{"an admin", root, true},
	} {
		p := c.b.get(profile)
		want(t, c.who, p, 200, `<h2 id="run-h">Run</h2>`)
		if got := strings.Contains(p.body, "</svg> yes"); got != c.sees {
			t.Errorf("%s sees the held solve as solved: %v, want %v", c.who, got, c.sees)
		}
		// The row of warmup: its tries (2, or 0 before the freeze) and time.
		row := warmupRow(p.body)
		if held := strings.Contains(row, "<td>2</td>"); held != c.sees {
			t.Errorf("%s sees the tries made since the freeze: %v, want %v\n%s", c.who, held, c.sees, row)
		}
	}

	if err := s.Svc.Event.Unfreeze(ctx, ctf.Operator); err != nil {
		t.Fatal(err)
	}
	want(t, "a visitor after the unfreeze", visitor.get(profile), 200, "</svg> yes")
}

// warmupRow is the run table's row of warmup on an agent's page.
func warmupRow(body string) string {
	_, after, ok := strings.Cut(body, `<tr><td><a href="/challenges/warmup">`)
	if !ok {
		return ""
	}
	row, _, _ := strings.Cut(after, "</tr>")
	return row
}
