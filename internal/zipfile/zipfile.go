// Package zipfile lists and opens the members of a zip archive that a
// challenge serves as its handout, so that players and agents can fetch one
// file of it. It serves only what is safe to serve: members with a plain
// relative path (no "..", not absolute, no backslash, no control
// character), regular files, and members that a zip bomb cannot make
// costly: at most MaxMemberBytes once inflated, and, past ratioFloor, at
// most MaxRatio times their compressed size. archive/zip refuses to inflate
// a member past the size its header declares, so these bounds hold for
// what is read, not only for what is declared.
package zipfile

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"unicode"
)

// Bounds of what is served.
const (
	// MaxMemberBytes bounds a member, inflated.
	MaxMemberBytes = 256 << 20
	// MaxRatio bounds how many times its compressed size a member may
	// inflate to, for members over ratioFloor.
	MaxRatio   = 100
	ratioFloor = 1 << 20
	// MaxListed bounds a listing; the members past it are counted only.
	MaxListed = 1000
	// MaxNameBytes bounds a member's path.
	MaxNameBytes = 1024
)

// Member is one file of an archive.
type Member struct {
	Name  string // its path in the archive, slash-separated
	Size  int64  // inflated, as its header declares
	Index int    // its place in the archive: with the archive's hash, it names these bytes for ever
	// Refused says why the member is not served ("" when it is): too
	// large, inflating too far, encrypted, compressed by an unknown method.
	Refused string
}

// Errors of Open.
var (
	ErrNotZip   = errors.New("not a zip archive")
	ErrNotFound = errors.New("no such member")
)

// open reads the archive's directory. A non-local name is not an error
// here (zip.ErrInsecurePath): such members are skipped one by one.
func open(r io.ReaderAt, size int64) (*zip.Reader, error) {
	z, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, fmt.Errorf("%w: %v", ErrNotZip, err)
	}
	return z, nil
}

// List lists the files of the archive r of size bytes that have a valid
// name (ValidName), in the archive's order, the first of each name only, at
// most MaxListed of them; total counts them all.
func List(r io.ReaderAt, size int64) (members []Member, total int, err error) {
	z, err := open(r, size)
	if err != nil {
		return nil, 0, err
	}
	seen := map[string]bool{}
	for i, f := range z.File {
		if !listed(f) || seen[f.Name] {
			continue
		}
		seen[f.Name] = true
		total++
		if len(members) < MaxListed {
			members = append(members, member(i, f))
		}
	}
	return members, total, nil
}

// Open opens the member name of the archive r of size bytes, if it is
// listed and served (Member.Refused empty): ErrNotFound otherwise, or an
// error saying why it is refused. The reader fails rather than read past
// the member's declared size or accept a wrong checksum.
func Open(r io.ReaderAt, size int64, name string) (io.ReadCloser, Member, error) {
	if !ValidName(name) {
		return nil, Member{}, ErrNotFound
	}
	z, err := open(r, size)
	if err != nil {
		return nil, Member{}, err
	}
	for i, f := range z.File {
		if f.Name != name || !listed(f) {
			continue
		}
		m := member(i, f)
		if m.Refused != "" {
			return nil, m, fmt.Errorf("member %q is not served: %s", name, m.Refused)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, m, fmt.Errorf("open member %q: %w", name, err)
		}
		return rc, m, nil
	}
	return nil, Member{}, ErrNotFound
}

// listed reports whether f is a file that may be listed: a regular file
// with a valid name.
func listed(f *zip.File) bool {
	return ValidName(f.Name) && f.Mode().IsRegular()
}

func member(i int, f *zip.File) Member {
	m := Member{Name: f.Name, Size: int64(min(f.UncompressedSize64, 1<<62)), Index: i}
	switch {
	case f.Flags&0x1 != 0:
		m.Refused = "encrypted"
	case f.Method != zip.Store && f.Method != zip.Deflate:
		m.Refused = fmt.Sprintf("compressed by method %d, which is not supported", f.Method)
	case f.UncompressedSize64 > MaxMemberBytes:
		m.Refused = fmt.Sprintf("larger than %d MiB", MaxMemberBytes>>20)
	case f.UncompressedSize64 > ratioFloor && f.UncompressedSize64 > MaxRatio*f.CompressedSize64:
		m.Refused = fmt.Sprintf("it inflates to more than %d times its compressed size", MaxRatio)
	}
	return m
}

// ValidName reports whether name is a member path that may be listed and
// served: relative, slash-separated, clean (no "." or ".." element, no
// empty element), no backslash, no control or invisible character, valid
// UTF-8, at most MaxNameBytes.
func ValidName(name string) bool {
	if len(name) > MaxNameBytes || !fs.ValidPath(name) || name == "." || path.Clean(name) != name ||
		strings.Contains(name, `\`) {
		return false
	}
	for _, r := range name {
		if unicode.IsControl(r) || r == unicode.ReplacementChar || unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	return true
}
