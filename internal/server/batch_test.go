package server

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is an output that counts its writes.
type lockedBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes++
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestBatchWriterCloseHandsOn: lines short of a full batch, with no tick
// to come, are handed on by Close.
func TestBatchWriterCloseHandsOn(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	b := newBatchWriter(&out, time.Hour)
	for i := range 10 {
		fmt.Fprintf(b, "line %d\n", i)
	}
	if got := out.String(); got != "" {
		t.Fatalf("before Close: %q, want nothing yet", got)
	}
	b.Close()
	if got, want := out.String(), "line 0\nline 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9\n"; got != want {
		t.Fatalf("after Close: %q, want %q", got, want)
	}
}

// TestBatchWriterLosesNothing: lines written from many goroutines all
// reach the output, whole and each once, by Close, in far fewer writes
// than lines; a line written after Close goes straight through.
func TestBatchWriterLosesNothing(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	b := newBatchWriter(&out, time.Hour) // only Close and full batches hand lines on
	const writers, lines = 8, 2000
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range lines {
				fmt.Fprintf(b, "writer=%d line=%d %s\n", w, i, strings.Repeat("x", i%200))
			}
		})
	}
	wg.Wait()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\n"); n != writers*lines {
		t.Fatalf("%d lines out after Close, want %d", n, writers*lines)
	}
	fmt.Fprintf(b, "after close\n")
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != writers*lines+1 || got[len(got)-1] != "after close" {
		t.Fatalf("%d lines, last %q; want %d, the last written after Close", len(got), got[len(got)-1], writers*lines+1)
	}
	seen := make(map[string]bool, len(got))
	next := make([]int, writers)
	for _, line := range got[:len(got)-1] {
		var w, i int
		if _, err := fmt.Sscanf(line, "writer=%d line=%d", &w, &i); err != nil || seen[line] || i != next[w] ||
			line != fmt.Sprintf("writer=%d line=%d %s", w, i, strings.Repeat("x", i%200)) {
			t.Fatalf("line %q: cut, repeated or out of its writer's order (want line=%d)", line, next[w])
		}
		seen[line] = true
		next[w]++
	}
	if out.writes > writers*lines/10 {
		t.Errorf("%d writes for %d lines: not batched", out.writes, writers*lines)
	}
}

// TestBatchWriterFlushesOnItsOwn: a line waits at most about batchEvery
// without Close; Now hands on what waits before its own line.
func TestBatchWriterFlushesOnItsOwn(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	b := NewBatchWriter(&out)
	defer b.Close()
	b.Write([]byte("one\n"))
	b.Now().Write([]byte("two, at once\n"))
	if got := out.String(); got != "one\ntwo, at once\n" {
		t.Fatalf("after Now: %q", got)
	}
	b.Write([]byte("three\n"))
	for deadline := time.Now().Add(10 * time.Second); !strings.HasSuffix(out.String(), "three\n"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("a line still waits after 10 s: %q", out.String())
		}
	}
}
