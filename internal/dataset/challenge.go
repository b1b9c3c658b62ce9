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

var challengeKeys = []string{
	"id", "slug", "title", "description", "categories", "difficulty", "points", "type", "flags",
	"requires", "author", "file", "hasInstance", "dockerPort", "hidden", "tags", "connectionInfo",
	"releaseAt", "createdAt",
	// ctfcli spellings
	"name", "value", "category", "requirements", "state", "files", "connection_info", "extra",
}

// ctfcliIgnored are ctfcli keys a dataset challenge entry may carry and that
// Flagship ignores (a challenge.yml ignores every unknown key).
var ctfcliIgnored = []string{
	"version", "image", "host", "healthcheck", "hints", "topics", "attempts", "protocol",
	"attribution", "next", "scoring",
}

// difficulties maps accepted spellings to the canonical difficulty.
var difficulties = map[string]string{"easy": "Easy", "medium": "Medium", "hard": "Hard", "insane": "Insane"}

// DefaultDifficulty is given to a challenge that names none (ctfcli has no
// difficulty key) and has no tag naming one.
const DefaultDifficulty = "Medium"

func (d *decoder) challenge(n *yaml.Node) Challenge {
	var c Challenge
	givenBy := map[string]string{} // target field -> key that set it
	once := func(target, key string) bool {
		if prev, ok := givenBy[target]; ok {
			d.fail(key, "%s and %s both given; use one", prev, key)
			return false
		}
		givenBy[target] = key
		return true
	}
	var initial *int
	keys, vals := d.pairs(n, "")
	for i, k := range keys {
		v := vals[i]
		switch k {
		case "id":
			c.ID = d.str(v, k)
		case "slug":
			c.Slug = strings.TrimSpace(d.str(v, k))
		case "title", "name":
			if once("title", k) {
				c.Title = strings.TrimSpace(d.str(v, k))
			}
		case "description":
			c.Description = d.str(v, k)
		case "categories", "category":
			if once("categories", k) {
				for _, s := range d.strs(v, k) {
					if s = strings.TrimSpace(s); !contains(c.Categories, s) {
						c.Categories = append(c.Categories, s)
					}
				}
			}
		case "difficulty":
			c.Difficulty = strings.TrimSpace(d.str(v, k))
			if canon, ok := difficulties[strings.ToLower(c.Difficulty)]; ok {
				c.Difficulty = canon
			}
		case "points", "value":
			if once("points", k) {
				c.Points, _ = d.integer(v, k)
			}
		case "type":
			c.Type = strings.TrimSpace(d.str(v, k))
		case "flags":
			c.Flags = d.flags(v, k)
		case "requires", "requirements":
			if once("requires", k) {
				c.Requires = d.requirements(v, k)
			}
		case "author":
			c.Author = strings.TrimSpace(d.str(v, k))
		case "file":
			if once("file", k) {
				c.File = d.fileEntry(v)
			}
		case "files":
			if paths := d.strs(v, k); len(paths) > 0 && once("file", k) {
				c.File = &File{Path: paths[0]}
				d.finishFile(c.File, k+"[0]")
			}
		case "hasInstance":
			c.HasInstance = d.boolean(v, k)
		case "dockerPort":
			if !isNull(v) {
				if p, ok := d.integer(v, k); ok {
					c.DockerPort = &p
				}
			}
		case "hidden", "state":
			if !once("hidden", k) {
				break
			}
			if k == "hidden" {
				c.Hidden = d.boolean(v, k)
				break
			}
			switch s := strings.ToLower(d.str(v, k)); s {
			case "hidden", "visible":
				c.Hidden = s == "hidden"
			default:
				d.fail(k, "must be hidden or visible, not %q", s)
			}
		case "tags":
			c.Tags = d.tags(v, k)
		case "connectionInfo", "connection_info":
			if once("connectionInfo", k) {
				c.ConnectionInfo = d.str(v, k)
			}
		case "releaseAt":
			c.ReleaseAt = d.timestamp(v, k)
		case "createdAt":
			c.CreatedAt = d.timestamp(v, k)
		case "extra": // ctfcli dynamic scoring: {initial, decay, minimum}
			ek, ev := d.pairs(v, k)
			for j := range ek {
				if ek[j] == "initial" {
					if p, ok := d.integer(ev[j], "extra.initial"); ok {
						initial = &p
					}
				}
			}
		default:
			if !d.ctfcli && !contains(ctfcliIgnored, k) {
				d.unknown(k, k, challengeKeys)
			}
		}
	}
	if c.Slug == "" {
		c.Slug = Slugify(c.Title)
	}
	if _, ok := givenBy["points"]; !ok {
		if initial != nil {
			c.Points = *initial
		} else if n := deref(n); n != nil && n.Kind == yaml.MappingNode {
			field := "points"
			if d.ctfcli {
				field = "value"
			}
			d.fail(field, "required")
		}
	}
	if c.Difficulty == "" {
		c.Difficulty = DefaultDifficulty
		for _, t := range c.Tags {
			if canon, ok := difficulties[strings.ToLower(strings.TrimSpace(t))]; ok {
				c.Difficulty = canon
				break
			}
		}
	}
	if c.Type == "" {
		c.Type = "standard"
	}
	return c
}

