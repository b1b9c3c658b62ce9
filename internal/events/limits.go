package events

import (
	"fmt"
	"sync"
	"time"
)

// The stream's connection limits. A stream holds a goroutine and its
// buffers for as long as the client wants, so one client, or many, must
// not be able to hold them all: each replica counts its own open streams,
// in all and per client address (clientaddr: behind a trusted proxy, the
// client the proxy names).
const (
	// DefaultMaxStreams is a replica's cap of open streams (serve
	// --max-streams): about 27 KB each, 10,000 is a few hundred MB.
	DefaultMaxStreams = 10000
	// MaxStreamsPerClient is the cap per client address: a page holds
	// one stream per tab, so 20 covers a team behind one address.
	MaxStreamsPerClient = 20
	// refusedRetryAfter is the Retry-After of a refused stream: a slot
	// frees when another client leaves, at no set time.
	refusedRetryAfter = 10 * time.Second
)

// slots counts the open streams, in all and per client address.
type slots struct {
	mu    sync.Mutex
	total int
	per   map[string]int
}

// take reserves a slot for a stream of addr, or says why it cannot (""
// when it did): over the replica's cap of max streams, or over the
// client's.
func (s *slots) take(addr string, max int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.per == nil {
		s.per = map[string]int{}
	}
	switch {
	case s.per[addr] >= MaxStreamsPerClient:
		return fmt.Sprintf("too many live streams from your address (at most %d at once); close one, or retry later", MaxStreamsPerClient)
	case s.total >= max:
		return "this server holds as many live streams as it serves; retry later"
	}
	s.per[addr]++
	s.total++
	return ""
}

// give frees a slot that take reserved for addr.
func (s *slots) give(addr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total--
	if s.per[addr]--; s.per[addr] <= 0 {
		delete(s.per, addr)
	}
}
