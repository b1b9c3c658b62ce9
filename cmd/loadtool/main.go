// Command loadtool is the Go half of scripts/loadtest-replicas.sh, the
// whole-server load test of several `flagship serve` replicas on one
// PostgreSQL database:
//
//	loadtool createdb --server URL --owner PID   # prints "NAME DSN"
//	loadtool dropdb --server URL NAME
//	loadtool dbsize --server URL NAME            # prints e.g. "925 MB"
//	loadtool visibility --write URL --read URL --keys FILE [--n 20] [--interval 5ms] [synth flags]
//
// createdb makes a database with a fresh name (internal/bench.CreatePostgres:
// the owner's process id is in the name, so a run killed before its cleanup
// is dropped by a later one); dropdb drops it WITH (FORCE).
//
// visibility measures how long a solve acknowledged by one replica takes to
// show on another: it submits correct flags on --write, one at a time, and
// polls --read every --interval, both the challenge's detail (solvesCount)
// and the leaderboard (HEAD with If-None-Match: the old ETag, so 304 until
// the board changed). The correct flags come from regenerating the event
// with the synth flags `flagship synth` was given (the generator is
// deterministic for a seed, API-key secrets aside: the secrets are read from
// --keys, in the generator's key order). It uses the targets of round
// --skip of each key, which the wrong-submission load (`synth
// --targets-out`, 20 per key) never touched, so no rate limit is near.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/flagshipctf/flagship/internal/bench"
	"github.com/flagshipctf/flagship/internal/synth"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "createdb":
		err = createdb(os.Args[2:])
	case "dropdb":
		err = dropdb(os.Args[2:])
	case "dbsize":
		err = dbsize(os.Args[2:])
	case "visibility":
		err = visibility(os.Args[2:])
	case "rush":
		err = rush(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadtool:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: loadtool createdb|dropdb|dbsize|visibility|rush [flags] (see the package comment)")
	os.Exit(2)
}

