package platform

import (
	"context"
	"errors"
	"io"
	"net/url"
	"path"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/zipfile"
)

// FileMember is a file inside the zip archive a challenge serves.
type FileMember struct {
	Name string // its path in the archive
	Size int64  // bytes, inflated
	// URL downloads it alone ("" when it is not served: Refused says why).
	URL     string
	Refused string
}

// zipListing is what FileMembers remembers of an archive, by its SHA-256:
// its content never changes under that address.
type zipListing struct {
	members []zipfile.Member
	total   int
	notZip  bool
}

// FileMembers lists the files inside the file the visible challenge of slug
// serves when it is a stored zip archive (its name ends in .zip): at most
// zipfile.MaxListed of them, total counting them all. Anything else has
// none (nil). An unknown or hidden slug is ErrNoChallenge.
func (s *Play) FileMembers(ctx context.Context, slug string) (members []FileMember, total int, err error) {
	f, err := s.FileOf(ctx, slug)
	if err != nil || f == nil || f.SHA256 == "" || !strings.EqualFold(path.Ext(f.Name), ".zip") {
		return nil, 0, err
	}
	var l zipListing
	if cached, ok := s.zipListings.Load(f.SHA256); ok {
		l = cached.(zipListing)
	} else {
		file, err := s.OpenFile(ctx, f.SHA256, f.Name)
		if err != nil {
			return nil, 0, err
		}
		l.members, l.total, err = zipfile.List(file.File, file.Size)
		file.Close()
		switch {
		case errors.Is(err, zipfile.ErrNotZip):
			l = zipListing{notZip: true}
		case err != nil:
			return nil, 0, err
		}
		s.zipListings.Store(f.SHA256, l)
	}
	if l.notZip {
		return nil, 0, nil
	}
	members = make([]FileMember, len(l.members))
	for i, m := range l.members {
		members[i] = FileMember{Name: m.Name, Size: m.Size, Refused: m.Refused}
		if m.Refused == "" {
			members[i].URL = f.URL + "/" + escapeMember(m.Name)
		}
	}
	return members, l.total, nil
}

// escapeMember path-escapes each element of a member's path.
func escapeMember(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
}

// MemberFile is an open member of a challenge's zip archive: stream it,
// then close it.
type MemberFile struct {
	io.ReadCloser
	Name  string // the member's base name, to save it as
	Size  int64
	Index int // its place in the archive (with the archive's hash, a validator)
}

// OpenMember opens the member of the zip archive that a visible challenge
// serves under sha and name (OpenFile's rules: anything else is NotFound).
// A member that is not listed (zipfile.ValidName, a regular file) is
// NotFound; one that is listed but not served (too large, inflating too
// far, encrypted) is Forbidden, saying why.
func (s *Play) OpenMember(ctx context.Context, sha, name, member string) (*MemberFile, error) {
	if !strings.EqualFold(path.Ext(name), ".zip") || !zipfile.ValidName(member) {
		return nil, errNoFile
	}
	f, err := s.OpenFile(ctx, sha, name)
	if err != nil {
		return nil, err
	}
	rc, m, err := zipfile.Open(f.File, f.Size, member)
	switch {
	case errors.Is(err, zipfile.ErrNotFound), errors.Is(err, zipfile.ErrNotZip):
		f.Close()
		return nil, errNoFile
	case err != nil && m.Refused != "":
		f.Close()
		return nil, ctf.Errorf(ctf.Forbidden, "%s", err.Error())
	case err != nil:
		f.Close()
		return nil, err
	}
	return &MemberFile{ReadCloser: closeBoth{rc, f}, Name: path.Base(m.Name), Size: m.Size, Index: m.Index}, nil
}

// closeBoth closes a member's reader, then the archive it reads from.
type closeBoth struct {
	io.ReadCloser
	archive io.Closer
}

func (c closeBoth) Close() error {
	err := c.ReadCloser.Close()
	if err2 := c.archive.Close(); err == nil {
		err = err2
	}
	return err
}
