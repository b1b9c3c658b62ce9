package mcp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/instances/instancestest"
	"github.com/flagshipctf/flagship/internal/store"
)

// instanceEvent has a challenge with per-player instances of the test image
// and one whose service the organisers run for everyone.
var instanceEvent = `
users:
  - {username: pam, email: pam@example.com, password: pam-password}
challenges:
  - {slug: pwnme, title: Pwn Me, categories: [pwn], difficulty: Easy, points: 100, flags: ['flag{unused}'],
     instance: {image: '` + instancestest.Image + `', port: 1337, lifetime: 1m, maxLifetime: 90s, memory: 32MiB, pids: 32}}
  - {slug: shared, title: Shared, categories: [pwn], difficulty: Easy, points: 100, flags: ['flag{shared}'],
     hasInstance: true, dockerPort: 1337, connectionInfo: 'nc pwn.example 1337'}
`

type instanceState struct {
	Status, Host, Connection, StartedAt, ExpiresAt string
	Port                                           int
}

// TestInstanceTools: an agent starts its instance with start_instance,
// reads it with instance_status and get_challenge, reaches it and solves
// the challenge with its own flag, extends it, and stops it with
// stop_instance; a challenge without instances of its own is a tool
// error. On Docker and on Swarm.
func TestInstanceTools(t *testing.T) {
	for _, e := range apitest.InstanceEngines(t) {
		t.Run(e.Name, func(t *testing.T) {
			s := apitest.Start(t, instanceEvent, apitest.Options{RateLimit: store.RateLimit{Max: 10, Window: 60e9},
				Instances: e.Options(t, 5, 0)})
			cs := connect(t, s.URL, &keyed{header: "Authorization", key: s.Key("pam")})
			slug := map[string]any{"slug": "pwnme"}

			var status struct{ Instance *instanceState }
			if call(t, cs, "instance_status", slug, &status); status.Instance != nil {
				t.Fatalf("instance_status before start: %+v, want null", status.Instance)
			}
			var started struct {
				Instance instanceState
				Started  bool
			}
			if res := call(t, cs, "start_instance", slug, &started); res.IsError {
				t.Fatalf("start_instance: %s", text(res))
			}
			in := started.Instance
			if !started.Started || in.Status != "running" || in.Connection != fmt.Sprintf("nc %s %d", in.Host, in.Port) {
				t.Fatalf("start_instance: %+v", started)
			}
			var again struct {
				Instance instanceState
				Started  bool
			}
			if call(t, cs, "start_instance", slug, &again); again.Started || again.Instance.Port != in.Port {
				t.Errorf("start_instance again: %+v, want the running one", again)
			}
			if call(t, cs, "instance_status", slug, &status); status.Instance == nil || *status.Instance != in {
				t.Errorf("instance_status: %+v, want %+v", status.Instance, in)
			}
			var ch struct {
				Instance struct {
					Connection string
					PerPlayer  bool
					Yours      *instanceState
				}
			}
			if call(t, cs, "get_challenge", slug, &ch); !ch.Instance.PerPlayer || ch.Instance.Yours == nil ||
				ch.Instance.Yours.ExpiresAt != in.ExpiresAt || ch.Instance.Connection != in.Connection {
				t.Errorf("get_challenge: instance %+v, want per-player with yours %+v", ch.Instance, in)
			}

			var sub struct{ Outcome string }
			if call(t, cs, "submit_flag", map[string]any{"slug": "pwnme", "flag": instancestest.Greeting(t, in.Port)}, &sub); sub.Outcome != "correct" {
				t.Errorf("submit_flag with the instance's flag: %q, want correct", sub.Outcome)
			}
			var ext struct{ Instance instanceState }
			if res := call(t, cs, "extend_instance", slug, &ext); res.IsError || ext.Instance.ExpiresAt <= in.ExpiresAt {
				t.Errorf("extend_instance: %s %+v, want an expiry after %s", text(res), ext.Instance, in.ExpiresAt)
			}

			var stop struct{ Stopped bool }
			if res := call(t, cs, "stop_instance", slug, &stop); res.IsError || !stop.Stopped {
				t.Errorf("stop_instance: %s %+v", text(res), stop)
			}
			if call(t, cs, "instance_status", slug, &status); status.Instance != nil {
				t.Errorf("instance_status after stop: %+v, want null", status.Instance)
			}
			ch.Instance.Yours = nil
			if call(t, cs, "get_challenge", slug, &ch); !ch.Instance.PerPlayer || ch.Instance.Yours != nil {
				t.Errorf("get_challenge after stop: instance %+v, want per-player without yours", ch.Instance)
			}
			toolError(t, "stop_instance again", call(t, cs, "stop_instance", slug, nil), "no instance of yours runs")

			shared := map[string]any{"slug": "shared"}
			toolError(t, "start_instance of a shared service", call(t, cs, "start_instance", shared, nil), "no instances of its own")
			if call(t, cs, "get_challenge", shared, &ch); ch.Instance.PerPlayer || ch.Instance.Connection != "nc pwn.example 1337" {
				t.Errorf("get_challenge of a shared service: instance %+v", ch.Instance)
			}
			toolError(t, "start_instance of no challenge", call(t, cs, "start_instance", map[string]any{"slug": "nope"}, nil),
				"list_challenges gives the slugs")
			if strings.Contains(text(call(t, cs, "instance_status", slug, nil)), "internal") {
				t.Error("instance_status: an internal error")
			}
		})
	}
}

// TestInstanceToolsWithoutEngine: on a server that runs no instances,
// start_instance is a tool error that says so and when to retry; a
// read-only key cannot start one.
func TestInstanceToolsWithoutEngine(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, instanceEvent)
	cs := connect(t, s.URL, &keyed{header: "Authorization", key: s.Key("pam")})
	toolError(t, "start_instance without an engine", call(t, cs, "start_instance", map[string]any{"slug": "pwnme"}, nil),
		"runs no instances")
	toolError(t, "start_instance without an engine", call(t, cs, "start_instance", map[string]any{"slug": "pwnme"}, nil),
		"retry after 60 seconds")
	ro := connect(t, s.URL, &keyed{header: "Authorization", key: s.ReadOnlyKey("pam")})
	toolError(t, "start_instance with a read-only key", call(t, ro, "start_instance", map[string]any{"slug": "pwnme"}, nil),
		"read-only")
}
