package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/store"
)

// TestInputSchemasArePlain: no input schema has a union with null (an
// optional argument is an optional property of its type), and the bounded
// arguments state their bounds.
func TestInputSchemasArePlain(t *testing.T) {
	t.Parallel()
	s := start(t, store.RateLimit{})
	cs := connect(t, s.URL, &keyed{header: "Authorization", key: s.Key("alice")})
	schemas := map[string]map[string]any{}
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `"null"`) {
			t.Errorf("%s: input schema has null: %s", tool.Name, b)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		props, _ := m["properties"].(map[string]any) // my_profile has none
		schemas[tool.Name] = props
	}
	prop := func(tool, name string) map[string]any { return schemas[tool][name].(map[string]any) }
	for _, c := range []struct {
		tool, arg, typ string
		min, max, def  float64
	}{
		{"leaderboard", "top", "integer", 1, 100, 10},
		{"leaderboard", "around", "integer", 0, 25, 2},
	} {
		p := prop(c.tool, c.arg)
		if p["type"] != c.typ || p["minimum"] != c.min || p["maximum"] != c.max || p["default"] != c.def {
			t.Errorf("%s.%s: schema %v", c.tool, c.arg, p)
		}
	}
	if p := prop("list_challenges", "unlocked"); p["type"] != "boolean" {
		t.Errorf("list_challenges.unlocked: %v", p)
	}
	if p := prop("list_challenges", "difficulty"); len(p["enum"].([]any)) != 4 {
		t.Errorf("list_challenges.difficulty: %v", p)
	}
}

// TestArgumentsOutOfRange: every bounded argument out of its range is a
// tool error saying the range; null is taken as absent.
func TestArgumentsOutOfRange(t *testing.T) {
	t.Parallel()
	s := start(t, store.RateLimit{})
	cs := connect(t, s.URL, &keyed{header: "Authorization", key: s.Key("alice")})
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"leaderboard", map[string]any{"top": 0}, "top must be an integer from 1 to 100; got 0"},
		{"leaderboard", map[string]any{"top": 101}, "top must be an integer from 1 to 100; got 101"},
		{"leaderboard", map[string]any{"top": -5}, "top must be an integer from 1 to 100"},
		{"leaderboard", map[string]any{"top": 2.5}, "top must be an integer"},
		{"leaderboard", map[string]any{"top": "10"}, "top must be an integer"},
		{"leaderboard", map[string]any{"around": -1}, "around must be an integer from 0 to 25; got -1"},
		{"leaderboard", map[string]any{"around": 26}, "around must be an integer from 0 to 25; got 26"},
		{"list_challenges", map[string]any{"difficulty": "Trivial"}, `difficulty must be one of Easy, Medium, Hard, Insane; got "Trivial"`},
		{"list_challenges", map[string]any{"status": "done"}, `status must be one of solved, unsolved; got "done"`},
	} {
		toolError(t, c.tool+" "+mustJSON(c.args), call(t, cs, c.tool, c.args, nil), c.want)
	}
	// In range, at the bounds, absent or null: answered.
	for _, args := range []map[string]any{
		{"top": 1, "around": 0}, {"top": 100, "around": 25}, nil, {"top": nil, "around": nil},
	} {
		var lb struct {
			Top []any `json:"top"`
		}
		if res := call(t, cs, "leaderboard", args, &lb); res.IsError {
			t.Errorf("leaderboard %s: %s", mustJSON(args), text(res))
		}
	}
	var l list
	if res := call(t, cs, "list_challenges", map[string]any{"difficulty": "Medium", "unlocked": nil}, &l); res.IsError || slugs(l) != "pwnme" {
		t.Errorf("list_challenges with a null filter: %s %+v", text(res), l)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
