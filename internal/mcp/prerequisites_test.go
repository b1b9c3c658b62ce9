package mcp_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
)

// TestGetChallengeHidesUnreleasedPrerequisites: get_challenge lists the
// prerequisites left by slug only where the caller may see them; one not
// released yet is counted (prerequisitesUnreleased), never named; a hidden
// one is neither (it locks nothing).
func TestGetChallengeHidesUnreleasedPrerequisites(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, `
users:
  - {username: alice, email: alice@example.com, password: alice-password}
challenges:
  - {slug: warmup, title: Warmup, categories: [misc], difficulty: Easy, points: 50, flags: ['flag{warm}']}
  - {slug: sequel-soon, title: Sequel Soon, categories: [web], difficulty: Hard, points: 300, flags: ['flag{s}'],
     releaseAt: 2099-01-01T00:00:00Z}
  - {slug: draft, title: Secret Draft, categories: [web], difficulty: Hard, points: 300, flags: ['flag{d}'], hidden: true}
  - {slug: finale, title: Finale, categories: [web], difficulty: Hard, points: 500, flags: ['flag{f}'],
     requires: [warmup, sequel-soon, draft]}
`)
	cs := connect(t, s.URL, &keyed{header: "Authorization", key: s.Key("alice")})
	var finale struct {
		Unlocked                bool     `json:"unlocked"`
		PrerequisitesLeft       []string `json:"prerequisitesLeft"`
		PrerequisitesUnreleased int      `json:"prerequisitesUnreleased"`
	}
	res := call(t, cs, "get_challenge", map[string]any{"slug": "finale"}, &finale)
	if res.IsError {
		t.Fatalf("get_challenge finale: %s", text(res))
	}
	if finale.Unlocked || !slices.Equal(finale.PrerequisitesLeft, []string{"warmup"}) || finale.PrerequisitesUnreleased != 1 {
		t.Errorf("get_challenge finale = %+v, want locked, [warmup] left and 1 unreleased", finale)
	}
	for _, leak := range []string{"sequel-soon", "Sequel Soon", "draft"} {
		if strings.Contains(text(res), leak) {
			t.Errorf("get_challenge finale names %q: %s", leak, text(res))
		}
	}
}
