package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/secret"

	"github.com/flagshipctf/flagship/internal/api"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/synth"
)

// The full-size event is built once per test process, on first use by a
// benchmark; plain `go test` never builds it.
var (
	envOnce sync.Once
	envFull *Env
	envErr  error
	envDir  string
)

// The databases this process created, dropped at the end (or on SIGINT or
// SIGTERM).
var (
	dbsMu   sync.Mutex
	dbsMade []*Database
)

func newDatabase(dir string) (*Database, error) {
	d, err := NewDatabase(context.Background(), os.Getenv(DBEnv), dir)
	if err != nil {
		return nil, err
	}
	dbsMu.Lock()
	dbsMade = append(dbsMade, d)
	dbsMu.Unlock()
	return d, nil
}

func dropDatabases() error {
	dbsMu.Lock()
	defer dbsMu.Unlock()
	var errs []error
	for _, d := range dbsMade {
		errs = append(errs, d.Drop())
	}
	dbsMade = nil
	return errors.Join(errs...)
}

func TestMain(m *testing.M) {
	if dsn := os.Getenv("FLAGSHIP_BENCH_RSS_DB"); dsn != "" {
		// The child process of BenchmarkStartupRSS.
		if err := startupRSSChild(dsn); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		if err := dropDatabases(); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
		}
		if envDir != "" {
			os.RemoveAll(envDir)
		}
		os.Exit(130)
	}()
	code := m.Run()
	if envFull != nil {
		envFull.Close()
	}
	if err := dropDatabases(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		if code == 0 {
			code = 1
		}
	}
	if envDir != "" {
		os.RemoveAll(envDir)
	}
	os.Exit(code)
}

func fullEnv(b *testing.B) *Env {
	b.Helper()
	envOnce.Do(func() {
		scale, err := Scale()
		if err != nil {
			envErr = err
			return
		}
		cfg := synth.Default().Scale(scale)
		cfg.Keys = min(1000, cfg.Players)
		if envDir, err = os.MkdirTemp("", "flagship-bench-"); err != nil {
			envErr = err
			return
		}
		d, err := newDatabase(envDir)
		if err != nil {
			envErr = err
			return
		}
		envFull, envErr = Build(context.Background(), d, cfg, store.RateLimit{})
		if envErr == nil {
			size, _ := d.Size(context.Background())
			fmt.Fprintf(os.Stderr, "bench: %s %s (%d MB): %d players, %d challenges, %d solves, %d wrong attempts, %d keys: "+
				"generated in %v, written in %v, hot state loaded in %v\n",
				d.Backend, d.Name, size>>20, cfg.Players, cfg.Challenges, cfg.Solves, cfg.Attempts, cfg.Keys,
				envFull.GenerateTime.Round(time.Millisecond), envFull.WriteTime.Round(time.Millisecond),
				envFull.LoadTime.Round(time.Millisecond))
		}
	})
	if envErr != nil {
		b.Fatal(envErr)
	}
	return envFull
}

// call is one prepared request; a POST's body is rewound before each use.
type call struct {
	r       *http.Request
	body    *bytes.Reader
	payload []byte
}

func get(path string, headers ...string) *call {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		r.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	return &call{r: r}
}

func post(path, payload string, headers ...string) *call {
	c := &call{payload: []byte(payload)}
	c.body = bytes.NewReader(c.payload)
	c.r = httptest.NewRequest(http.MethodPost, path, c.body)
	c.r.Body = io.NopCloser(c.body)
	c.r.Header.Set("Content-Type", "application/json")
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		c.r.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	return c
}

func bearer(key string) string { return "Authorization: Bearer " + key }

func (c *call) do(h http.Handler, w *Discard) {
	if c.body != nil {
		c.body.Reset(c.payload)
	}
	w.Reset()
	h.ServeHTTP(w, c.r)
}

// etag fetches the current ETag of path.
func etag(e *Env, path string) string {
	w := NewDiscard()
	get(path).do(e.Handler, w)
	return w.Header().Get("ETag")
}

// A scenario is one benchmarked endpoint: the requests it rotates through
// and the status every one must get.
type scenario struct {
	want  int
	calls func(e *Env) []*call
}

const (
	leaderboard = "/api/public/leaderboard"
	challenges  = "/api/public/challenges"
)

