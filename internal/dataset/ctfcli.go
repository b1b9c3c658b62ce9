package dataset

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

func decodeCtfcli(data []byte, name string) (*Challenge, []error) {
	root, err := parse(data, name)
	if err != nil {
		return nil, []error{&Error{File: name, Msg: err.Error()}}
	}
	d := newDecoder(name, true)
	d.entry = "challenge"
	if isNull(root) {
		d.fail("", "empty challenge file")
		return nil, d.errs
	}
	c := d.challenge(root, Source{File: name, Index: -1})
	return &c, d.errs
}

// isCtfcliName reports whether a file name is a ctfcli challenge file.
func isCtfcliName(p string) bool {
	b := filepath.Base(p)
	return b == "challenge.yml" || b == "challenge.yaml"
}

// ReadPaths reads dataset files (.yaml, .yml, .json), ctfcli challenge.yml
// files and directories (searched recursively for challenge.yml and
// challenge.yaml and for benchmark tasks, see benchmarks.go, skipping
// dot-directories; other files there are ignored), in order, merges them into
// one Dataset, resolves titles in requires to slugs and validates the whole.
// "-" reads a dataset from standard input. A file named twice is read once.
// Errors are *Error values, joined with errors.Join: every bad task and
// every bad entry, not only the first.
func ReadPaths(paths []string) (*Dataset, error) {
	ds, _, err := readPaths(paths, false)
	return ds, err
}

// ReadPathsSkipping reads like ReadPaths, but leaves out each challenge
// that cannot be read or breaks a rule of its own (a benchmark task, a
// challenge.yml, a challenge entry of a dataset file) and reports it with
// its reasons; what is left is valid and marked SkipInvalid, so that the
// load leaves out the challenges it cannot store too. Any other problem (a
// dataset file that does not parse, a bad user) is an error as with
// ReadPaths.
func ReadPathsSkipping(paths []string) (*Dataset, []Refusal, error) {
	ds, refused, err := readPaths(paths, true)
	if ds != nil {
		ds.SkipInvalid = true
	}
	return ds, refused, err
}

func readPaths(paths []string, skip bool) (*Dataset, []Refusal, error) {
	var files []input
	var errs []error
	var refused []Refusal
	seen := map[string]bool{}
	add := func(in input) {
		key := in.path
		if abs, err := filepath.Abs(in.path); err == nil {
			key = abs
		}
		if !seen[key] {
			seen[key] = true
			files = append(files, in)
		}
	}
	for _, p := range paths {
		if p == "-" {
			files = append(files, input{path: p})
			continue
		}
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			errs = append(errs, &Error{File: p, Msg: pathErr(err)})
		case fi.IsDir():
			found, err := findChallenges(p)
			if err != nil {
				errs = append(errs, err)
			}
			for _, f := range found {
				add(f)
			}
		case isCtfcliName(p):
			add(input{path: p})
		default:
			switch strings.ToLower(filepath.Ext(p)) {
			case ".yaml", ".yml", ".json":
				add(input{path: p})
			default:
				errs = append(errs, &Error{File: p, Msg: "not a dataset (.yaml, .yml, .json), a challenge.yml or a directory"})
			}
		}
	}

	all := &Dataset{}
	// A challenge file (a task, a challenge.yml) that does not read is
	// left out of what is validated, so that the errors of the others are
	// listed too; a dataset file that does not read may leave entries
	// half read, whose errors would only repeat its own.
	datasetErr := len(errs) > 0
	var cs checkouts
	challengeErrs := func(name string, cerrs []error) bool {
		if len(cerrs) == 0 {
			return false
		}
		if skip {
			refused = append(refused, RefusalOf(name, "challenge", cerrs))
		} else {
			errs = append(errs, cerrs...)
		}
		return true
	}
	for _, in := range files {
		p := in.path
		if in.task != notTask {
			c, terrs := decodeTask(p, in.task, &cs)
			if !challengeErrs(p, terrs) && c != nil {
				all.Challenges = append(all.Challenges, *c)
			}
			continue
		}
		name, open := p, opener(func() (io.ReadCloser, error) { return os.Open(p) })
		if p == "-" {
			// Standard input is read once, and kept for a second reading.
			name = "<stdin>"
			data, err := io.ReadAll(os.Stdin)
			if err != nil {
				errs = append(errs, &Error{File: name, Msg: pathErr(err)})
				datasetErr = true
				continue
			}
			open = bytesOpener(data)
		}
		if isCtfcliName(p) {
			data, err := os.ReadFile(p)
			if err != nil {
				challengeErrs(name, []error{&Error{File: name, Msg: pathErr(err)}})
				continue
			}
			c, cerrs := decodeCtfcli(data, name)
			if !challengeErrs(name, cerrs) && c != nil {
				all.Challenges = append(all.Challenges, *c)
			}
			continue
		}
		ds, derrs := decodeStream(open, name, false)
		if len(derrs) > 0 {
			errs = append(errs, derrs...)
			datasetErr = true
		}
		if ds != nil && ds.Event != nil && all.Event != nil {
			// The key replaces the settings as a whole: two would silently
			// depend on the order of the paths.
			errs = append(errs, &Error{File: name, Entry: "event", Msg: "event settings given in " + all.Event.Source.File + " too; give them in one file"})
		}
		all.Merge(ds)
	}
	if datasetErr {
		return nil, refused, errors.Join(errs...)
	}
	errs = append(errs, all.resolveRequires()...)
	if skip {
		all, refused, errs = all.withoutInvalid(refused, errs)
	} else if err := all.Validate(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, refused, errors.Join(errs...)
	}
	return all, refused, nil
}

func pathErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return err.Error()
}

// input is a file ReadPaths reads: a dataset, a challenge.yml, or the
// metadata file of a benchmark task.
type input struct {
	path string
	task taskKind // notTask unless path is a benchmark task's metadata file
}

// findChallenges lists the challenge.yml/challenge.yaml files and the
// benchmark tasks under dir in lexical order, skipping directories whose name
// starts with a dot. A task's own subdirectories are not searched: what they
// hold (sources, a solution, the service's files) belongs to that task.
func findChallenges(dir string) ([]input, error) {
	var found []input
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return &Error{File: p, Msg: pathErr(err)}
		}
		if e.IsDir() && p != dir && strings.HasPrefix(e.Name(), ".") {
			return filepath.SkipDir
		}
		if e.IsDir() {
			if file, kind := taskFile(p); kind != notTask {
				found = append(found, input{path: file, task: kind})
				return filepath.SkipDir
			}
		}
		if !e.IsDir() && isCtfcliName(p) {
			found = append(found, input{path: p})
		}
		return nil
	})
	if err != nil {
		return found, err
	}
	if len(found) == 0 {
		return nil, &Error{File: dir, Msg: "no challenge.yml or challenge.yaml, NYU CTF Bench task (challenge.json) " +
			"or Cybench task (metadata/metadata.json) in this directory"}
	}
	return found, nil
}

// resolveRequires replaces each entry of requires that is not the slug of a
// challenge of the dataset but is the title of exactly one with that slug.
// Unknown entries are left as given (the loader checks them against the
// database); duplicates are dropped.
func (d *Dataset) resolveRequires() []error {
	slugs := map[string]bool{}
	byTitle := map[string][]int{}
	for i, c := range d.Challenges {
		slugs[c.Slug] = true
		byTitle[c.Title] = append(byTitle[c.Title], i)
	}
	var errs []error
	for i := range d.Challenges {
		c := &d.Challenges[i]
		var out []string
		for j, r := range c.Requires {
			r = strings.TrimSpace(r)
			if !slugs[r] {
				switch idx := byTitle[r]; len(idx) {
				case 0:
				case 1:
					r = d.Challenges[idx[0]].Slug
				default:
					file, entry := d.Where("challenges", i)
					errs = append(errs, &Error{File: file, Entry: entry, Field: fmt.Sprintf("requires[%d]", j),
						Msg: fmt.Sprintf("%q is the title of several challenges; use a slug", r)})
				}
			}
			if r != "" && !contains(out, r) {
				out = append(out, r)
			}
		}
		c.Requires = out
	}
	return errs
}

// Slugify derives a slug from a title: lower case, each run of characters
// other than [a-z0-9] becomes '-', trimmed of '-', at most 64 characters.
func Slugify(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		} else {
			dash = true
		}
	}
	s := b.String()
	if len(s) > 64 {
		s = strings.TrimRight(s[:64], "-")
	}
	return s
}
