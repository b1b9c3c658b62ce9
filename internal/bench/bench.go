// Package bench measures Flagship at the size of a large event: a
// synthetic event (internal/synth) in a real database — a SQLite file, or a
// fresh PostgreSQL database when FLAGSHIP_BENCH_DB names a server — the hot
// state built from it, and the real handler stack as `flagship serve` wires
// it. The benchmarks are in bench_test.go:
//
//	go test -run '^$' -bench . -benchmem ./internal/bench
//	FLAGSHIP_BENCH_DB='postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable' \
//	    go test -run '^$' -bench . -benchmem -timeout 60m ./internal/bench
//
// FLAGSHIP_BENCH_SCALE=0.1 shrinks the event for quick runs.
package bench

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/server"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/synth"
)

// PublicURL is the base of file links in the benchmarked responses.
const PublicURL = "http://127.0.0.1:8080"

// Env is a built event behind the real handler stack.
type Env struct {
	Database *Database // where the event is; the caller drops it
	DB       *store.DB
	Svc      *platform.Service
	Handler  http.Handler
	Front    *server.Server // what Handler serves
	Config   synth.Config

	Keys    []synth.Key
	Wrong   []synth.Target // for wrong submissions: the first half of the keys
	Correct []synth.Target // for correct ones: the other half, so the two never meet
	Solved  [][]string     // per key, the slugs its player solved
	Slugs   []string       // every challenge
	UserIDs []string       // every user

	GenerateTime, WriteTime, LoadTime time.Duration

	// Batches counts the group commits of submissions and what they held.
	Batches BatchCounter
}

// BatchCounter is a platform.Observer that counts group commits.
type BatchCounter struct {
	platform.Observer
	batches, submissions, waitNs atomic.Int64
}

// SubmitBatch implements platform.Observer.
func (c *BatchCounter) SubmitBatch(size int, wait time.Duration) {
	c.batches.Add(1)
	c.submissions.Add(int64(size))
	c.waitNs.Add(int64(wait))
}

// Counts returns the batches, the submissions and the total wait of the
// batches' oldest submissions counted so far.
func (c *BatchCounter) Counts() (batches, submissions int64, wait time.Duration) {
	return c.batches.Load(), c.submissions.Load(), time.Duration(c.waitNs.Load())
}

// Scale reads FLAGSHIP_BENCH_SCALE (default 1: the full-size event).
func Scale() (float64, error) {
	s := os.Getenv("FLAGSHIP_BENCH_SCALE")
	if s == "" {
		return 1, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 || f > 10 {
		return 0, fmt.Errorf("FLAGSHIP_BENCH_SCALE=%q: want a number in (0, 10]", s)
	}
	return f, nil
}

// Build generates cfg into the empty database d (NewDatabase), builds the
// hot state and the handler. limit is the submit rate limit (zero: the
// server's default of 10 wrong submissions per user and challenge per
// minute).
func Build(ctx context.Context, d *Database, cfg synth.Config, limit store.RateLimit) (*Env, error) {
	if limit == (store.RateLimit{}) {
		limit = store.RateLimit{Max: 10, Window: time.Minute}
	}
	e := &Env{Database: d, Config: cfg}
	t := time.Now()
	ev, err := synth.Generate(cfg)
	if err != nil {
		return nil, err
	}
	e.GenerateTime = time.Since(t)
	db, err := store.Open(ctx, d.DSN)
	if err != nil {
		return nil, err
	}
	e.DB = db
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	t = time.Now()
	if _, err := ev.Write(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	e.WriteTime = time.Since(t)

	e.Keys = ev.Keys
	half := len(ev.Keys) / 2
	keyOf := make(map[string]int, len(ev.Keys))
	for i, k := range ev.Keys {
		keyOf[k.UserID] = i
	}
	for _, tg := range ev.Targets(50) {
		if keyOf[tg.UserID] < half {
			e.Wrong = append(e.Wrong, tg)
		} else {
			e.Correct = append(e.Correct, tg)
		}
	}
	e.Solved = ev.SolvedBy()
	for _, c := range ev.Challenges {
		e.Slugs = append(e.Slugs, c.Slug)
	}
	for _, u := range ev.Users {
		e.UserIDs = append(e.UserIDs, u.ID)
	}

	log := slog.New(slog.DiscardHandler)
	e.Batches.Observer = platform.NopObserver
	e.Svc = platform.New(db, platform.Options{PublicURL: PublicURL, RateLimit: limit, Logger: log, Observer: &e.Batches})
	t = time.Now()
	if err := e.Svc.Load(ctx); err != nil {
		db.Close()
		return nil, err
	}
	e.LoadTime = time.Since(t)
	e.Front = server.New(e.Svc, server.Options{Log: log})
	e.Handler = e.Front.Handler()
	return e, nil
}

// Stack is the handler flagship serve serves.
func Stack(svc *platform.Service, log *slog.Logger) http.Handler {
	return server.New(svc, server.Options{Log: log}).Handler()
}

// Close closes the database; the caller drops it (Database.Drop).
func (e *Env) Close() error { return e.DB.Close() }

// Discard is a ResponseWriter that keeps the status and headers and counts
// the body's bytes without keeping them: at this size the leaderboard is
// megabytes, and copying it would measure memmove, not the server.
type Discard struct {
	h      http.Header
	Status int
	Bytes  int64
}

// NewDiscard returns an empty Discard.
func NewDiscard() *Discard { return &Discard{h: http.Header{}} }

// Header implements http.ResponseWriter.
func (d *Discard) Header() http.Header { return d.h }

// WriteHeader implements http.ResponseWriter.
func (d *Discard) WriteHeader(code int) {
	if d.Status == 0 {
		d.Status = code
	}
}

// Write implements http.ResponseWriter.
func (d *Discard) Write(p []byte) (int, error) {
	if d.Status == 0 {
		d.Status = http.StatusOK
	}
	d.Bytes += int64(len(p))
	return len(p), nil
}

// Reset readies d for the next response, keeping the header map's storage
// (net/http gives every response a fresh map; that is not the handler's
// work).
func (d *Discard) Reset() {
	clear(d.h)
	d.Status, d.Bytes = 0, 0
}
