package platform

import (
	"context"
	"sync"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// How health is judged (docs/product.md#health: within a second).
const (
	healthTimeout    = time.Second
	healthWriteEvery = 5 * time.Second  // a write probe at most this often
	healthWriteFresh = 10 * time.Second // a failed write this recent is an outage
)

// health remembers the last write probe and the last outcomes of real
// writes, so that a database that answers reads but takes no write (full,
// read-only, locked) is not reported healthy.
type health struct {
	mu          sync.Mutex
	probedAt    time.Time
	probeErr    error
	lastFail    time.Time // a write of the use cases failed as Unavailable
	lastSuccess time.Time
}

// noteWrite records the outcome of a write of the use cases.
func (s *core) noteWrite(err error) {
	code := ctf.ErrorCode(err)
	if err != nil && code != ctf.Unavailable {
		return // refused for a reason of its own: says nothing of the database
	}
	now := s.now()
	s.health.mu.Lock()
	if err != nil {
		s.health.lastFail = now
	} else {
		s.health.lastSuccess = now
	}
	s.health.mu.Unlock()
}

// Healthy reports whether the database can serve: a real read of a table
// within a second, a write that succeeded within the last few seconds (a
// probe, made at most every healthWriteEvery), and no write of the use
// cases failed as Unavailable since the last that succeeded.
func (s *Service) Healthy(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	now := s.now()
	s.health.mu.Lock()
	write := now.Sub(s.health.probedAt) >= healthWriteEvery || s.health.probeErr != nil
	failing := s.health.lastFail.After(s.health.lastSuccess) && now.Sub(s.health.lastFail) < healthWriteFresh
	s.health.mu.Unlock()
	err := s.db.Probe(ctx, write)
	if write {
		// A probe's success does not clear a real write's failure: a full
		// database may still take the probe's one small row.
		s.health.mu.Lock()
		s.health.probedAt, s.health.probeErr = now, err
		s.health.mu.Unlock()
	}
	if err != nil {
		s.log.Warn("health check failed", "err", err)
		return false
	}
	s.health.mu.Lock()
	probeErr := s.health.probeErr
	s.health.mu.Unlock()
	return probeErr == nil && !failing
}
