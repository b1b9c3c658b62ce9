package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flagshipctf/flagship/internal/synth"
)

// rush is the solve rush against running servers on loopback:
//
//	loadtool rush --url URL --keys FILE --pid PID [--rate 50] [--clients 64]
//	    [--duration 30s] [--watch URL,...] [--sample 5] [synth flags]
//
// --clients readers each GET, in turn and without pause, the leaderboard
// and the anonymous challenge list, both with Accept-Encoding: gzip (the
// bytes are counted, not decoded), while correct flags are submitted to
// --url at --rate per second, each on its own connection's schedule (a slow
// answer does not slow the next). Every --sample-th solve is followed until
// the leaderboard of each --watch server (default --url) shows it: its
// player's entry, found through the player's rank in their public profile
// and a page of the board around it (limit and offset), with the new solve
// counted. The servers' CPU is read from /proc/PID/stat (utime + stime)
// before and after. --rate 0 runs the same reads with no solves.
func rush(args []string) error {
	def := synth.Default()
	fs := flag.NewFlagSet("rush", flag.ExitOnError)
	base := fs.String("url", "", "base URL of the server that takes the solves and the reads (http://127.0.0.1:PORT)")
	watchList := fs.String("watch", "", "comma-separated base URLs whose leaderboards are watched for the solves (default --url)")
	keysFile := fs.String("keys", "", "the API keys `flagship synth --keys-out` wrote")
	pids := fs.String("pid", "", "comma-separated process ids of the servers, for their CPU time")
	rate := fs.Float64("rate", 50, "correct submissions per second (0: reads only)")
	clients := fs.Int("clients", 64, "concurrent readers")
	duration := fs.Duration("duration", 30*time.Second, "how long the load runs (at most 10m)")
	sample := fs.Int("sample", 5, "follow every n-th solve until it shows")
	poll := fs.Duration("poll", 5*time.Millisecond, "how often a followed solve is looked for")
	skip := fs.Int("skip", 20, "targets per key to leave alone (the wrong-submission load's)")
	cfg := synthFlags(fs, def)
	fs.Parse(args)
	if *base == "" || *keysFile == "" {
		return errors.New("rush: --url and --keys are required")
	}
	if *duration <= 0 || *duration > 10*time.Minute || *clients < 1 || *rate < 0 || *sample < 1 {
		return errors.New("rush: want 0 < --duration <= 10m, --clients >= 1, --rate >= 0, --sample >= 1")
	}
	watch := []string{*base}
	if *watchList != "" {
		watch = strings.Split(*watchList, ",")
	}
	for _, u := range append([]string{*base}, watch...) {
		if err := loopback(u); err != nil {
			return err
		}
	}
	var targets []synth.Target
	if *rate > 0 {
		need := int(*rate*duration.Seconds()) + 1
		keys, err := readLines(*keysFile)
		if err != nil {
			return err
		}
		rounds := need/max(1, len(keys)) + 1
		if targets, err = unusedTargets(*cfg, *keysFile, *skip, rounds); err != nil {
			return err
		}
		if len(targets) < need {
			return fmt.Errorf("rush: %d unused targets, %d solves asked", len(targets), need)
		}
	}

	c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		MaxIdleConns: *clients + 64, MaxIdleConnsPerHost: *clients + 64, DisableCompression: true}}
	cpu0, err := cpuTimes(*pids)
	if err != nil {
		return err
	}
	self0, _ := cpuTimes(strconv.Itoa(os.Getpid()))
	ctx, cancel := context.WithTimeout(context.Background(), *duration)
	defer cancel()
	start := time.Now()

	var wg sync.WaitGroup
	reads := make([]readStats, *clients)
	for i := range reads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reads[i].run(ctx, c, *base, i)
		}()
	}
	var solves solveStats
	if *rate > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			solves.run(ctx, c, *base, watch, targets, *rate, *sample, *poll)
		}()
	}
	<-ctx.Done()
	elapsed := time.Since(start)
	wg.Wait()
	cpu1, err := cpuTimes(*pids)
	if err != nil {
		return err
	}
	self1, _ := cpuTimes(strconv.Itoa(os.Getpid()))

	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("== rush: %d readers, %.0f solves/s asked, %v; load average at the end %s", *clients, *rate, duration.Round(time.Second), load)
	for _, path := range []string{boardPath, listPath} {
		var lat []time.Duration
		var n, bytes, bad int64
		for i := range reads {
			s := reads[i].by[path]
			lat = append(lat, s.lat...)
			n += int64(len(s.lat))
			bytes += s.bytes
			bad += s.bad
		}
		slices.Sort(lat)
		fmt.Printf("GET %-26s gzip  %8.1f req/s  p50 %7.1f ms  p99 %7.1f ms  max %7.1f ms  %6.1f MB/s  errors %d\n", path,
			float64(n)/elapsed.Seconds(), msf(pct(lat, 50)), msf(pct(lat, 99)), msf(pct(lat, 100)), float64(bytes)/elapsed.Seconds()/1e6, bad)
	}
	if *rate > 0 {
		solves.report(elapsed)
	}
	cores := float64(cpu1-cpu0) / clockTicks / elapsed.Seconds()
	fmt.Printf("server CPU (utime+stime of %s): %.1f s over %.1f s = %.2f cores; this tool: %.2f cores\n",
		*pids, float64(cpu1-cpu0)/clockTicks, elapsed.Seconds(), cores, float64(self1-self0)/clockTicks/elapsed.Seconds())
	return nil
}

