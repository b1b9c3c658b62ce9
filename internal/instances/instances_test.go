package instances

import (
	"context"
	"errors"
	"fmt"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/testtime"
	"github.com/moby/moby/client"
)

// The tests run on a real engine (scripts/docker-engine.sh makes one), each
// over both engines: Docker and a one-node Docker Swarm.

func TestStartConnectStop(t *testing.T) {
	eachEngine(t, func(t *testing.T, e namedEngine) {
		ctx := testContext(t, 90*time.Second)
		spec := testSpec(t)
		inst := start(t, e, spec)
		if inst.ID != spec.ID || inst.HostPort != spec.HostPort || inst.State != StateRunning || inst.EngineID == "" {
			t.Fatalf("Start = %+v, want %s running on %d with an engine id", inst, spec.ID, spec.HostPort)
		}

		s, err := dial(ctx, spec.HostPort)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if s.greet != spec.Env["FLAG"] {
			t.Errorf("greeting %q, want the flag %q", s.greet, spec.Env["FLAG"])
		}
		if got, err := s.ask(ctx, "hello"); err != nil || got != "hello" {
			t.Errorf("echo = %q, %v", got, err)
		}
		// Every capability dropped on both engines; no new privileges
		// on Docker, and on a swarm only from API 1.46 (the service
		// has no field for it before).
		status, err := s.ask(ctx, "status")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(status, "CapEff: 0000000000000000") {
			t.Errorf("%s: capabilities left", status)
		}
		if e.name == "docker" && !strings.Contains(status, "NoNewPrivs: 1") {
			t.Errorf("%s: new privileges allowed", status)
		}
		t.Logf("%s (API %s)", status, e.cli.ClientVersion())

		got, err := e.Inspect(ctx, spec.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.State != StateRunning || got.EngineID != inst.EngineID || got.HostPort != spec.HostPort {
			t.Errorf("Inspect = %+v, want it running as %+v", got, inst)
		}
		if e.name == "swarm" && got.Node == "" {
			t.Errorf("Inspect = %+v: no node", got)
		}
		list, err := e.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if i := slices.IndexFunc(list, func(l Instance) bool { return l.ID == spec.ID }); i < 0 {
			t.Errorf("List = %+v: %s missing", list, spec.ID)
		} else if list[i].State != StateRunning || list[i].HostPort != spec.HostPort || list[i].EngineID != inst.EngineID {
			t.Errorf("List has %+v, want %+v", list[i], got)
		}

		if err := e.Stop(ctx, spec.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Inspect(ctx, spec.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("Inspect after Stop: %v, want ErrNotFound", err)
		}
		assertGone(ctx, t, e, spec.ID)
		if err := e.Stop(ctx, spec.ID); err != nil {
			t.Errorf("second Stop: %v", err)
		}
		list, err = e.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(list, func(l Instance) bool { return l.ID == spec.ID }) {
			t.Errorf("List after Stop still has %s", spec.ID)
		}
	})
}

// eachEngine runs f as a subtest on each engine.
func eachEngine(t *testing.T, f func(t *testing.T, e namedEngine)) {
	for _, e := range testEngines(t) {
		t.Run(e.name, func(t *testing.T) { f(t, e) })
	}
}

// testContext is the test's context, ended after d (scaled to the
// machine) at the latest.
func testContext(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), testtime.Scale(d))
	t.Cleanup(cancel)
	return ctx
}

// assertGone asks the engine itself that nothing carries the instance's
// label: no service, no container.
func assertGone(ctx context.Context, t *testing.T, e namedEngine, id string) {
	t.Helper()
	f := managedFilter(id)
	cs, err := e.cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs.Items) != 0 {
		t.Errorf("containers of %s left: %+v", id, cs.Items)
	}
	if e.name == "swarm" {
		ss, err := e.cli.ServiceList(ctx, client.ServiceListOptions{Filters: f})
		if err != nil {
			t.Fatal(err)
		}
		if len(ss.Items) != 0 {
			t.Errorf("services of %s left: %+v", id, ss.Items)
		}
	}
}

