// Command ssebench measures the live stream's capacity: it opens N
// Server-Sent Events connections (default 10,000) on loopback to one
// server, publishes events, and reports the server's memory and
// goroutines per connected client and how long an event takes to reach
// every client.
//
//	go run ./cmd/ssebench [-n 10000] [-events 20]
//
// The server runs in a child process (this program again, with
// -serve), so that its memory is the server's alone: the real server
// stack (internal/server, with its timeouts) over a fresh SQLite event,
// its watcher relaying the stream as `flagship serve` does. Each event is
// an announcement whose title is the instant it was posted; a client's
// latency is its arrival minus that instant (one machine, one clock), so it
// covers the database write, the relay and the fan-out.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/flagshipctf/flagship/internal/clientaddr"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/server"
	"github.com/flagshipctf/flagship/internal/store"
)

func main() {
	serve := flag.Bool("serve", false, "run as the server child (internal)")
	n := flag.Int("n", 10000, "clients to connect")
	events := flag.Int("events", 20, "events to publish, one after another")
	flag.Parse()
	var err error
	if *serve {
		err = serveChild(*n)
	} else {
		err = run(*n, *events)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "ssebench:", err)
		os.Exit(1)
	}
}

// raiseFiles lifts the open-file limit to at least want (both ends of
// every connection are on this machine, one per process).
func raiseFiles(want uint64) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return fmt.Errorf("read the open-file limit: %w", err)
	}
	if lim.Cur >= want {
		return nil
	}
	lim.Cur = want
	if lim.Max < want {
		lim.Max = want // needs privilege; else the error says what to do
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return fmt.Errorf("raise the open-file limit to %d (ulimit -n): %w", want, err)
	}
	return nil
}

// --- the server child ---

// counter is the server's Observer: it counts stream clients.
type counter struct{ clients atomic.Int64 }

func (c *counter) Submitted(string)                       {}
func (c *counter) SolveApplied(bool, bool, time.Duration) {}
func (c *counter) SubmitBatch(int, time.Duration)         {}
func (c *counter) StreamClients(d int)                    { c.clients.Add(int64(d)) }
func (c *counter) InstanceStarted(bool, time.Duration)    {}
func (c *counter) InstancesRunning(int)                   {}
func (c *counter) WebhookDelivery(string, bool)           {}

// memory is what the child reports of itself.
type memory struct {
	Clients    int64  `json:"clients"`
	HeapInuse  uint64 `json:"heapInuse"`
	StackInuse uint64 `json:"stackInuse"`
	Sys        uint64 `json:"sys"`
	Goroutines int    `json:"goroutines"`
	RSS        uint64 `json:"rss"` // bytes, from /proc/self/status
}