const (
	boardPath = "/api/public/leaderboard"
	listPath  = "/api/public/challenges"
	// clockTicks is USER_HZ, the unit of /proc/PID/stat's times: 100 on
	// Linux whatever the kernel's HZ.
	clockTicks = 100
)

func loopback(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Hostname() != "127.0.0.1" {
		return fmt.Errorf("rush: %q: only http://127.0.0.1:PORT servers are loaded", raw)
	}
	return nil
}

// cpuTimes sums utime and stime (clock ticks) of the comma-separated
// process ids.
func cpuTimes(pids string) (int64, error) {
	var total int64
	for _, pid := range strings.Split(pids, ",") {
		if pid == "" {
			continue
		}
		data, err := os.ReadFile("/proc/" + strings.TrimSpace(pid) + "/stat")
		if err != nil {
			return 0, err
		}
		// The command name (field 2) may hold spaces: count from its ")".
		f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
		ut, _ := strconv.ParseInt(f[11], 10, 64) // field 14
		st, _ := strconv.ParseInt(f[12], 10, 64) // field 15
		total += ut + st
	}
	return total, nil
}

type pathStats struct {
	lat   []time.Duration
	bytes int64
	bad   int64
}

type readStats struct{ by map[string]*pathStats }

func (r *readStats) run(ctx context.Context, c *http.Client, base string, i int) {
	r.by = map[string]*pathStats{boardPath: {}, listPath: {}}
	paths := []string{boardPath, listPath}
	for n := i; ctx.Err() == nil; n++ {
		path := paths[n%2]
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		t := time.Now()
		resp, err := c.Do(req)
		if err != nil {
			if ctx.Err() == nil {
				r.by[path].bad++
			}
			continue
		}
		size, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if ctx.Err() != nil {
			return // cut by the end of the run: not a whole request
		}
		s := r.by[path]
		if err != nil || resp.StatusCode != http.StatusOK {
			s.bad++
			continue
		}
		s.lat = append(s.lat, time.Since(t))
		s.bytes += size
	}
}

type solveStats struct {
	mu       sync.Mutex
	sent     atomic.Int64
	statuses map[int]int
	ack      []time.Duration
	visible  map[string][]time.Duration // by watched server: from the 200 until shown
	pending  int                        // followed solves not shown yet when the run ended
}

