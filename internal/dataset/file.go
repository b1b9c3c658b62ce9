package dataset

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

var fileFields = newMapping(rejectUnknown, nil,
	asTrimmed("name", func(f *File) *string { return &f.Name }),
	asText("path", func(f *File) *string { return &f.Path }),
	asTrimmed("url", func(f *File) *string { return &f.URL }),
	asLower("sha256", func(f *File) *string { return &f.SHA256 }),
	asCleaned("contentBase64", func(f *File) *string { return &f.ContentBase64 }, func(s string) string {
		return strings.Join(strings.Fields(s), "")
	}),
)

// fileEntry reads a challenge's file, named field in errors; null is none.
func (d *decoder) fileEntry(n *yaml.Node, field string) *File {
	if isNull(n) {
		return nil
	}
	f := &File{}
	fileFields.decode(d, n, field, f)
	d.finishFile(f, field)
	return f
}

// finishFile checks inline content against its SHA-256 (filling it in when
// absent), resolves Path against the dataset file's directory and checks that
// it names a regular file (unless the content is inline), and defaults Name.
func (d *decoder) finishFile(f *File, field string) {
	if f.ContentBase64 != "" {
		b, err := base64.StdEncoding.DecodeString(f.ContentBase64)
		if err != nil {
			d.fail(field+".contentBase64", "must be standard base64")
		} else {
			sum := sha256.Sum256(b)
			hexSum := hex.EncodeToString(sum[:])
			if f.SHA256 != "" && f.SHA256 != hexSum {
				d.fail(field+".sha256", "does not match contentBase64 (whose SHA-256 is %s)", hexSum)
			}
			f.SHA256 = hexSum
		}
	}
	if f.Path != "" && d.noPaths {
		d.fail(field, "a dataset sent to the server carries its files as contentBase64 (as a dump does) or url, not path")
		f.Path = ""
	}
	if f.Path != "" {
		given := f.Path
		fp := field
		if field == "file" {
			fp += ".path"
		}
		root, err := filepath.Abs(d.dir)
		if err != nil {
			root = d.dir
		}
		p := given
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		f.Path, f.Root = filepath.Clean(p), root
		if f.ContentBase64 == "" {
			if fi, err := statInRoot(f); err != nil {
				d.fail(fp, "%s: %v", given, err)
			} else if !fi.Mode().IsRegular() {
				d.fail(fp, "%s: not a regular file", given)
			}
		}
	}
	if f.Name == "" {
		switch {
		case f.Path != "":
			f.Name = filepath.Base(f.Path)
		case f.URL != "":
			if u, err := url.Parse(f.URL); err == nil && path.Base(u.Path) != "/" && path.Base(u.Path) != "." {
				f.Name = path.Base(u.Path)
			}
		}
	}
}

// errOutside refuses a file that is not under the dataset's directory: a
// dataset (or a challenge.yml from a repository) must not publish the
// organiser's other files, by "..", an absolute path or a symlink.
var errOutside = errors.New("is outside the directory of the file that names it")

// relInRoot returns f.Path relative to f.Root, refusing paths that leave it.
func relInRoot(f *File) (string, error) {
	rel, err := filepath.Rel(f.Root, f.Path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", errOutside
	}
	return rel, nil
}

func statInRoot(f *File) (fi fs.FileInfo, err error) {
	err = inRoot(f, func(root *os.Root, rel string) error {
		fi, err = lstatNoFollow(root, rel)
		return err
	})
	return fi, err
}

// ReadFile reads the bytes of a file entry named by Path, or zips the files
// of Pack (see packZip), through an os.Root on its directory, so that neither
// "..", an absolute path nor a symlink (even one swapped in after the dataset
// was checked) reads outside it; and no symlink is followed at all, not even
// one that stays inside (see openNoFollow).
func ReadFile(f *File) (data []byte, err error) {
	if len(f.Pack) > 0 {
		return packZip(f)
	}
	err = inRoot(f, func(root *os.Root, rel string) error {
		h, _, err := openNoFollow(root, rel)
		if err != nil {
			return err
		}
		defer h.Close()
		data, err = io.ReadAll(h)
		return err
	})
	return data, err
}

