package bench

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/secret"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/synth"
)

// call is one prepared request; a POST's body is rewound before each use.
type call struct {
	r       *http.Request
	body    *bytes.Reader
	payload []byte
}

func get(path string, headers ...string) *call {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		r.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	return &call{r: r}
}

func post(path, payload string, headers ...string) *call {
	c := &call{payload: []byte(payload)}
	c.body = bytes.NewReader(c.payload)
	c.r = httptest.NewRequest(http.MethodPost, path, c.body)
	c.r.Body = io.NopCloser(c.body)
	c.r.Header.Set("Content-Type", "application/json")
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		c.r.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	return c
}

func bearer(key string) string { return "Authorization: Bearer " + key }

func (c *call) do(h http.Handler, w *Discard) {
	if c.body != nil {
		c.body.Reset(c.payload)
	}
	w.Reset()
	h.ServeHTTP(w, c.r)
}

// etag fetches the current ETag of path.
func etag(e *Env, path string) string {
	w := NewDiscard()
	get(path).do(e.Handler, w)
	return w.Header().Get("ETag")
}

// A scenario is one benchmarked endpoint: the requests it rotates through
// and the status every one must get.
type scenario struct {
	want  int
	calls func(e *Env) []*call
}

const (
	leaderboard = "/api/public/leaderboard"
	challenges  = "/api/public/challenges"
)

var scenarios = map[string]scenario{
	"LeaderboardAnon":       {200, func(e *Env) []*call { return []*call{get(leaderboard)} }},
	"LeaderboardGzip":       {200, func(e *Env) []*call { return []*call{get(leaderboard, "Accept-Encoding: gzip, deflate, br")} }},
	"LeaderboardTop100":     {200, func(e *Env) []*call { return []*call{get(leaderboard + "?limit=100")} }},
	"LeaderboardTop100Gzip": {200, func(e *Env) []*call { return []*call{get(leaderboard+"?limit=100", "Accept-Encoding: gzip")} }},
	"LeaderboardNotModified": {304, func(e *Env) []*call {
		return []*call{get(leaderboard, "If-None-Match: "+etag(e, leaderboard))}
	}},
	"ChallengesAnon":     {200, func(e *Env) []*call { return []*call{get(challenges)} }},
	"ChallengesAnonGzip": {200, func(e *Env) []*call { return []*call{get(challenges, "Accept-Encoding: gzip")} }},
	"ChallengesNotModified": {304, func(e *Env) []*call {
		return []*call{get(challenges, "If-None-Match: "+etag(e, challenges))}
	}},
	"ChallengesAuth": {200, func(e *Env) []*call {
		var out []*call
		for _, k := range e.Keys {
			out = append(out, get(challenges, bearer(k.Secret)))
		}
		return out
	}},
	"ChallengesAuthGzip": {200, func(e *Env) []*call {
		var out []*call
		for _, k := range e.Keys {
			out = append(out, get(challenges, bearer(k.Secret), "Accept-Encoding: gzip"))
		}
		return out
	}},
	"ChallengeDetailAuth": {200, func(e *Env) []*call {
		var out []*call
		for i, k := range e.Keys {
			out = append(out, get(challenges+"/"+e.Slugs[(i*7)%len(e.Slugs)], bearer(k.Secret)))
		}
		return out
	}},
	"ChallengeDetailAnon": {200, func(e *Env) []*call {
		var out []*call
		for _, s := range e.Slugs {
			out = append(out, get(challenges+"/"+s))
		}
		return out
	}},
	"Me": {200, func(e *Env) []*call {
		var out []*call
		for _, k := range e.Keys {
			out = append(out, get("/api/public/me", bearer(k.Secret)))
		}
		return out
	}},
	"ProfilePublic": {200, func(e *Env) []*call {
		var out []*call
		for _, id := range e.UserIDs {
			out = append(out, get("/api/public/profiles/"+id))
		}
		return out
	}},
	"Writeups": {200, func(e *Env) []*call {
		var out []*call
		for i, k := range e.Keys {
			for j, s := range e.Solved[i] {
				if j >= 5 {
					break
				}
				out = append(out, get(challenges+"/"+s+"/writeups", bearer(k.Secret)))
			}
		}
		return out
	}},
	// Wrong submissions rotate over (player, challenge) pairs that are
	// unlocked and unsolved, so the default rate limit (10 wrong per user
	// and challenge per minute) stays on and is checked but never reached:
	// a 429 fails the benchmark.
	"SubmitWrong": {400, func(e *Env) []*call {
		var out []*call
		for _, t := range e.Wrong {
			out = append(out, post(challenges+"/"+t.Slug+"/submit", `{"flag":"flag{not_it_at_all}"}`, bearer(t.Key)))
		}
		return out
	}},
	// Correct submissions use the other half of the keys, and each target
	// only once: a second pass would be 409s.
	"SubmitCorrect": {200, func(e *Env) []*call {
		var out []*call
		for _, t := range e.Correct {
			out = append(out, post(challenges+"/"+t.Slug+"/submit", `{"flag":"`+t.Flag+`"}`, bearer(t.Key)))
		}
		return out
	}},
	"Health": {200, func(e *Env) []*call { return []*call{get("/api/public/health")} }},

	// The web app's pages, built from the hot state.
	"WebBoardAnon": {200, func(e *Env) []*call { return []*call{get("/")} }},
	"WebBoardPlayer": {200, func(e *Env) []*call {
		var out []*call
		for _, c := range sessionCookies(e) {
			out = append(out, get("/", c))
		}
		return out
	}},
	"WebChallengePlayer": {200, func(e *Env) []*call {
		var out []*call
		for i, c := range sessionCookies(e) {
			out = append(out, get("/challenges/"+e.Slugs[(i*7)%len(e.Slugs)], c))
		}
		return out
	}},
	"WebScoreboard":      {200, func(e *Env) []*call { return []*call{get("/scoreboard")} }},
	"WebScoreboardPage9": {200, func(e *Env) []*call { return []*call{get("/scoreboard?page=9")} }},
}