var flagKeys = []string{"type", "content", "data"}

// flags reads flags: a plain string is a static flag; a mapping is
// {type: static|regex, content, data: case_insensitive}.
func (d *decoder) flags(n *yaml.Node, field string) []Flag {
	var out []Flag
	for i, it := range d.items(n, field) {
		f := fmt.Sprintf("%s[%d]", field, i)
		var fl Flag
		if it.Kind == yaml.MappingNode {
			keys, vals := d.pairs(it, f)
			for j, k := range keys {
				switch k {
				case "type":
					fl.Type = strings.ToLower(strings.TrimSpace(d.str(vals[j], f+".type")))
				case "content":
					fl.Content = d.str(vals[j], f+".content")
				case "data":
					fl.Data = strings.ToLower(strings.TrimSpace(d.str(vals[j], f+".data")))
				default:
					if !d.ctfcli {
						d.unknown(f+"."+k, k, flagKeys)
					}
				}
			}
		} else {
			fl.Content = d.str(it, f)
		}
		if fl.Type == "" {
			fl.Type = "static"
		}
		if fl.Data == "case_sensitive" { // CTFd's spelling of the default
			fl.Data = ""
		}
		if fl.Type == "static" { // submissions are trimmed, so must the flag be
			fl.Content = strings.TrimSpace(fl.Content)
		}
		out = append(out, fl)
	}
	return out
}

// requirements reads a list of slugs or titles, or ctfcli's
// {prerequisites: [...], anonymize: bool} (anonymize is ignored).
func (d *decoder) requirements(n *yaml.Node, field string) []string {
	if n.Kind != yaml.MappingNode {
		return d.strs(n, field)
	}
	var out []string
	keys, vals := d.pairs(n, field)
	for i, k := range keys {
		switch k {
		case "prerequisites":
			out = d.strs(vals[i], field+".prerequisites")
		case "anonymize":
			d.boolean(vals[i], field+".anonymize")
		default:
			d.unknown(field+"."+k, k, []string{"prerequisites", "anonymize"})
		}
	}
	return out
}

// tags reads strings or ctfcli {value: ...} objects.
func (d *decoder) tags(n *yaml.Node, field string) []string {
	var out []string
	for i, it := range d.items(n, field) {
		f := fmt.Sprintf("%s[%d]", field, i)
		var s string
		if it.Kind == yaml.MappingNode {
			keys, vals := d.pairs(it, f)
			for j, k := range keys {
				if k == "value" {
					s = d.str(vals[j], f+".value")
				}
			}
		} else {
			s = d.str(it, f)
		}
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

var fileKeys = []string{"name", "path", "url", "sha256", "contentBase64"}

func (d *decoder) fileEntry(n *yaml.Node) *File {
	if isNull(n) {
		return nil
	}
	f := &File{}
	keys, vals := d.pairs(n, "file")
	for i, k := range keys {
		v, fk := vals[i], "file."+k
		switch k {
		case "name":
			f.Name = strings.TrimSpace(d.str(v, fk))
		case "path":
			f.Path = d.str(v, fk)
		case "url":
			f.URL = strings.TrimSpace(d.str(v, fk))
		case "sha256":
			f.SHA256 = strings.ToLower(strings.TrimSpace(d.str(v, fk)))
		case "contentBase64":
			f.ContentBase64 = strings.Join(strings.Fields(d.str(v, fk)), "")
		default:
			d.unknown(fk, k, fileKeys)
		}
	}
	d.finishFile(f, "file")
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