var scenarios = map[string]scenario{
	"LeaderboardAnon":       {200, func(e *Env) []*call { return []*call{get(leaderboard)} }},
	"LeaderboardGzip":       {200, func(e *Env) []*call { return []*call{get(leaderboard, "Accept-Encoding: gzip, deflate, br")} }},
	"LeaderboardTop100":     {200, func(e *Env) []*call { return []*call{get(leaderboard + "?limit=100")} }},
	"LeaderboardTop100Gzip": {200, func(e *Env) []*call { return []*call{get(leaderboard+"?limit=100", "Accept-Encoding: gzip")} }},
	"LeaderboardNotModified": {304, func(e *Env) []*call {
		return []*call{get(leaderboard, "If-None-Match: "+etag(e, leaderboard))}
	}},
	"ChallengesAnon":     {200, func(e *Env) []*call { return []*call{get(challenges)} }},
	"ChallengesAnonGzip": {200, func(e *Env) []*call { return []*call{get(challenges, "Accept-Encoding: gzip")} }},
	"ChallengesNotModified": {304, func(e *Env) []*call {
		return []*call{get(challenges, "If-None-Match: "+etag(e, challenges))}
	}},
	"ChallengesAuth": {200, func(e *Env) []*call {
		var out []*call
		for _, k := range e.Keys {
			out = append(out, get(challenges, bearer(k.Secret)))
		}
		return out
	}},
	"ChallengesAuthGzip": {200, func(e *Env) []*call {
		var out []*call
		for _, k := range e.Keys {
			out = append(out, get(challenges, bearer(k.Secret), "Accept-Encoding: gzip"))
		}
		return out
	}},
	"ChallengeDetailAuth": {200, func(e *Env) []*call {
		var out []*call
		for i, k := range e.Keys {
			out = append(out, get(challenges+"/"+e.Slugs[(i*7)%len(e.Slugs)], bearer(k.Secret)))
		}
		return out
	}},
	"ChallengeDetailAnon": {200, func(e *Env) []*call {
		var out []*call
		for _, s := range e.Slugs {
			out = append(out, get(challenges+"/"+s))
		}
		return out
	}},
	"Me": {200, func(e *Env) []*call {
		var out []*call
		for _, k := range e.Keys {
			out = append(out, get("/api/public/me", bearer(k.Secret)))
		}
		return out
	}},
	"ProfilePublic": {200, func(e *Env) []*call {
		var out []*call
		for _, id := range e.UserIDs {
			out = append(out, get("/api/public/profiles/"+id))
		}
		return out
	}},
	"Writeups": {200, func(e *Env) []*call {
		var out []*call
		for i, k := range e.Keys {
			for j, s := range e.Solved[i] {
				if j >= 5 {
					break
				}
				out = append(out, get(challenges+"/"+s+"/writeups", bearer(k.Secret)))
			}
		}
		return out
	}},
	// Wrong submissions rotate over (player, challenge) pairs that are
	// unlocked and unsolved, so the default rate limit (10 wrong per user
	// and challenge per minute) stays on and is checked but never reached:
	// a 429 fails the benchmark.
	"SubmitWrong": {400, func(e *Env) []*call {
		var out []*call
		for _, t := range e.Wrong {
			out = append(out, post(challenges+"/"+t.Slug+"/submit", `{"flag":"flag{not_it_at_all}"}`, bearer(t.Key)))
		}
		return out
	}},
	// Correct submissions use the other half of the keys, and each target
	// only once: a second pass would be 409s.
	"SubmitCorrect": {200, func(e *Env) []*call {
		var out []*call
		for _, t := range e.Correct {
			out = append(out, post(challenges+"/"+t.Slug+"/submit", `{"flag":"`+t.Flag+`"}`, bearer(t.Key)))
		}
		return out
	}},
	"Health": {200, func(e *Env) []*call { return []*call{get("/api/public/health")} }},

	// The web app's pages, built from the hot state.
	"WebBoardAnon": {200, func(e *Env) []*call { return []*call{get("/")} }},
	"WebBoardPlayer": {200, func(e *Env) []*call {
		var out []*call
		for _, c := range sessionCookies(e) {
			out = append(out, get("/", c))
		}
		return out
	}},
	"WebChallengePlayer": {200, func(e *Env) []*call {
		var out []*call
		for i, c := range sessionCookies(e) {
			out = append(out, get("/challenges/"+e.Slugs[(i*7)%len(e.Slugs)], c))
		}
		return out
	}},
	"WebScoreboard":      {200, func(e *Env) []*call { return []*call{get("/scoreboard")} }},
	"WebScoreboardPage9": {200, func(e *Env) []*call { return []*call{get("/scoreboard?page=9")} }},
}

