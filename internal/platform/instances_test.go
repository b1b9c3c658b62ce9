package platform

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/instances"
	"github.com/flagshipctf/flagship/internal/instances/instancestest"
	"github.com/flagshipctf/flagship/internal/testtime"
)

// testEngine is a real engine for the use cases' tests, on a network of
// the test's own.
type testEngine struct {
	name   string
	engine instances.Engine
}

// realEngines returns Docker and, when the engine is a swarm manager (CI
// makes it one), Docker Swarm, with the test image built.
func realEngines(t *testing.T) []testEngine {
	t.Helper()
	cli := instancestest.Client(t)
	instancestest.BuildImage(t, cli)
	b := make([]byte, 4)
	rand.Read(b)
	suffix := hex.EncodeToString(b)
	d, err := instances.NewDocker(instances.Options{Network: "flagship-test-" + suffix, HostIP: netip.MustParseAddr("127.0.0.1")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	t.Cleanup(func() { instancestest.RemoveNetworks(t, cli, "flagship-test-"+suffix) })
	out := []testEngine{{"docker", d}}
	s, err := instances.NewSwarm(instances.Options{Network: "flagship-test-swarm-" + suffix})
	if err == nil {
		ctx, cancel := context.WithTimeout(t.Context(), testtime.Scale(5*time.Second))
		err = s.Ping(ctx)
		cancel()
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no swarm under CI (scripts/docker-engine.sh makes one): %v", err)
		}
		t.Logf("swarm left out: %v", err)
		return out
	}
	t.Cleanup(func() { s.Close() })
	t.Cleanup(func() {
		instancestest.RemoveNetworks(t, cli, "flagship-test-swarm-"+suffix, "flagship-test-swarm-"+suffix+"-config")
	})
	return append(out, testEngine{"swarm", s})
}

// stopAllAtEnd stops every instance of svc when the test ends, whatever
// happened.
func stopAllAtEnd(t *testing.T, svc *Service) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testtime.Scale(time.Minute))
		defer cancel()
		rows, _ := svc.Instances.Running(ctx, ctf.Operator)
		for _, r := range rows {
			svc.Instances.StopByID(ctx, ctf.Operator, r.ID)
		}
	})
}

// instanceChallenges saves two challenges with per-player instances.
func instanceChallenges(t *testing.T, f *ucFixture) (ctf.Challenge, ctf.Challenge) {
	t.Helper()
	var out []ctf.Challenge
	for _, title := range []string{"Pwn me", "Pwn me too"} {
		c, err := f.svc.Content.SaveChallenge(t.Context(), ctf.Operator, ChallengeInput{Title: title, Categories: []string{"pwn"},
			Difficulty: ctf.Easy, Points: 100, Instance: &ctf.InstanceSpec{Image: instancestest.Image, Port: 1337,
				Lifetime: time.Minute, MaxLifetime: 90 * time.Second, Memory: 32 << 20, Pids: 32}})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out[0], out[1]
}

// TestInstancesOnARealEngine: a player starts their instance, reaches it on
// 127.0.0.1 and reads their own flag, which solves the challenge; another
// player's instance gives another flag, and submitting it is wrong and
// recorded as sharing; a second start returns the running instance; extend
// moves the expiry up to the maximum; the per-player limit is 409 and the
// event's capacity 503; stop removes the container (asked of the engine);
// an expired instance is stopped by the reaper. On Docker and on Swarm.
func TestInstancesOnARealEngine(t *testing.T) {
	for _, e := range realEngines(t) {
		t.Run(e.name, func(t *testing.T) {
			ctx := t.Context()
			from, to := instancestest.FreePorts(t, 10)
			f := newFixture(t, Options{Instances: InstanceOptions{Engine: e.engine, EngineName: e.name, Host: "127.0.0.1",
				PortFrom: from, PortTo: to, PerPlayer: 1, Max: 2}})
			c1, c2 := instanceChallenges(t, f)
			pam, pat, root := f.as("pam"), f.as("pat"), f.as("root")
			stopAllAtEnd(t, f.svc)

			if got, err := f.svc.Instances.Get(ctx, pam, c1.Slug); err != nil || got != nil {
				t.Fatalf("before a start: %+v, %v", got, err)
			}
			v, created, err := f.svc.Instances.Start(ctx, pam, c1.Slug)
			if err != nil || !created || v.Status != "running" || v.Port < from || v.Port > to {
				t.Fatalf("start: %+v created %v: %v", v, created, err)
			}
			if e.name == "docker" && v.Connection != fmt.Sprintf("nc 127.0.0.1 %d", v.Port) {
				t.Errorf("connection %q", v.Connection)
			}
			if !v.ExpiresAt.Equal(f.clock.Now().Add(time.Minute)) {
				t.Errorf("expires at %v, want a minute from now", v.ExpiresAt)
			}
			key, err := f.svc.flagKey(ctx)
			if err != nil {
				t.Fatal(err)
			}
			pamFlag := instancestest.Greeting(t, v.Port)
			if pamFlag != ctf.PlayerFlag(key, pam.User.ID, &c1) {
				t.Fatalf("the container greets with %q, want pam's own flag", pamFlag)
			}
			again, created, err := f.svc.Instances.Start(ctx, pam, c1.Slug)
			if err != nil || created || again.Port != v.Port {
				t.Errorf("a second start: %+v created %v, %v; want the running one", again, created, err)
			}

			// The per-player limit, then the event's capacity.
			_, _, err = f.svc.Instances.Start(ctx, pam, c2.Slug)
			wantCode(t, "pam's second instance", err, ctf.Conflict)
			pv, _, err := f.svc.Instances.Start(ctx, pat, c1.Slug)
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = f.svc.Instances.Start(ctx, root, c1.Slug)
			wantCode(t, "over the event's capacity", err, ctf.Unavailable)

			// Flags: each their own; a shared one is sharing.
			patFlag := instancestest.Greeting(t, pv.Port)
			if patFlag == pamFlag {
				t.Fatal("two players got the same flag")
			}
			_, err = f.svc.Play.Submit(ctx, pat, c1.Slug, pamFlag)
			wantCode(t, "pam's flag from pat", err, ctf.Invalid)
			share, err := f.svc.Instances.Sharing(ctx, ctf.Operator, 10)
			if err != nil || len(share) != 1 || share[0].Username != "pat" || share[0].Owner != "pam" || share[0].Challenge != c1.Slug {
				t.Errorf("sharing %+v, %v", share, err)
			}
			if res, err := f.svc.Play.Submit(ctx, pam, c1.Slug, pamFlag); err != nil || !res.Success {
				t.Errorf("pam's own flag: %+v, %v", res, err)
			}

			// Extend: a lifetime from now, at most the maximum (90 s).
			f.clock.Add(40 * time.Second)
			ext, err := f.svc.Instances.Extend(ctx, pam, c1.Slug)
			if err != nil || !ext.ExpiresAt.Equal(v.StartedAt.Add(90*time.Second)) {
				t.Errorf("extend: %+v, %v; want the maximum, 90 s after the start", ext, err)
			}
			_, err = f.svc.Instances.Extend(ctx, pam, c1.Slug)
			wantCode(t, "extend at the maximum", err, ctf.Conflict)

			// Stop: gone from the engine.
			rows, err := f.svc.Instances.Running(ctx, ctf.Operator)
			if err != nil || len(rows) != 2 {
				t.Fatalf("running: %+v, %v", rows, err)
			}
			if err := f.svc.Instances.Stop(ctx, pam, c1.Slug); err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				if r.Username == "pam" {
					if _, err := e.engine.Inspect(ctx, r.ID); !errors.Is(err, instances.ErrNotFound) {
						t.Errorf("pam's instance after stop: %v, want not found", err)
					}
				}
			}
			if got, _ := f.svc.Instances.Get(ctx, pam, c1.Slug); got != nil {
				t.Errorf("after stop: %+v", got)
			}

			// Expiry: pat's instance stops by itself.
			f.clock.Add(2 * time.Minute)
			if err := f.svc.Instances.reap(ctx); err != nil {
				t.Fatal(err)
			}
			if got, _ := f.svc.Instances.Get(ctx, pat, c1.Slug); got != nil {
				t.Errorf("after its lifetime: %+v", got)
			}
			for _, r := range rows {
				if _, err := e.engine.Inspect(ctx, r.ID); !errors.Is(err, instances.ErrNotFound) {
					t.Errorf("%s's instance after expiry: %v, want not found", r.Username, err)
				}
			}
		})
	}
}

