package server

import (
	"errors"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Connection deadlines, kept by a sweep instead of the poller's timers.
//
// net/http moves a keep-alive connection's deadlines several times a
// request (the headers', the whole request's, the write's, the idle wait's,
// the next headers'), and each move of a deadline in the future re-arms a
// runtime timer: together some 0.7 µs a request, as much as all the rest
// an anonymous read adds to the write of its bytes. A sweptConn remembers
// the deadline it is given and leaves its socket without one; every
// sweepEvery a sweeper cuts the reads and writes whose deadline has passed
// by giving their socket a deadline in the past, which arms no timer, and a
// read or write cut that way fails as it would have at its deadline. A
// deadline so takes effect up to sweepEvery late (a request's headers are
// refused after 10 to 10.1 s rather than 10), and one already past when it
// is set (net/http's way of stopping a read) at once.

// sweepEvery is how often deadlines are checked: a hundredth of the
// shortest timeout (ReadHeaderTimeout).
const sweepEvery = 100 * time.Millisecond

// sweptListener hands out its TCP connections as sweptConns.
type sweptListener struct {
	net.Listener
	s *sweeper
}

func (l sweptListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c, nil // its deadlines are the poller's, as they were
	}
	return l.s.add(tc), nil
}

// sweeper cuts the operations of its connections whose deadline passed.
type sweeper struct {
	every time.Duration
	now   atomic.Pointer[time.Time] // at the last sweep

	mu    sync.Mutex
	conns map[*sweptConn]struct{}
	// stopping: the listener is closed; the sweeper stops with the last
	// connection.
	stopping bool
	done     chan struct{}
}

func newSweeper(every time.Duration) *sweeper {
	s := &sweeper{every: every, conns: map[*sweptConn]struct{}{}, done: make(chan struct{})}
	now := time.Now()
	s.now.Store(&now)
	go s.run()
	return s
}

func (s *sweeper) run() {
	defer close(s.done)
	tick := time.NewTicker(s.every)
	defer tick.Stop()
	for now := range tick.C {
		s.now.Store(&now)
		s.mu.Lock()
		for c := range s.conns {
			c.sweep(now)
		}
		over := s.stopping && len(s.conns) == 0
		s.mu.Unlock()
		if over {
			return
		}
	}
}

// stop lets the sweeper end once no connection is left: it keeps the
// deadlines of those a shutdown left open (or a handler took over) as long
// as they are open.
func (s *sweeper) stop() {
	s.mu.Lock()
	s.stopping = true
	s.mu.Unlock()
}

// passed reports whether t has passed. Before the last sweep it has; a
// deadline within a sweep after it may have, and the clock says
// (net/http's deadlines are seconds ahead, or long past).
func (s *sweeper) passed(t time.Time) bool {
	last := *s.now.Load()
	return t.Before(last) || t.Before(last.Add(s.every)) && !t.After(time.Now())
}

func (s *sweeper) add(tc *net.TCPConn) *sweptConn {
	c := &sweptConn{TCPConn: tc, s: s}
	s.mu.Lock()
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	return c
}

// sweptConn is a TCP connection whose deadlines the sweeper keeps. Its
// other methods (CloseWrite, and ReadFrom for sendfile) are the
// connection's own: a cut reaches them through the socket too.
type sweptConn struct {
	*net.TCPConn
	s *sweeper

	mu          sync.Mutex
	read, write side
	closed      bool
}

// side is the deadline of a connection's reads or of its writes.
type side struct {
	want time.Time // as set; zero: none
	// cut: the socket's deadline is in the past, so its operations fail
	// at once; else it has none.
	cut bool
}

// aLongTimeAgo is a deadline that has always passed.
var aLongTimeAgo = time.Unix(1, 0)

func (c *sweptConn) SetReadDeadline(t time.Time) error {
	return c.set(&c.read, t, c.TCPConn.SetReadDeadline)
}

func (c *sweptConn) SetWriteDeadline(t time.Time) error {
	return c.set(&c.write, t, c.TCPConn.SetWriteDeadline)
}

func (c *sweptConn) SetDeadline(t time.Time) error {
	return errors.Join(c.SetReadDeadline(t), c.SetWriteDeadline(t))
}

// set gives sd the deadline t; socket sets the socket's.
func (c *sweptConn) set(sd *side, t time.Time, socket func(time.Time) error) error {
	// No defer: net/http calls this eight times a request.
	var err error
	c.mu.Lock()
	switch {
	case c.closed:
		err = socket(t) // the connection's own error
	case !t.IsZero() && c.s.passed(t):
		sd.want, sd.cut = t, true
		err = socket(t)
	case sd.cut:
		sd.want, sd.cut = t, false
		err = socket(time.Time{})
	default:
		sd.want = t
	}
	c.mu.Unlock()
	return err
}

// sweep cuts the operations whose deadline has passed by now.
func (c *sweptConn) sweep(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	if c.read.passed(now) {
		c.read.cut = true
		c.TCPConn.SetReadDeadline(aLongTimeAgo)
	}
	if c.write.passed(now) {
		c.write.cut = true
		c.TCPConn.SetWriteDeadline(aLongTimeAgo)
	}
}

// passed: a deadline has passed by now and its side is not yet cut.
func (sd *side) passed(now time.Time) bool {
	return !sd.cut && !sd.want.IsZero() && !now.Before(sd.want)
}

func (c *sweptConn) Read(p []byte) (int, error) {
	for {
		n, err := c.TCPConn.Read(p)
		if err == nil || !c.retry(err, &c.read, c.TCPConn.SetReadDeadline) {
			return n, err
		}
	}
}

func (c *sweptConn) Write(p []byte) (int, error) {
	n := 0
	for {
		m, err := c.TCPConn.Write(p[n:])
		n += m
		if err == nil || !c.retry(err, &c.write, c.TCPConn.SetWriteDeadline) {
			return n, err
		}
	}
}

// retry reports whether an operation that failed with err is to be tried
// again: it was cut, and its deadline has moved since to one that has not
// passed. The socket is then given no deadline again.
func (c *sweptConn) retry(err error, sd *side, socket func(time.Time) error) bool {
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || !sd.want.IsZero() && !time.Now().Before(sd.want) {
		return false
	}
	sd.cut = false
	return socket(time.Time{}) == nil
}

func (c *sweptConn) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.s.mu.Lock()
	delete(c.s.conns, c)
	c.s.mu.Unlock()
	return c.TCPConn.Close()
}