// sessionCookies opens a web session for each keyed player (at most 100)
// and returns their Cookie headers.
func sessionCookies(e *Env) []string {
	ctx := context.Background()
	var out []string
	for i, k := range e.Keys {
		if i == 100 {
			break
		}
		token, hash := secret.NewSessionToken()
		now := time.Now()
		if _, err := e.DB.Accounts().CreateSession(ctx, ctf.Session{IDHash: hash, UserID: k.UserID, CreatedAt: now, ExpiresAt: now.Add(time.Hour), LastSeenAt: now}); err != nil {
			panic(err)
		}
		out = append(out, "Cookie: flagship_session="+token)
	}
	if err := e.Svc.Refresh(ctx); err != nil {
		panic(err)
	}
	return out
}

// consumed counts the SubmitCorrect targets used so far in this process.
var consumed int

func run(b *testing.B, name string) {
	e := fullEnv(b)
	sc := scenarios[name]
	calls := sc.calls(e)
	if len(calls) == 0 {
		b.Skip("no requests for this scenario at this event size")
	}
	w := NewDiscard()
	h := e.Handler
	once := name == "SubmitCorrect"
	if once {
		calls = calls[consumed:]
		if b.N > len(calls) {
			b.Fatalf("%d correct submissions asked, %d unsolved targets left: use a shorter -benchtime", b.N, len(calls))
		}
		consumed += b.N
	}
	// Warm up outside the timer: first use of a key touches its last-used
	// time, first use of a body computes its gzip form.
	if !once {
		for _, c := range calls[:min(len(calls), 2000)] {
			c.do(h, w)
		}
	}
	var bytes int64
	b0, s0, w0 := e.Batches.Counts()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := calls[i%len(calls)]
		c.do(h, w)
		if w.Status != sc.want {
			b.Fatalf("%s %s: status %d, want %d", c.r.Method, c.r.URL, w.Status, sc.want)
		}
		bytes += w.Bytes
	}
	b.StopTimer()
	b.ReportMetric(float64(bytes)/float64(b.N), "body-B/op")
	if b1, _, w1 := e.Batches.Counts(); b1 > b0 {
		// One at a time: what group commit adds to a lone submission.
		b.ReportMetric(float64((w1-w0).Nanoseconds())/float64(b1-b0), "queued-ns/op")
		reportBatches(b, e, b0, s0)
	}
}

func BenchmarkLeaderboardAnon(b *testing.B) {
	run(b, "LeaderboardAnon")
	reportSizes(b, fullEnv(b).Handler, "/api/public/leaderboard")
}

