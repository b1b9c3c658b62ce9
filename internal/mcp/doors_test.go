package mcp_test

import (
	"context"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/store/storetest"
	"github.com/flagshipctf/flagship/internal/transfer"
)

// TestRESTAndMCPAreOneAttempt: one player's submissions through the API and
// through MCP, interleaved, are counted, rate-limited and recorded exactly
// as if one door had been used, and each notes its door and key.
func TestRESTAndMCPAreOneAttempt(t *testing.T) {
	t.Parallel()
	s := start(t, store.RateLimit{Max: 4, Window: time.Minute})
	restKey, mcpKey := s.Key("alice"), s.Key("alice")
	rest := apitest.Bearer(restKey)
	cs := connect(t, s.URL, &keyed{header: "X-API-Key", key: mcpKey})
	restSubmit := func(slug, flag string) int {
		return s.Do("POST", "/api/public/challenges/"+slug+"/submit", []byte(`{"flag":"`+flag+`"}`), rest, "Content-Type: application/json").Status
	}
	base := attempts(t, s, "pwnme")
	if got := restSubmit("pwnme", "wrong-1"); got != 400 {
		t.Fatalf("REST wrong: %d", got)
	}
	if o := submit(t, cs, "pwnme", "wrong-2"); o.Outcome != "wrong" {
		t.Fatalf("MCP wrong: %+v", o)
	}
	if got := restSubmit("pwnme", "wrong-3"); got != 400 {
		t.Fatalf("REST wrong: %d", got)
	}
	if o := submit(t, cs, "pwnme", "wrong-4"); o.Outcome != "wrong" {
		t.Fatalf("MCP wrong: %+v", o)
	}
	// Four wrong flags through two doors use up one limit of four.
	if o := submit(t, cs, "pwnme", "flag{1234}"); o.Outcome != "rate_limited" {
		t.Errorf("MCP fifth try: %+v, want rate_limited", o)
	}
	if got := restSubmit("pwnme", "flag{1234}"); got != 429 {
		t.Errorf("REST fifth try: %d, want 429", got)
	}
	if got := attempts(t, s, "pwnme"); got != base+4 {
		t.Errorf("attemptsCount %d, want %d", got, base+4)
	}

	// First blood is decided once, whichever door: bob takes it over REST,
	// alice's MCP solve of the same challenge comes second.
	bob := apitest.Bearer(s.Key("bob"))
	for _, slug := range []string{"warmup", "next"} {
		got := s.Do("POST", "/api/public/challenges/"+slug+"/submit", []byte(`{"flag":"flag{`+map[string]string{"warmup": "warm", "next": "next"}[slug]+`}"}`),
			bob, "Content-Type: application/json")
		if got.Status != 200 || (slug == "next") != strings.Contains(string(got.Body), `"first-blood"`) {
			t.Fatalf("bob's REST solve of %s: %d %s", slug, got.Status, got.Body)
		}
	}
	if o := submit(t, cs, "warmup", "flag{warm}"); o.Outcome != "correct" {
		t.Fatalf("alice's MCP solve of warmup: %+v", o)
	}
	o := submit(t, cs, "next", "flag{next}")
	for _, b := range o.NewBadges {
		if b.ID == "first-blood" {
			t.Errorf("alice's MCP solve after bob's REST solve also got first blood: %+v", o)
		}
	}
	if got := restSubmit("next", "flag{next}"); got != 409 {
		t.Errorf("REST after the MCP solve: %d, want 409", got)
	}

	// The history notes each door and key.
	alice, err := s.DB.Accounts().UserByUsername(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	history, err := s.DB.Play().Submissions(context.Background(), alice.ID)
	if err != nil {
		t.Fatal(err)
	}
	restID, mcpID := keyID(t, s, restKey), keyID(t, s, mcpKey)
	want := []struct {
		door    ctf.Door
		key     string
		correct bool
	}{{ctf.DoorAPI, restID, false}, {ctf.DoorMCP, mcpID, false}, {ctf.DoorAPI, restID, false}, {ctf.DoorMCP, mcpID, false}, {ctf.DoorMCP, mcpID, true}, {ctf.DoorMCP, mcpID, true}}
	if len(history) != len(want) {
		t.Fatalf("history %+v, want %d entries", history, len(want))
	}
	for i, w := range want {
		if h := history[i]; h.Door != w.door || h.KeyID != w.key || h.Correct != w.correct {
			t.Errorf("history[%d] = %+v, want door %s key %s correct %v", i, h, w.door, w.key, w.correct)
		}
	}

	// dump | load keeps each submission's door and key.
	ds, err := transfer.Dump(context.Background(), s.DB)
	if err != nil {
		t.Fatal(err)
	}
	fresh := storetest.Open(t)
	if _, err := transfer.Load(context.Background(), fresh, ds); err != nil {
		t.Fatal(err)
	}
	again, err := fresh.Play().Submissions(context.Background(), alice.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, history) {
		t.Errorf("after dump | load:\n%+v\nwant\n%+v", again, history)
	}
}

func keyID(t *testing.T, s *apitest.Server, key string) string {
	t.Helper()
	return mustAuth(t, s.Svc, key).KeyID
}

// TestStatelessAcrossReplicas: one agent's requests go to two replicas in
// turn, with no session affinity, and every call works.
func TestStatelessAcrossReplicas(t *testing.T) {
	t.Parallel()
	a := start(t, store.RateLimit{Max: 10, Window: time.Minute})
	key := a.Key("bob")
	b := a.Replica(store.RateLimit{Max: 10, Window: time.Minute})
	ua, _ := url.Parse(a.URL)
	ub, _ := url.Parse(b.URL)
	rt := &keyed{header: "Authorization", key: key, hosts: []string{ua.Host, ub.Host}}
	cs := connect(t, a.URL, rt)
	for i := range 3 {
		var l list
		if res := call(t, cs, "list_challenges", nil, &l); res.IsError || l.Count != 3 {
			t.Fatalf("list_challenges #%d: %s %+v", i, text(res), l)
		}
	}
	if o := submit(t, cs, "pwnme", "wrong"); o.Outcome != "wrong" {
		t.Fatalf("wrong: %+v", o)
	}
	if o := submit(t, cs, "pwnme", "flag{7777}"); o.Outcome != "correct" {
		t.Fatalf("correct: %+v", o)
	}
	a.Sync()
	b.Sync()
	if o := submit(t, cs, "pwnme", "flag{7777}"); o.Outcome != "already_solved" {
		t.Errorf("again on the other replica: %+v", o)
	}
	if o := submit(t, cs, "pwnme", "flag{7777}"); o.Outcome != "already_solved" {
		t.Errorf("again on the first replica: %+v", o)
	}
	for _, r := range []*apitest.Server{a, b} {
		if got := attempts(t, r, "pwnme"); got != 2 {
			t.Errorf("%s: attemptsCount %d, want 2", r.URL, got)
		}
	}
	if n := rt.n.Load(); n < 8 {
		t.Errorf("only %d requests were made", n)
	}
}
