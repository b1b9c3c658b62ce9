package platform

// The instances' harder cases: a replica dead mid-start, shared instances, an engine down.

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/instances"
	"github.com/flagshipctf/flagship/internal/instances/instancestest"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/testtime"
	"github.com/moby/moby/client"
)

// TestInstancesEngineDown: an engine that does not answer is 503, and
// nothing is left half made: no live row, the port free.
func TestInstancesEngineDown(t *testing.T) {
	ctx := t.Context()
	down, err := instances.NewDocker(instances.Options{Host: "unix:///nonexistent/docker.sock"})
	if err != nil {
		t.Skipf("the client refuses the address at once: %v", err)
	}
	f := newFixture(t, Options{Instances: InstanceOptions{Engine: down, EngineName: "docker", PortFrom: 40000, PortTo: 40000}})
	c1, _ := instanceChallenges(t, f)
	pam := f.as("pam")
	_, _, err = f.svc.Instances.Start(ctx, pam, c1.Slug)
	wantCode(t, "engine down", err, ctf.Unavailable)
	if got, err := f.svc.Instances.Get(ctx, pam, c1.Slug); err != nil || got != nil {
		t.Errorf("after a failed start: %+v, %v", got, err)
	}
	if rows, _ := f.svc.Instances.Running(ctx, ctf.Operator); len(rows) != 0 {
		t.Errorf("a failed start left %+v", rows)
	}
	// Off: no engine at all.
	off := newFixture(t)
	c, _ := instanceChallenges(t, off)
	_, _, err = off.svc.Instances.Start(ctx, off.as("pam"), c.Slug)
	wantCode(t, "instances off", err, ctf.Unavailable)
}

