package dataset

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// NYU CTF Bench names each task by a canonical name ("2021q-web-poem_collection"):
// its test_dataset.json and development_dataset.json, at the checkout's
// root, map those names to {year, event, category, challenge, path}; its
// loader (nyuctf.utils.get_canonical_name) derives the same name from the
// layout <year>/<event>/<category>/<challenge>, and its runners' logs and
// the leaderboard name tasks by it. A task's slug is that name, written
// as a slug: '_' (and any other character a slug may not hold) becomes '-'
// ("2021q-web-poem-collection").

// nyuIndexFiles are the files of an NYU checkout's root that name its tasks.
var nyuIndexFiles = []string{"test_dataset.json", "development_dataset.json"}

// maxNYUIndex bounds the size of an index read: a file of that name found
// while walking up from a task may be anyone's, not NYU's (NYU's are 40 KB).
const maxNYUIndex = 4 << 20

// nyuShort is NYU's abbreviation of each of its categories in canonical names.
var nyuShort = map[string]string{"crypto": "cry", "forensics": "for", "misc": "msc", "pwn": "pwn", "rev": "rev", "web": "web"}

// checkouts remembers, for one ReadPaths, the NYU indexes found by
// directory, so that a checkout of 200 tasks reads its index once.
type checkouts struct {
	nyu map[string]map[string]string // index file's directory -> task path (slash-separated) -> canonical name
}

// nyuIndex returns the canonical names of the index files in dir (nil
// when there are none), reading them once.
func (cs *checkouts) nyuIndex(dir string) map[string]string {
	if idx, ok := cs.nyu[dir]; ok {
		return idx
	}
	var idx map[string]string
	for _, name := range nyuIndexFiles {
		for path, canon := range readNYUIndex(filepath.Join(dir, name)) {
			if idx == nil {
				idx = map[string]string{}
			}
			idx[path] = canon
		}
	}
	if cs.nyu == nil {
		cs.nyu = map[string]map[string]string{}
	}
	cs.nyu[dir] = idx
	return idx
}

// readNYUIndex reads one index file into path -> canonical name; a file
// that is missing, too large or not in NYU's shape gives nothing, since a
// file of that name above a task need not be NYU's.
func readNYUIndex(name string) map[string]string {
	fi, err := os.Stat(name)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxNYUIndex {
		return nil
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil
	}
	var raw map[string]json.RawMessage
	if json.Unmarshal(data, &raw) != nil {
		return nil
	}
	out := map[string]string{}
	for canon, v := range raw {
		var e struct{ Path string }
		if json.Unmarshal(v, &e) == nil && e.Path != "" {
			out[strings.Trim(filepath.ToSlash(filepath.Clean(filepath.FromSlash(e.Path))), "/")] = canon
		}
	}
	return out
}

// nyuCanonicalName is the canonical name of the NYU task in dir (an
// absolute path): the one an index file above it gives it, else the one
// NYU derives from its last four directories; "" when neither applies
// (a task outside NYU's layout). path is the task's path in its checkout:
// as the index gives it (test/2021/CSAW-Finals/rev/maze), else its last
// four directories.
func (cs *checkouts) nyuCanonicalName(dir string) (name, path string) {
	for up := dir; ; {
		parent := filepath.Dir(up)
		if parent == up {
			break
		}
		up = parent
		if idx := cs.nyuIndex(up); idx != nil {
			rel, err := filepath.Rel(up, dir)
			if err == nil {
				if canon, ok := idx[filepath.ToSlash(rel)]; ok {
					return canon, filepath.ToSlash(rel)
				}
			}
			break
		}
	}
	return deriveNYUName(dir), nyuPath(dir)
}

// deriveNYUName is nyuctf's get_canonical_name of the task directory dir:
// "{year}{q|f}-{cat}-{name}", where q or f is the first letter of what
// follows the event's last '-' (CSAW-Quals, CSAW-Finals), cat the
// category's abbreviation and name the directory's, lower-cased with each
// run of other characters than letters and digits as one '_'. "" when the
// directories are not <year>/<event>/<category>/<challenge>.
func deriveNYUName(dir string) string {
	name := filepath.Base(dir)
	category := filepath.Base(filepath.Dir(dir))
	event := filepath.Base(filepath.Dir(filepath.Dir(dir)))
	year := filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(dir))))
	short, ok := nyuShort[normalCategory(category)]
	if !ok || len(year) != 4 || strings.Trim(year, "0123456789") != "" {
		return ""
	}
	if i := strings.LastIndex(event, "-"); i >= 0 {
		event = event[i+1:]
	}
	if event == "" {
		return ""
	}
	return year + strings.ToLower(event[:1]) + "-" + short + "-" + nyuSafeName(name)
}

// nyuSafeName is nyuctf's safe_name: lower case, every character but
// letters and digits as '_', runs of '_' as one, none at the end.
func nyuSafeName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if isAlnum(r) {
			b.WriteRune(r)
		} else if !strings.HasSuffix(b.String(), "_") {
			b.WriteByte('_')
		}
	}
	return strings.TrimRight(b.String(), "_")
}

// isAlnum is Python's str.isalnum for one character, near enough: a
// letter or a number of any script.
func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }
