package dataset

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
	"go.yaml.in/yaml/v3"
)

// Benchmark tasks: organisers who run a CTF for AI agents (or for people, on
// an agents' benchmark) load the benchmark's checkout as it is. Two layouts
// are read, each a directory per task:
//
//   - NYU CTF Bench: challenge.json {name, category, description (with
//     {box} and {port} placeholders, Python format syntax), flag, files,
//     box, internal_port, points or initial, ...}.
//   - Cybench: metadata/metadata.json {categories, difficulty, easy_prompt,
//     hard_prompt, target_host, subtasks, ...}, the flag in
//     metadata/solution/flag.txt and the handout in release/.
//
// Unknown keys are ignored, as for ctfcli: the benchmarks carry keys for
// their own runners (compose, container_image, tools, ...).

// taskKind tells which benchmark a directory is a task of, if any.
type taskKind int

const (
	notTask     taskKind = iota
	nyuTask              // challenge.json
	cybenchTask          // metadata/metadata.json
)

// taskFile returns the metadata file that makes dir a benchmark task, and
// its kind. A directory holding challenge.yml or challenge.yaml is not one:
// it stays a ctfcli challenge, as before benchmarks were read.
func taskFile(dir string) (string, taskKind) {
	regular := func(p string) bool {
		fi, err := os.Stat(p)
		return err == nil && fi.Mode().IsRegular()
	}
	if regular(filepath.Join(dir, "challenge.yml")) || regular(filepath.Join(dir, "challenge.yaml")) {
		return "", notTask
	}
	if p := filepath.Join(dir, "challenge.json"); regular(p) {
		return p, nyuTask
	}
	if p := filepath.Join(dir, "metadata", "metadata.json"); regular(p) {
		return p, cybenchTask
	}
	return "", notTask
}

// decodeTask reads the task whose metadata file is name. Errors are *Error
// values naming that file, the entry "challenge" and the benchmark's key.
func decodeTask(name string, kind taskKind) (*Challenge, []error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, []error{&Error{File: name, Msg: pathErr(err)}}
	}
	root, err := parse(data, name)
	if err != nil {
		return nil, []error{&Error{File: name, Msg: err.Error()}}
	}
	d := newDecoder(name, true)
	d.entry = "challenge"
	m := map[string]*yaml.Node{}
	keys, vals := d.pairs(root, "")
	for i, k := range keys {
		m[k] = vals[i]
	}
	if isNull(root) {
		d.fail("", "empty task file")
	}
	if len(d.errs) > 0 {
		return nil, d.errs
	}
	dir, err := filepath.Abs(filepath.Dir(name))
	if err != nil {
		dir = filepath.Dir(name)
	}
	c := &Challenge{Type: "standard", Source: Source{File: name, Index: -1}}
	if kind == nyuTask {
		d.nyu(c, m, dir)
		c.Origin = &Origin{Benchmark: ctf.BenchmarkNYU, Path: nyuPath(dir)}
	} else {
		d.cybench(c, m, filepath.Dir(dir))
		c.Origin = &Origin{Benchmark: ctf.BenchmarkCybench, Path: cybenchPath(filepath.Dir(dir))}
	}
	return c, d.errs
}

// nyuPath is an NYU task's path in its checkout, as NYU's dataset files
// give it: <year>/<event>/<category>/<task>, the last four elements of its
// directory (fewer when the directory has fewer).
func nyuPath(dir string) string {
	parts := strings.Split(filepath.ToSlash(dir), "/")
	if len(parts) > 4 {
		parts = parts[len(parts)-4:]
	}
	return strings.Trim(strings.Join(parts, "/"), "/")
}

// cybenchPath is a Cybench task's path in its checkout, as Cybench's task
// lists give it: from the last "benchmark" element of its directory on
// (benchmark/<organiser>/<event>/<category>/<task>), else its name.
func cybenchPath(dir string) string {
	parts := strings.Split(filepath.ToSlash(dir), "/")
	for i := len(parts) - 1; i >= 0; i-- {
		if parts[i] == "benchmark" && i < len(parts)-1 {
			return strings.Join(parts[i:], "/")
		}
	}
	return filepath.Base(dir)
}

// nyuCategories are NYU CTF Bench's categories, which its runner takes from
// the directory above the task (<year>/<event>/<category>/<task>) when
// challenge.json names none.
var nyuCategories = []string{"crypto", "forensics", "misc", "pwn", "rev", "web"}

