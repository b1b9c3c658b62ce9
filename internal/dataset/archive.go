package dataset

import (
	"archive/zip"
	"hash/crc32"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Hack The Box style handouts (Cybench's release/ of its HTB tasks) and
// some NYU tasks hold an archive and, beside it, its own unpacked copy:
// x.zip and x/ holding the same files, or x.zip's files next to it. A
// packed handout would hold every file twice, once inside the archive.
// The archive alone is served: it is the handout the event gave, the one
// Cybench's init_script.sh unpacks, and it is smaller. An encrypted zip
// whose every file is unpacked beside it is the exception: players would
// need a password the task does not give, so its unpacked copy is served
// instead. A file counts as a copy of an archive's member only when its
// size and CRC-32 are the member's (read from the zip's directory, which
// needs no password).

// dropUnpackedCopies returns rels (sorted, relative to root) without the
// unpacked copies of the zip archives among them, or without an encrypted
// archive whose copy is complete.
func dropUnpackedCopies(root string, rels []string) []string {
	r, err := os.OpenRoot(root)
	if err != nil {
		return rels
	}
	defer r.Close()
	drop := map[string]bool{}
	for _, rel := range rels {
		if !strings.EqualFold(path.Ext(rel), ".zip") || drop[rel] {
			continue
		}
		copies, encrypted, complete := unpackedCopies(r, rel, rels)
		if encrypted && complete {
			drop[rel] = true
			continue
		}
		for _, c := range copies {
			drop[c] = true
		}
	}
	if len(drop) == 0 {
		return rels
	}
	return slices.DeleteFunc(slices.Clone(rels), func(rel string) bool { return drop[rel] })
}

// unpackedCopies lists the files of rels that are copies of the members
// of the zip archive rel: a member m is looked for at dir/m and at
// dir/stem/m, dir being the archive's directory and stem its name
// without .zip. encrypted reports an encrypted member; complete that
// every file member has a copy.
func unpackedCopies(r *os.Root, rel string, rels []string) (copies []string, encrypted, complete bool) {
	f, fi, err := openNoFollow(r, filepath.FromSlash(rel))
	if err != nil {
		return nil, false, false
	}
	defer f.Close()
	zr, err := zip.NewReader(f, fi.Size())
	if err != nil {
		return nil, false, false
	}
	dir, stem := path.Dir(rel), strings.TrimSuffix(path.Base(rel), path.Ext(rel))
	complete = true
	for _, m := range zr.File {
		if strings.HasSuffix(m.Name, "/") {
			continue
		}
		encrypted = encrypted || m.Flags&0x1 != 0
		found := false
		for _, c := range []string{path.Join(dir, m.Name), path.Join(dir, stem, m.Name)} {
			if c == rel || !memberInside(c) {
				continue
			}
			if _, ok := slices.BinarySearch(rels, c); ok && sameContent(r, c, m) {
				copies = append(copies, c)
				found = true
				break
			}
		}
		complete = complete && found
	}
	return copies, encrypted, complete && len(copies) > 0
}

// memberInside reports whether a member's path stays in the task (a zip may
// name ../x).
func memberInside(p string) bool {
	return p != ".." && !strings.HasPrefix(p, "../") && !path.IsAbs(p)
}

// sameContent reports whether the file rel has m's size and CRC-32.
func sameContent(r *os.Root, rel string, m *zip.File) bool {
	f, fi, err := openNoFollow(r, filepath.FromSlash(rel))
	if err != nil {
		return false
	}
	defer f.Close()
	if uint64(fi.Size()) != m.UncompressedSize64 {
		return false
	}
	h := crc32.NewIEEE()
	if _, err := io.Copy(h, f); err != nil {
		return false
	}
	return h.Sum32() == m.CRC32
}