// A handout is never read through a symlink, even one that stays in the
// directory of the file that names it: a benchmark task's release/ linked
// to its metadata/ handed out metadata/solution/flag.txt. os.Root alone
// follows such links, so each component of the path is checked with Lstat.
var errSymlink = errors.New("is a symlink; handouts are never read through symlinks")

// symlinkError names the symlink found on a handout's path: the path
// itself, or a directory above it.
type symlinkError struct{ link, path string }

func (e *symlinkError) Error() string {
	if e.link == e.path {
		return errSymlink.Error()
	}
	return fmt.Sprintf("goes through %s, which %s", filepath.ToSlash(e.link), errSymlink)
}

func (e *symlinkError) Unwrap() error { return errSymlink }

// lstatNoFollow returns the FileInfo of rel in root without following a
// symlink: one at rel, or at any directory on the way to it, is refused.
func lstatNoFollow(root *os.Root, rel string) (fs.FileInfo, error) {
	rel = filepath.Clean(rel)
	if rel == "." {
		return root.Lstat(rel)
	}
	var fi fs.FileInfo
	parts := strings.Split(rel, string(filepath.Separator))
	for i := range parts {
		p := filepath.Join(parts[:i+1]...)
		var err error
		if fi, err = root.Lstat(p); err != nil {
			return nil, err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return nil, &symlinkError{link: p, path: rel}
		}
	}
	return fi, nil
}

// openNoFollow opens the regular file rel in root, refusing symlinks as
// lstatNoFollow does. The file opened must be the one checked: a component
// swapped for a link between the check and the open is caught there.
func openNoFollow(root *os.Root, rel string) (*os.File, fs.FileInfo, error) {
	fi, err := lstatNoFollow(root, rel)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() { // a FIFO would block the load
		return nil, nil, errors.New("not a regular file")
	}
	h, err := root.Open(rel)
	if err != nil {
		return nil, nil, err
	}
	if ofi, err := h.Stat(); err != nil || !os.SameFile(fi, ofi) {
		h.Close()
		return nil, nil, errors.New("changed while it was read (a symlink swapped in?)")
	}
	return h, fi, nil
}

// inRoot calls fn with an os.Root on f's directory and f's path in it.
func inRoot(f *File, fn func(root *os.Root, rel string) error) error {
	rel, err := relInRoot(f)
	if err != nil {
		return err
	}
	root, err := os.OpenRoot(f.Root)
	if err != nil {
		return fmt.Errorf("open %s: %w", f.Root, err)
	}
	defer root.Close()
	return rootErr(fn(root, rel))
}

// rootErr turns os.Root's errors into the sentences a dataset error shows.
func rootErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("no such file")
	case strings.Contains(err.Error(), "path escapes from parent"):
		return errOutside
	}
	return err
}

// File is the one downloadable file of a challenge: either bytes stored in the
// database (Path or Pack on load, ContentBase64 in a dump) or a link elsewhere
// (URL).
type File struct {
	Name          string `json:"name" yaml:"name"`
	Path          string `json:"path,omitempty" yaml:"path,omitempty"` // absolute after parsing (resolved against the dataset file)
	URL           string `json:"url,omitempty" yaml:"url,omitempty"`
	SHA256        string `json:"sha256,omitempty" yaml:"sha256,omitempty"`
	ContentBase64 string `json:"contentBase64,omitempty" yaml:"contentBase64,omitempty"`

	// Root is the directory of the file that named Path: Path must stay
	// inside it, symlinks included (see ReadFile).
	Root string `json:"-" yaml:"-"`
	// Pack lists files (slash-separated, relative to Root) that ReadFile
	// zips into one archive named Name: a benchmark task hands out several
	// files and a challenge serves one. They are zipped when the file is
	// stored, not when the task is read, so that loading a whole benchmark
	// does not hold every handout in memory at once.
	Pack []string `json:"-" yaml:"-"`
	// PackDir is the directory of Root (slash-separated) that the
	// archive names Pack's files relative to: Cybench's release, read
	// from the task's directory so that release itself is checked not to
	// be a symlink when the files are read.
	PackDir string `json:"-" yaml:"-"`
}
