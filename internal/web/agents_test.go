package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
)

// TestAgentsInTheWebApp: a player creates an agent in settings, mints it a
// key shown once, the agent plays with it through the API, and the
// scoreboard marks it and can show everyone, people only or agents only;
// its profile shows its run. Another player cannot mint keys for it.
func TestAgentsInTheWebApp(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	pam := newBrowser(t, s)
	want(t, "agents signed out", pam.get("/settings/agents"), http.StatusSeeOther)
	pam.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})
	want(t, "agents page", pam.get("/settings/agents"), 200, "New agent", "up to 10 agents")
	want(t, "a model is required", pam.post("/settings/agents", url.Values{"username": {"pam-bot"}}), 400, "Model is required", `value="pam-bot"`)
	want(t, "a taken name", pam.post("/settings/agents", url.Values{"username": {"evil"}, "model": {"m"}}), 409, "already taken")
	made := pam.send("/settings/agents", url.Values{"username": {"pam-bot"}, "name": {"<b>Bot</b>"}, "model": {"claude-sonnet-4-5"}, "harness": {"react"}})
	want(t, "agent created", made, 200, "Agent pam-bot created", "model claude-sonnet-4-5", "harness react", "&lt;b&gt;Bot&lt;/b&gt;")
	agentID := regexp.MustCompile(`name="agent" value="([0-9a-f-]{36})"`).FindStringSubmatch(made.body)
	if agentID == nil {
		t.Fatal("no key form for the agent")
	}
	minted := pam.send("/settings/agents/keys", url.Values{"agent": {agentID[1]}, "name": {"run-1"}})
	want(t, "agent key", minted, 200, "The new key of <strong>pam-bot</strong>", "shown only this once", "/mcp --header")
	key := regexp.MustCompile(`<code id="newkey">(fsk_[a-z2-7]{8}_[a-z2-7]{52})</code>`).FindStringSubmatch(minted.body)
	if key == nil {
		t.Fatal("no key on the page")
	}
	if strings.Contains(pam.get("/settings/agents").body, key[1]) {
		t.Fatal("the agent's key is shown again")
	}

	// Another player can neither list nor mint keys for pam's agent.
	evil := newBrowser(t, s)
	evil.post("/login", url.Values{"username": {"evil"}, "password": {"evil-password"}})
	want(t, "someone else's agent", evil.send("/settings/agents/keys", url.Values{"agent": {agentID[1]}, "name": {"steal"}}), 200)
	if strings.Contains(evil.get("/settings/agents").body, "pam-bot") {
		t.Error("evil sees pam's agent in their settings")
	}

	// The agent plays under its own account.
	api := newBrowser(t, s)
	me := api.do("GET", "/api/public/me", nil, "Authorization: Bearer "+key[1])
	want(t, "the agent's key", me, 200, `"username":"pam-bot"`)
	postFlag(t, s, key[1], "warmup", "flag{warm}", 200)
	postFlag(t, s, s.Key("evil"), "warmup", "flag{warm}", 200)

	want(t, "everyone", pam.get("/scoreboard"), 200, "2 ranked players", `<span class="mark agent" title="an AI agent">agent</span>`, "pam-bot")
	people := pam.get("/scoreboard?who=people")
	want(t, "people", people, 200, "1 ranked people", "@evil")
	if strings.Contains(people.body, "@pam-bot") {
		t.Error("the people-only board lists the agent")
	}
	// evil is second of all and first of the people: a view ranks within.
	if !strings.Contains(people.body, "<td>1</td>") || strings.Contains(people.body, "<td>2</td>") {
		t.Error("the people-only board does not rank its players among themselves")
	}
	want(t, "a page past the end", pam.get("/scoreboard?page=9"), 200, "There is no page 9: the scoreboard has 1 page.", "Go to the last page")
	agents := pam.get("/scoreboard?who=agents")
	want(t, "agents", agents, 200, "1 ranked agents", "@pam-bot", `<td>1</td>`)
	if strings.Contains(agents.body, "@evil") {
		t.Error("the agents-only board lists a person")
	}

	// pam's own flags through the web app's form and through the API with
	// her session cookie are recorded as the web door's, with no key.
	want(t, "pam's wrong flag", pam.send("/challenges/warmup/submit", url.Values{"flag": {"flag{nope}"}}), 200)
	req, _ := http.NewRequest("POST", s.URL+"/api/public/challenges/warmup/submit", strings.NewReader(`{"flag":"flag{cookie}"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if resp, err := pam.c.Do(req); err != nil || resp.StatusCode != 400 {
		t.Fatalf("a wrong flag over the API with the cookie: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	if got := pam.send("/challenges/warmup/submit", url.Values{"flag": {"flag{warm}"}}); got.status != 200 {
		t.Fatalf("pam's solve: %d", got.status)
	}
	history, err := s.DB.Play().Submissions(context.Background(), mustUser(t, s, "pam"))
	if err != nil || len(history) != 3 {
		t.Fatalf("pam's history %+v %v", history, err)
	}
	for _, h := range history {
		if h.Door != ctf.DoorWeb || h.KeyID != "" {
			t.Errorf("a web submission recorded as %+v", h)
		}
	}

	// The agent's profile shows its run beside the first person's time.
	profile := pam.get("/users/" + mustUser(t, s, "pam-bot"))
	want(t, "agent profile", profile, 200, "run by @pam", "model claude-sonnet-4-5", "<h2 id=\"run-h\">Run</h2>", "</svg> yes")
	if p := pam.get("/users/" + mustUser(t, s, "evil")); strings.Contains(p.body, "run-h") {
		t.Error("a person's profile shows an agent's run")
	}
}

func postFlag(t *testing.T, s *apitest.Server, key, slug, flag string, status int) {
	t.Helper()
	r := s.Do("POST", "/api/public/challenges/"+slug+"/submit", []byte(`{"flag":"`+flag+`"}`), apitest.Bearer(key), "Content-Type: application/json")
	if r.Status != status {
		t.Fatalf("submit %s to %s: %d %s, want %d", flag, slug, r.Status, r.Body, status)
	}
}
