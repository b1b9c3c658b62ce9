package mcp_test

import (
	"encoding/json"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/golden"
)

// TestGoldenToolResults: what the tools answer a player of the golden
// event, as the official Go SDK client receives it (the text, the
// structured content and isError), is the golden files byte for byte.
// The structured content is re-encoded by the client (keys sorted); the
// text is the server's own. -update rewrites the files.
func TestGoldenToolResults(t *testing.T) {
	t.Parallel()
	s := apitest.StartGolden(t)
	cs := connect(t, s.URL, &keyed{header: "Authorization", key: s.Key("carol")})
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
	}{
		{"list_challenges", "list_challenges", nil},
		{"get_challenge", "get_challenge", map[string]any{"slug": "baby-rsa"}},
		{"get_challenge-solved", "get_challenge", map[string]any{"slug": "rop"}},
		{"leaderboard", "leaderboard", nil},
		{"my_profile", "my_profile", nil},
	} {
		res := call(t, cs, tc.tool, tc.args, nil)
		if res.IsError {
			t.Fatalf("%s: %s", tc.name, text(res))
		}
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "mcp-"+tc.name, append(b, '\n'))
	}
}
