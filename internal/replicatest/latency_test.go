package replicatest

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/testtime"
)

// TestReplicaVisibilityLatency measures how long a solve acknowledged by
// one replica takes to show in the other replicas' solvesCount (the aim is
// within 1 s). It is a measurement for the docs, logged as a
// distribution; it fails only on a sample past 3 s, which no working
// polling or notification design produces, or on a solve never seen.
//
// Every replica's detail of one challenge is polled every 10 ms throughout,
// while solves by different players go to the replicas in turn at random
// intervals (so they fall at any phase of the replicas' one-second poll);
// a sample is the time from a solve's 200 on replica A to the first poll of
// replica B that counts it.
func TestReplicaVisibilityLatency(t *testing.T) {
	const samples = 20
	backend, dsn := freshDatabase(t)
	ev := newTestEvent(samples, []challenge{{Slug: "beacon", Points: 100, Category: "misc", Difficulty: "Easy"}})
	ev.load(t, dsn)
	cl := newCluster(t, dsn, 3, "--rate-limit", "1000")
	cl.startAll()
	procs := cl.live()
	body, _ := json.Marshal(map[string]string{"flag": ev.bySlug["beacon"].Flag})

	// seen[b][k] is when replica b first showed k solves.
	seen := make([]map[int]time.Time, len(procs))
	var mu sync.Mutex
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for b, p := range procs {
		seen[b] = map[int]time.Time{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			shown := 0
			for {
				select {
				case <-stop:
					return
				case <-time.After(10 * time.Millisecond):
				}
				r := do(context.Background(), "GET", p.URL+"/api/public/challenges/beacon", "", nil)
				now := time.Now()
				var d detailView
				if r.Err != nil || r.Status != 200 || json.Unmarshal(r.Body, &d) != nil {
					t.Errorf("poll %s: %v %d %s", p, r.Err, r.Status, clip(r.Body, 200))
					return
				}
				mu.Lock()
				for k := shown + 1; k <= d.Challenge.SolvesCount; k++ {
					seen[b][k] = now
				}
				mu.Unlock()
				shown = max(shown, d.Challenge.SolvesCount)
			}
		}()
	}
	t.Cleanup(func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
		wg.Wait()
	})

	acked := make([]time.Time, samples+1)
	on := make([]int, samples+1)
	for i, p := range ev.Players {
		time.Sleep(time.Duration(100+rand.IntN(400)) * time.Millisecond)
		a := i % len(procs)
		r := do(context.Background(), "POST", procs[a].URL+"/api/public/challenges/beacon/submit", p.Key, body)
		if r.Err != nil || r.Status != 200 {
			t.Fatalf("solve %d on %s: %v %d %s", i+1, procs[a], r.Err, r.Status, r.Body)
		}
		acked[i+1], on[i+1] = time.Now(), a
	}
	deadline := time.Now().Add(testtime.Scale(5 * time.Second))
	for {
		mu.Lock()
		all := true
		for b := range procs {
			_, ok := seen[b][samples]
			all = all && ok
		}
		mu.Unlock()
		if all || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	close(stop)
	wg.Wait()

	var delays []time.Duration
	for k := 1; k <= samples; k++ {
		for b := range procs {
			if b == on[k] {
				continue
			}
			at, ok := seen[b][k]
			if !ok {
				t.Errorf("solve %d (acknowledged by %s) never reached %s within %v", k, procs[on[k]], procs[b], testtime.Scale(5*time.Second))
				continue
			}
			delays = append(delays, max(0, at.Sub(acked[k])))
		}
	}
	if len(delays) == 0 {
		return
	}
	slices.Sort(delays)
	q := func(f float64) time.Duration { return delays[int(f*float64(len(delays)-1))].Round(time.Millisecond) }
	over := 0
	for _, d := range delays {
		if d > time.Second {
			over++
		}
	}
	t.Logf("%s: cross-replica visibility of a solve (200 on A → solvesCount on B, polled every 10 ms), %d samples: "+
		"min %v, median %v, p90 %v, max %v; %d over 1 s", backend, len(delays), q(0), q(0.5), q(0.9), q(1), over)
	if last := delays[len(delays)-1]; last > 3*time.Second {
		t.Errorf("a solve took %v to reach another replica (clearly broken: the bound is 1 s)", last)
	}
}
