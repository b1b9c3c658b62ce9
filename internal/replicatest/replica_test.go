package replicatest

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/testtime"
)

// TestReplicasMixedLoadKillRestart is the multi-replica test:
// three `flagship serve` processes on one database, a bounded mixed player
// workload spread over them with two first-blood races, one replica killed
// with SIGKILL in the middle of a burst of group commits and restarted on
// a new port; then, once they have
// converged, the invariants of docs/product.md checked through the API of every
// replica, and checked again after restarting all replicas from the
// database, whose answers must be byte-identical to the live ones.
func TestReplicasMixedLoadKillRestart(t *testing.T) {
	const (
		players  = 200
		racers   = 20 // per race, reserved: they do nothing else
		workers  = 24
		duration = 7 * time.Second
		maxReqs  = 60000
	)
	backend, dsn := freshDatabase(t)
	began := time.Now()
	ev := newTestEvent(players, mixedChallenges)
	ev.load(t, dsn)
	cl := newCluster(t, dsn, 3, "--rate-limit", "1000")
	cl.startAll()
	t.Logf("%s: 3 replicas up in %v: %v", backend, time.Since(began).Round(time.Millisecond), cl.live())

	regular := ev.Players[:players-2*racers]
	raceA, raceB := ev.Players[players-2*racers:players-racers], ev.Players[players-racers:]
	var chals []*challenge
	for _, c := range ev.Challenges {
		if !c.Race {
			chals = append(chals, c)
		}
	}
	led := newLedger()
	w := &workload{cl: cl, ev: ev, led: led, regular: regular, chals: chals, maxReqs: maxReqs}
	seed := uint64(time.Now().UnixNano())
	t.Logf("workload: %d workers, %v or %d requests, seed %d", workers, duration, maxReqs, seed)

	start := time.Now()
	done := make(chan struct{})
	go func() { w.run(start.Add(duration), workers, seed); close(done) }()
	at := func(d time.Duration) { time.Sleep(time.Until(start.Add(d))) }

	at(1 * time.Second)
	w.race(t, ev.bySlug["race-a"], raceA)

	at(2500 * time.Millisecond)
	const victim = 1
	lost := led.lostCount()
	// 64 submissions at once: with group commit they share batches, so the
	// kill lands with batches in flight (recorded and not yet answered, or
	// queued and never recorded).
	first, wait := w.burst(cl.proc(victim), 64, seed)
	select {
	case <-first:
	case <-time.After(time.Second):
	}
	p := cl.kill(victim)
	wait()
	t.Logf("t=%v: kill -9 %s (exit: %v) as soon as it answered the first of a burst of 64 submissions; the other two keep serving",
		time.Since(start).Round(time.Millisecond), p, p.waitErr)

	at(3500 * time.Millisecond)
	restartAt := time.Now()
	if err := cl.start(victim); err != nil {
		t.Errorf("restart replica %d: %v", victim, err)
	} else {
		t.Logf("t=%v: restarted as %s in %v; %d requests were cut off by the kill", time.Since(start).Round(time.Millisecond),
			cl.proc(victim), time.Since(restartAt).Round(time.Millisecond), led.lostCount()-lost)
	}

	at(4500 * time.Millisecond)
	w.race(t, ev.bySlug["race-b"], raceB)
	<-done
	t.Logf("t=%v: workload over: %s", time.Since(start).Round(time.Millisecond), led.summary())
	t.Run("responses", func(t *testing.T) {
		// No 5xx, no connection error from a live replica, and only the
		// statuses each submission may get.
		for _, f := range led.failures {
			t.Errorf("workload: %s", f)
		}
	})

	took, err := converge(cl, testtime.Scale(5*time.Second))
	if err != nil {
		t.Errorf("convergence: %v", err)
	} else {
		t.Logf("replicas converged %v after the workload", took.Round(time.Millisecond))
	}
	facts := gather(led)
	races := map[string][]*player{"race-a": raceA, "race-b": raceB}
	live := observeAll(t, ev, cl)
	t.Run("live", func(t *testing.T) { verifyAll(t, live, ev, facts, races) })
	t.Run("announced_badges", func(t *testing.T) { checkAnnouncements(t, ev, facts) })
	cl.checkLogs()

	// A fresh start rebuilds each replica's state from the database alone:
	// it must serve what the live replicas served.
	for i := range 3 {
		cl.stop(i)
	}
	cl.startAll()
	if took, err := converge(cl, testtime.Scale(5*time.Second)); err != nil {
		t.Errorf("convergence after restarting all: %v", err)
	} else {
		t.Logf("all replicas restarted from the database; agreed after %v", took.Round(time.Millisecond))
	}
	fresh := observeAll(t, ev, cl)
	t.Run("restarted", func(t *testing.T) { verifyAll(t, fresh, ev, facts, races) })
	t.Run("restarted_serves_what_live_served", func(t *testing.T) { compareBodies(t, live[0], fresh[0], ev) })
	cl.checkLogs()
	t.Logf("%s backend: the whole test took %v", backend, time.Since(began).Round(time.Millisecond))
}

func observeAll(t *testing.T, ev *testEvent, cl *cluster) []*observation {
	t.Helper()
	var obs []*observation
	for _, p := range cl.live() {
		o, err := observe(ev, p)
		if err != nil {
			t.Fatalf("observe %s: %v", p, err)
		}
		obs = append(obs, o)
	}
	if len(obs) != 3 {
		t.Fatalf("%d replicas in rotation, want 3", len(obs))
	}
	return obs
}

func (l *ledger) lostCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lostConn
}

// summary tells what the workload did, for the log.
func (l *ledger) summary() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	keys := make([]string, 0, len(l.statuses))
	for k := range l.statuses {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "%d requests, %d submissions, %d cut off by the kill", l.requests.Load(), len(l.subs), l.lostConn)
	for _, k := range keys {
		fmt.Fprintf(&b, "\n    %-40s %d", k, l.statuses[k])
	}
	routes := make([]string, 0, len(l.took))
	for k := range l.took {
		routes = append(routes, k)
	}
	sort.Strings(routes)
	b.WriteString("\n  response times (median / p99 / max):")
	for _, k := range routes {
		d := slices.Clone(l.took[k])
		slices.Sort(d)
		q := func(f float64) time.Duration { return d[int(f*float64(len(d)-1))].Round(100 * time.Microsecond) }
		fmt.Fprintf(&b, "\n    %-40s %v / %v / %v", k, q(0.5), q(0.99), q(1))
	}
	return b.String()
}
