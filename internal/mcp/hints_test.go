package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/store"
)

// The hints of these tests, each a string found nowhere else.
const (
	hintPadding = "Look at the padding (secret-mcp-one)."
	hintPrimes  = "The primes are close (secret-mcp-two)."
	hintNext    = "Behind warmup (secret-mcp-next)."
)

// hint reads a tool's hint: the API's shape.
type hint = live.HintView

// startHinted is the test event plus hinted (100 points, flag{hinted}:
// hint 1 costs 30, hint 2 costs 20 and requires 1), and a hint on next,
// which is locked behind warmup.
func startHinted(t *testing.T) *apitest.Server {
	t.Helper()
	s := start(t, store.RateLimit{})
	ctx := context.Background()
	if _, err := s.Svc.Content.SaveChallenge(ctx, ctf.Operator, platform.ChallengeInput{Slug: "hinted", Title: "Hinted",
		Categories: []string{"crypto"}, Difficulty: ctf.Easy, Points: 100, Flags: []ctf.Flag{{Kind: ctf.FlagStatic, Content: "flag{hinted}"}},
		Hints: []ctf.Hint{{ID: 1, Content: hintPadding, Cost: 30}, {ID: 2, Content: hintPrimes, Cost: 20, Requires: 1}}}); err != nil {
		t.Fatal(err)
	}
	next, err := s.Svc.Content.ChallengeForEdit(ctx, ctf.Operator, "next")
	if err != nil {
		t.Fatal(err)
	}
	next.Hints = []ctf.Hint{{ID: 1, Content: hintNext, Cost: 10}}
	if _, err := s.Svc.Content.SaveChallenge(ctx, ctf.Operator, next); err != nil {
		t.Fatal(err)
	}
	return s
}

// noHint fails if what holds the content of a hint not in shown.
func noHint(t *testing.T, label string, what any, shown ...string) {
	t.Helper()
	b, err := json.Marshal(what)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{hintPadding, hintPrimes, hintNext} {
		if strings.Contains(string(b), secret) && !strings.Contains(strings.Join(shown, "\n"), secret) {
			t.Errorf("%s: holds the locked hint %q: %s", label, secret, b)
		}
	}
}

func hints(t *testing.T, cs *sdk.ClientSession, slug string) []hint {
	t.Helper()
	var out struct {
		Hints []hint `json:"hints"`
	}
	if res := call(t, cs, "list_hints", map[string]any{"slug": slug}, &out); res.IsError {
		t.Fatalf("list_hints(%s): %s", slug, text(res))
	}
	return out.Hints
}

