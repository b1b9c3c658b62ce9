package replicatest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// process is one `flagship serve` process.
type process struct {
	Slot, Gen int // replica slot and how many processes served it before
	URL       string
	LogPath   string

	cmd     *exec.Cmd
	exited  chan struct{} // closed once the process is gone and reaped
	waitErr error
	killed  atomic.Bool // SIGKILL sent on purpose: connection errors are expected
}

func (p *process) String() string {
	return fmt.Sprintf("replica %d (process %d, %s)", p.Slot, p.Gen, p.URL)
}

// cluster runs the replicas of one test on one database.
type cluster struct {
	t      *testing.T
	dsn    string
	logDir string
	args   []string

	mu    sync.Mutex
	slots []*process // current process per slot; nil or down while out of rotation
	up    []bool
	all   []*process // every process started, for cleanup and log checks
}

func newCluster(t *testing.T, dsn string, n int, extraArgs ...string) *cluster {
	c := &cluster{t: t, dsn: dsn, logDir: t.TempDir(), args: extraArgs, slots: make([]*process, n), up: make([]bool, n)}
	// Registered after freshDatabase's cleanup, so it runs before the drop.
	t.Cleanup(c.cleanup)
	return c
}

var listeningRE = regexp.MustCompile(`Flagship is listening on (http://127\.0\.0\.1:\d+)`)

// startAll starts a process in every slot, in parallel.
func (c *cluster) startAll() {
	c.t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, len(c.slots))
	for i := range c.slots {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = c.start(i) }()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		c.t.Fatal(err)
	}
}

// start starts a process for slot (on a new port) and puts it in rotation
// once it answers its health check.
func (c *cluster) start(slot int) error {
	c.mu.Lock()
	gen := 0
	for _, p := range c.all {
		if p.Slot == slot {
			gen++
		}
	}
	p := &process{Slot: slot, Gen: gen, exited: make(chan struct{}),
		LogPath: filepath.Join(c.logDir, fmt.Sprintf("replica-%d-%d.log", slot, gen))}
	c.all = append(c.all, p)
	c.mu.Unlock()

	logf, err := os.Create(p.LogPath)
	if err != nil {
		return err
	}
	args := append([]string{"--db", c.dsn, "serve", "--addr", "127.0.0.1:0"}, c.args...)
	p.cmd = exec.Command(flagshipBin, args...)
	p.cmd.Env = childEnv()
	p.cmd.SysProcAttr = childAttr()
	p.cmd.Stderr = logf
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		logf.Close()
		return err
	}
	if err := p.cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("start replica %d: %w", slot, err)
	}
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := listeningRE.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case urls <- m[1]:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
		p.waitErr = p.cmd.Wait()
		logf.Close()
		close(p.exited)
	}()
	select {
	case p.URL = <-urls:
	case <-p.exited:
		return fmt.Errorf("replica %d exited before listening (%v):\n%s", slot, p.waitErr, tail(p.LogPath, 30))
	case <-time.After(60 * time.Second):
		return fmt.Errorf("replica %d did not announce its address within 60 s:\n%s", slot, tail(p.LogPath, 30))
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := do(context.Background(), "GET", p.URL+"/api/public/health", "", nil)
		if r.Err == nil && r.Status == 200 {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not healthy within 30 s: %v %d %s", p, r.Err, r.Status, r.Body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.mu.Lock()
	c.slots[slot], c.up[slot] = p, true
	c.mu.Unlock()
	return nil
}

// kill takes slot out of rotation and SIGKILLs its process (kill -9):
// requests in flight to it may fail, which the workload expects.
func (c *cluster) kill(slot int) *process {
	c.t.Helper()
	c.mu.Lock()
	p := c.slots[slot]
	c.up[slot] = false
	c.mu.Unlock()
	p.killed.Store(true)
	if err := p.cmd.Process.Kill(); err != nil {
		c.t.Errorf("kill %s: %v", p, err)
	}
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		c.t.Fatalf("%s still running 10 s after SIGKILL", p)
	}
	return p
}

