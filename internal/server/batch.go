package server

import (
	"io"
	"slices"
	"sync"
	"time"
)

// How often a BatchWriter hands its lines on, and how many bytes make it do
// so at once: a tenth of a second is too short for anyone reading the log to
// notice, and 64 KiB is some 400 request lines a system call.
const (
	batchEvery = 100 * time.Millisecond
	batchBytes = 64 << 10
	// Past this many bytes waiting (the output is slower than the
	// requests), a writer hands them on itself, as an unbuffered log
	// would: the buffer never grows without bound.
	batchMax = 16 * batchBytes
)

// BatchWriter gathers what is written to it and writes it on to out in
// batches, from one goroutine, every batchEvery or once batchBytes wait.
// Written one by one, the access log's lines cost a system call each, made
// under the log's lock on every request: the largest cost of a small
// anonymous read after the response itself. Each Write must be whole lines
// (a slog handler's Write is one record), so batches never split a line.
//
// Close hands on what waits; a Write after Close goes straight to out. Now
// gives a writer for lines that should not wait (errors, start-up): it
// hands on what waits first, so the output keeps the order of the writes.
type BatchWriter struct {
	out io.Writer

	mu     sync.Mutex // guards buf and closed
	buf    []byte
	closed bool

	outMu sync.Mutex // serialises writes to out, and guards spare
	spare []byte     // the last batch written, reused for the next

	full chan struct{} // batchBytes wait: hand them on now
	stop chan struct{}
	done chan struct{}
}

// NewBatchWriter starts a BatchWriter's goroutine; Close stops it.
func NewBatchWriter(out io.Writer) *BatchWriter { return newBatchWriter(out, batchEvery) }

// newBatchWriter hands on what waits every interval (tests: never).
func newBatchWriter(out io.Writer, every time.Duration) *BatchWriter {
	b := &BatchWriter{out: out, full: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go b.run(every)
	return b
}

func (b *BatchWriter) run(every time.Duration) {
	defer close(b.done)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-b.full:
		case <-b.stop:
			return // Close hands on the rest, in order with later writes
		}
		b.flush(nil)
	}
}

// Write appends p to the batch; it never fails (out's errors are those of
// a log, which has nowhere to report them).
func (b *BatchWriter) Write(p []byte) (int, error) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		// A copy, so that p never escapes: the access log's lines are
		// on their writer's stack.
		b.flush(slices.Clone(p))
		return len(p), nil
	}
	b.buf = append(b.buf, p...)
	n := len(b.buf)
	b.mu.Unlock()
	switch {
	case n >= batchMax:
		b.flush(nil)
	case n >= batchBytes:
		select {
		case b.full <- struct{}{}:
		default: // already told
		}
	}
	return len(p), nil
}

// flush writes what waits, then p, to out.
func (b *BatchWriter) flush(p []byte) error {
	b.outMu.Lock()
	defer b.outMu.Unlock()
	b.mu.Lock()
	batch := b.buf
	b.buf = b.spare[:0]
	b.mu.Unlock()
	var err error
	if len(batch) > 0 {
		_, err = b.out.Write(batch)
	}
	if batch != nil && cap(batch) <= batchMax {
		b.spare = batch[:0]
	} else {
		b.spare = nil // a batch the output fell behind on: let it go
	}
	if len(p) > 0 {
		if _, perr := b.out.Write(p); err == nil {
			err = perr
		}
	}
	return err
}

// Close stops the goroutine and hands on every line written so far.
func (b *BatchWriter) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	b.mu.Unlock()
	close(b.stop)
	<-b.done
	return b.flush(nil)
}

// Now is a writer whose writes are not batched: each hands on what waits,
// then itself.
func (b *BatchWriter) Now() io.Writer { return nowWriter{b} }

type nowWriter struct{ b *BatchWriter }

func (w nowWriter) Write(p []byte) (int, error) {
	if err := w.b.flush(p); err != nil {
		return 0, err
	}
	return len(p), nil
}