func createdb(args []string) error {
	fs := flag.NewFlagSet("createdb", flag.ExitOnError)
	server := fs.String("server", "", "PostgreSQL server URL (postgres://…)")
	owner := fs.Int("owner", 0, "process id of the database's owner, alive as long as the database is in use (the calling script's $$)")
	fs.Parse(args)
	if *owner <= 0 {
		return errors.New("createdb: --owner PID is required")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := bench.CreatePostgres(ctx, *server, *owner)
	if err != nil {
		return err
	}
	fmt.Println(d.Name, d.DSN)
	return nil
}

func dropdb(args []string) error {
	fs := flag.NewFlagSet("dropdb", flag.ExitOnError)
	server := fs.String("server", "", "PostgreSQL server URL (postgres://…)")
	fs.Parse(args)
	if fs.NArg() != 1 {
		return errors.New("dropdb: want one database name")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return bench.DropDatabase(ctx, *server, fs.Arg(0))
}

func dbsize(args []string) error {
	fs := flag.NewFlagSet("dbsize", flag.ExitOnError)
	server := fs.String("server", "", "PostgreSQL server URL (postgres://…)")
	fs.Parse(args)
	if fs.NArg() != 1 {
		return errors.New("dbsize: want one database name")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n, err := bench.PostgresSize(ctx, *server, fs.Arg(0))
	if err != nil {
		return err
	}
	fmt.Printf("%d MB\n", n>>20)
	return nil
}

type sample struct {
	ack, detail, board time.Duration // from sending the submission
}

func visibility(args []string) error {
	def := synth.Default()
	fs := flag.NewFlagSet("visibility", flag.ExitOnError)
	write := fs.String("write", "", "base URL of the replica that takes the solves")
	read := fs.String("read", "", "base URL of the replica that is polled")
	keysFile := fs.String("keys", "", "the API keys `flagship synth --keys-out` wrote")
	n := fs.Int("n", 20, "solves")
	interval := fs.Duration("interval", 5*time.Millisecond, "poll interval")
	deadline := fs.Duration("deadline", 5*time.Second, "give up on a solve not visible after this long")
	skip := fs.Int("skip", 20, "targets per key to leave alone (the wrong-submission load's)")
	cfg := synthFlags(fs, def)
	fs.Parse(args)
	if *write == "" || *read == "" || *keysFile == "" {
		return errors.New("visibility: --write, --read and --keys are required")
	}

	targets, err := unusedTargets(*cfg, *keysFile, *skip, 1) // round skip: one per key at most
	if err != nil {
		return err
	}
	if len(targets) < *n {
		return fmt.Errorf("visibility: %d unused targets, %d solves asked", len(targets), *n)
	}
	// Spread the solves over the keys and the challenges.
	step := len(targets) / *n
	picked := make([]synth.Target, *n)
	for i := range picked {
		picked[i] = targets[i*step]
	}

	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 4, DisableCompression: true}}
	// The keys file must be this event's: its first key is its first player.
	var me struct {
		Profile struct {
			ID string `json:"id"`
		} `json:"profile"`
	}
	if err := getJSON(c, *write+"/api/public/me", picked[0].Key, &me); err != nil {
		return err
	}
	if me.Profile.ID != picked[0].UserID {
		return fmt.Errorf("visibility: key of %s belongs to %s: were the synth flags the same?", picked[0].UserID, me.Profile.ID)
	}

	var samples []sample
	for i, t := range picked {
		s, err := measure(c, *write, *read, t, *interval, *deadline)
		if err != nil {
			return fmt.Errorf("solve %d (%s): %w", i+1, t.Slug, err)
		}
		samples = append(samples, s)
		fmt.Printf("solve %2d  %-34s acknowledged %7.1f ms   in solvesCount on the other replica %7.1f ms   in its leaderboard ETag %7.1f ms\n",
			i+1, t.Slug, msf(s.ack), msf(s.detail), msf(s.board))
		time.Sleep(time.Duration(150+37*i%100) * time.Millisecond) // any phase of the replicas' 1 s poll
	}
	pick := func(f func(sample) time.Duration) []time.Duration {
		var out []time.Duration
		for _, s := range samples {
			out = append(out, f(s))
		}
		slices.Sort(out)
		return out
	}
	line := func(name string, d []time.Duration) {
		fmt.Printf("%-58s min %7.1f ms   median %7.1f ms   max %7.1f ms\n", name, msf(d[0]), msf(median(d)), msf(d[len(d)-1]))
	}
	fmt.Printf("== %d solves on %s, %s polled every %v; times from sending the submission\n", len(samples), *write, *read, *interval)
	line("submission acknowledged (200) by the writing replica", pick(func(s sample) time.Duration { return s.ack }))
	line("solvesCount of the challenge on the other replica", pick(func(s sample) time.Duration { return s.detail }))
	line("leaderboard ETag on the other replica", pick(func(s sample) time.Duration { return s.board }))
	line("solvesCount on the other replica, after the 200", pick(func(s sample) time.Duration { return s.detail - s.ack }))
	return nil
}

// synthFlags declares the flags `flagship synth` was given, which the
// generator needs to make the same event again.
func synthFlags(fs *flag.FlagSet, def synth.Config) *synth.Config {
	cfg := &synth.Config{Seed: def.Seed}
	fs.IntVar(&cfg.Players, "players", def.Players, "as given to flagship synth")
	fs.IntVar(&cfg.Challenges, "challenges", def.Challenges, "as given to flagship synth")
	fs.IntVar(&cfg.Solves, "solves", def.Solves, "as given to flagship synth")
	fs.IntVar(&cfg.Attempts, "attempts", def.Attempts, "as given to flagship synth")
	fs.Uint64Var(&cfg.Seed, "seed", def.Seed, "as given to flagship synth")
	return cfg
}

// unusedTargets regenerates the event of cfg and returns the correct-flag
// targets of rounds skip to skip+rounds-1 (a round gives each key at most
// one, and consecutive targets belong to different players), with the
// secrets read from keysFile (`flagship synth --keys-out`, in the
// generator's key order).
func unusedTargets(cfg synth.Config, keysFile string, skip, rounds int) ([]synth.Target, error) {
	keys, err := readLines(keysFile)
	if err != nil {
		return nil, err
	}
	cfg.Keys = len(keys)
	ev, err := synth.Generate(cfg)
	if err != nil {
		return nil, err
	}
	secretOf := map[string]string{} // user id → secret
	for i, k := range ev.Keys {
		secretOf[k.UserID] = keys[i]
	}
	before := len(ev.Targets(skip))
	targets := ev.Targets(skip + rounds)[before:]
	for i := range targets {
		targets[i].Key = secretOf[targets[i].UserID]
	}
	return targets, nil
}

// measure submits t's flag on write and polls read until the solve shows
// in the challenge's solvesCount and in the leaderboard's ETag.
func measure(c *http.Client, write, read string, t synth.Target, interval, deadline time.Duration) (sample, error) {
	detailURL := read + "/api/public/challenges/" + t.Slug
	count0, err := solvesCount(c, detailURL)
	if err != nil {
		return sample{}, err
	}
	tag0, _, err := boardTag(c, read, "")
	if err != nil {
		return sample{}, err
	}

	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	start := time.Now()
	var s sample
	var wg sync.WaitGroup
	var errDetail, errBoard error
	poll := func(seen func() (bool, error), at *time.Duration, errp *error) {
		defer wg.Done()
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			ok, err := seen()
			if err != nil {
				*errp = err
				return
			}
			if ok {
				*at = time.Since(start)
				return
			}
			select {
			case <-ctx.Done():
				*errp = fmt.Errorf("not visible after %v", deadline)
				return
			case <-tick.C:
			}
		}
	}
	wg.Add(2)
	go poll(func() (bool, error) {
		n, err := solvesCount(c, detailURL)
		return n > count0, err
	}, &s.detail, &errDetail)
	go poll(func() (bool, error) {
		_, status, err := boardTag(c, read, tag0)
		return status == http.StatusOK, err
	}, &s.board, &errBoard)

	status, body, err := submit(context.Background(), c, write, t)
	if err != nil {
		cancel()
		wg.Wait()
		return s, err
	}
	s.ack = time.Since(start)
	if status != http.StatusOK {
		cancel()
		wg.Wait()
		return s, fmt.Errorf("submit: status %d: %s", status, body)
	}
	wg.Wait()
	if err := errors.Join(errDetail, errBoard); err != nil {
		return s, err
	}
	return s, nil
}