// stop takes slot out of rotation and stops its process with SIGTERM,
// which must end it cleanly (in-flight requests finish, exit status 0).
func (c *cluster) stop(slot int) {
	c.t.Helper()
	c.mu.Lock()
	p := c.slots[slot]
	c.up[slot] = false
	c.mu.Unlock()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		c.t.Errorf("SIGTERM %s: %v", p, err)
	}
	select {
	case <-p.exited:
		if p.waitErr != nil {
			c.t.Errorf("%s: exit after SIGTERM: %v\n%s", p, p.waitErr, tail(p.LogPath, 20))
		}
	case <-time.After(20 * time.Second):
		p.killed.Store(true)
		_ = p.cmd.Process.Kill()
		<-p.exited
		c.t.Errorf("%s did not stop within 20 s of SIGTERM", p)
	}
}

// live returns the processes in rotation.
func (c *cluster) live() []*process {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*process
	for i, p := range c.slots {
		if c.up[i] {
			out = append(out, p)
		}
	}
	return out
}

// proc returns the current process of slot.
func (c *cluster) proc(slot int) *process {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.slots[slot]
}

// pick returns a random process in rotation.
func (c *cluster) pick(rng *rand.Rand) *process {
	l := c.live()
	if len(l) == 0 {
		return nil
	}
	return l[rng.IntN(len(l))]
}

// cleanup kills every process still running, even after a failure, and
// shows the logs of a failed test.
func (c *cluster) cleanup() {
	c.mu.Lock()
	all := append([]*process(nil), c.all...)
	c.mu.Unlock()
	for _, p := range all {
		if p.cmd == nil || p.cmd.Process == nil {
			continue
		}
		select {
		case <-p.exited:
		default:
			p.killed.Store(true)
			_ = p.cmd.Process.Kill()
			select {
			case <-p.exited:
			case <-time.After(10 * time.Second):
			}
		}
	}
	if c.t.Failed() {
		for _, p := range all {
			if lines := tail(p.LogPath, 15); lines != "" {
				c.t.Logf("last lines of the log of %s:\n%s", p, lines)
			}
		}
	}
}

// checkLogs fails on a data race (replicas built with -race, see
// raceReplicasEnv) or panic reported by any replica, and
// shows its warnings (refresh or notification trouble) for the record.
func (c *cluster) checkLogs() {
	c.t.Helper()
	c.mu.Lock()
	all := append([]*process(nil), c.all...)
	c.mu.Unlock()
	for _, p := range all {
		data, err := os.ReadFile(p.LogPath)
		if err != nil {
			c.t.Errorf("read log of %s: %v", p, err)
			continue
		}
		if bytes.Contains(data, []byte("WARNING: DATA RACE")) || bytes.Contains(data, []byte("panic:")) {
			c.t.Errorf("%s reported a data race or panic:\n%s", p, clip(data, 8000))
		}
		var warns []string
		for _, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR") {
				warns = append(warns, line)
			}
		}
		if len(warns) > 0 {
			c.t.Logf("%s logged %d warnings/errors, first ones:\n%s", p, len(warns), strings.Join(warns[:min(len(warns), 5)], "\n"))
		}
	}
}

// httpClient talks to the replicas; compression off so bodies compare
// byte for byte as served.
var httpClient = &http.Client{
	Timeout: 20 * time.Second,
	Transport: &http.Transport{
		MaxIdleConns: 256, MaxIdleConnsPerHost: 64, IdleConnTimeout: 30 * time.Second,
		DisableCompression: true,
	},
}

// reply is a finished (or failed) exchange.
type reply struct {
	Status int
	Body   []byte
	Err    error
}

func do(ctx context.Context, method, url, key string, body []byte) reply {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return reply{Err: err}
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return reply{Err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return reply{Status: resp.StatusCode, Err: err}
	}
	return reply{Status: resp.StatusCode, Body: b}
}

func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func clip(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