// reportSizes reports the plain and gzip sizes of an anonymous GET.
func reportSizes(b *testing.B, h http.Handler, path string) {
	for _, enc := range []string{"", "gzip"} {
		r := httptest.NewRequest("GET", path, nil)
		if enc != "" {
			r.Header.Set("Accept-Encoding", enc)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		unit := "plain-B"
		if enc != "" {
			unit = "gzip-B"
		}
		b.ReportMetric(float64(w.Body.Len()), unit)
	}
}

func BenchmarkLeaderboardGzip(b *testing.B)        { run(b, "LeaderboardGzip") }
func BenchmarkLeaderboardNotModified(b *testing.B) { run(b, "LeaderboardNotModified") }

// BenchmarkLeaderboardTop100 is a page of the board (limit, an extension
// of the contract), spliced from the version's entries.
func BenchmarkLeaderboardTop100(b *testing.B) {
	run(b, "LeaderboardTop100")
	reportSizes(b, fullEnv(b).Handler, leaderboard+"?limit=100")
}

func BenchmarkLeaderboardTop100Gzip(b *testing.B) { run(b, "LeaderboardTop100Gzip") }

func BenchmarkChallengesAnon(b *testing.B) {
	run(b, "ChallengesAnon")
	reportSizes(b, fullEnv(b).Handler, "/api/public/challenges")
}

func BenchmarkChallengesAnonGzip(b *testing.B) { run(b, "ChallengesAnonGzip") }
func BenchmarkWebBoardAnon(b *testing.B)       { run(b, "WebBoardAnon") }
func BenchmarkWebBoardPlayer(b *testing.B)     { run(b, "WebBoardPlayer") }
func BenchmarkWebChallengePlayer(b *testing.B) { run(b, "WebChallengePlayer") }
func BenchmarkWebScoreboard(b *testing.B)      { run(b, "WebScoreboard") }
func BenchmarkWebScoreboardPage9(b *testing.B) { run(b, "WebScoreboardPage9") }

// BenchmarkWebFirstVisit reports what a first visit to the board
// transfers, the page and its assets, gzipped as a browser asks.
func BenchmarkWebFirstVisit(b *testing.B) {
	e := fullEnv(b)
	rec := httptest.NewRecorder()
	e.Handler.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	paths := append([]string{"/"}, regexp.MustCompile(`/static/[a-z]+\.[0-9a-f]{10}\.(css|js)`).FindAllString(rec.Body.String(), -1)...)
	var total int64
	for i := 0; i < b.N; i++ {
		total = 0
		for _, p := range paths {
			w := NewDiscard()
			get(p, "Accept-Encoding: gzip, deflate, br").do(e.Handler, w)
			total += w.Bytes
		}
	}
	b.ReportMetric(float64(total), "first-visit-B")
}
func BenchmarkChallengesNotModified(b *testing.B) { run(b, "ChallengesNotModified") }
func BenchmarkChallengesAuth(b *testing.B)        { run(b, "ChallengesAuth") }
func BenchmarkChallengesAuthGzip(b *testing.B)    { run(b, "ChallengesAuthGzip") }
func BenchmarkChallengeDetailAuth(b *testing.B)   { run(b, "ChallengeDetailAuth") }
func BenchmarkChallengeDetailAnon(b *testing.B)   { run(b, "ChallengeDetailAnon") }
func BenchmarkMe(b *testing.B)                    { run(b, "Me") }
func BenchmarkProfilePublic(b *testing.B)         { run(b, "ProfilePublic") }
func BenchmarkWriteups(b *testing.B)              { run(b, "Writeups") }
func BenchmarkSubmitWrong(b *testing.B)           { run(b, "SubmitWrong") }
func BenchmarkHealth(b *testing.B)                { run(b, "Health") }

// BenchmarkSubmitCorrect changes the event (each op is a new solve, so the
// leaderboard and lists are rebuilt afterwards); it runs after the reads.
func BenchmarkSubmitCorrect(b *testing.B) { run(b, "SubmitCorrect") }

// BenchmarkSolveThenLeaderboard is a live event's cost of a solve to the
// board: each op is a correct submission, the build of the board's next
// version that it sets off (waited for: readers never wait, they get the
// previous version meanwhile), and one plain and one gzip leaderboard
// request. Builds are not coalesced here (interval 0): each solve pays for
// its own, as at a quiet moment; under a rush several solves share one.
// Subtract SubmitCorrect for the build.
func BenchmarkSolveThenLeaderboard(b *testing.B) {
	e := fullEnv(b)
	submits := scenarios["SubmitCorrect"].calls(e)[consumed:]
	if b.N > len(submits) {
		b.Fatalf("%d correct submissions asked, %d unsolved targets left", b.N, len(submits))
	}
	consumed += b.N
	reads := []*call{get(leaderboard), get(leaderboard, "Accept-Encoding: gzip")}
	w := NewDiscard()
	board := e.Front.API()
	board.SetLeaderboardInterval(0)
	defer board.SetLeaderboardInterval(api.DefaultLeaderboardInterval)
	ctx := context.Background()
	for _, c := range reads { // the board as readers keep it current
		c.do(e.Handler, w)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		submits[i].do(e.Handler, w)
		if w.Status != 200 {
			b.Fatalf("submit: status %d", w.Status)
		}
		if err := board.WaitLeaderboard(ctx); err != nil {
			b.Fatal(err)
		}
		for _, c := range reads {
			c.do(e.Handler, w)
			if w.Status != 200 {
				b.Fatalf("leaderboard: status %d", w.Status)
			}
		}
	}
}

// BenchmarkWrongThenChallengesGzip is the same for a wrong submission and
// the anonymous list it makes stale (its attempt count changed): a wrong
// submission, then the gzip anonymous list.
func BenchmarkWrongThenChallengesGzip(b *testing.B) {
	e := fullEnv(b)
	submits := scenarios["SubmitWrong"].calls(e)
	read := get(challenges, "Accept-Encoding: gzip")
	w := NewDiscard()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		submits[(len(submits)/2+i)%len(submits)].do(e.Handler, w)
		if w.Status != 400 {
			b.Fatalf("submit: status %d", w.Status)
		}
		read.do(e.Handler, w)
		if w.Status != 200 {
			b.Fatalf("challenges: status %d", w.Status)
		}
	}
}

