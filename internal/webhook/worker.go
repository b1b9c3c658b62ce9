package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/netip"
	"net/url"
	"sync"
	"time"

	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/store"
)

// Store is the database as the worker uses it: store.Hooks.
type Store interface {
	ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]store.Claimed, error)
	RecordAttempt(ctx context.Context, delivery int64, a store.DeliveryTry, o store.Outcome) error
}

// Observer is told the outcome of every try: platform.Observer.
type Observer interface {
	WebhookDelivery(kind string, ok bool)
}

// Options tune a Worker; zero values take the defaults.
type Options struct {
	// Tick is how often the worker looks for due deliveries (1 s).
	Tick time.Duration
	// BackoffBase is the wait after a first failed try, doubled after
	// each further one (5 s), up to BackoffCap (1 h), plus up to a tenth
	// of jitter so that retries of many deliveries spread out.
	BackoffBase, BackoffCap time.Duration
	// Lifetime is how long after its creation a delivery is retried
	// before it is given up as failed (24 h).
	Lifetime time.Duration
	// Timeout bounds one try (10 s).
	Timeout time.Duration
	// Lease is how long a claim keeps other replicas off a delivery: past
	// it (the replica died mid-try), another one tries again. Longer than
	// Timeout (default: 3 × Timeout).
	Lease time.Duration
	// Concurrency bounds the tries in flight on this replica (8): a slow
	// target holds one slot, and the others keep sending.
	Concurrency int
	// AllowPrivate lets tries connect to any address, loopback, private,
	// link-local and metadata ones included (serve
	// --webhooks-allow-private). Without it, only public addresses
	// (platform.PublicAddr).
	AllowPrivate bool
	// Resolver looks up a target's host when a try connects (nil:
	// net.DefaultResolver). Tests stub it.
	Resolver Resolver
	// Allowed reports whether a try may connect to an address, checked
	// on every address a host resolves to and again on the socket's (nil:
	// as AllowPrivate says). Tests stub it.
	Allowed  func(netip.AddrPort) bool
	Observer Observer
	Logger   *slog.Logger
	Now      func() time.Time
}

// Worker sends the deliveries of the outbox. Run one per replica.
type Worker struct {
	db     Store
	o      Options
	client *http.Client
	slots  chan struct{}
	wg     sync.WaitGroup
}

// New returns a worker over db.
func New(db Store, o Options) *Worker {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.Tick, time.Second)
	def(&o.BackoffBase, 5*time.Second)
	def(&o.BackoffCap, time.Hour)
	def(&o.Lifetime, 24*time.Hour)
	def(&o.Timeout, 10*time.Second)
	def(&o.Lease, 3*o.Timeout)
	if o.Concurrency <= 0 {
		o.Concurrency = 8
	}
	if o.Observer == nil {
		o.Observer = noObserver{}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Worker{db: db, o: o, client: newClient(o.Timeout, newDialer(o).DialContext),
		slots: make(chan struct{}, o.Concurrency)}
}

type noObserver struct{}

func (noObserver) WebhookDelivery(string, bool) {}

// Run sends deliveries until ctx ends, then waits for the tries in flight
// (which ctx cancels: their claims lapse and a replica tries them again).
func (w *Worker) Run(ctx context.Context) {
	t := time.NewTicker(w.o.Tick)
	defer t.Stop()
	defer w.wg.Wait()
	for {
		w.round(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// round claims as many due deliveries as there are free slots and starts
// their tries.
func (w *Worker) round(ctx context.Context) {
	free := cap(w.slots) - len(w.slots)
	if free <= 0 {
		return
	}
	claimed, err := w.db.ClaimDeliveries(ctx, w.o.Now(), w.o.Lease, free)
	if err != nil {
		if ctx.Err() == nil {
			w.o.Logger.Warn("claim webhook deliveries", "err", err)
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

// try sends c once and records the try and what follows from it.
func (w *Worker) try(ctx context.Context, c store.Claimed) {
	start := w.o.Now()
	status, class, err := w.send(ctx, c, start)
	if ctx.Err() != nil && status == 0 {
		return // shutting down: the claim lapses and a replica tries again
	}
	end := w.o.Now()
	ok := err == nil
	w.o.Observer.WebhookDelivery(string(c.Webhook.Kind), ok)
	out := store.Outcome{Status: store.DeliveryDelivered, NextAt: end}
	if !ok {
		out = w.retry(c, end)
		// The error itself is for the operator only: the delivery log,
		// which admins read in the web app, has its class.
		w.o.Logger.Warn("webhook try failed", "webhook", c.Webhook.ID, "delivery", c.Seq, "class", class, "err", err)
	}
	a := store.DeliveryTry{At: start, StatusCode: status, Error: class, Duration: end.Sub(start)}
	// Recorded even while shutting down: the target answered, and a
	// second try of a delivered event is what the record prevents.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := w.db.RecordAttempt(rctx, c.Seq, a, out); err != nil {
		w.o.Logger.Warn("record a webhook try", "delivery", c.Seq, "err", err)
	}
}

// send posts c and returns the answer's status (0: none) and, when the try
// failed, the class the delivery log shows and the error.
func (w *Worker) send(ctx context.Context, c store.Claimed, now time.Time) (int, string, error) {
	body, h, err := Request(c, now)
	if err != nil {
		return 0, platform.TryInternal, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Webhook.URL, bytes.NewReader(body))
	if err != nil {
		return 0, platform.TryConnection, redact(err)
	}
	req.Header = h
	resp, err := w.client.Do(req)
	if err != nil {
		return 0, classify(err), redact(err)
	}
	defer resp.Body.Close()
	// Read a little so the connection can be reused; what it says is not
	// kept.
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, platform.TryStatus(resp.StatusCode), fmt.Errorf("HTTP %s", resp.Status)
	}
	return resp.StatusCode, "", nil
}

// redact drops the URL from a client error: Discord's and Slack's URLs
// carry their secret, and the server's log need not hold it.
func redact(err error) error {
	var u *url.Error
	if errors.As(err, &u) {
		return u.Err
	}
	return err
}

// retry is the outcome of a failed try: pending again after the backoff,
// or failed when that would pass the delivery's lifetime.
func (w *Worker) retry(c store.Claimed, now time.Time) store.Outcome {
	wait := Backoff(c.Attempts+1, w.o.BackoffBase, w.o.BackoffCap)
	wait += rand.N(wait/10 + 1)
	next := now.Add(wait)
	if next.After(c.CreatedAt.Add(w.o.Lifetime)) {
		return store.Outcome{Status: store.DeliveryFailed, NextAt: now}
	}
	return store.Outcome{Status: store.DeliveryPending, NextAt: next}
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
