package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/store"
)

// TestBanCoversThePersonAndTheirAgents (docs/product.md#banning: "A ban covers the
// person: their agents are treated as banned too, and a banned user mints no
// keys"), over HTTP on two replicas of one database: once pam is banned her
// session stops, she cannot log in (403 once her password is right, the
// usual 401 when it is not) nor mint keys for herself or her agent (web and
// use case), her agent's submit is 403 and it leaves the board, the counts
// and its first blood on both replicas; unbanned, everything is back
// exactly as before.
func TestBanCoversThePersonAndTheirAgents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := apitest.Start(t, agentEvent)
	b := a.Replica(store.RateLimit{Max: 10, Window: time.Minute})
	bot, evil := a.Key("pam-bot"), a.Key("evil")
	postFlag(t, a, bot, "warmup", "flag{nope}", 400)
	postFlag(t, a, bot, "warmup", "flag{warm}", 200) // first blood
	postFlag(t, a, evil, "warmup", "flag{warm}", 200)
	pamID, botID, evilID := mustUser(t, a, "pam"), mustUser(t, a, "pam-bot"), mustUser(t, a, "evil")
	pam, root := logIn(t, a, "pam"), logIn(t, a, "root")
	b.Sync()

	// The public reads that a ban moves, as each replica serves them.
	reads := []string{"/api/public/leaderboard", "/api/public/challenges/warmup", "/api/public/challenges",
		"/api/public/profiles/" + botID, "/api/public/profiles/" + evilID}
	public := func(s *apitest.Server) map[string]string {
		out := map[string]string{}
		for _, path := range reads {
			r := s.Do("GET", path, nil)
			if r.Status != 200 {
				t.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
			}
			out[path] = string(r.Body)
		}
		return out
	}
	before := public(a)
	if !strings.Contains(before["/api/public/leaderboard"], `"username":"pam-bot"`) {
		t.Fatalf("the agent is not on the board before the ban: %s", before["/api/public/leaderboard"])
	}

	want(t, "ban", root.send("/admin/users/pam/ban", url.Values{"reason": {"shared flags"}}), 200, "Banned pam", "shared flags")
	b.Sync()
	// The admin pages say the agent is banned with its owner (its own row
	// is not).
	want(t, "the users list", root.get("/admin/users?q=pam-bot"), 200, `<span class="mark lock">banned</span> <span class="hint">with its owner</span>`)
	want(t, "the agent's page", root.get("/admin/players/pam-bot"), 200, `<span class="mark lock">banned</span> with its owner`)
	for _, s := range []*apitest.Server{a, b} {
		r := s.Do("POST", "/api/public/challenges/next/submit", []byte(`{"flag":"flag{next}"}`), apitest.Bearer(bot), "Content-Type: application/json")
		if r.Status != 403 || !strings.Contains(string(r.Body), "banned") {
			t.Fatalf("the agent of a banned owner submits: %d %s, want 403 banned", r.Status, r.Body)
		}
		board := public(s)
		if lb := board["/api/public/leaderboard"]; strings.Contains(lb, "pam-bot") || !strings.Contains(lb, `"username":"evil"`) {
			t.Errorf("the board during the ban: %s", lb)
		}
		for path, fragment := range map[string]string{
			"/api/public/challenges/warmup":  `"solvesCount":1`,
			"/api/public/profiles/" + botID:  `"rank":0`,
			"/api/public/profiles/" + evilID: `"firstBloodCount":1`,
		} {
			if !strings.Contains(board[path], fragment) {
				t.Errorf("%s during the ban lacks %s: %s", path, fragment, board[path])
			}
		}
		if !strings.Contains(board["/api/public/challenges/warmup"], `"attemptsCount":1,`) {
			t.Errorf("the agent's attempts still count: %s", board["/api/public/challenges/warmup"])
		}
	}

	// No session, no login, no keys.
	if p := pam.get("/settings"); p.status != http.StatusSeeOther || !strings.HasPrefix(p.header.Get("Location"), "/login") {
		t.Errorf("a banned player's session still opens settings: %d %s", p.status, p.header.Get("Location"))
	}
	if p := pam.post("/settings/keys", url.Values{"name": {"sneaky"}}); p.status == 200 || strings.Contains(p.body, "newkey") {
		t.Errorf("a banned player mints a key on the web: %d", p.status)
	}
	want(t, "banned login", newBrowser(t, a).send("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}}),
		200, "Your account is banned: shared flags.")
	if p := newBrowser(t, a).send("/login", url.Values{"username": {"pam"}, "password": {"wrong-password"}}); !strings.Contains(p.body, "Wrong username or password") ||
		strings.Contains(p.body, "banned") {
		t.Errorf("a wrong password for a banned account must read as any wrong password:\n%.2000s", p.body)
	}
	pamUser := ctf.User{ID: pamID, Username: "pam", Banned: true}
	for _, c := range []struct {
		who   string
		v     ctf.Viewer
		owner string
	}{
		{"pam for herself", ctf.Viewer{User: &pamUser}, ""},
		{"pam for her agent", ctf.Viewer{User: &pamUser}, botID},
		{"the operator for pam", ctf.Operator, pamID},
		{"the operator for pam's agent", ctf.Operator, botID},
	} {
		if _, _, err := a.Svc.Keys.Create(ctx, c.v, platform.NewAPIKey{Owner: c.owner, Name: "k"}); ctf.ErrorCode(err) != ctf.Forbidden {
			t.Errorf("%s mints a key during the ban: %v", c.who, err)
		}
	}

	want(t, "unban", root.send("/admin/users", url.Values{"id": {pamID}, "action": {"unban"}}), 200, "Unbanned pam")
	b.Sync()
	for i, s := range []*apitest.Server{a, b} {
		after := public(s)
		for _, path := range reads {
			if after[path] != before[path] {
				t.Errorf("replica %d, %s after the unban:\n%s\nwant as before the ban:\n%s", i, path, after[path], before[path])
			}
		}
	}
	logIn(t, a, "pam")
	postFlag(t, b, bot, "next", "flag{next}", 200)
}
