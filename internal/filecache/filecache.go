// Package filecache keeps challenge files on local disk, named by their
// SHA-256, so each server copies a file out of the database once and then
// serves it from disk (sendfile, ranges) with little memory however many
// players download it at once.
package filecache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// Fill writes a file's bytes to w, from wherever they are kept.
type Fill func(ctx context.Context, w io.Writer) error

// Cache is a directory of files named by the hex SHA-256 of their bytes.
type Cache struct {
	dir string

	mu       sync.Mutex
	verified map[string]bool        // checked against their name by this process
	filling  map[string]*fillResult // fills in progress, shared by concurrent opens
}

type fillResult struct {
	done chan struct{}
	err  error
}

// New returns a cache in dir, created if need be.
func New(dir string) (*Cache, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("file cache %s: %w", dir, err)
	}
	return &Cache{dir: dir, verified: map[string]bool{}, filling: map[string]*fillResult{}}, nil
}

// Open returns the cached file whose SHA-256 is sha, filling it first if
// it is not there (or not what its name says: a file changed on disk is
// never served). Concurrent opens of a missing file share one fill.
func (c *Cache) Open(ctx context.Context, sha string, fill Fill) (*os.File, error) {
	if len(sha) != sha256.Size*2 {
		return nil, fmt.Errorf("file cache: %q is not a SHA-256", sha)
	}
	if _, err := hex.DecodeString(sha); err != nil {
		return nil, fmt.Errorf("file cache: %q is not a SHA-256", sha)
	}
	path := filepath.Join(c.dir, sha)
	for attempt := 0; attempt < 2; attempt++ {
		if f, err := c.openVerified(sha, path); err == nil {
			return f, nil
		} else if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, errMismatch) {
			return nil, err
		}
		if err := c.fillOnce(ctx, sha, path, fill); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("file cache: %s was filled but cannot be opened", sha)
}

var errMismatch = errors.New("cached bytes do not match their SHA-256")

// openVerified opens path, hashing it first the first time this process
// opens it; a file that does not match is removed.
func (c *Cache) openVerified(sha, path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	ok := c.verified[sha]
	c.mu.Unlock()
	if ok {
		return f, nil
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		f.Close()
		return nil, fmt.Errorf("file cache: read %s: %w", sha, err)
	}
	if hex.EncodeToString(h.Sum(nil)) != sha {
		f.Close()
		os.Remove(path)
		return nil, errMismatch
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	c.mu.Lock()
	c.verified[sha] = true
	c.mu.Unlock()
	return f, nil
}

// fillOnce fills path, or waits for the fill already under way.
func (c *Cache) fillOnce(ctx context.Context, sha, path string, fill Fill) error {
	c.mu.Lock()
	if c.verified[sha] {
		// A fill finished between this caller's failed open and now:
		// the file is in place, so opening again finds it (unless it was
		// removed behind the cache's back: then fill it again).
		if _, err := os.Stat(path); err == nil {
			c.mu.Unlock()
			return nil
		}
		delete(c.verified, sha)
	}
	if r := c.filling[sha]; r != nil {
		c.mu.Unlock()
		select {
		case <-r.done:
			return r.err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	r := &fillResult{done: make(chan struct{})}
	c.filling[sha] = r
	c.mu.Unlock()
	// The fill is not the first caller's alone: another may still wait
	// for it after this request ends.
	r.err = c.fill(context.WithoutCancel(ctx), sha, path, fill)
	c.mu.Lock()
	delete(c.filling, sha)
	if r.err == nil {
		c.verified[sha] = true
	}
	c.mu.Unlock()
	close(r.done)
	return r.err
}

// fill writes the bytes to a temporary file beside path while hashing
// them, and moves it into place only if they match their name.
func (c *Cache) fill(ctx context.Context, sha, path string, fill Fill) error {
	tmp, err := os.CreateTemp(c.dir, sha+".*.part")
	if err != nil {
		return fmt.Errorf("file cache: %w", err)
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	if err := fill(ctx, io.MultiWriter(tmp, h)); err != nil {
		tmp.Close()
		return fmt.Errorf("file cache: fill %s: %w", sha, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("file cache: %w", err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != sha {
		return fmt.Errorf("file cache: the database's bytes of %s hash to %s", sha, got)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("file cache: %w", err)
	}
	return nil
}
