package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// The bounds of the tools' arguments are declared once, here: the input
// schemas state them (minimum, maximum, enum, default) and checkedArgs
// enforces them before the SDK validates the arguments, so an argument out
// of range is a tool error whose sentence says the range, never silently
// taken as a default.

// argRule bounds one argument: an integer range, or a set of strings.
type argRule struct {
	ranged   bool
	min, max int
	enum     []string
	def      any // the default the schema states; nil: none
}

var (
	difficulties = []string{string(ctf.Easy), string(ctf.Medium), string(ctf.Hard), string(ctf.Insane)}
	statuses     = []string{"solved", "unsolved"}
)

// toolArgs are the bounded arguments, by tool and argument.
var toolArgs = map[string]map[string]argRule{
	"list_challenges": {"difficulty": {enum: difficulties}, "status": {enum: statuses}},
	"unlock_hint":     {"id": {ranged: true, min: 1, max: ctf.MaxHintID}},
	"leaderboard": {
		"top":    {ranged: true, min: 1, max: 100, def: 10},
		"around": {ranged: true, min: 0, max: 25, def: 2},
	},
}

// inputSchema is T's schema as tool's input: every property plain (a
// pointer field is an optional property of its type, not a union with
// null, which some clients cannot read) and toolArgs' bounds stated.
func inputSchema[T any](tool string) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: input schema of %s: %v", tool, err))
	}
	plain(s)
	for name, r := range toolArgs[tool] {
		p := s.Properties[name]
		if p == nil {
			panic(fmt.Sprintf("mcp: %s has no argument %q", tool, name))
		}
		if r.ranged {
			lo, hi := float64(r.min), float64(r.max)
			p.Minimum, p.Maximum = &lo, &hi
		}
		for _, v := range r.enum {
			p.Enum = append(p.Enum, v)
		}
		if r.def != nil {
			p.Default, _ = json.Marshal(r.def) // a number: cannot fail
		}
	}
	return s
}

// plain drops "null" from the types of s's properties, at every depth.
func plain(s *jsonschema.Schema) {
	for _, p := range s.Properties {
		if i := slices.Index(p.Types, "null"); i >= 0 {
			rest := slices.Delete(slices.Clone(p.Types), i, i+1)
			if len(rest) == 1 {
				p.Type, p.Types = rest[0], nil
			} else {
				p.Types = rest
			}
		}
		plain(p)
		if p.Items != nil {
			plain(p.Items)
		}
	}
}

// checkedArgs is the receiving middleware of tools/call that enforces
// toolArgs with a clear tool error, and takes an argument given as null as
// absent (clients often send null for an optional argument; the schemas
// have no null).
func checkedArgs(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		r, ok := req.(*sdk.CallToolRequest)
		if method != "tools/call" || !ok || r.Params == nil {
			return next(ctx, method, req)
		}
		var args map[string]json.RawMessage
		if len(r.Params.Arguments) > 0 && json.Unmarshal(r.Params.Arguments, &args) != nil {
			return next(ctx, method, req) // the SDK says what is wrong
		}
		// No arguments, or null ones, are none: {} (the SDK, applying the
		// schema's defaults to null arguments, would panic).
		dropped := args == nil
		if args == nil {
			args = map[string]json.RawMessage{}
		}
		for name, v := range args {
			if string(v) == "null" {
				delete(args, name)
				dropped = true
			}
		}
		if dropped {
			b, err := json.Marshal(args)
			if err != nil {
				return nil, fmt.Errorf("mcp: arguments: %w", err)
			}
			r.Params.Arguments = b
		}
		for _, name := range sortedKeys(toolArgs[r.Params.Name]) {
			if v, ok := args[name]; ok {
				if msg := toolArgs[r.Params.Name][name].check(name, v); msg != "" {
					res := &sdk.CallToolResult{}
					res.SetError(fmt.Errorf("%s: %s", r.Params.Name, msg))
					return res, nil
				}
			}
		}
		return next(ctx, method, req)
	}
}

// check says what is wrong with v as the argument name, "" when nothing.
func (r argRule) check(name string, v json.RawMessage) string {
	if r.ranged {
		var n float64
		if json.Unmarshal(v, &n) != nil || n != math.Trunc(n) || n < float64(r.min) || n > float64(r.max) {
			return fmt.Sprintf("%s must be an integer from %d to %d; got %s", name, r.min, r.max, v)
		}
	}
	if r.enum != nil {
		var s string
		if json.Unmarshal(v, &s) != nil || !slices.Contains(r.enum, s) {
			return fmt.Sprintf("%s must be one of %s; got %s", name, strings.Join(r.enum, ", "), v)
		}
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
