package bench

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/store"
)

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
