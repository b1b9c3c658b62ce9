package mail

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/flagshipctf/flagship/internal/store"
)

// Store is the outbox as the worker uses it: store.Mail.
type Store interface {
	ClaimMail(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]store.ClaimedMail, error)
	RecordMailTry(ctx context.Context, seq int64, at time.Time, o store.MailOutcome) error
}

// Transport sends one message: *Sender, or a test's stand-in.
type Transport interface {
	Send(ctx context.Context, m Message, now time.Time) error
}

// Options tune a Worker; zero values take the defaults.
type Options struct {
	// Tick is how often the worker looks for due messages (1 s).
	Tick time.Duration
	// BackoffBase is the wait after a first failed try, doubled after
	// each further one (10 s), up to BackoffCap (10 min), plus up to a
	// tenth of jitter. A message is given up at its GiveUpAt.
	BackoffBase, BackoffCap time.Duration
	// Lease is how long a claim keeps other replicas off a message: past
	// it (the replica died mid-try) another one sends it (2 min, longer
	// than a conversation's timeout).
	Lease time.Duration
	// Concurrency bounds the messages in flight on this replica (4).
	Concurrency int
	Logger      *slog.Logger
	Now         func() time.Time
}

// Worker sends the outbox's messages. Run one per replica: claims keep
// each message to one.
type Worker struct {
	db    Store
	t     Transport
	o     Options
	slots chan struct{}
	wg    sync.WaitGroup
}

// NewWorker returns a worker sending db's outbox through t.
func NewWorker(db Store, t Transport, o Options) *Worker {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.Tick, time.Second)
	def(&o.BackoffBase, 10*time.Second)
	def(&o.BackoffCap, 10*time.Minute)
	def(&o.Lease, 2*time.Minute)
	if o.Concurrency <= 0 {
		o.Concurrency = 4
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Worker{db: db, t: t, o: o, slots: make(chan struct{}, o.Concurrency)}
}

// Run sends messages until ctx ends, then waits for those in flight.
func (w *Worker) Run(ctx context.Context) {
	t := time.NewTicker(w.o.Tick)
	defer t.Stop()
	defer w.wg.Wait()
	for {
		w.Round(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Round claims as many due messages as there are free slots and starts
// sending them.
func (w *Worker) Round(ctx context.Context) {
	free := cap(w.slots) - len(w.slots)
	if free <= 0 {
		return
	}
	claimed, err := w.db.ClaimMail(ctx, w.o.Now(), w.o.Lease, free)
	if err != nil {
		if ctx.Err() == nil {
			w.o.Logger.Warn("claim mail", "err", err)
		}
		return
	}
	for _, c := range claimed {
		w.slots <- struct{}{} // free: only this goroutine takes slots
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			defer func() { <-w.slots }()
			w.try(ctx, c)
		}()
	}
}

// Wait waits for the messages in flight (tests).
func (w *Worker) Wait() { w.wg.Wait() }

func (w *Worker) try(ctx context.Context, c store.ClaimedMail) {
	err := w.t.Send(ctx, Message{To: c.To, Subject: c.Subject, Text: c.Text, HTML: c.HTML}, w.o.Now())
	if err != nil && ctx.Err() != nil {
		return // shutting down: the claim lapses and a replica sends it
	}
	now := w.o.Now()
	out := store.MailOutcome{Status: store.MailSent, NextAt: now}
	if err != nil {
		out = w.retry(c, now, err)
		w.o.Logger.Warn("mail try failed", "message", c.Seq, "kind", c.Kind, "status", out.Status, "err", err)
	} else {
		w.o.Logger.Info("mail sent", "message", c.Seq, "kind", c.Kind)
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := w.db.RecordMailTry(rctx, c.Seq, now, out); err != nil {
		w.o.Logger.Warn("record a mail try", "message", c.Seq, "err", err)
	}
}

// retry is the outcome of a failed try: failed for good on a 5xx reply or
// past the message's GiveUpAt, else pending again after the backoff.
func (w *Worker) retry(c store.ClaimedMail, now time.Time, err error) store.MailOutcome {
	msg := err.Error()
	if len(msg) > 500 {
		msg = msg[:500]
	}
	if Permanent(err) {
		return store.MailOutcome{Status: store.MailFailed, NextAt: now, Error: msg}
	}
	wait := Backoff(c.Attempts+1, w.o.BackoffBase, w.o.BackoffCap)
	wait += rand.N(wait/10 + 1)
	next := now.Add(wait)
	if next.After(c.GiveUpAt) {
		return store.MailOutcome{Status: store.MailFailed, NextAt: now, Error: msg}
	}
	return store.MailOutcome{Status: store.MailPending, NextAt: next, Error: msg}
}

// Backoff is the wait after the n-th failed try (n ≥ 1), before jitter:
// base, 2·base, 4·base, … up to limit.
func Backoff(n int, base, limit time.Duration) time.Duration {
	d := base
	for i := 1; i < n && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}
