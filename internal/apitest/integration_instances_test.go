package apitest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/instances/instancestest"
)

// instanceEvent has two challenges with per-player instances of the test
// image and one without instances.
var instanceEvent = `
users:
  - {username: pam, email: pam@example.com, password: pam-password}
  - {username: pat, email: pat@example.com, password: pat-password}
challenges:
  - {slug: pwnme, title: Pwn Me, categories: [pwn], difficulty: Easy, points: 100, flags: ['flag{unused}'],
     instance: {image: '` + instancestest.Image + `', port: 1337, lifetime: 1m, maxLifetime: 90s, memory: 32MiB, pids: 32}}
  - {slug: pwnme-too, title: Pwn Me Too, categories: [pwn], difficulty: Easy, points: 100, flags: ['flag{unused}'],
     instance: {image: '` + instancestest.Image + `', port: 1337, lifetime: 1m, memory: 32MiB, pids: 32}}
  - {slug: plain, title: Plain, categories: [misc], difficulty: Easy, points: 50, flags: ['flag{plain}']}
`

type instanceAnswer struct {
	Instance *struct {
		Status, Host, Connection string
		Port                     int
		StartedAt, ExpiresAt     time.Time
	} `json:"instance"`
}

func decodeInstance(t *testing.T, what string, r Response, status int) instanceAnswer {
	t.Helper()
	if r.Status != status {
		t.Fatalf("%s: %d %s, want %d", what, r.Status, r.Body, status)
	}
	var a instanceAnswer
	if err := json.Unmarshal(r.Body, &a); err != nil {
		t.Fatalf("%s: %v: %s", what, err, r.Body)
	}
	return a
}

// wantStatus checks the status of an answer, and a Retry-After with 503.
func wantStatus(t *testing.T, what string, r Response, status int) {
	t.Helper()
	if r.Status != status {
		t.Errorf("%s: %d %s, want %d", what, r.Status, r.Body, status)
	}
	if status == 503 && r.Header.Get("Retry-After") == "" {
		t.Errorf("%s: 503 without Retry-After", what)
	}
}

// TestInstanceAPIOnARealEngine: a player starts their instance over the
// API (201), reads it, connects to it on 127.0.0.1 and reads their own
// flag, which solves the challenge; a second start answers the running one
// (200); extend moves the expiry; a second challenge's start is over the
// per-player limit (409); a read-only key reads but cannot start or stop
// (403); stop is 204 and the instance is gone. Every answer is checked
// against the OpenAPI document. On Docker and on Swarm.
func TestInstanceAPIOnARealEngine(t *testing.T) {
	for _, e := range InstanceEngines(t) {
		t.Run(e.Name, func(t *testing.T) {
			s := Start(t, instanceEvent, Options{Instances: e.Options(t, 10, 1)})
			t.Cleanup(func() { stopAll(t, s) })
			pam := Bearer(s.Key("pam"))
			readOnly := Bearer(s.ReadOnlyKey("pam"))
			const path = "/api/public/challenges/pwnme/instance"

			if a := decodeInstance(t, "status before", s.Do("GET", path, nil, pam), 200); a.Instance != nil {
				t.Fatalf("status before start: %+v, want null", a.Instance)
			}
			wantStatus(t, "start with a read-only key", s.Do("POST", path, nil, readOnly), 403)
			started := decodeInstance(t, "start", s.Do("POST", path, nil, pam), 201).Instance
			// On a swarm, the host is the node that runs the instance.
			if started == nil || started.Status != "running" || (e.Name == "docker" && started.Host != "127.0.0.1") ||
				started.Connection != fmt.Sprintf("nc %s %d", started.Host, started.Port) || !started.ExpiresAt.After(started.StartedAt) {
				t.Fatalf("started %+v", started)
			}
			got := decodeInstance(t, "status", s.Do("GET", path, nil, readOnly), 200).Instance
			if got == nil || got.Port != started.Port || got.Status != "running" {
				t.Errorf("status %+v, want the started one %+v", got, started)
			}

			flag := instancestest.Greeting(t, started.Port)
			if !strings.HasPrefix(flag, "flag{") {
				t.Fatalf("the instance greets with %q, want a flag", flag)
			}
			body, _ := json.Marshal(map[string]string{"flag": flag})
			wantStatus(t, "submit the instance's flag", s.Do("POST", "/api/public/challenges/pwnme/submit", body, pam,
				"Content-Type: application/json"), 200)

			again := decodeInstance(t, "second start", s.Do("POST", path, nil, pam), 200).Instance
			if again == nil || again.Port != started.Port || !again.StartedAt.Equal(started.StartedAt) {
				t.Errorf("second start %+v, want the running %+v", again, started)
			}
			extended := decodeInstance(t, "extend", s.Do("POST", path+"/extend", nil, pam), 200).Instance
			if extended == nil || !extended.ExpiresAt.After(started.ExpiresAt) {
				t.Errorf("extended %+v, want an expiry after %v", extended, started.ExpiresAt)
			}
			wantStatus(t, "extend with a read-only key", s.Do("POST", path+"/extend", nil, readOnly), 403)
			wantStatus(t, "a second instance over the per-player limit",
				s.Do("POST", "/api/public/challenges/pwnme-too/instance", nil, pam), 409)

			wantStatus(t, "stop with a read-only key", s.Do("DELETE", path, nil, readOnly), 403)
			r := s.Do("DELETE", path, nil, pam)
			if r.Status != 204 || len(r.Body) != 0 {
				t.Errorf("stop: %d %q, want 204 without a body", r.Status, r.Body)
			}
			if a := decodeInstance(t, "status after stop", s.Do("GET", path, nil, pam), 200); a.Instance != nil {
				t.Errorf("status after stop: %+v, want null", a.Instance)
			}
			wantStatus(t, "stop again", s.Do("DELETE", path, nil, pam), 404)
			wantStatus(t, "extend a stopped one", s.Do("POST", path+"/extend", nil, pam), 404)
		})
	}
}

