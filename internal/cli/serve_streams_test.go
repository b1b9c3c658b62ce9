package cli

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/testtime"
)

// TestServeMaxStreams: `serve --max-streams N` (env FLAGSHIP_MAX_STREAMS)
// caps the live streams one server holds: N are served, the next is 429
// with Retry-After, from any address. A cap below 1 is a usage error.
func TestServeMaxStreams(t *testing.T) {
	if code, _, errOut := run(t, "", "--db", "sqlite:"+filepath.Join(t.TempDir(), "e.db"), "serve", "--addr", "127.0.0.1:0", "--max-streams", "0"); code != 2 {
		t.Errorf("--max-streams 0: exit %d, want 2 (usage): %s", code, errOut)
	}
	for _, c := range []struct {
		name string
		args []string
		env  map[string]string
		max  int
	}{
		{"flag", []string{"--max-streams", "3"}, nil, 3},
		{"env", nil, map[string]string{"FLAGSHIP_MAX_STREAMS": "2"}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := startServe(t, c.args, c.env)
			base := srv.base

			open := func() (*http.Response, context.CancelFunc) {
				sctx, stop := context.WithCancel(srv.ctx)
				req, _ := http.NewRequestWithContext(sctx, "GET", base+"/api/events", nil)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					stop()
					t.Fatal(err)
				}
				return resp, stop
			}
			var stops []context.CancelFunc
			for i := range c.max {
				resp, stop := open()
				stops = append(stops, stop)
				if resp.StatusCode != http.StatusOK {
					body, _ := io.ReadAll(resp.Body)
					t.Fatalf("stream %d of %d: %d %s", i+1, c.max, resp.StatusCode, body)
				}
				defer resp.Body.Close()
			}
			resp, stop := open()
			var body []byte
			if resp.StatusCode != http.StatusOK { // a stream's body never ends
				body, _ = io.ReadAll(resp.Body)
			}
			resp.Body.Close()
			stop()
			if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), `"error"`) {
				t.Errorf("stream %d with a cap of %d: %d, Retry-After %q, %s; want 429 with Retry-After and an error",
					c.max+1, c.max, resp.StatusCode, resp.Header.Get("Retry-After"), body)
			}
			for _, stop := range stops {
				stop()
			}
			srv.stop(t)
		})
	}
}

// serving is a `flagship serve` run in the test's process, on a fresh
// SQLite file and a free port of loopback.
type serving struct {
	base   string          // http://127.0.0.1:PORT
	ctx    context.Context // ends when the server is told to stop
	cancel context.CancelFunc
	done   chan int // its exit code
	errb   *syncBuffer
}

// startServe runs `flagship serve` with args and the environment env, and
// waits until it listens; the server stops when the test ends.
func startServe(t *testing.T, args []string, env map[string]string) *serving {
	t.Helper()
	return startServeOn(t, "sqlite:"+filepath.Join(t.TempDir(), "event.db"), args, env)
}

// startServeOn is startServe on the database db.
func startServeOn(t *testing.T, db string, args []string, env map[string]string) *serving {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s := &serving{ctx: ctx, cancel: cancel, done: make(chan int, 1), errb: &syncBuffer{}}
	var out syncBuffer
	all := append([]string{"--db", db, "serve", "--addr", "127.0.0.1:0"}, args...)
	go func() {
		s.done <- Run(ctx, all, func(k string) string { return env[k] }, IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: s.errb})
	}()
	s.base = waitListening(t, &out, s.errb, s.done)
	return s
}

// stop stops the server as a signal would, waits for it to exit, and
// returns what it logged.
func (s *serving) stop(t *testing.T) string {
	t.Helper()
	s.cancel()
	waitServeExit(t, s.done, s.errb)
	return s.errb.String()
}

// waitListening waits for serve to print its address and returns it.
func waitListening(t *testing.T, out, errb *syncBuffer, done <-chan int) string {
	t.Helper()
	urlRE := regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+)`)
	for deadline := time.Now().Add(testtime.Scale(20 * time.Second)); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := urlRE.FindStringSubmatch(out.String()); m != nil {
			return m[1]
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited early with %d: %s", code, errb.String())
		default:
		}
	}
	t.Fatalf("no address printed within 20 s:\n%s\n%s", out.String(), errb.String())
	return ""
}