// sessionCookies opens a web session for each keyed player (at most 100)
// and returns their Cookie headers.
func sessionCookies(e *Env) []string {
	ctx := context.Background()
	var out []string
	for i, k := range e.Keys {
		if i == 100 {
			break
		}
		token, hash := secret.NewSessionToken()
		now := time.Now()
		if _, err := e.DB.Accounts().CreateSession(ctx, ctf.Session{IDHash: hash, UserID: k.UserID, CreatedAt: now, ExpiresAt: now.Add(time.Hour), LastSeenAt: now}); err != nil {
			panic(err)
		}
		out = append(out, "Cookie: flagship_session="+token)
	}
	if err := e.Svc.Refresh(ctx); err != nil {
		panic(err)
	}
	return out
}

// TestScenariosTiny runs every benchmarked request once against a tiny
// event, so a plain `go test` keeps the benchmarks' requests honest in a
// second or two.
func TestScenariosTiny(t *testing.T) {
	cfg := synth.Config{Players: 60, Challenges: 14, Solves: 300, Attempts: 1500, Seed: 3, Keys: 12}
	d, err := newDatabase(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Drop(); err != nil {
			t.Error(err)
		}
	})
	t.Logf("backend: %s %s", d.Backend, d.Name)
	e, err := Build(context.Background(), d, cfg, store.RateLimit{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	w := NewDiscard()
	for name, sc := range scenarios {
		calls := sc.calls(e)
		if len(calls) == 0 {
			t.Errorf("%s: no requests", name)
			continue
		}
		for i, c := range calls[:min(len(calls), 3)] {
			c.do(e.Handler, w)
			if w.Status != sc.want {
				t.Errorf("%s #%d %s %s: status %d, want %d", name, i, c.r.Method, c.r.URL, w.Status, sc.want)
			}
			if w.Status == 200 && w.Bytes == 0 {
				t.Errorf("%s: empty body", name)
			}
		}
	}
}
