package platform

import (
	"context"
	"runtime/debug"
	"sync"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/store"
)

// Group commit. Every checked submission must be durable before it is
// answered, and the disk's flush is what a submission costs most. So
// submissions that arrive while a batch is being written wait for it to
// finish and then go together, in one transaction and one flush. Nobody
// waits for company: a submission that finds no batch running starts one
// at once, so a lone submission pays a lock and a channel, and under load
// batches grow by themselves to what arrived during the last flush.
//
// One batch runs at a time in a process. That keeps the order in which the
// hot state sees this process's solves their (time, seq) order — so the
// badges a solve announces (first blood) are the badges it keeps — and the
// database work of a batch is short: the flush is what it amortises.

// maxBatch bounds a batch, so that one batch's statements do not hold the
// submissions behind it for long.
const maxBatch = 256

// batchTimeout bounds a batch's transaction. A batch serves many callers,
// so it does not end with the first caller's request.
const batchTimeout = 30 * time.Second

// batcher queues the submissions waiting for a batch.
type batcher struct {
	mu      sync.Mutex
	queue   []*pending
	running bool
	// lastSolveAt is the time of the newest solve this process recorded;
	// only the running batch touches it.
	lastSolveAt time.Time
}

// pending is one submission waiting for its batch, then its answer.
type pending struct {
	sub    store.Submission
	queued time.Time
	done   chan struct{}
	res    live.SubmitResult
	err    error
}

// record records p with the next batch and returns when it is answered.
func (s *core) record(p *pending) (live.SubmitResult, error) {
	p.done = make(chan struct{})
	p.queued = time.Now()
	b := &s.batch
	b.mu.Lock()
	b.queue = append(b.queue, p)
	lead := !b.running
	b.running = true
	b.mu.Unlock()
	if lead {
		s.runBatch()
	}
	<-p.done
	return p.res, p.err
}

// runBatch commits the queue's first submissions as one batch, then hands
// the rest to a new goroutine, so that the caller that ran this batch is
// answered without waiting for the next.
func (s *core) runBatch() {
	b := &s.batch
	b.mu.Lock()
	n := min(len(b.queue), maxBatch)
	batch := make([]*pending, n)
	copy(batch, b.queue)
	b.queue = append(b.queue[:0], b.queue[n:]...)
	b.mu.Unlock()

	s.commitBatch(batch)

	b.mu.Lock()
	more := len(b.queue) > 0
	b.running = more
	b.mu.Unlock()
	if more {
		go s.runBatch()
	}
}

// commitBatch records a batch, applies it to the hot state and answers
// every submission in it.
func (s *core) commitBatch(batch []*pending) {
	start := time.Now()
	s.obs.SubmitBatch(len(batch), start.Sub(batch[0].queued))
	solved, answered := false, false
	defer func() {
		// A bug must not leave the batch's callers waiting forever, nor
		// stop the batches behind it: they are told, and it is logged.
		if r := recover(); r != nil || !answered {
			s.log.Error("group commit failed", "panic", r, "stack", string(debug.Stack()))
			for _, p := range batch {
				p.res, p.err = live.SubmitResult{}, ctf.Errorf(ctf.Internal, "internal error")
			}
		}
		for _, p := range batch {
			close(p.done)
		}
		if solved {
			s.wakeUp() // relay the solves' stream events now
		}
	}()
	defer s.live.Write()()

	// Solves of this process get times that never go backwards, so their
	// (time, seq) order is the order in which they are recorded.
	b := &s.batch
	now := s.now()
	subs := make([]store.Submission, len(batch))
	for i, p := range batch {
		p.sub.At = now
		if p.sub.Correct {
			if p.sub.At.Before(b.lastSolveAt) {
				p.sub.At = b.lastSolveAt
			}
			b.lastSolveAt = p.sub.At
		}
		subs[i] = p.sub
	}
	s.live.MarkUnannounced(subs)
	ctx, cancel := context.WithTimeout(context.Background(), batchTimeout)
	defer cancel()
	outs, err := s.db.RecordSubmissions(ctx, subs, s.opts.RateLimit)
	s.noteWrite(err)
	if err != nil {
		for _, p := range batch {
			p.err = err
			s.obs.Submitted("refused")
		}
		answered = true
		return
	}

	var own []ctf.Solve
	var charged [][]int
	for i, o := range outs {
		if o.Err == nil && o.Solve != nil {
			own = append(own, *o.Solve)
			charged = append(charged, o.ChargedHints)
		}
		if o.Err != nil {
			batch[i].err = o.Err
			s.obs.Submitted("refused")
		}
	}
	s.live.ApplyAttempts(subs, outs)
	var kept []live.SolveKept
	if len(own) > 0 {
		solved = true
		// The database orders each challenge's solves by commit, so every
		// solve before these is committed: read those other replicas
		// recorded, so the first blood (and any badge) these solves
		// announce is the one they keep. The gate keeps this process's
		// own rows out.
		after, gaps := s.live.SolveCursor()
		others, err := s.db.SolvesSince(ctx, after, gaps)
		if err != nil {
			s.log.Warn("read other replicas' solves before announcing badges", "err", err)
			others = nil
		}
		kept = s.live.ApplySolves(own, others, charged)
	}
	now = s.now()
	for i, p := range batch {
		o := outs[i]
		switch {
		case o.Err != nil:
		case o.Solve == nil:
			p.err = ErrWrongFlag
			s.obs.Submitted("wrong")
		default:
			k := kept[0]
			kept = kept[1:]
			if p.sub.Practice {
				s.obs.Submitted("practice")
			} else {
				s.obs.Submitted("correct")
				s.obs.SolveApplied(k.First, true, now.Sub(o.Solve.At))
			}
			p.res = live.SubmitResult{Success: true, Points: k.Points, NewBadges: make([]live.BadgeAward, 0, len(k.Awards)), Practice: p.sub.Practice}
			for _, a := range k.Awards {
				p.res.NewBadges = append(p.res.NewBadges, live.BadgeAward{ID: a.ID, Title: a.Title, Icon: a.Icon, Image: a.Image})
			}
		}
	}
	answered = true
}
