package platform

import (
	"context"
	"io"
	"net/url"
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
	return s.openStored(ctx, s.db, sha, name)
}

// openStored opens the stored file sha under name, whoever may see it (the
// caller has checked).
func (s *core) openStored(ctx context.Context, db fileStore, sha, name string) (*File, error) {
	size, err := db.FileSize(ctx, sha)
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
		return db.FileChunks(ctx, sha, func(chunk []byte) error {
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
	if err := s.sizeOf(ctx, s.db, f); err != nil {
		return nil, err
	}
	return f, nil
}

// sizeOf sets the size of f, a stored file.
func (s *core) sizeOf(ctx context.Context, db fileStore, f *ChallengeFile) error {
	if size, ok := s.fileSizes.Load(f.SHA256); ok {
		f.Size = size.(int64)
		return nil
	}
	size, err := db.FileSize(ctx, f.SHA256)
	if err != nil {
		return err
	}
	s.fileSizes.Store(f.SHA256, size)
	f.Size = size
	return nil
}

// Handout returns the handout of the challenge of slug, hidden or not, for
// an admin's editor: nil when it has none. A stored file's URL is the
// admin's download (AdminHandoutURL), which serves it while players cannot
// fetch it yet; a link elsewhere is that link.
func (s *Content) Handout(ctx context.Context, v ctf.Viewer, slug string) (*ChallengeFile, error) {
	if !v.IsAdmin() {
		return nil, ctf.ErrNotAdmin
	}
	c, _, _, ok := s.live.State().ChallengeForEdit(slug)
	switch {
	case !ok:
		return nil, ctf.ErrNoChallenge
	case c.FileURL != "":
		return &ChallengeFile{Name: c.FileName, URL: c.FileURL, Size: -1}, nil
	case c.FileSHA256 == "":
		return nil, nil
	}
	f := &ChallengeFile{Name: c.FileName, URL: AdminHandoutURL(c.Slug), SHA256: c.FileSHA256}
	if err := s.sizeOf(ctx, s.db, f); err != nil {
		return nil, err
	}
	return f, nil
}

// AdminHandoutURL is where an admin downloads the stored handout of the
// challenge of slug (OpenHandout).
func AdminHandoutURL(slug string) string {
	return "/admin/challenges/" + url.PathEscape(slug) + "/handout"
}

// OpenHandout opens the stored handout of the challenge of slug for an
// admin, hidden or not; NotFound when it has none stored here.
func (s *Content) OpenHandout(ctx context.Context, v ctf.Viewer, slug string) (*File, error) {
	if !v.IsAdmin() {
		return nil, ctf.ErrNotAdmin
	}
	c, _, _, ok := s.live.State().ChallengeForEdit(slug)
	if !ok || c.FileSHA256 == "" {
		return nil, errNoFile
	}
	return s.openStored(ctx, s.db, c.FileSHA256, c.FileName)
}
