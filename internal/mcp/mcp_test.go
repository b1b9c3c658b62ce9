package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/store"
)

// event is the dataset of these tests: a challenge with a file, one locked
// behind it, one with a service, a hidden one, and a few players.
const event = `
users:
  - {username: alice, email: alice@example.com, password: alice-password}
  - {username: bob, email: bob@example.com, password: bob-password}
  - {username: carol, email: carol@example.com, password: carol-password}
  - {username: root, email: root@example.com, role: admin}
challenges:
  - {slug: warmup, title: Warmup, categories: [misc], difficulty: Easy, points: 50, flags: ['flag{warm}'],
     description: "Say **hi**: the flag is in the file.", file: {name: handout.txt, path: files/handout.txt},
     createdAt: 2026-01-01T00:00:00Z}
  - {slug: next, title: Next, categories: [web], difficulty: Hard, points: 300, flags: ['flag{next}'], requires: [warmup],
     createdAt: 2026-01-01T00:01:00Z}
  - {slug: pwnme, title: Pwn Me, categories: [pwn], difficulty: Medium, points: 200,
     flags: [{type: regex, content: 'flag\{[0-9]{4}\}'}], hasInstance: true, dockerPort: 1337,
     connectionInfo: 'nc pwn.example 1337', createdAt: 2026-01-01T00:02:00Z}
  - {slug: draft, title: Secret Draft, categories: [web], difficulty: Hard, points: 300, flags: ['flag{draft}'], hidden: true}
solves:
  - {user: carol, challenge: warmup, at: 2026-01-02T00:00:00Z, flag: 'flag{warm}'}
writeups:
  - {user: carol, challenge: warmup, title: How I did it, content: "Read **the file**.", status: approved}
`

// keyed adds an API key header to every request.
type keyed struct {
	header, key string
	// hosts, when set, are the servers requests go to in turn: one agent
	// talking to several replicas.
	hosts []string
	n     atomic.Int64
}

func (k *keyed) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if k.header == "Authorization" {
		r.Header.Set("Authorization", "Bearer "+k.key)
	} else if k.header != "" {
		r.Header.Set(k.header, k.key)
	}
	if len(k.hosts) > 0 {
		r.URL.Host = k.hosts[int(k.n.Add(1))%len(k.hosts)]
		r.Host = r.URL.Host
	}
	return http.DefaultTransport.RoundTrip(r)
}

func connect(t *testing.T, url string, rt http.RoundTripper) *sdk.ClientSession {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "flagship-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url + "/mcp",
		HTTPClient: &http.Client{Transport: rt, Timeout: 10 * time.Second}, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func start(t *testing.T, limit store.RateLimit) *apitest.Server {
	t.Helper()
	return apitest.Start(t, event, apitest.Options{RateLimit: limit})
}

// call calls a tool and decodes its structured output into out; it fails
// the test on a protocol error and returns the result.
func call(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any, out any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): %v", name, args, err)
	}
	if out != nil && !res.IsError {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: decode %s: %v", name, b, err)
		}
	}
	return res
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// toolError expects a tool error whose text holds want.
func toolError(t *testing.T, what string, res *sdk.CallToolResult, want string) {
	t.Helper()
	if !res.IsError || !strings.Contains(text(res), want) {
		t.Errorf("%s: got isError=%v %q, want a tool error with %q", what, res.IsError, text(res), want)
	}
}

func TestToolsHaveSchemasAndDescriptions(t *testing.T) {
	t.Parallel()
	s := start(t, store.RateLimit{})
	cs := connect(t, s.URL, &keyed{header: "Authorization", key: s.Key("alice")})
	var names []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
		if len(tool.Description) < 40 || tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("%s: description %q, input schema %v, output schema %v", tool.Name, tool.Description, tool.InputSchema != nil, tool.OutputSchema != nil)
		}
	}
	slices.Sort(names)
	want := []string{"extend_instance", "get_challenge", "get_profile", "get_writeups", "instance_status", "leaderboard",
		"list_challenges", "list_hints", "my_profile", "start_instance", "stop_instance", "submit_flag", "unlock_hint"}
	if !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	init := cs.InitializeResult()
	if init.ServerInfo.Name != "flagship" || !strings.Contains(init.Instructions, "submit_flag") {
		t.Errorf("server info %+v, instructions %q", init.ServerInfo, init.Instructions)
	}
}

func toolParams(name string, args map[string]any) *sdk.CallToolParams {
	return &sdk.CallToolParams{Name: name, Arguments: args}
}
