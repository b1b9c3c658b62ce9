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
// its kind. A Cybench task is one even when it also holds a challenge.yml
// (GlacierCTF's tasks in Cybench keep the event's ctfcli file beside
// metadata/); otherwise a directory holding challenge.yml or
// challenge.yaml is not one: it stays a ctfcli challenge, as before
// benchmarks were read.
func taskFile(dir string) (string, taskKind) {
	regular := func(p string) bool {
		fi, err := os.Stat(p)
		return err == nil && fi.Mode().IsRegular()
	}
	if p := filepath.Join(dir, "metadata", "metadata.json"); regular(p) {
		return p, cybenchTask
	}
	if regular(filepath.Join(dir, "challenge.yml")) || regular(filepath.Join(dir, "challenge.yaml")) {
		return "", notTask
	}
	if p := filepath.Join(dir, "challenge.json"); regular(p) {
		return p, nyuTask
	}
	return "", notTask
}

// decodeTask reads the task whose metadata file is name. Errors are *Error
// values naming that file, the entry "challenge" and the benchmark's key.
// cs remembers what was read of the checkouts the tasks belong to.
func decodeTask(name string, kind taskKind, cs *checkouts) (*Challenge, []error) {
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
		d.nyu(c, m, dir, cs)
	} else {
		d.cybench(c, m, filepath.Dir(dir))
		path := cybenchPath(filepath.Dir(dir))
		c.Origin = &Origin{Benchmark: ctf.BenchmarkCybench, Path: path, Name: path}
	}
	return c, d.errs
}

// nyuPath is an NYU task's path in its checkout when no index names it:
// <year>/<event>/<category>/<task>, the last four elements of its
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
// is the task's canonical name (see nyuname.go), which is how the
// benchmark and its runners' logs name a task; the title is name.
func (d *decoder) nyu(c *Challenge, m map[string]*yaml.Node, dir string, cs *checkouts) {
	c.Title = withoutDifficultySuffix(strings.TrimSpace(d.str(m["name"], "name")))
	if c.Title == "" {
		d.fail("name", "required")
	}
	name, path := cs.nyuCanonicalName(dir)
	c.Origin = &Origin{Benchmark: ctf.BenchmarkNYU, Path: path, Name: name}
	c.Slug = Slugify(name)
	if c.Slug == "" {
		c.Slug = Slugify(filepath.Base(dir))
	}
	if c.Slug == "" {
		c.Slug = Slugify(c.Title)
	}
	cat := normalCategory(d.str(m["category"], "category"))
	if parent := normalCategory(filepath.Base(filepath.Dir(dir))); cat == "" && contains(nyuCategories, parent) {
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
	c.Description = nyuDescription(d.str(m["description"], "description"), box, port)
	// The runner shows server_description instead of the line it would
	// write; players read it with the description.
	if sd := strings.TrimSpace(d.str(m["server_description"], "server_description")); sd != "" {
		c.Description = strings.TrimRight(c.Description, "\n") + "\n\n" + sd
	}

	// NYU's runner tells of a server only when the task names its box and
	// its port; a web server (category web or misc, unless proto is nc)
	// as a URL, any other as an nc command. proto http or https makes any
	// category's server a web one.
	proto := strings.ToLower(strings.TrimSpace(d.str(m["proto"], "proto")))
	scheme := ""
	switch {
	case proto == "http" || proto == "https":
		scheme = proto
	case proto != "nc" && (cat == "web" || cat == "misc"):
		scheme = "http"
	}
	var lines []string
	if box != "" && port != 0 {
		c.HasInstance, c.DockerPort = true, &ports[0]
		for _, p := range ports {
			lines = append(lines, serviceLine(scheme, box, p))
		}
	}
	// urls are addresses the task gives besides its server (NYU's runner
	// does not read them): they are listed after it.
	lines = append(lines, d.nyuURLs(m["urls"])...)
	c.ConnectionInfo = strings.Join(lines, ", ")

	protocol := ctf.ProtocolTCP
	if scheme != "" {
		protocol = ctf.ProtocolHTTP
	}
	// NYU's runner starts a task's compose file only when challenge.json
	// says compose: true; one it does not start runs nothing.
	in, note := composeInstance(dir, port, protocol)
	if in != nil && !truthy(m["compose"]) {
		in, note = nil, "docker-compose.yml is there but challenge.json does not set compose, so NYU's runner does not start it: no instance spec"
	}
	if in != nil {
		c.Instance, c.HasInstance, c.DockerPort = in, true, &in.Port
	}
	if note != "" {
		c.Notes = append(c.Notes, note)
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
	// NYU's runner copies each file to the same path under the agent's
	// directory: the archive names them relative to the task.
	c.File = handoutFile(dir, rels, c.Slug+".zip", "")
}

// serviceLine is how a service at host and port is reached: a URL for a
// web server (scheme http or https), else an nc command.
func serviceLine(scheme, host string, port int) string {
	if scheme != "" {
		return fmt.Sprintf("%s://%s:%d", scheme, host, port)
	}
	return fmt.Sprintf("nc %s %d", host, port)
}

// nyuURLs reads urls: a string or a list of strings, blanks dropped.
func (d *decoder) nyuURLs(n *yaml.Node) []string {
	if n == nil || isNull(n) {
		return nil
	}
	var out []string
	for _, u := range d.strs(n, "urls") {
		if u = strings.TrimSpace(u); u != "" {
			out = append(out, u)
		}
	}
	return out
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
// {box} stays when the task names no box, {port} when it has no port.
func nyuDescription(s, box string, port int) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		rest := s[i:]
		switch {
		case strings.HasPrefix(rest, "{{"), strings.HasPrefix(rest, "}}"):
			b.WriteByte(s[i])
			i++
		case strings.HasPrefix(rest, "{box}") && box != "":
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