func TestStartFailsCleanly(t *testing.T) {
	eachEngine(t, func(t *testing.T, e namedEngine) {
		t.Run("image absent", func(t *testing.T) {
			ctx := testContext(t, 60*time.Second)
			spec := testSpec(t)
			spec.Image = "flagship-test/absent:" + randomHex(4)
			inst, err := e.Start(ctx, spec)
			t.Cleanup(func() { stop(t, e, spec.ID) })
			if err == nil || errors.Is(err, ErrUnavailable) {
				t.Fatalf("Start = %+v, %v: want a failure that is not the engine's absence", inst, err)
			}
			t.Logf("Start: %v", err)
			if _, err := e.Inspect(ctx, spec.ID); !errors.Is(err, ErrNotFound) {
				t.Errorf("Inspect after a failed Start: %v, want ErrNotFound", err)
			}
			assertGone(ctx, t, e, spec.ID)
		})

		t.Run("same id twice", func(t *testing.T) {
			ctx := testContext(t, 60*time.Second)
			spec := testSpec(t)
			first := start(t, e, spec)
			again := spec
			again.HostPort = freePort(t)
			if inst, err := e.Start(ctx, again); !errors.Is(err, ErrExists) {
				t.Fatalf("second Start = %+v, %v: want ErrExists", inst, err)
			}
			// The refusal removed nothing of the first.
			if got, err := e.Inspect(ctx, spec.ID); err != nil || got.EngineID != first.EngineID || got.State != StateRunning {
				t.Errorf("Inspect = %+v, %v: want the first still running", got, err)
			}
		})

		// By another instance (the engine knows), or by a process of the
		// host's (the engine finds out when it binds).
		for _, by := range []string{"instance", "process"} {
			t.Run("host port taken by "+by, func(t *testing.T) {
				ctx := testContext(t, 60*time.Second)
				spec := testSpec(t)
				if by == "instance" {
					first := testSpec(t)
					start(t, e, first)
					spec.HostPort = first.HostPort
				} else {
					ln, err := net.Listen("tcp", fmt.Sprintf(":%d", spec.HostPort))
					if err != nil {
						t.Fatal(err)
					}
					defer ln.Close()
				}
				inst, err := e.Start(ctx, spec)
				t.Cleanup(func() { stop(t, e, spec.ID) })
				if !errors.Is(err, ErrPortTaken) {
					t.Fatalf("Start on a taken port = %+v, %v: want ErrPortTaken", inst, err)
				}
				t.Logf("Start: %v", err)
				assertGone(ctx, t, e, spec.ID)
			})
		}
	})
}

// TestLimitsHold runs the echo service's misbehaviours: it eats memory
// until killed, and forks until refused. The machine runs on, and the
// engine says what happened.
func TestLimitsHold(t *testing.T) {
	eachEngine(t, func(t *testing.T, e namedEngine) {
		t.Run("memory", func(t *testing.T) {
			ctx := testContext(t, 60*time.Second)
			spec := testSpec(t)
			spec.Memory = 32 << 20
			start(t, e, spec)
			s, err := dial(ctx, spec.HostPort)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if answer, err := s.ask(ctx, "eat-memory"); err == nil {
				t.Fatalf("eat-memory answered %q: the limit did not hold", answer)
			}
			inst := waitState(ctx, t, e, spec.ID, StateExited)
			if !inst.OOMKilled || inst.ExitCode != 137 {
				t.Errorf("Inspect = %+v, want it killed for its memory (exit 137)", inst)
			}
			if err := e.Ping(ctx); err != nil {
				t.Errorf("the engine after the kill: %v", err)
			}
		})

		t.Run("pids", func(t *testing.T) {
			ctx := testContext(t, 60*time.Second)
			spec := testSpec(t)
			spec.Pids = 32
			start(t, e, spec)
			s, err := dial(ctx, spec.HostPort)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			answer, err := s.ask(ctx, "fork-bomb")
			if err != nil {
				t.Fatal(err)
			}
			m := regexp.MustCompile(`^fork-bomb: started (\d+), refused: `).FindStringSubmatch(answer)
			if m == nil {
				t.Fatalf("fork-bomb answered %q: want a refusal", answer)
			}
			if n, _ := strconv.Atoi(m[1]); n >= int(spec.Pids) {
				t.Errorf("%s: more processes than the limit of %d", answer, spec.Pids)
			}
			t.Log(answer)
			// The service itself survived its children.
			if got, err := s.ask(ctx, "still there"); err != nil || got != "still there" {
				t.Errorf("after the fork bomb: %q, %v", got, err)
			}
		})
	})
}

