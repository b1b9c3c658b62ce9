package dataset

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// zipTime is the modification time of every packed file: with sorted names
// and fixed modes it makes the archive a function of the files' bytes, so
// loading a benchmark twice stores the same SHA-256 and reports the challenge
// unchanged.
var zipTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// handoutFile makes the file entry of a benchmark task from the regular files
// found (see listFiles), as paths relative to root: none gives nil, one is
// served as itself, several as Pack, zipped under the name zipName when the
// challenge is stored, named in it relative to packDir. An archive's
// unpacked copy among them is dropped (see dropUnpackedCopies).
func handoutFile(root string, rels []string, zipName, packDir string) *File {
	slices.Sort(rels)
	rels = dropUnpackedCopies(root, slices.Compact(rels))
	switch len(rels) {
	case 0:
		return nil
	case 1:
		p := filepath.Join(root, filepath.FromSlash(rels[0]))
		return &File{Name: path.Base(rels[0]), Path: p, Root: root}
	}
	return &File{Name: zipName, Root: root, Pack: rels, PackDir: packDir}
}

// listFiles returns the regular files named by given (a path relative to
// root, or an absolute one inside it): given itself, or every file under it
// when it is a directory, skipping names that start with a dot as the
// directory walk of ReadPaths does. Paths are slash-separated and relative
// to root. No symlink is followed, on the way to given or under it (see
// lstatNoFollow): a handout publishes neither the organiser's other files
// nor the task's own solution.
func listFiles(root, given string) ([]string, error) {
	p := given
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	rel, err := relInRoot(&File{Path: filepath.Clean(p), Root: root})
	if err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, rootErr(err)
	}
	defer r.Close()
	fi, err := lstatNoFollow(r, rel)
	rel = filepath.ToSlash(rel)
	switch {
	case err != nil:
		return nil, rootErr(err)
	case fi.Mode().IsRegular():
		return []string{rel}, nil
	case !fi.IsDir():
		return nil, errors.New("not a regular file")
	}
	var out []string
	err = fs.WalkDir(r.FS(), rel, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != rel && strings.HasPrefix(e.Name(), ".") {
			if e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if e.Type()&fs.ModeSymlink != 0 {
			return &fileError{p, errSymlink}
		}
		if e.IsDir() {
			return nil
		}
		fi, err := r.Lstat(p)
		if err != nil {
			return &fileError{p, rootErr(err)}
		}
		if !fi.Mode().IsRegular() {
			return &fileError{p, errors.New("not a regular file")}
		}
		out = append(out, p)
		return nil
	})
	return out, err
}

// fileError is a problem with one file found in a directory of handouts.
type fileError struct {
	path string // relative to the directory
	err  error
}

func (e *fileError) Error() string { return e.path + ": " + e.err.Error() }
func (e *fileError) Unwrap() error { return e.err }

// packZip zips the files of f.Pack, read through an os.Root on f.Root (so
// the rule of ReadFile holds for each), in sorted order, with fixed times and
// modes (0755 for a file any execute bit of which is set, else 0644) so that
// the same files always give the same bytes.
func packZip(f *File) ([]byte, error) {
	r, err := os.OpenRoot(f.Root)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", f.Root, err)
	}
	defer r.Close()
	names := slices.Clone(f.Pack)
	slices.Sort(names)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range slices.Compact(names) {
		if err := packOne(zw, r, name, f.PackDir); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func packOne(zw *zip.Writer, r *os.Root, name, dir string) error {
	if !fs.ValidPath(name) {
		return errOutside
	}
	src, fi, err := openNoFollow(r, filepath.FromSlash(name))
	if err != nil {
		return rootErr(err)
	}
	defer src.Close()
	if dir != "" {
		name = strings.TrimPrefix(name, dir+"/")
	}
	h := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: zipTime}
	h.SetMode(0o644)
	if fi.Mode().Perm()&0o111 != 0 {
		h.SetMode(0o755)
	}
	w, err := zw.CreateHeader(h)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, src)
	return err
}