// stopAll stops what a failed test left running.
func stopAll(t *testing.T, s *Server) {
	ctx := context.Background()
	live, err := s.Svc.Instances.Running(ctx, ctf.Operator)
	if err != nil {
		t.Errorf("cleanup: %v", err)
		return
	}
	for _, r := range live {
		if err := s.Svc.Instances.StopByID(ctx, ctf.Operator, r.ID); err != nil {
			t.Errorf("cleanup: stop %s: %v", r.ID, err)
		}
	}
}

// TestInstanceAPIErrors: what the instance endpoints answer whatever the
// engine: 401 without a key, 404 for a challenge without instances or
// none at all, 403 for a read-only key's writes, 503 with Retry-After when
// the server runs no instances, 405 with every method of the path, and a
// preflight that allows DELETE.
func TestInstanceAPIErrors(t *testing.T) {
	t.Parallel()
	s := Start(t, instanceEvent)
	pam := Bearer(s.Key("pam"))
	readOnly := Bearer(s.ReadOnlyKey("pam"))
	const path = "/api/public/challenges/pwnme/instance"
	for _, c := range []struct {
		what, method, path string
		auth               []string
		status             int
	}{
		{"status without a key", "GET", path, nil, 401},
		{"start without a key", "POST", path, nil, 401},
		{"extend without a key", "POST", path + "/extend", nil, 401},
		{"stop without a key", "DELETE", path, nil, 401},
		{"status of a challenge without instances", "GET", "/api/public/challenges/plain/instance", []string{pam}, 404},
		{"start of a challenge without instances", "POST", "/api/public/challenges/plain/instance", []string{pam}, 404},
		{"start of no challenge", "POST", "/api/public/challenges/nope/instance", []string{pam}, 404},
		{"start with a read-only key", "POST", path, []string{readOnly}, 403},
		{"stop with a read-only key", "DELETE", path, []string{readOnly}, 403},
		{"status with a read-only key", "GET", path, []string{readOnly}, 200},
		{"start on a server without instances", "POST", path, []string{pam}, 503},
		{"extend without an instance", "POST", path + "/extend", []string{pam}, 404},
		{"stop without an instance", "DELETE", path, []string{pam}, 404},
	} {
		wantStatus(t, c.what, s.Do(c.method, c.path, nil, c.auth...), c.status)
	}
	if a := decodeInstance(t, "status", s.Do("GET", path, nil, pam), 200); a.Instance != nil {
		t.Errorf("status: %+v, want null", a.Instance)
	}
	r := s.Do("PUT", path, nil, pam)
	if r.Status != 405 || r.Header.Get("Allow") != "GET, HEAD, POST, DELETE" {
		t.Errorf("PUT: %d Allow %q, want 405 with GET, HEAD, POST, DELETE", r.Status, r.Header.Get("Allow"))
	}
	r = s.DoRaw("OPTIONS", path, nil, "Origin: https://elsewhere.example", "Access-Control-Request-Method: DELETE")
	if r.Status != 204 || !strings.Contains(r.Header.Get("Access-Control-Allow-Methods"), "DELETE") {
		t.Errorf("preflight: %d Allow-Methods %q, want 204 with DELETE", r.Status, r.Header.Get("Access-Control-Allow-Methods"))
	}
}
