package platform

import (
	"context"
	"sync"
)

// flagSecret is the server's secret that keys the per-player flags, read
// from the database at its first use (every replica reads the same).
type flagSecret struct {
	mu  sync.Mutex
	key []byte
}

// flagKey returns the key of the per-player flags.
func (s *core) flagKey(ctx context.Context) ([]byte, error) {
	s.flagSecret.mu.Lock()
	defer s.flagSecret.mu.Unlock()
	if s.flagSecret.key == nil {
		key, err := s.db.Secret(ctx, "instances")
		if err != nil {
			return nil, err
		}
		s.flagSecret.key = key
	}
	return s.flagSecret.key, nil
}