// TestHintTools: an agent lists a challenge's hints (locked content never
// shown by any tool, resource or prompt), is refused an unlock with a
// read-only key, an unknown hint, a locked challenge or a required hint
// still locked, unlocks one (again at no cost), and its solve is worth the
// challenge less that hint, once.
func TestHintTools(t *testing.T) {
	t.Parallel()
	s := startHinted(t)
	ctx := context.Background()
	alice := connect(t, s.URL, &keyed{header: "Authorization", key: s.Key("alice")})
	ro := connect(t, s.URL, &keyed{header: "X-API-Key", key: s.ReadOnlyKey("carol")})

	got := hints(t, alice, "hinted")
	if len(got) != 2 || got[0].ID != 1 || got[0].Cost != 30 || got[0].Unlocked || got[0].Content != nil || got[0].Requires != nil ||
		got[1].ID != 2 || got[1].Cost != 20 || got[1].Content != nil || got[1].Requires == nil || *got[1].Requires != 1 {
		t.Errorf("list_hints(hinted) = %+v, want hint 1 (30) and hint 2 (20, requires 1), both locked", got)
	}
	if got := hints(t, alice, "warmup"); len(got) != 0 {
		t.Errorf("list_hints(warmup) = %+v, want none", got)
	}
	toolError(t, "list_hints of no challenge", call(t, alice, "list_hints", map[string]any{"slug": "nope"}, nil), "no challenge has the slug")
	toolError(t, "list_hints of a hidden challenge", call(t, alice, "list_hints", map[string]any{"slug": "draft"}, nil), "no challenge has the slug")

	// Nothing an agent reads holds a locked hint.
	leaks := func(label string, cs *sdk.ClientSession, shown ...string) {
		t.Helper()
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"list_challenges", nil}, {"get_challenge", map[string]any{"slug": "hinted"}}, {"get_challenge", map[string]any{"slug": "next"}},
			{"list_hints", map[string]any{"slug": "hinted"}}, {"list_hints", map[string]any{"slug": "next"}},
			{"leaderboard", nil}, {"my_profile", nil},
		} {
			noHint(t, label+" "+c.tool, call(t, cs, c.tool, c.args, nil), shown...)
		}
		for _, uri := range []string{"flagship://challenges/hinted", "flagship://challenges/next"} {
			res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
			if err != nil {
				t.Fatalf("%s: %v", uri, err)
			}
			noHint(t, label+" "+uri, res, shown...)
		}
		p, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "event_rules"})
		if err != nil {
			t.Fatal(err)
		}
		noHint(t, label+" event_rules", p, shown...)
	}
	leaks("before unlocking", alice)

	// Refusals, each recording nothing.
	unlock := func(cs *sdk.ClientSession, slug string, id any) *sdk.CallToolResult {
		t.Helper()
		return call(t, cs, "unlock_hint", map[string]any{"slug": slug, "id": id}, nil)
	}
	toolError(t, "read-only key", unlock(ro, "hinted", 1), "read-only")
	toolError(t, "unknown hint", unlock(alice, "hinted", 9), `the challenge "hinted" has no hint 9; list_hints`)
	toolError(t, "id 0", unlock(alice, "hinted", 0), "id must be an integer from 1 to")
	toolError(t, "id as a string", unlock(alice, "hinted", "1"), "id must be an integer")
	toolError(t, "unknown challenge", unlock(alice, "nope", 1), "no challenge has the slug")
	toolError(t, "hidden challenge", unlock(alice, "draft", 1), "no challenge has the slug")
	toolError(t, "locked challenge", unlock(alice, "next", 1), "this challenge is locked")
	toolError(t, "required hint locked", unlock(alice, "hinted", 2), "unlock hint 1 first")
	if got := hints(t, alice, "hinted"); got[0].Unlocked || got[1].Unlocked {
		t.Errorf("after the refusals: %+v, want both locked", got)
	}
	if got := hints(t, ro, "hinted"); got[0].Unlocked {
		t.Errorf("carol after her read-only key's refusal: %+v, want locked", got)
	}

	// The unlock, and again: the same answer.
	for i := range 2 {
		var h hint
		if res := call(t, alice, "unlock_hint", map[string]any{"slug": "hinted", "id": 1}, &h); res.IsError {
			t.Fatalf("unlock_hint %d: %s", i, text(res))
		}
		if h.ID != 1 || h.Cost != 30 || !h.Unlocked || h.Content == nil || *h.Content != hintPadding || h.Requires != nil {
			t.Errorf("unlock_hint %d = %+v, want hint 1 unlocked with its content", i, h)
		}
	}
	if got := hints(t, alice, "hinted"); !got[0].Unlocked || got[0].Content == nil || *got[0].Content != hintPadding ||
		got[1].Unlocked || got[1].Content != nil {
		t.Errorf("list_hints after the unlock = %+v, want hint 1 unlocked, hint 2 locked", got)
	}
	leaks("after unlocking hint 1", alice, hintPadding)
	// Another player's list is theirs.
	if got := hints(t, ro, "hinted"); got[0].Unlocked || got[0].Content != nil {
		t.Errorf("carol's list_hints = %+v, want hint 1 locked", got)
	}

	// The solve is worth 100 less the 30 of hint 1, once; unlocking after
	// it costs nothing.
	if o := submit(t, alice, "hinted", "flag{hinted}"); o.Outcome != "correct" || o.Points != 70 || !strings.Contains(o.Message, "70 points") {
		t.Errorf("submit_flag = %+v, want correct with 70 points", o)
	}
	var h hint
	if res := call(t, alice, "unlock_hint", map[string]any{"slug": "hinted", "id": 2}, &h); res.IsError || !h.Unlocked || h.Content == nil {
		t.Errorf("unlock_hint 2 after the solve: %s %+v", text(res), h)
	}
	var me struct {
		Points int `json:"points"`
	}
	call(t, alice, "my_profile", nil, &me)
	if me.Points != 70 {
		t.Errorf("my_profile points %d, want 70", me.Points)
	}
}