// run submits targets at rate, each in its own goroutine, and follows
// every sample-th until each watched leaderboard shows it.
func (s *solveStats) run(ctx context.Context, c *http.Client, base string, watch []string, targets []synth.Target, rate float64, sample int, poll time.Duration) {
	s.statuses, s.visible = map[int]int{}, map[string][]time.Duration{}
	tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
	defer tick.Stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if i == len(targets) {
			return
		}
		t := targets[i]
		follow := i%sample == 0
		s.sent.Add(1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			status, _, _ := submit(ctx, c, base, t)
			acked := time.Now()
			if ctx.Err() != nil && status == 0 {
				return // cut by the end of the run
			}
			s.mu.Lock()
			s.statuses[status]++
			if status == http.StatusOK {
				s.ack = append(s.ack, acked.Sub(start))
			}
			s.mu.Unlock()
			if status != http.StatusOK || !follow {
				return
			}
			// How many solves the player has now, as the server that took
			// this one says.
			var p profile
			if err := getJSON(c, base+"/api/public/profiles/"+t.UserID, "", &p); err != nil {
				return
			}
			want, rank := len(p.Profile.SolvedChallenges), p.Profile.Rank
			var each sync.WaitGroup
			for _, w := range watch {
				each.Add(1)
				go func() {
					defer each.Done()
					ok := shown(ctx, c, w, t.UserID, want, rank, poll)
					d := time.Since(acked)
					s.mu.Lock()
					if ok {
						s.visible[w] = append(s.visible[w], d)
					} else {
						s.pending++
					}
					s.mu.Unlock()
				}()
			}
			each.Wait()
		}()
	}
}

func (s *solveStats) report(elapsed time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	slices.Sort(s.ack)
	fmt.Printf("solves: %d sent (%.1f/s), statuses %v; acknowledged p50 %.1f ms, p99 %.1f ms\n",
		s.sent.Load(), float64(s.sent.Load())/elapsed.Seconds(), s.statuses, msf(pct(s.ack, 50)), msf(pct(s.ack, 99)))
	for w, d := range s.visible {
		slices.Sort(d)
		fmt.Printf("solve to visible on %s (from its 200 until the leaderboard served shows it; %d followed): p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
			w, len(d), msf(pct(d, 50)), msf(pct(d, 99)), msf(pct(d, 100)))
	}
	if s.pending > 0 {
		fmt.Printf("followed solves not shown yet when the run ended (not counted above): %d\n", s.pending)
	}
}

type profile struct {
	Profile struct {
		Rank             int               `json:"rank"`
		SolvedChallenges []json.RawMessage `json:"solvedChallenges"`
	} `json:"profile"`
}

// shown polls base until the leaderboard it serves lists userID with at
// least want solves. The player stands near rank (their place once this
// solve counted) on a board that shows it: one small page a poll, so the
// measure costs the server little and waits on one round trip. Should
// other solves move them out of the page, their rank is read again.
func shown(ctx context.Context, c *http.Client, base, userID string, want, rank int, poll time.Duration) bool {
	const around = 50
	for n := 1; ctx.Err() == nil; n++ {
		var page struct {
			Leaderboard []struct {
				ID          string `json:"id"`
				TotalSolves int    `json:"totalSolves"`
			} `json:"leaderboard"`
		}
		q := fmt.Sprintf("%s%s?offset=%d&limit=%d", base, boardPath, max(0, rank-1-around), 2*around+1)
		if getJSON(c, q, "", &page) == nil {
			for _, e := range page.Leaderboard {
				if e.ID == userID && e.TotalSolves >= want {
					return true
				}
			}
		}
		if n%20 == 0 {
			var p profile
			if getJSON(c, base+"/api/public/profiles/"+userID, "", &p) == nil && p.Profile.Rank > 0 {
				rank = p.Profile.Rank
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(poll):
		}
	}
	return false
}

// pct is the p-th percentile of sorted d (0 when empty).
func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return d[min(len(d)-1, len(d)*p/100)]
}
