package filecache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

func shaOf(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

func from(data []byte, calls *atomic.Int32) Fill {
	return func(ctx context.Context, w io.Writer) error {
		calls.Add(1)
		_, err := w.Write(data)
		return err
	}
}

func read(t *testing.T, f *os.File) []byte {
	t.Helper()
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestOpenFillsOnceAndServesFromDisk(t *testing.T) {
	dir := t.TempDir()
	c, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("the handout")
	sha := shaOf(data)
	var calls atomic.Int32
	// Concurrent first opens share one fill.
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f, err := c.Open(context.Background(), sha, from(data, &calls))
			if err != nil {
				t.Error(err)
				return
			}
			if got := read(t, f); string(got) != string(data) {
				t.Errorf("read %q", got)
			}
		}()
	}
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Fatalf("%d fills, want 1", n)
	}
	if b, err := os.ReadFile(filepath.Join(dir, sha)); err != nil || string(b) != string(data) {
		t.Fatalf("on disk: %q %v", b, err)
	}
	// Another process (a new cache on the same directory) uses the file.
	c2, _ := New(dir)
	f, err := c2.Open(context.Background(), sha, from(data, &calls))
	if err != nil || string(read(t, f)) != string(data) || calls.Load() != 1 {
		t.Fatalf("second cache: %v, %d fills", err, calls.Load())
	}
}

func TestOpenRefusesWrongBytes(t *testing.T) {
	dir := t.TempDir()
	data := []byte("the handout")
	sha := shaOf(data)
	var calls atomic.Int32
	// Bytes changed on disk: a new process checks, removes and refills.
	if err := os.WriteFile(filepath.Join(dir, sha), []byte("tampered!!!"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, _ := New(dir)
	f, err := c.Open(context.Background(), sha, from(data, &calls))
	if err != nil || string(read(t, f)) != string(data) || calls.Load() != 1 {
		t.Fatalf("tampered entry: %v, %d fills", err, calls.Load())
	}
	// A fill whose bytes do not match the name is refused, and leaves
	// nothing behind.
	other := shaOf([]byte("other"))
	if _, err := c.Open(context.Background(), other, from(data, &calls)); err == nil {
		t.Fatal("a fill with other bytes was accepted")
	}
	if _, err := os.Stat(filepath.Join(dir, other)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused fill left %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("cache holds %d entries, want 1 (no temporary left)", len(entries))
	}
	// A failing fill is an error, and the next open tries again.
	boom := errors.New("database down")
	if _, err := c.Open(context.Background(), other, func(context.Context, io.Writer) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("failing fill: %v", err)
	}
	if _, err := c.Open(context.Background(), "../../etc/passwd", from(data, &calls)); err == nil {
		t.Fatal("a name that is no SHA-256 was accepted")
	}
}
