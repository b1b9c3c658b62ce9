package apitest

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

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
	from, to := FreePorts(t, n)
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

// FreePorts returns n consecutive ports that were free a moment ago.
func FreePorts(t testing.TB, n int) (from, to int) {
	t.Helper()
	for range 50 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		from = ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		free := from+n-1 <= 65535
		for p := from; free && p < from+n; p++ {
			l, err := net.Listen("tcp", fmt.Sprintf(":%d", p))
			if err != nil {
				free = false
				break
			}
			l.Close()
		}
		if free {
			return from, from + n - 1
		}
	}
	t.Fatal("no free port range")
	return 0, 0
}

// Greeting connects to an instance on 127.0.0.1:port, as a player would,
// and returns the first line it writes (the test image's flag), waiting
// for the service to come up.
func Greeting(t testing.TB, port int) string {
	t.Helper()
	deadline := time.Now().Add(testtime.Scale(20 * time.Second))
	for {
		conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			conn.SetDeadline(time.Now().Add(testtime.Scale(5 * time.Second)))
			line, rerr := bufio.NewReader(conn).ReadString('\n')
			conn.Close()
			if rerr == nil {
				return strings.TrimSpace(line)
			}
			err = rerr
		}
		if time.Now().After(deadline) {
			t.Fatalf("no greeting on port %d: %v", port, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
