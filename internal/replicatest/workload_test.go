package replicatest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// submission is one flag submission of the workload and what came of it.
type submission struct {
	Player *player
	Chal   *challenge
	Right  bool     // the challenge's flag, else a wrong one
	Proc   *process // the replica that got it
	Kind   string   // regular, double, race
	Status int      // 0: unknown outcome (the replica died with the request in flight)
	Badges []string // newBadges ids of a 200

	Sent, Answered time.Time // the request's span as the client saw it
}

// ledger records every response of the workload.
type ledger struct {
	mu       sync.Mutex
	subs     []*submission
	statuses map[string]int             // "GET /leaderboard 200", "submit 409", …
	took     map[string][]time.Duration // by route, for the log
	failures []string                   // responses that break the contract (5xx, connection errors on live replicas, …)
	lostConn int                        // requests whose replica was killed under them
	requests atomic.Int64

	solved map[*player]map[*challenge]bool // what each player is known to have solved (200 or 409)
}

func newLedger() *ledger {
	return &ledger{statuses: map[string]int{}, took: map[string][]time.Duration{}, solved: map[*player]map[*challenge]bool{}}
}

func (l *ledger) fail(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.failures) < 200 {
		l.failures = append(l.failures, fmt.Sprintf(format, args...))
	}
}

func (l *ledger) count(what, route string, took time.Duration) {
	l.mu.Lock()
	l.statuses[what]++
	l.took[route] = append(l.took[route], took)
	l.mu.Unlock()
}

func (l *ledger) knownSolved(p *player, c *challenge) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.solved[p][c]
}

// get is a read of the workload: it must be a 200 unless the replica was
// killed under it.
func (l *ledger) get(ctx context.Context, proc *process, path, key string) {
	l.requests.Add(1)
	t0 := time.Now()
	r := do(ctx, "GET", proc.URL+path, key, nil)
	took := time.Since(t0)
	if r.Err != nil {
		if proc.killed.Load() || ctx.Err() != nil {
			l.mu.Lock()
			l.lostConn++
			l.mu.Unlock()
			return
		}
		l.fail("GET %s on %s: %v", path, proc, r.Err)
		return
	}
	l.count(fmt.Sprintf("GET %s %d", routeOf(path), r.Status), "GET "+routeOf(path), took)
	if r.Status != 200 {
		l.fail("GET %s on %s: status %d: %s", path, proc, r.Status, clip(r.Body, 300))
	}
}

// submit sends a flag and records the outcome, checking what the status
// may be for this submission.
func (l *ledger) submit(ctx context.Context, proc *process, p *player, c *challenge, right bool, kind string) *submission {
	l.requests.Add(1)
	flag := "flag{wrong-" + randHex(4) + "}"
	if right {
		flag = c.Flag
	}
	body, _ := json.Marshal(map[string]string{"flag": flag})
	s := &submission{Player: p, Chal: c, Right: right, Proc: proc, Kind: kind}
	s.Sent = time.Now()
	r := do(ctx, "POST", proc.URL+"/api/public/challenges/"+c.Slug+"/submit", p.Key, body)
	s.Answered = time.Now()
	took := s.Answered.Sub(s.Sent)
	switch {
	case r.Err != nil && (proc.killed.Load() || ctx.Err() != nil):
		l.mu.Lock()
		l.lostConn++
		l.mu.Unlock()
	case r.Err != nil:
		l.fail("submit %s by %s on %s: %v (a live replica must answer)", c.Slug, p.Username, proc, r.Err)
	default:
		s.Status = r.Status
	}
	l.count(fmt.Sprintf("submit %s %d", map[bool]string{true: "right", false: "wrong"}[right], s.Status), "POST submit", took)
	switch {
	case s.Status == 0:
	case s.Status >= 500:
		l.fail("submit %s by %s on %s: %d: %s", c.Slug, p.Username, proc, s.Status, clip(r.Body, 300))
	case s.Status == 200 && right:
		var res struct {
			Result struct {
				Success   bool `json:"success"`
				Points    int  `json:"points"`
				NewBadges []struct {
					ID string `json:"id"`
				} `json:"newBadges"`
			} `json:"result"`
		}
		if err := json.Unmarshal(r.Body, &res); err != nil || !res.Result.Success || res.Result.Points != c.Points {
			l.fail("submit %s by %s on %s: 200 with body %s (want success and %d points)", c.Slug, p.Username, proc, clip(r.Body, 300), c.Points)
		}
		for _, b := range res.Result.NewBadges {
			s.Badges = append(s.Badges, b.ID)
		}
	case s.Status == 400 && !right, s.Status == 409:
	case s.Status == 403 && len(c.Requires) > 0:
		// Locked: a prerequisite is unsolved, or solved on another replica
		// a moment ago (each replica's view lags by up to a second).
	default:
		l.fail("submit %s (right flag: %v) by %s on %s: unexpected status %d: %s", c.Slug, right, p.Username, proc, s.Status, clip(r.Body, 300))
	}
	l.mu.Lock()
	l.subs = append(l.subs, s)
	if s.Status == 200 || s.Status == 409 {
		if l.solved[p] == nil {
			l.solved[p] = map[*challenge]bool{}
		}
		l.solved[p][c] = true
	}
	l.mu.Unlock()
	return s
}