func serveChild(n int) error {
	if err := raiseFiles(uint64(n) + 1024); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	dir, err := os.MkdirTemp("", "ssebench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db, err := store.Open(ctx, "sqlite:"+filepath.Join(dir, "event.db"))
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	log := slog.New(slog.DiscardHandler)
	obs := &counter{}
	svc := platform.New(db, platform.Options{PublicURL: "http://127.0.0.1", Logger: log, Observer: obs, FilesDir: dir})
	if err := svc.Load(ctx); err != nil {
		return err
	}
	go svc.Watch(ctx, 250*time.Millisecond)

	// The control routes sit beside the real handler, on the same
	// listener, so the benchmark needs no second port.
	// Every client connects from loopback: as if behind a proxy on it,
	// each names its own address (subscribe), so that the cap of streams
	// per client address does not stop the benchmark; the replica's cap
	// is the benchmark's n.
	proxy, err := clientaddr.Parse("127.0.0.1/32")
	if err != nil {
		return err
	}
	srv := server.New(svc, server.Options{Log: log, Clients: proxy, MaxStreams: n})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /bench/memory", func(w http.ResponseWriter, r *http.Request) {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		json.NewEncoder(w).Encode(memory{Clients: obs.clients.Load(), HeapInuse: ms.HeapInuse, StackInuse: ms.StackInuse,
			Sys: ms.Sys, Goroutines: runtime.NumGoroutine(), RSS: rss()})
	})
	mux.HandleFunc("POST /bench/publish", func(w http.ResponseWriter, r *http.Request) {
		title := "bench " + strconv.FormatInt(time.Now().UnixNano(), 10)
		if _, err := svc.Event.PostAnnouncement(r.Context(), ctf.Operator, title, "", ""); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
	mux.Handle("/", srv.Handler())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Println("ADDR", ln.Addr().String())
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 60 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// rss is the process's resident set size.
func rss() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// --- the clients ---

func run(n, events int) error {
	if err := raiseFiles(uint64(n) + 1024); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	child := exec.Command(exe, "-serve", "-n", strconv.Itoa(n))
	child.Stderr = os.Stderr
	out, err := child.StdoutPipe()
	if err != nil {
		return err
	}
	if err := child.Start(); err != nil {
		return fmt.Errorf("start the server: %w", err)
	}
	defer func() {
		child.Process.Signal(os.Interrupt)
		child.Wait()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return fmt.Errorf("the server's address: %w", err)
	}
	addr := strings.TrimSpace(strings.TrimPrefix(line, "ADDR "))
	base := "http://" + addr

	before, err := readMemory(base)
	if err != nil {
		return err
	}
	// Arrivals per event: lat[e][i] is client i's latency for event e.
	lat := make([][]time.Duration, events)
	for e := range lat {
		lat[e] = make([]time.Duration, n)
	}
	var got = make([]atomic.Int64, events) // clients that received event e
	var failed atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 200) // dials in flight: within the listen backlog
	conns := make([]net.Conn, n)
	for i := range n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, br, err := subscribe(addr, i)
			<-sem
			if err != nil {
				if failed.Add(1) == 1 {
					fmt.Fprintln(os.Stderr, "ssebench: connect:", err)
				}
				return
			}
			conns[i] = c
			go listen(br, i, lat, got)
		}()
	}
	wg.Wait()
	connectTime := time.Since(start)
	if f := failed.Load(); f > 0 {
		return fmt.Errorf("%d of %d clients failed to connect", f, n)
	}
	// Every handler has counted itself before its first byte, and every
	// client read its first bytes: the server holds n streams now.
	after, err := readMemory(base)
	if err != nil {
		return err
	}
	if after.Clients != int64(n) {
		return fmt.Errorf("the server counts %d stream clients, want %d", after.Clients, n)
	}

	var all []time.Duration
	var lastArrival []time.Duration
	for e := range events {
		resp, err := http.Post(base+"/bench/publish", "text/plain", nil)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return fmt.Errorf("publish: %s", resp.Status)
		}
		deadline := time.Now().Add(60 * time.Second)
		for got[e].Load() < int64(n) {
			if time.Now().After(deadline) {
				return fmt.Errorf("event %d reached %d of %d clients in a minute", e, got[e].Load(), n)
			}
			time.Sleep(5 * time.Millisecond)
		}
		all = append(all, lat[e]...)
		lastArrival = append(lastArrival, slices.Max(lat[e]))
	}
	for _, c := range conns {
		c.Close()
	}
	slices.Sort(all)
	slices.Sort(lastArrival)

	perClient := func(a, b uint64) float64 { return float64(int64(a)-int64(b)) / float64(n) }
	fmt.Printf("clients                  %d (connected in %v)\n", n, connectTime.Round(time.Millisecond))
	fmt.Printf("server heap+stack/client %.0f B (heap %.0f B, stack %.0f B)\n",
		perClient(after.HeapInuse+after.StackInuse, before.HeapInuse+before.StackInuse),
		perClient(after.HeapInuse, before.HeapInuse), perClient(after.StackInuse, before.StackInuse))
	fmt.Printf("server RSS/client        %.0f B (RSS %d MiB with clients, %d MiB before)\n",
		perClient(after.RSS, before.RSS), after.RSS>>20, before.RSS>>20)
	fmt.Printf("server goroutines/client %.2f (%d before, %d with clients)\n",
		float64(after.Goroutines-before.Goroutines)/float64(n), before.Goroutines, after.Goroutines)
	fmt.Printf("events                   %d, each to all %d clients\n", events, n)
	fmt.Printf("latency, every delivery  p50 %v  p99 %v  max %v\n", pct(all, 50), pct(all, 99), all[len(all)-1])
	fmt.Printf("latency, last client     p50 %v  max %v  (per event: until every client had it)\n",
		pct(lastArrival, 50), lastArrival[len(lastArrival)-1])
	return nil
}

func pct(sorted []time.Duration, p int) time.Duration {
	return sorted[(len(sorted)-1)*p/100].Round(100 * time.Microsecond)
}

func readMemory(base string) (memory, error) {
	var m memory
	resp, err := http.Get(base + "/bench/memory")
	if err != nil {
		return m, err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		return m, fmt.Errorf("the server's memory: %w", err)
	}
	return m, nil
}

// subscribe opens client i's stream over a raw connection (no
// http.Transport: its per-connection goroutines would measure the client)
// and reads up to the server's first message.
func subscribe(addr string, i int) (net.Conn, *bufio.Reader, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, nil, err
	}
	// A distinct client address per client, in 10.0.0.0/8.
	from := fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)
	if _, err := io.WriteString(c, "GET /api/events HTTP/1.1\r\nHost: "+addr+"\r\nAccept: text/event-stream\r\nX-Forwarded-For: "+from+"\r\n\r\n"); err != nil {
		c.Close()
		return nil, nil, err
	}
	br := bufio.NewReaderSize(c, 1024)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	if resp.StatusCode != 200 {
		c.Close()
		return nil, nil, fmt.Errorf("status %s", resp.Status)
	}
	body := bufio.NewReaderSize(resp.Body, 1024)
	if l, err := body.ReadString('\n'); err != nil || !strings.HasPrefix(l, "retry:") {
		c.Close()
		return nil, nil, fmt.Errorf("first line %q: %v", l, err)
	}
	return c, body, nil
}

// listen reads announcement events and notes their latency.
func listen(br *bufio.Reader, i int, lat [][]time.Duration, got []atomic.Int64) {
	e := 0
	for e < len(lat) {
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		now := time.Now()
		var a struct{ Title string }
		if json.Unmarshal([]byte(data), &a) != nil {
			continue
		}
		ns, err := strconv.ParseInt(strings.TrimPrefix(a.Title, "bench "), 10, 64)
		if err != nil {
			continue
		}
		lat[e][i] = now.Sub(time.Unix(0, ns))
		got[e].Add(1)
		e++
	}
}
