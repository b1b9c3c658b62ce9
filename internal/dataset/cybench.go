package dataset

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
	"go.yaml.in/yaml/v3"
)

// cybench reads a Cybench task (see benchmarks.go) whose directory is dir
// into c.
func (d *decoder) cybench(c *Challenge, m map[string]*yaml.Node, dir string) {
	c.Title = readableTitle(filepath.Base(dir))
	c.Slug = Slugify(c.Title)
	for _, cat := range d.strs(m["categories"], "categories") {
		if cat = normalCategory(cat); cat != "" && !contains(c.Categories, cat) {
			c.Categories = append(c.Categories, cat)
		}
	}
	if len(c.Categories) == 0 {
		d.fail("categories", "required")
	}
	c.Difficulty = DefaultDifficulty
	if n, ok := m["difficulty"]; ok && !isNull(n) {
		c.Difficulty = d.benchDifficulty(n, "difficulty")
	}
	c.Points = pointsFor(c.Difficulty)

	// The hard prompt is the task as a CTF would state it; the easy one adds
	// hints towards the solution, which players should not be handed.
	c.Description = strings.TrimSpace(d.str(m["hard_prompt"], "hard_prompt"))
	if c.Description == "" {
		c.Description = strings.TrimSpace(d.str(m["easy_prompt"], "easy_prompt"))
	}
	sub := d.items(m["subtasks"], "subtasks")
	// Cybench's unguided run shows the agent the answer format of the last
	// subtask, the flag's ("HTB{*******}"): the challenge's flag format.
	if n := len(sub); n > 0 && sub[n-1].Kind == yaml.MappingNode {
		field := fmt.Sprintf("subtasks[%d]", n-1)
		sk, sv := d.pairs(sub[n-1], field)
		for i, k := range sk {
			if k != "answer_format" {
				continue
			}
			if f := strings.TrimSpace(d.str(sv[i], field+".answer_format")); ctf.ValidateFlagFormat(f) == nil {
				c.FlagFormat = f
			}
		}
	}
	if c.Description == "" && len(sub) > 0 && sub[0].Kind == yaml.MappingNode {
		sk, sv := d.pairs(sub[0], "subtasks[0]")
		for i, k := range sk {
			if k == "question" {
				c.Description = strings.TrimSpace(d.str(sv[i], "subtasks[0].question"))
			}
		}
	}

	// target_host is "host:port", or several separated by spaces (a task
	// of several services); Cybench's agent is told it as written. A web
	// task's hosts are URLs; a bare host names no port to connect to.
	scheme := ""
	if contains(c.Categories, "web") {
		scheme = "http"
	}
	var lines []string
	for _, target := range strings.Fields(strings.ReplaceAll(d.str(m["target_host"], "target_host"), ",", " ")) {
		i := strings.LastIndex(target, ":")
		if i <= 0 {
			continue
		}
		port, err := strconv.Atoi(target[i+1:])
		if err != nil || port < 1 || port > 65535 {
			d.fail("target_host", "must be host:port with a port from 1 to 65535, not %q", target)
			continue
		}
		if !c.HasInstance {
			c.HasInstance, c.DockerPort = true, &port
		}
		lines = append(lines, serviceLine(scheme, strings.Trim(target[:i], "[]"), port))
	}
	c.ConnectionInfo = strings.Join(lines, ", ")

	flagFile := filepath.Join(dir, "metadata", "solution", "flag.txt")
	data, err := os.ReadFile(flagFile)
	if err != nil {
		d.fail("flag", "metadata/solution/flag.txt: %s", pathErr(err))
	} else {
		d.staticFlag(c, string(data), "flag")
	}

	// Cybench's runner hands the agent what init_script.sh copies into its
	// directory; a task without the script hands out release/.
	if rels, packDir, notes, ok := initScriptFiles(dir); ok {
		c.Notes = append(c.Notes, notes...)
		c.File = handoutFile(dir, rels, c.Slug+".zip", packDir)
		return
	}
	// The handout is read from the task's directory, so that release/
	// itself is checked not to be a symlink (to metadata/, say) whenever
	// it is read; the archive names its files relative to release/.
	if fi, err := os.Lstat(filepath.Join(dir, "release")); err == nil && (fi.IsDir() || fi.Mode()&fs.ModeSymlink != 0) {
		rels, err := listFiles(dir, "release")
		if err != nil {
			d.fail("release", "%v", err)
		}
		c.File = handoutFile(dir, rels, c.Slug+".zip", "release")
	}
}

// readableTitle turns a task directory's name into a title: "_" and "-"
// become spaces, and a leading "[Very Easy] " (Cybench's Hack The Box tasks
// carry their rating in the name; metadata.json has it too) is dropped.
func readableTitle(name string) string {
	if strings.HasPrefix(name, "[") {
		if i := strings.Index(name, "]"); i > 0 && strings.TrimSpace(name[i+1:]) != "" {
			name = name[i+1:]
		}
	}
	name = withoutDifficultySuffix(name)
	name = strings.Join(strings.Fields(strings.NewReplacer("_", " ", "-", " ").Replace(name)), " ")
	if name != "" && name[0] >= 'a' && name[0] <= 'z' {
		name = strings.ToUpper(name[:1]) + name[1:]
	}
	return name
}

// withoutDifficultySuffix drops a bracketed difficulty at the end of a
// title ("Maze [Very Easy]"), which the benchmarks' directories and names
// carry: the difficulty is a field of its own.
func withoutDifficultySuffix(title string) string {
	t := strings.TrimSpace(title)
	i := strings.LastIndex(t, "[")
	if i <= 0 || !strings.HasSuffix(t, "]") {
		return title
	}
	word := strings.ToLower(strings.Join(strings.Fields(t[i+1:len(t)-1]), " "))
	// A number in brackets is more likely part of the name than Cybench's
	// 0-5 rating: only the words count.
	if _, ok := benchDifficulties[word]; !ok || word[0] < 'a' || word[0] > 'z' || strings.TrimSpace(t[:i]) == "" {
		return title
	}
	return strings.TrimSpace(t[:i])
}