// BenchmarkStartup rebuilds the hot state from the database, as `serve`
// does at start-up and after an operator's change.
func BenchmarkStartup(b *testing.B) {
	e := fullEnv(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		svc := platform.New(e.DB, platform.Options{PublicURL: PublicURL})
		if err := svc.Load(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStartupRSS starts a fresh process (this test binary, which
// TestMain turns into startupRSSChild) that opens the database and builds
// the hot state as `serve` does, and reports its start-up time and its
// resident memory after a GC. (This process holds the generator's
// leftovers and would overstate it.)
func BenchmarkStartupRSS(b *testing.B) {
	e := fullEnv(b)
	var rss, hwm, took float64
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "FLAGSHIP_BENCH_RSS_DB="+e.Database.DSN)
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("child: %v\n%s", err, out)
		}
		sc := bufio.NewScanner(bytes.NewReader(out))
		found := false
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) == 4 && f[0] == "startup-rss" {
				r, _ := strconv.ParseFloat(f[1], 64)
				h, _ := strconv.ParseFloat(f[2], 64)
				t, _ := strconv.ParseFloat(f[3], 64)
				rss, hwm, took, found = r, h, t, true
			}
		}
		if !found {
			b.Fatalf("child printed no measurement:\n%s", out)
		}
	}
	b.ReportMetric(rss/1024, "MB-rss")
	b.ReportMetric(hwm/1024, "MB-peak")
	b.ReportMetric(took, "ms-startup")
}

// startupRSSChild opens the database dsn and builds the hot state as
// `serve` does, then prints "startup-rss RSS_kB PEAK_kB MILLISECONDS". On
// PostgreSQL the figure is this process's alone: the server's memory
// (shared buffers, backends) is not in it.
func startupRSSChild(dsn string) error {
	ctx := context.Background()
	start := time.Now()
	db, err := store.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	svc := platform.New(db, platform.Options{PublicURL: PublicURL})
	if err := svc.Load(ctx); err != nil {
		return err
	}
	took := time.Since(start)
	// What a server has built before long: the shared bodies.
	h := Stack(svc, nil)
	for _, path := range []string{"/api/public/leaderboard", "/api/public/challenges"} {
		r := httptest.NewRequest("GET", path, nil)
		r.Header.Set("Accept-Encoding", "gzip")
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
	runtime.GC()
	rss, hwm, err := memStatus()
	if err != nil {
		return err
	}
	fmt.Printf("startup-rss %d %d %d\n", rss, hwm, took.Milliseconds())
	runtime.KeepAlive(svc)
	return nil
}

// memStatus reads VmRSS and VmHWM (kB) from /proc/self/status.
func memStatus() (rss, hwm int64, err error) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 {
			switch f[0] {
			case "VmRSS:":
				rss, _ = strconv.ParseInt(f[1], 10, 64)
			case "VmHWM:":
				hwm, _ = strconv.ParseInt(f[1], 10, 64)
			}
		}
	}
	return rss, hwm, nil
}

// TestScenariosTiny runs every benchmarked request once against a tiny
// event, so a plain `go test` keeps the benchmarks' requests honest in a
// second or two.
func TestScenariosTiny(t *testing.T) {
	cfg := synth.Config{Players: 60, Challenges: 14, Solves: 300, Attempts: 1500, Seed: 3, Keys: 12}
	d, err := newDatabase(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Drop(); err != nil {
			t.Error(err)
		}
	})
	t.Logf("backend: %s %s", d.Backend, d.Name)
	e, err := Build(context.Background(), d, cfg, store.RateLimit{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	w := NewDiscard()
	for name, sc := range scenarios {
		calls := sc.calls(e)
		if len(calls) == 0 {
			t.Errorf("%s: no requests", name)
			continue
		}
		for i, c := range calls[:min(len(calls), 3)] {
			c.do(e.Handler, w)
			if w.Status != sc.want {
				t.Errorf("%s #%d %s %s: status %d, want %d", name, i, c.r.Method, c.r.URL, w.Status, sc.want)
			}
			if w.Status == 200 && w.Bytes == 0 {
				t.Errorf("%s: empty body", name)
			}
		}
	}
}

// parallelism makes RunParallel run 64 goroutines on a 2-core machine: as
// many concurrent requests as the wrk runs' 64 connections.
func parallelism() int { return max(1, 64/runtime.GOMAXPROCS(0)) }

// runParallel runs calls from 64 goroutines, in order, each call once
// until they are all used (a call's body is rewound before each use, so two
// goroutines never use one at once), and reports the mean group-commit
// batch.
func runParallel(b *testing.B, e *Env, calls []*call, want int) {
	var next atomic.Int64
	b0, s0, _ := e.Batches.Counts()
	b.SetParallelism(parallelism())
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		w := NewDiscard()
		for pb.Next() {
			c := calls[int(next.Add(1)-1)%len(calls)]
			c.do(e.Handler, w)
			if w.Status != want {
				b.Errorf("%s %s: status %d, want %d", c.r.Method, c.r.URL, w.Status, want)
				return
			}
		}
	})
	b.StopTimer()
	reportBatches(b, e, b0, s0)
}

