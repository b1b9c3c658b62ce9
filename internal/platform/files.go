package platform

import (
	"context"
	"io"
	"os"
	"path/filepath"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/filecache"
)

// File is an open challenge file: stream it, then close it.
type File struct {
	*os.File
	Name string
	Size int64
}

var errNoFile = ctf.Errorf(ctf.NotFound, "file not found")

// OpenFile opens the file a visible challenge serves under sha and name,
// from this server's disk cache, copied there from the database on first
// use with one chunk in memory at a time. Files of hidden challenges, and
// any other pair, are NotFound.
func (s *Play) OpenFile(ctx context.Context, sha, name string) (*File, error) {
	if !s.live.State().Serves(sha, name) {
		return nil, errNoFile
	}
	size, err := s.db.FileSize(ctx, sha)
	if ctf.ErrorCode(err) == ctf.NotFound {
		return nil, errNoFile
	}
	if err != nil {
		return nil, err
	}
	cache, err := s.fileCache()
	if err != nil {
		return nil, err
	}
	f, err := cache.Open(ctx, sha, func(ctx context.Context, w io.Writer) error {
		return s.db.FileChunks(ctx, sha, func(chunk []byte) error {
			_, err := w.Write(chunk)
			return err
		})
	})
	if err != nil {
		return nil, err
	}
	return &File{File: f, Name: name, Size: size}, nil
}

func (s *core) fileCache() (*filecache.Cache, error) {
	s.files.once.Do(func() {
		dir := s.opts.FilesDir
		if dir == "" {
			dir = filepath.Join(os.TempDir(), "flagship-files")
		}
		s.files.cache, s.files.err = filecache.New(dir)
	})
	return s.files.cache, s.files.err
}

// ChallengeFile describes the file a visible challenge serves.
type ChallengeFile struct {
	Name   string
	URL    string // where to download it
	SHA256 string // "" for a link elsewhere
	Size   int64  // bytes; -1 for a link elsewhere
}

// FileOf returns the file challenge slug serves, nil when it has none. The
// size of a stored file is read once from the database and remembered: a
// file is addressed by its SHA-256, so its size never changes.
func (s *Play) FileOf(ctx context.Context, slug string) (*ChallengeFile, error) {
	var f *ChallengeFile
	name, url, sha, ok := s.live.State().FileOf(slug)
	if url != "" {
		f = &ChallengeFile{Name: name, URL: url, SHA256: sha, Size: -1}
	}
	switch {
	case !ok:
		return nil, ctf.ErrNoChallenge
	case f == nil || f.SHA256 == "":
		return f, nil
	}
	if size, ok := s.fileSizes.Load(f.SHA256); ok {
		f.Size = size.(int64)
		return f, nil
	}
	size, err := s.db.FileSize(ctx, f.SHA256)
	if err != nil {
		return nil, err
	}
	s.fileSizes.Store(f.SHA256, size)
	f.Size = size
	return f, nil
}