// TestInstanceStartsRaceAndReconcile: two replicas starting one player's
// instance at once make one instance; a container the database does not
// know is removed at a replica's start, and a live row whose container
// vanished is recorded as stopped. On Docker (the reconciliation is the
// engine's List and Stop, the same on Swarm).
func TestInstanceStartsRaceAndReconcile(t *testing.T) {
	e := realEngines(t)[0]
	ctx := t.Context()
	from, to := instancestest.FreePorts(t, 10)
	opts := Options{Instances: InstanceOptions{Engine: e.engine, EngineName: e.name, Host: "127.0.0.1", PortFrom: from, PortTo: to}}
	f := newFixture(t, opts)
	other := f.replica(opts)
	c1, _ := instanceChallenges(t, f)
	if err := other.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	pam := f.as("pam")
	stopAllAtEnd(t, f.svc)

	var wg sync.WaitGroup
	views := make([]InstanceView, 2)
	made := make([]bool, 2)
	errs := make([]error, 2)
	for i, svc := range []*Service{f.svc, other} {
		wg.Go(func() { views[i], made[i], errs[i] = svc.Instances.Start(ctx, pam, c1.Slug) })
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil || views[0].Port != views[1].Port || made[0] == made[1] {
		t.Fatalf("two starts at once: %+v %v %v / %+v %v %v", views[0], made[0], errs[0], views[1], made[1], errs[1])
	}
	rows, err := f.svc.Instances.Running(ctx, ctf.Operator)
	if err != nil || len(rows) != 1 {
		t.Fatalf("running after two starts: %+v, %v", rows, err)
	}

	// An orphan: a container with the platform's label and no row.
	orphan := "t-orphan-" + rows[0].ID[:8]
	orphanPort, _ := instancestest.FreePorts(t, 1)
	if _, err := e.engine.Start(ctx, instances.Spec{ID: orphan, Image: instancestest.Image, Port: 1337, HostPort: orphanPort}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.engine.Stop(context.Background(), orphan) })
	// A vanished container: removed behind the platform's back.
	if err := e.engine.Stop(ctx, rows[0].ID); err != nil {
		t.Fatal(err)
	}
	if err := other.Instances.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.engine.Inspect(ctx, orphan); !errors.Is(err, instances.ErrNotFound) {
		t.Errorf("the orphan after reconciliation: %v, want not found", err)
	}
	if got, _ := f.svc.Instances.Get(ctx, pam, c1.Slug); got != nil {
		t.Errorf("the vanished instance after reconciliation: %+v, want none", got)
	}
}