// reportBatches reports the mean size of the group commits since the
// counts b0 and s0.
func reportBatches(b *testing.B, e *Env, b0, s0 int64) {
	if b1, s1, _ := e.Batches.Counts(); b1 > b0 {
		b.ReportMetric(float64(s1-s0)/float64(b1-b0), "subs/batch")
	}
}

// BenchmarkSubmitWrongParallel is SubmitWrong from 64 goroutines at once,
// as a busy event's players submit: the submissions share group commits.
func BenchmarkSubmitWrongParallel(b *testing.B) {
	e := fullEnv(b)
	runParallel(b, e, scenarios["SubmitWrong"].calls(e), 400)
}

// BenchmarkSubmitCorrectParallel is a first-blood rush: 64 goroutines of
// players solve challenges nobody has solved yet (fresh ones, made for each
// run), so solves of one challenge race each other in and across group
// commits. Afterwards every challenge must have exactly one first blood
// announced, to the solver the database orders first.
func BenchmarkSubmitCorrectParallel(b *testing.B) {
	e := fullEnv(b)
	ctx := context.Background()
	const fresh = 40
	n := b.N
	if n > fresh*len(e.Keys) {
		b.Fatalf("%d solves asked, %d fresh targets: use a shorter -benchtime", n, fresh*len(e.Keys))
	}
	freshRuns++
	var slugs []string
	for i := range fresh {
		c, err := e.Svc.Content.SaveChallenge(ctx, ctf.Operator, platform.ChallengeInput{
			Slug: fmt.Sprintf("rush-%d-%d", freshRuns, i), Title: fmt.Sprintf("Rush %d %d", freshRuns, i), Description: "A fresh challenge.",
			Type: "standard", Categories: []string{"misc"}, Difficulty: ctf.Easy, Points: 100,
			Flags: []ctf.Flag{{Kind: ctf.FlagStatic, Content: fmt.Sprintf("flag{rush_%d}", i)}}})
		if err != nil {
			b.Fatal(err)
		}
		slugs = append(slugs, c.Slug)
	}
	// Key-major, so that the first requests of the run solve every fresh
	// challenge: each challenge's first solves race.
	calls := make([]*call, 0, n)
	for k := 0; len(calls) < n; k++ {
		for i, slug := range slugs {
			if len(calls) < n {
				calls = append(calls, post(challenges+"/"+slug+"/submit", fmt.Sprintf(`{"flag":"flag{rush_%d}"}`, i), bearer(e.Keys[k].Secret)))
			}
		}
	}
	runParallel(b, e, calls, 200)
	if b.Failed() {
		return
	}
	// The first bloods the live state holds are the ones the database
	// keeps: a state built afresh from the database agrees on every
	// player's first bloods and podiums.
	fresh2 := platform.New(e.DB, platform.Options{PublicURL: PublicURL, RateLimit: store.RateLimit{Max: 10, Window: time.Minute}})
	if err := fresh2.Load(ctx); err != nil {
		b.Fatal(err)
	}
	firsts := 0
	for _, k := range e.Keys {
		live, rebuilt := e.Svc.Scoreboard.Profile(k.UserID), fresh2.Scoreboard.Profile(k.UserID)
		if live.FirstBloodCount != rebuilt.FirstBloodCount || live.Top3Count != rebuilt.Top3Count {
			b.Fatalf("user %s: first bloods %d, top 3 %d live; %d, %d in the database", k.UserID,
				live.FirstBloodCount, live.Top3Count, rebuilt.FirstBloodCount, rebuilt.Top3Count)
		}
		firsts += live.FirstBloodCount
	}
	b.ReportMetric(float64(firsts), "first-bloods")
}

var freshRuns int
