package instances

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

	"github.com/flagshipctf/flagship/internal/instances/instancestest"
	"github.com/flagshipctf/flagship/internal/testtime"
	"github.com/moby/moby/client"
)

// testImage is the image the tests run.
const testImage = instancestest.Image

// namedEngine is an engine under test with the tests' own client beside it.
type namedEngine struct {
	name string
	Engine
	cli *client.Client
}

// testEngines returns both engines, each on a network of the test's own,
// removed when the test ends, with the test image built. The swarm engine
// is left out when the engine is no swarm manager, unless under CI.
func testEngines(t testing.TB) []namedEngine {
	t.Helper()
	cli := instancestest.Client(t)
	instancestest.BuildImage(t, cli)
	suffix := randomHex(4)
	dockerNet := "flagship-test-" + suffix
	d, err := NewDocker(Options{Network: dockerNet, HostIP: netip.MustParseAddr("127.0.0.1")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	t.Cleanup(func() { instancestest.RemoveNetworks(t, cli, dockerNet) })
	out := []namedEngine{{"docker", d, cli}}

	swarmNet := "flagship-test-swarm-" + suffix
	s, err := NewSwarm(Options{Network: swarmNet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), testtime.Scale(5*time.Second))
	defer cancel()
	if err := s.Ping(ctx); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("swarm engine under CI (scripts/docker-engine.sh makes a swarm): %v", err)
		}
		t.Logf("swarm engine left out: %v", err)
		return out
	}
	t.Cleanup(func() { instancestest.RemoveNetworks(t, cli, swarmNet, swarmNet+"-config") })
	return append(out, namedEngine{"swarm", s, cli})
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// freePort returns a TCP port nothing listens on now, on any address.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// testSpec is a spec for the echo image with a flag of its own, limits, and
// a free host port.
func testSpec(t testing.TB) Spec {
	return Spec{
		ID:       "t-" + randomHex(8),
		Image:    testImage,
		Port:     1337,
		HostPort: freePort(t),
		Env:      map[string]string{"FLAG": "flag{" + randomHex(8) + "}"},
		Memory:   64 << 20,
		NanoCPUs: 500_000_000,
		Pids:     64,
		Labels:   map[string]string{"flagship.test": t.Name()},
	}
}

// start starts spec on e and stops it when the test ends, whatever happens.
func start(t testing.TB, e Engine, spec Spec) Instance {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testtime.Scale(60*time.Second))
	defer cancel()
	inst, err := e.Start(ctx, spec)
	t.Cleanup(func() { stop(t, e, spec.ID) })
	if err != nil {
		t.Fatalf("start %s: %v", spec.ID, err)
	}
	return inst
}

func stop(t testing.TB, e Engine, id string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testtime.Scale(60*time.Second))
	defer cancel()
	if err := e.Stop(ctx, id); err != nil {
		t.Errorf("stop %s: %v", id, err)
	}
}

// session is a connection to an instance's service, past its greeting.
type session struct {
	conn  net.Conn
	r     *bufio.Reader
	greet string // the first line: the flag
}

// dial connects to the instance on 127.0.0.1 and reads its greeting. The
// port may be published before the service listens (Docker's proxy then
// accepts and closes at once), so a connection that gives no line is tried
// again until ctx ends.
func dial(ctx context.Context, port int) (*session, error) {
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	var last error
	for {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			if dl, ok := ctx.Deadline(); ok {
				_ = c.SetDeadline(dl)
			}
			r := bufio.NewReader(c)
			line, rerr := r.ReadString('\n')
			if rerr == nil {
				_ = c.SetDeadline(time.Time{})
				return &session{conn: c, r: r, greet: strings.TrimSuffix(line, "\n")}, nil
			}
			c.Close()
			err = rerr
		}
		last = err
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("dial %s: %w (last: %v)", addr, ctx.Err(), last)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// ask sends a line and returns the answer's line, or the error that ended
// the connection instead.
func (s *session) ask(ctx context.Context, line string) (string, error) {
	if dl, ok := ctx.Deadline(); ok {
		_ = s.conn.SetDeadline(dl)
	}
	if _, err := fmt.Fprintln(s.conn, line); err != nil {
		return "", err
	}
	answer, err := s.r.ReadString('\n')
	return strings.TrimSuffix(answer, "\n"), err
}

func (s *session) Close() error { return s.conn.Close() }
