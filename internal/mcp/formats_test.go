package mcp_test

import (
	"context"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/store"
)

// formatsEvent has a challenge of each way a flag format is known
// (docs/product.md#flag-formats).
const formatsEvent = `
users:
  - {username: alice, email: alice@example.com, password: alice-password}
challenges:
  - {slug: csaw, title: Csaw, categories: [rev], points: 100, flags: ['csawctf{r3v_m3}']}
  - {slug: htb, title: Htb, categories: [web], points: 100, flags: ['HTB{one}', 'HTB{two}']}
  - {slug: own, title: Own, categories: [web], points: 100, flags: ['abc'], flagFormat: 'a word of three letters'}
  - {slug: plain, title: Plain, categories: [misc], points: 100, flags: ['no-braces-here']}
  - {slug: pattern, title: Pattern, categories: [misc], points: 100, flags: [{type: regex, content: 'x[0-9]+'}]}
`

func prompt(t *testing.T, cs *sdk.ClientSession) string {
	t.Helper()
	p, err := cs.GetPrompt(context.Background(), &sdk.GetPromptParams{Name: "event_rules"})
	if err != nil {
		t.Fatal(err)
	}
	return p.Messages[0].Content.(*sdk.TextContent).Text
}

func TestFlagFormats(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, event string
		want        map[string]string
		rules       []string // the prompt says each
		notRules    []string // and none of these
	}{
		{"no event format", "",
			map[string]string{"csaw": "csawctf{...}", "htb": "HTB{...}", "own": "a word of three letters", "plain": "", "pattern": ""},
			[]string{"Flag formats vary per challenge", "flagFormat", "the description says"}, []string{"set no flag format"}},
		{"event format", "event: {flagFormat: 'ev{...}'}\n",
			map[string]string{"csaw": "csawctf{...}", "htb": "HTB{...}", "own": "a word of three letters", "plain": "ev{...}", "pattern": "ev{...}"},
			[]string{"Flag formats vary per challenge", "the event's is ev{...}"}, []string{"set no flag format"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := apitest.Start(t, formatsEvent+tc.event)
			cs := connect(t, s.URL, &keyed{header: "Authorization", key: s.Key("alice")})
			for slug, want := range tc.want {
				var c struct {
					FlagFormat *string `json:"flagFormat"`
				}
				call(t, cs, "get_challenge", map[string]any{"slug": slug}, &c)
				if c.FlagFormat == nil || *c.FlagFormat != want {
					t.Errorf("%s: flagFormat %v, want %q", slug, c.FlagFormat, want)
				}
			}
			rules := prompt(t, cs)
			for _, want := range tc.rules {
				if !strings.Contains(rules, want) {
					t.Errorf("the rules do not say %q:\n%s", want, rules)
				}
			}
			for _, not := range tc.notRules {
				if strings.Contains(rules, not) {
					t.Errorf("the rules say %q:\n%s", not, rules)
				}
			}
		})
	}
}

// TestRulesOneFormat: challenges that all share a format are told as one;
// none at all keeps the sentence that there is none.
func TestRulesOneFormat(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, `
users:
  - {username: alice, email: alice@example.com, password: alice-password}
challenges:
  - {slug: a, title: A, categories: [rev], points: 100, flags: ['SEKAI{a}']}
  - {slug: b, title: B, categories: [rev], points: 100, flags: ['SEKAI{b}']}
`)
	cs := connect(t, s.URL, &keyed{header: "Authorization", key: s.Key("alice")})
	if rules := prompt(t, cs); !strings.Contains(rules, "Flags look like SEKAI{...}") {
		t.Errorf("rules:\n%s", rules)
	}
	s = apitest.Start(t, `
users:
  - {username: alice, email: alice@example.com, password: alice-password}
challenges:
  - {slug: a, title: A, categories: [rev], points: 100, flags: ['plain']}
`)
	cs = connect(t, s.URL, &keyed{header: "Authorization", key: s.Key("alice")})
	if rules := prompt(t, cs); !strings.Contains(rules, "set no flag format") {
		t.Errorf("rules:\n%s", rules)
	}
}