// submit posts t's correct flag to base with t's key.
func submit(ctx context.Context, c *http.Client, base string, t synth.Target) (int, []byte, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/public/challenges/"+t.Slug+"/submit",
		strings.NewReader(`{"flag":`+quote(t.Flag)+`}`))
	req.Header.Set("Authorization", "Bearer "+t.Key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

func solvesCount(c *http.Client, url string) (int, error) {
	var d struct {
		Challenge struct {
			SolvesCount *int `json:"solvesCount"`
		} `json:"challenge"`
	}
	if err := getJSON(c, url, "", &d); err != nil {
		return 0, err
	}
	if d.Challenge.SolvesCount == nil {
		return 0, fmt.Errorf("GET %s: no challenge.solvesCount", url)
	}
	return *d.Challenge.SolvesCount, nil
}

// boardTag asks for the leaderboard's headers (HEAD), with If-None-Match
// when tag is set, and returns its ETag and the status.
func boardTag(c *http.Client, base, tag string) (string, int, error) {
	req, _ := http.NewRequest(http.MethodHead, base+"/api/public/leaderboard", nil)
	if tag != "" {
		req.Header.Set("If-None-Match", tag)
	}
	resp, err := c.Do(req)
	if err != nil {
		return "", 0, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNotModified {
		return "", resp.StatusCode, fmt.Errorf("HEAD leaderboard: status %d", resp.StatusCode)
	}
	return resp.Header.Get("ETag"), resp.StatusCode, nil
}

func getJSON(c *http.Client, url, key string, v any) error {
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: status %d: %.200s", url, resp.StatusCode, body)
	}
	return json.Unmarshal(body, v)
}

func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	return out, sc.Err()
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func median(d []time.Duration) time.Duration {
	if len(d)%2 == 1 {
		return d[len(d)/2]
	}
	return (d[len(d)/2-1] + d[len(d)/2]) / 2
}

func msf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