// TestInstanceCrashMidStart: a replica that dies between its reservation
// and its container running leaves a row starting (and perhaps a
// container). Another replica's reconciliation leaves a fresh one alone (it
// may be a start in progress); once it stays starting past the timeout,
// the reaper stops its container and frees its port; the player can start
// again.
func TestInstanceCrashMidStart(t *testing.T) {
	e := realEngines(t)[0]
	ctx := t.Context()
	from, to := instancestest.FreePorts(t, 5)
	opts := Options{Instances: InstanceOptions{Engine: e.engine, EngineName: e.name, Host: "127.0.0.1", PortFrom: from, PortTo: to}}
	f := newFixture(t, opts)
	c1, _ := instanceChallenges(t, f)
	pam := f.as("pam")
	stopAllAtEnd(t, f.svc)
	// What the dead replica did: the reservation, then the container.
	now := f.clock.Now()
	r, _, err := f.db.Instances().Reserve(ctx, store.InstanceRow{ID: ctf.NewID(), ChallengeID: c1.ID, UserID: pam.User.ID, Engine: e.name,
		StartedAt: now, ExpiresAt: now.Add(time.Hour), MaxUntil: now.Add(time.Hour)},
		store.InstanceLimits{From: from, To: to})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.engine.Start(ctx, instances.Spec{ID: r.ID, Image: instancestest.Image, Port: 1337, HostPort: r.Port}); err != nil {
		t.Fatal(err)
	}

	other := f.replica(opts)
	if err := other.Instances.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.engine.Inspect(ctx, r.ID); err != nil {
		t.Fatalf("a fresh start in progress was removed: %v", err)
	}
	f.clock.Add(startingTimeout + time.Second)
	if err := other.Instances.reap(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.engine.Inspect(ctx, r.ID); !errors.Is(err, instances.ErrNotFound) {
		t.Errorf("a start stuck past the timeout: %v, want its container gone", err)
	}
	v, created, err := other.Instances.Start(ctx, pam, c1.Slug)
	if err != nil || !created {
		t.Fatalf("a new start after the crash: %+v %v, %v", v, created, err)
	}
	if got := instancestest.Greeting(t, v.Port); !strings.HasPrefix(got, "flag{") {
		t.Errorf("the new instance greets with %q", got)
	}
}

// TestSharedInstance: a challenge whose instance is shared gets one
// container for everyone once players see it, with the challenge's own
// flag, reached by the challenge's connection line; players do not start
// one of their own; the engine brings it back when its process dies; it
// goes when the challenge is hidden. On Docker and on Swarm.
func TestSharedInstance(t *testing.T) {
	for _, e := range realEngines(t) {
		t.Run(e.name, func(t *testing.T) {
			ctx := t.Context()
			from, to := instancestest.FreePorts(t, 4)
			f := newFixture(t, Options{Instances: InstanceOptions{Engine: e.engine, EngineName: e.name, Host: "127.0.0.1",
				PortFrom: from, PortTo: to}})
			stopAllAtEnd(t, f.svc)
			c, err := f.svc.Content.SaveChallenge(ctx, ctf.Operator, ChallengeInput{Title: "Everyone's echo", Categories: []string{"misc"},
				Difficulty: ctf.Easy, Points: 50, Flags: []ctf.Flag{{Kind: ctf.FlagStatic, Content: "flag{for-everyone}"}},
				Instance: &ctf.InstanceSpec{Image: instancestest.Image, Port: 1337, Flag: ctf.FlagFromChallenge, Shared: true,
					Memory: 32 << 20, Pids: 32}})
			if err != nil {
				t.Fatal(err)
			}
			if conn := f.svc.Play.ConnectionInfo(ctx, c.Slug); conn != "" {
				t.Errorf("before the reaper's round: %q", conn)
			}
			if err := f.svc.Instances.reap(ctx); err != nil {
				t.Fatal(err)
			}
			conn := f.svc.Play.ConnectionInfo(ctx, c.Slug)
			var host string
			var port int
			if _, err := fmt.Sscanf(conn, "nc %s %d", &host, &port); err != nil || port < from || port > to {
				t.Fatalf("connection line %q (%v)", conn, err)
			}
			if got := instancestest.Greeting(t, port); got != "flag{for-everyone}" {
				t.Fatalf("the shared instance greets with %q", got)
			}
			pam := f.as("pam")
			_, _, err = f.svc.Instances.Start(ctx, pam, c.Slug)
			wantCode(t, "a player's own start", err, ctf.NotFound)
			if res, err := f.svc.Play.Submit(ctx, pam, c.Slug, "flag{for-everyone}"); err != nil || !res.Success {
				t.Errorf("the challenge's flag: %+v, %v", res, err)
			}

			// Its process dies (out of memory): the engine brings it back.
			rows, _ := f.svc.Instances.Running(ctx, ctf.Operator)
			if len(rows) != 1 {
				t.Fatalf("running: %+v", rows)
			}
			if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
				fmt.Fprintln(c, "eat-memory")
				io.Copy(io.Discard, c) // until the process dies and the connection with it
				c.Close()
			}
			if e.name == "docker" {
				cli := instancestest.Client(t)
				for deadline := time.Now().Add(testtime.Scale(20 * time.Second)); ; time.Sleep(100 * time.Millisecond) {
					res, err := cli.ContainerInspect(ctx, "flagship-"+rows[0].ID, client.ContainerInspectOptions{})
					if err == nil && res.Container.RestartCount > 0 {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("the container was not restarted: %v", err)
					}
				}
			}
			if got := instancestest.Greeting(t, port); got != "flag{for-everyone}" {
				t.Errorf("after its process died: %q", got)
			}

			// Its container removed behind Flagship's back: started again at
			// the next round.
			if err := e.engine.Stop(ctx, rows[0].ID); err != nil {
				t.Fatal(err)
			}
			f.clock.Add(reapEvery)
			if err := f.svc.Instances.reap(ctx); err != nil {
				t.Fatal(err)
			}
			again, _ := f.svc.Instances.Running(ctx, ctf.Operator)
			if len(again) != 1 || again[0].ID == rows[0].ID {
				t.Fatalf("after its container vanished: %+v", again)
			}
			_, _ = fmt.Sscanf(f.svc.Play.ConnectionInfo(ctx, c.Slug), "nc %s %d", &host, &port)
			if got := instancestest.Greeting(t, port); got != "flag{for-everyone}" {
				t.Errorf("the new shared instance greets with %q", got)
			}
			rows = again

			// Hidden: it goes at the next round.
			if _, err := f.svc.Content.SetChallengeHidden(ctx, ctf.Operator, c.Slug, true); err != nil {
				t.Fatal(err)
			}
			f.clock.Add(reapEvery)
			if err := f.svc.Instances.reap(ctx); err != nil {
				t.Fatal(err)
			}
			if left, _ := f.svc.Instances.Running(ctx, ctf.Operator); len(left) != 0 {
				t.Errorf("after hiding: %+v", left)
			}
			for _, r := range rows {
				if _, err := e.engine.Inspect(ctx, r.ID); !errors.Is(err, instances.ErrNotFound) {
					t.Errorf("the shared container after hiding: %v, want not found", err)
				}
			}
		})
	}
}

// TestInstanceStartAvoidsATakenPort: a port of the range held by a process
// outside Flagship (the engine says it is taken) is left for another: of
// two ports, one held, every start lands on the other. On Docker (the
// engine's answer is the same on Swarm).
func TestInstanceStartAvoidsATakenPort(t *testing.T) {
	e := realEngines(t)[0]
	ctx := t.Context()
	from, to := instancestest.FreePorts(t, 2)
	held, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", from))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	f := newFixture(t, Options{Instances: InstanceOptions{Engine: e.engine, EngineName: e.name, Host: "127.0.0.1", PortFrom: from, PortTo: to}})
	c1, _ := instanceChallenges(t, f)
	pam := f.as("pam")
	stopAllAtEnd(t, f.svc)
	// Without trying another port, each start would fail half the time.
	for i := range 6 {
		view, created, err := f.svc.Instances.Start(ctx, pam, c1.Slug)
		if err != nil || !created || view.Port != to {
			t.Fatalf("start %d: %+v %v %v; want a new instance on port %d", i, view, created, err, to)
		}
		if err := f.svc.Instances.Stop(ctx, pam, c1.Slug); err != nil {
			t.Fatal(err)
		}
	}
}
