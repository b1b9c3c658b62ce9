package apitest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/instances"
	"github.com/flagshipctf/flagship/internal/instances/instancestest"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/testtime"
)

// InstanceEngine is a real container engine for the front doors' tests of
// players' instances.
type InstanceEngine struct {
	Name   string // docker or swarm
	Engine instances.Engine
}

// Options returns instance options that run on e, publish on n free ports
// of 127.0.0.1 and allow perPlayer live instances per player.
func (e InstanceEngine) Options(t testing.TB, n, perPlayer int) platform.InstanceOptions {
	from, to := instancestest.FreePorts(t, n)
	return platform.InstanceOptions{Engine: e.Engine, EngineName: e.Name, Host: "127.0.0.1", PortFrom: from, PortTo: to,
		PerPlayer: perPlayer}
}

// InstanceEngines returns Docker on the local engine, with Swarm when the
// engine is a swarm manager, each on networks of the test's own, with
// instancestest.Image built. The test skips when no engine answers (fails
// under CI) and Swarm is left out only outside CI.
func InstanceEngines(t testing.TB) []InstanceEngine {
	t.Helper()
	cli := instancestest.Client(t)
	instancestest.BuildImage(t, cli)
	b := make([]byte, 4)
	rand.Read(b)
	name := "flagship-apitest-" + hex.EncodeToString(b)
	d, err := instances.NewDocker(instances.Options{Network: name, HostIP: netip.MustParseAddr("127.0.0.1")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	t.Cleanup(func() { instancestest.RemoveNetworks(t, cli, name) })
	out := []InstanceEngine{{"docker", d}}
	s, err := instances.NewSwarm(instances.Options{Network: name + "-swarm"})
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), testtime.Scale(5*time.Second))
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
	t.Cleanup(func() { instancestest.RemoveNetworks(t, cli, name+"-swarm", name+"-swarm-config") })
	return append(out, InstanceEngine{"swarm", s})
}

// StopInstancesAtEnd stops every instance of svc when the test ends,
// whatever happened.
func StopInstancesAtEnd(t testing.TB, svc *platform.Service) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testtime.Scale(time.Minute))
		defer cancel()
		rows, _ := svc.Instances.Running(ctx, ctf.Operator)
		for _, r := range rows {
			svc.Instances.StopByID(ctx, ctf.Operator, r.ID)
		}
	})
}