type standing struct {
	Outcome         string `json:"outcome"`
	Message         string `json:"message"`
	AttemptsLeft    *int   `json:"attemptsLeft"`
	AttemptsResetAt string `json:"attemptsResetAt"`
}

// TestAttemptsLeft: get_challenge and submit_flag tell the wrong flags
// left in the window, counted as the rate limit counts: each wrong flag
// takes one, and at 0 the next is rate_limited.
func TestAttemptsLeft(t *testing.T) {
	t.Parallel()
	s := start(t, store.RateLimit{Max: 3, Window: time.Hour})
	cs := connect(t, s.URL, &keyed{header: "Authorization", key: s.Key("alice")})
	get := func() standing {
		t.Helper()
		var st standing
		if res := call(t, cs, "get_challenge", map[string]any{"slug": "warmup"}, &st); res.IsError {
			t.Fatal(text(res))
		}
		return st
	}
	if st := get(); st.AttemptsLeft == nil || *st.AttemptsLeft != 3 || st.AttemptsResetAt != "" {
		t.Fatalf("before any try: %+v, want 3 left and no reset time", st)
	}
	before := time.Now().Add(-time.Second)
	for n := 1; n <= 3; n++ {
		var o standing
		call(t, cs, "submit_flag", map[string]any{"slug": "warmup", "flag": "flag{no}"}, &o)
		if o.Outcome != "wrong" || o.AttemptsLeft == nil || *o.AttemptsLeft != 3-n || o.AttemptsResetAt == "" {
			t.Fatalf("wrong flag %d: %+v, want %d left", n, o, 3-n)
		}
		if st := get(); st.AttemptsLeft == nil || *st.AttemptsLeft != 3-n {
			t.Fatalf("get_challenge after %d wrong flags: %+v", n, st)
		}
	}
	st := get()
	reset, err := time.Parse(time.RFC3339Nano, st.AttemptsResetAt)
	if err != nil || reset.Before(before.Add(time.Hour)) || reset.After(time.Now().Add(time.Hour+time.Second)) {
		t.Errorf("attemptsResetAt %q (%v), want an hour after the first wrong flag", st.AttemptsResetAt, err)
	}
	var o standing
	call(t, cs, "submit_flag", map[string]any{"slug": "warmup", "flag": "flag{no}"}, &o)
	if o.Outcome != "rate_limited" || o.AttemptsLeft == nil || *o.AttemptsLeft != 0 || o.AttemptsResetAt != st.AttemptsResetAt {
		t.Errorf("at 0 left: %+v, want rate_limited, 0 left, reset at %s", o, st.AttemptsResetAt)
	}
	// Another challenge's count is its own; a solved one tells none.
	var other standing
	call(t, cs, "get_challenge", map[string]any{"slug": "pwnme"}, &other)
	if other.AttemptsLeft == nil || *other.AttemptsLeft != 3 {
		t.Errorf("another challenge: %+v", other)
	}
	if o := submit(t, cs, "pwnme", "flag{1234}"); o.Outcome != "correct" {
		t.Fatalf("solve: %+v", o)
	}
	other = standing{}
	call(t, cs, "get_challenge", map[string]any{"slug": "pwnme"}, &other)
	if other.AttemptsLeft != nil {
		t.Errorf("a solved challenge tells attemptsLeft %d", *other.AttemptsLeft)
	}
}

// TestAttemptsUnlimited: without a rate limit, no count is told.
func TestAttemptsUnlimited(t *testing.T) {
	t.Parallel()
	s := start(t, store.RateLimit{Max: -1})
	cs := connect(t, s.URL, &keyed{header: "Authorization", key: s.Key("alice")})
	var o standing
	call(t, cs, "submit_flag", map[string]any{"slug": "warmup", "flag": "flag{no}"}, &o)
	if o.Outcome != "wrong" || o.AttemptsLeft != nil || strings.Contains(o.Message, "left") {
		t.Errorf("no limit: %+v", o)
	}
	o = standing{}
	call(t, cs, "get_challenge", map[string]any{"slug": "warmup"}, &o)
	if o.AttemptsLeft != nil {
		t.Errorf("no limit: get_challenge tells %d left", *o.AttemptsLeft)
	}
}