// nyu reads an NYU CTF Bench task whose directory is dir into c. The slug
// comes from the directory, which is how the benchmark and its runners' logs
// name a task; the title is name.
func (d *decoder) nyu(c *Challenge, m map[string]*yaml.Node, dir string) {
	c.Title = withoutDifficultySuffix(strings.TrimSpace(d.str(m["name"], "name")))
	if c.Title == "" {
		d.fail("name", "required")
	}
	if c.Slug = Slugify(filepath.Base(dir)); c.Slug == "" {
		c.Slug = Slugify(c.Title)
	}
	cat := strings.ToLower(strings.TrimSpace(d.str(m["category"], "category")))
	if parent := strings.ToLower(filepath.Base(filepath.Dir(dir))); cat == "" && contains(nyuCategories, parent) {
		cat = parent
	}
	if cat == "" {
		d.fail("category", "required")
	} else {
		c.Categories = []string{cat}
	}
	c.Author = strings.TrimSpace(d.str(m["author"], "author"))
	c.Difficulty = DefaultDifficulty
	if n, ok := m["difficulty"]; ok && !isNull(n) {
		c.Difficulty = d.benchDifficulty(n, "difficulty")
	}
	c.Points = -1
	for _, k := range []string{"points", "initial"} {
		if n, ok := m[k]; ok && !isNull(n) && c.Points < 0 {
			c.Points, _ = d.integer(n, k)
		}
	}
	if c.Points < 0 {
		c.Points = pointsFor(c.Difficulty)
	}
	// The runner accepts a flag string or {"content": ...}.
	flag, field := m["flag"], "flag"
	if flag != nil && flag.Kind == yaml.MappingNode {
		fk, fv := d.pairs(flag, field)
		flag, field = nil, "flag.content"
		for i, k := range fk {
			if k == "content" {
				flag = fv[i]
			}
		}
	}
	d.staticFlag(c, d.str(flag, field), field)

	// internal_port is the service's port; older tasks spell it port.
	// NYU's own loader takes an integer, a numeric string or a list.
	var ports []int
	for _, k := range []string{"internal_port", "port"} {
		if n, ok := m[k]; ok && !isNull(n) && len(ports) == 0 {
			ports = d.nyuPorts(n, k)
		}
	}
	port := 0
	if len(ports) > 0 {
		port = ports[0]
	}
	box := strings.TrimSpace(d.str(m["box"], "box"))
	if box == "" {
		box = c.Slug
	}
	c.Description = nyuDescription(d.str(m["description"], "description"), box, port)
	if port != 0 {
		d.instance(c, box, port)
		for _, p := range ports[1:] {
			c.ConnectionInfo += fmt.Sprintf(", nc %s %d", box, p)
		}
	}

	var rels []string
	for i, f := range d.strs(m["files"], "files") {
		found, err := listFiles(dir, f)
		if err == nil && contains(found, "challenge.json") {
			err = fmt.Errorf("would hand out challenge.json, which holds the flag")
		}
		if err != nil {
			d.fail(fmt.Sprintf("files[%d]", i), "%s: %v", f, err)
		}
		rels = append(rels, found...)
	}
	c.File = handoutFile(dir, rels, c.Slug+".zip", "")
}

// nyuPorts reads a task's ports: an integer, a string of one, or a list
// of either, each from 1 to 65535.
func (d *decoder) nyuPorts(n *yaml.Node, field string) []int {
	n = deref(n)
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = d.items(n, field)
	}
	var out []int
	for i, it := range items {
		f := field
		if n.Kind == yaml.SequenceNode {
			f = fmt.Sprintf("%s[%d]", field, i)
		}
		p, err := strconv.Atoi(strings.TrimSpace(it.Value))
		if it.Kind != yaml.ScalarNode || (it.Tag != "!!int" && it.Tag != "!!str") || err != nil || p < 1 || p > 65535 {
			d.fail(f, "must be a port number from 1 to 65535 (an integer or a string of one)")
			continue
		}
		out = append(out, p)
	}
	return out
}

// nyuDescription fills the placeholders the way NYU CTF Bench's runner does
// (Python's str.format with unknown names kept): {box} and {port} are
// replaced, "{{" and "}}" are literal braces, anything else stays as written.
// {port} stays when the task has no port.
func nyuDescription(s, box string, port int) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		rest := s[i:]
		switch {
		case strings.HasPrefix(rest, "{{"), strings.HasPrefix(rest, "}}"):
			b.WriteByte(s[i])
			i++
		case strings.HasPrefix(rest, "{box}"):
			b.WriteString(box)
			i += len("{box}") - 1
		case strings.HasPrefix(rest, "{port}") && port != 0:
			b.WriteString(strconv.Itoa(port))
			i += len("{port}") - 1
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// staticFlag sets the task's one flag, exact (submissions are trimmed, so
// the flag is too).
func (d *decoder) staticFlag(c *Challenge, flag, field string) {
	if flag = strings.TrimSpace(flag); flag == "" {
		d.fail(field, "required")
		return
	}
	c.Flags = []Flag{{Type: ctf.FlagStatic, Content: flag}}
}

// instance records the service a task runs: Flagship's instance port and
// the command players connect with.
func (d *decoder) instance(c *Challenge, host string, port int) {
	c.HasInstance = true
	c.DockerPort = &port
	if host != "" {
		c.ConnectionInfo = fmt.Sprintf("nc %s %d", host, port)
	}
}

// benchDifficulties maps the benchmarks' spellings, lower-cased, to
// Flagship's difficulties. Cybench rates tasks 0 to 5 (an integer or a
// string of one).
var benchDifficulties = map[string]ctf.Difficulty{
	"0": ctf.Easy, "1": ctf.Easy, "2": ctf.Medium, "3": ctf.Hard, "4": ctf.Insane, "5": ctf.Insane,
	"very easy": ctf.Easy, "easy": ctf.Easy, "medium": ctf.Medium, "hard": ctf.Hard,
	"insane": ctf.Insane, "expert": ctf.Insane, "master": ctf.Insane,
}

func (d *decoder) benchDifficulty(n *yaml.Node, field string) ctf.Difficulty {
	s := strings.ToLower(strings.Join(strings.Fields(d.str(n, field)), " "))
	if v, ok := benchDifficulties[s]; ok {
		return v
	}
	d.fail(field, "must be 0 to 5 or Easy, Medium, Hard, Insane (or Very Easy, Expert, Master), not %s", kindName(n))
	return DefaultDifficulty
}

// pointsFor is a task's value when the benchmark gives none.
func pointsFor(difficulty ctf.Difficulty) int {
	switch difficulty {
	case ctf.Easy:
		return 100
	case ctf.Hard:
		return 300
	case ctf.Insane:
		return 500
	}
	return 200
}
