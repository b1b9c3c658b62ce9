// Package instancestest gives tests a real container engine: a client
// that skips the test when no engine answers (and fails it under CI, which
// provides one), the test image built FROM scratch around testdata/echo
// (nothing can be pulled), and the removal of the networks a test made.
package instancestest

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/testtime"
	"github.com/moby/moby/api/types/jsonstream"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
)

// Image is the image the tests run: testdata/echo, FROM scratch. It
// writes the value of $FLAG (or of the variable FLAG_ENV names) and a
// newline to each connection on port 1337, then echoes lines back.
const Image = "flagship-test/echo:1"

// Client is a client of the tests' own, to ask the engine what is there. It skips the test when no engine
// answers, unless under CI, which provides one: there it fails.
func Client(t testing.TB) *client.Client {
	t.Helper()
	cli, err := client.New(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		t.Fatalf("engine client: %v", err)
	}
	t.Cleanup(func() { cli.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), testtime.Scale(5*time.Second))
	defer cancel()
	if _, err := cli.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no container engine under CI (scripts/docker-engine.sh starts one): %v", err)
		}
		t.Skipf("no container engine (scripts/docker-engine.sh starts one): %v", err)
	}
	return cli
}

var image struct {
	sync.Mutex
	built bool
}

// BuildImage builds Image once per test process: the echo program,
// compiled static into a temporary directory, in an image FROM scratch
// built through the Engine API (nothing can be pulled).
func BuildImage(t testing.TB, cli *client.Client) {
	t.Helper()
	image.Lock()
	defer image.Unlock()
	if image.built {
		return
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "echo")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
	build.Dir = echoDir()
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build testdata/echo: %v\n%s", err, out)
	}
	exe, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	var tarball bytes.Buffer
	tw := tar.NewWriter(&tarball)
	for _, f := range []struct {
		name string
		mode int64
		body []byte
	}{
		{"Dockerfile", 0o644, []byte("FROM scratch\nCOPY echo /echo\nENTRYPOINT [\"/echo\"]\n")},
		{"echo", 0o755, exe},
	} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.body))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(f.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), testtime.Scale(2*time.Minute))
	defer cancel()
	res, err := cli.ImageBuild(ctx, &tarball, client.ImageBuildOptions{Tags: []string{Image}, Remove: true, ForceRemove: true})
	if err != nil {
		t.Fatalf("build %s: %v", Image, err)
	}
	defer res.Body.Close()
	// The build answers a stream of messages; a failed step is one of
	// them, not the status of the request.
	dec := json.NewDecoder(res.Body)
	for {
		var m jsonstream.Message
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("build %s: reading the build's output: %v", Image, err)
		}
		if m.Error != nil {
			t.Fatalf("build %s: %s", Image, m.Error.Message)
		}
	}
	image.built = true
}

// RemoveNetworks removes the networks a test's engines made, in order. A
// swarm network stays in use for a moment after its last service is gone,
// so a removal is tried again for a while.
func RemoveNetworks(t testing.TB, cli *client.Client, names ...string) {
	ctx, cancel := context.WithTimeout(context.Background(), testtime.Scale(30*time.Second))
	defer cancel()
	for _, n := range names {
		for {
			res, err := cli.NetworkList(ctx, client.NetworkListOptions{Filters: make(client.Filters).Add("name", n)})
			if err != nil {
				t.Errorf("cleanup: %v", err)
				return
			}
			nets := slices.DeleteFunc(res.Items, func(x network.Summary) bool { return x.Name != n })
			var errs []error
			for _, net := range nets {
				if _, err := cli.NetworkRemove(ctx, net.ID, client.NetworkRemoveOptions{}); err != nil {
					errs = append(errs, err)
				}
			}
			if len(errs) == 0 {
				break
			}
			if ctx.Err() != nil {
				t.Errorf("cleanup: network %s: %v", n, errors.Join(errs...))
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}

// echoDir is the directory of the echo program's source.
func echoDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata", "echo")
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