// waitState polls Inspect until the instance is in state.
func waitState(ctx context.Context, t *testing.T, e Engine, id, state string) Instance {
	t.Helper()
	for {
		inst, err := e.Inspect(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if inst.State == state {
			return inst
		}
		select {
		case <-ctx.Done():
			t.Fatalf("instance %s: %+v, never %s", id, inst, state)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TestInstancesIsolated: one instance cannot reach another's container
// (only its port published on the host, as any player can).
func TestInstancesIsolated(t *testing.T) {
	eachEngine(t, func(t *testing.T, e namedEngine) {
		ctx := testContext(t, 60*time.Second)
		a, b := testSpec(t), testSpec(t)
		start(t, e, a)
		start(t, e, b)
		cs, err := e.cli.ContainerList(ctx, client.ContainerListOptions{Filters: managedFilter(b.ID)})
		if err != nil || len(cs.Items) != 1 || cs.Items[0].NetworkSettings == nil {
			t.Fatalf("the container of %s: %+v, %v", b.ID, cs.Items, err)
		}
		var ip string
		for _, n := range cs.Items[0].NetworkSettings.Networks {
			if n.IPAddress.IsValid() {
				ip = n.IPAddress.String()
			}
		}
		if ip == "" {
			t.Fatalf("the container of %s has no address: %+v", b.ID, cs.Items[0].NetworkSettings)
		}
		s, err := dial(ctx, a.HostPort)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		answer, err := s.ask(ctx, "dial "+net.JoinHostPort(ip, "1337"))
		if err != nil {
			t.Fatal(err)
		}
		if answer == "dial: ok" {
			t.Errorf("instance %s reached instance %s at %s", a.ID, b.ID, ip)
		}
		t.Log(answer)
	})
}

// TestEngineDown: an engine that cannot be reached is ErrUnavailable from
// every method, and nothing is left to clean.
func TestEngineDown(t *testing.T) {
	host := "unix://" + t.TempDir() + "/absent.sock"
	for _, mk := range []struct {
		name string
		new  func(Options) (Engine, error)
	}{{"docker", NewDocker}, {"swarm", NewSwarm}} {
		t.Run(mk.name, func(t *testing.T) {
			e, err := mk.new(Options{Host: host})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			ctx := testContext(t, 10*time.Second)
			spec := Spec{ID: "down", Image: testImage, Port: 1337, HostPort: 31337}
			_, startErr := e.Start(ctx, spec)
			_, inspectErr := e.Inspect(ctx, spec.ID)
			_, listErr := e.List(ctx)
			for op, err := range map[string]error{
				"Ping":    e.Ping(ctx),
				"Start":   startErr,
				"Inspect": inspectErr,
				"Stop":    e.Stop(ctx, spec.ID),
				"List":    listErr,
			} {
				if !errors.Is(err, ErrUnavailable) {
					t.Errorf("%s: %v, want ErrUnavailable", op, err)
				}
			}
		})
	}
}

func TestSpecValidate(t *testing.T) {
	ok := Spec{ID: "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", Image: testImage, Port: 1337, HostPort: 30000}
	if err := ok.validate(); err != nil {
		t.Fatalf("a uuid id: %v", err)
	}
	for name, change := range map[string]func(*Spec){
		"no id":          func(s *Spec) { s.ID = "" },
		"id with slash":  func(s *Spec) { s.ID = "a/b" },
		"id too long":    func(s *Spec) { s.ID = strings.Repeat("a", 55) },
		"id leading dot": func(s *Spec) { s.ID = ".a" },
		"no image":       func(s *Spec) { s.Image = "" },
		"port 0":         func(s *Spec) { s.Port = 0 },
		"host port big":  func(s *Spec) { s.HostPort = 65536 },
		"negative pids":  func(s *Spec) { s.Pids = -1 },
		"env name '='":   func(s *Spec) { s.Env = map[string]string{"A=B": "c"} },
	} {
		s := ok
		change(&s)
		if err := s.validate(); err == nil {
			t.Errorf("%s: valid", name)
		}
	}
	// The package's labels win over the caller's.
	s := ok
	s.Labels = map[string]string{LabelInstance: "other", "x": "y"}
	if l := s.labels(); l[LabelInstance] != ok.ID || l[LabelManaged] != "1" || l["x"] != "y" || l[LabelHostPort] != "30000" {
		t.Errorf("labels = %v", l)
	}
}

func ExampleEngine() {
	e, err := NewDocker(Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer e.Close()
	ctx := context.Background()
	inst, err := e.Start(ctx, Spec{ID: "0190a1b2", Image: "flagship-test/echo:1", Port: 1337, HostPort: 30001,
		Env: map[string]string{"FLAG": "flag{...}"}, Memory: 256 << 20, NanoCPUs: 500_000_000, Pids: 128})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("nc HOST", inst.HostPort)
	_ = e.Stop(ctx, inst.ID)
}

// TestConcurrentStarts: instances started and stopped at once do not get
// in each other's way (they share the network, which a swarm node drops
// when its last task there goes), and of two starts of one id, one wins
// and the other is told the instance exists.
func TestConcurrentStarts(t *testing.T) {
	eachEngine(t, func(t *testing.T, e namedEngine) {
		for round := range 2 {
			ctx, cancel := context.WithTimeout(t.Context(), testtime.Scale(90*time.Second))
			specs := []Spec{testSpec(t), testSpec(t), testSpec(t)}
			twin := specs[0]
			twin.HostPort = freePort(t)
			specs = append(specs, twin)
			errs := make([]error, len(specs))
			var wg sync.WaitGroup
			for i, spec := range specs {
				wg.Go(func() { _, errs[i] = e.Start(ctx, spec) })
			}
			wg.Wait()
			for _, spec := range specs[:3] {
				t.Cleanup(func() { stop(t, e, spec.ID) })
			}
			if errs[1] != nil || errs[2] != nil {
				t.Fatalf("round %d: starts: %v", round, errors.Join(errs...))
			}
			if (errs[0] == nil) == (errs[3] == nil) || !errors.Is(errors.Join(errs[0], errs[3]), ErrExists) {
				t.Fatalf("round %d: two starts of one id: %v and %v, want one ErrExists", round, errs[0], errs[3])
			}
			for _, spec := range specs[:3] {
				if got, err := e.Inspect(ctx, spec.ID); err != nil || got.State != StateRunning {
					t.Errorf("round %d: Inspect %s = %+v, %v", round, spec.ID, got, err)
				}
			}
			for i, spec := range specs[:3] {
				wg.Go(func() { errs[i] = e.Stop(ctx, spec.ID) })
			}
			wg.Wait()
			if err := errors.Join(errs[:3]...); err != nil {
				t.Fatalf("round %d: stops: %v", round, err)
			}
			cancel()
		}
	})
}