func routeOf(path string) string {
	for _, pre := range []string{"/api/public/challenges/", "/api/public/profiles/"} {
		if len(path) > len(pre) && path[:len(pre)] == pre {
			return pre + "{…}"
		}
	}
	return path
}

// workload is the players' side of the mixed-load test.
type workload struct {
	cl      *cluster
	ev      *testEvent
	led     *ledger
	regular []*player    // players of the background load
	chals   []*challenge // the challenges they play (not the race ones)
	maxReqs int64
}

// run drives workers goroutines until stopAt or until the request budget
// is spent: reads of every kind, wrong and right flags, and now and then the
// same right flag sent to two replicas at once. Requests are never
// cancelled: a submission abandoned by the client would have an unknown
// outcome.
func (w *workload) run(stopAt time.Time, workers int, seed uint64) {
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(i)))
			for time.Now().Before(stopAt) && w.led.requests.Load() < w.maxReqs {
				w.step(context.Background(), rng)
			}
		}()
	}
	wg.Wait()
}

func (w *workload) step(ctx context.Context, rng *rand.Rand) {
	proc := w.cl.pick(rng)
	if proc == nil {
		time.Sleep(10 * time.Millisecond)
		return
	}
	p := w.regular[rng.IntN(len(w.regular))]
	key := p.Key
	if rng.IntN(2) == 0 {
		key = "" // anonymous where the endpoint allows it
	}
	c := w.chals[rng.IntN(len(w.chals))]
	switch x := rng.IntN(100); {
	case x < 12:
		w.led.get(ctx, proc, "/api/public/challenges", key)
	case x < 24:
		w.led.get(ctx, proc, "/api/public/leaderboard", "")
	case x < 32:
		w.led.get(ctx, proc, "/api/public/me", p.Key)
	case x < 40:
		w.led.get(ctx, proc, "/api/public/challenges/"+c.Slug, key)
	case x < 44:
		w.led.get(ctx, proc, "/api/public/profiles/"+w.ev.Players[rng.IntN(len(w.ev.Players))].ID, "")
	case x < 70:
		w.led.submit(ctx, proc, p, c, false, "regular")
	case x < 96:
		w.led.submit(ctx, proc, p, w.nextChallenge(rng, p), true, "regular")
	default:
		// The same player sends the right flag to two replicas at once:
		// at most one 200.
		live := w.cl.live()
		if len(live) < 2 {
			return
		}
		i := rng.IntN(len(live))
		j := (i + 1 + rng.IntN(len(live)-1)) % len(live)
		c := w.nextChallenge(rng, p)
		var wg sync.WaitGroup
		for _, pr := range []*process{live[i], live[j]} {
			wg.Add(1)
			go func() { defer wg.Done(); w.led.submit(ctx, pr, p, c, true, "double") }()
		}
		wg.Wait()
	}
}

// nextChallenge picks what p would try next: mostly an unsolved, unlocked
// challenge as far as the client knows, sometimes anything.
func (w *workload) nextChallenge(rng *rand.Rand, p *player) *challenge {
	if rng.IntN(10) == 0 {
		return w.chals[rng.IntN(len(w.chals))]
	}
	var open []*challenge
	for _, c := range w.chals {
		if w.led.knownSolved(p, c) {
			continue
		}
		unlocked := true
		for _, r := range c.Requires {
			unlocked = unlocked && w.led.knownSolved(p, w.ev.bySlug[r])
		}
		if unlocked {
			open = append(open, c)
		}
	}
	if len(open) == 0 {
		return w.chals[rng.IntN(len(w.chals))]
	}
	return open[rng.IntN(len(open))]
}

// race makes racers submit c's flag at the same instant, spread over the
// live replicas, then each once more on another replica (a 409).
func (w *workload) race(t *testing.T, c *challenge, racers []*player) {
	ctx := context.Background()
	live := w.cl.live()
	t.Logf("race for %s: %d players over %d replicas", c.Slug, len(racers), len(live))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, p := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			w.led.submit(ctx, live[i%len(live)], p, c, true, "race")
			w.led.submit(ctx, live[(i+1)%len(live)], p, c, true, "race-again")
		}()
	}
	time.Sleep(20 * time.Millisecond)
	close(start)
	wg.Wait()
}

// burst sends n submissions to proc at once, right and wrong flags of
// random players. It returns a channel closed when the first of them is
// answered, and a function that waits for them all: killing the replica
// between the two leaves submissions in flight to it, next to one just
// acknowledged, whatever its speed.
func (w *workload) burst(proc *process, n int, seed uint64) (firstAnswer <-chan struct{}, wait func()) {
	rng := rand.New(rand.NewPCG(seed, 1<<40))
	first := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		p := w.regular[rng.IntN(len(w.regular))]
		c := w.nextChallenge(rng, p)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if s := w.led.submit(context.Background(), proc, p, c, i%2 == 0, "burst"); s.Status != 0 {
				once.Do(func() { close(first) })
			}
		}()
	}
	return first, wg.Wait
}
