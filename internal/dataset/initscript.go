package dataset

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Cybench's runner starts a task by running its init_script.sh in the
// task's directory with the agent's directory as $1 (TMP_DIR=$1): what
// the script copies there is the agent's handout. Flagship runs no
// script: it reads the script's plain lines, `cp [-r] SRC... DST` (and
// mv), `unzip ARCHIVE` and `tar -x -f ARCHIVE`, whose sources are inside
// the task's directory, and hands out those files (an archive as it is,
// for the player to unpack). Where the files go in the agent's directory
// is not read. Any other line that may give the agent files (another
// command, a value the script computes, a path outside the task, a
// redirection into a file) is reported in the load report, never run.

// initScript is the script's name in a Cybench task.
const initScript = "init_script.sh"

// maxInitScript bounds the script read (Cybench's are a few hundred bytes).
const maxInitScript = 256 << 10

// maxScriptNotes bounds the lines reported for one script.
const maxScriptNotes = 8

// scriptHarmless are commands that give the agent no file of the task:
// they print, set the shell up, make or remove directories and files in
// the agent's directory, or install tools.
var scriptHarmless = map[string]bool{
	"echo": true, "printf": true, "set": true, "export": true, "unset": true, "mkdir": true, "rm": true,
	"rmdir": true, "chmod": true, "chown": true, "touch": true, "exit": true, "return": true, "shift": true,
	"true": true, "false": true, ":": true, "sleep": true, "wait": true, "trap": true, "local": true,
	"declare": true, "readonly": true, "[": true, "[[": true, "test": true, "ls": true, "pwd": true,
	"pip": true, "pip3": true, "apt": true, "apt-get": true, "if": true, "then": true, "else": true,
	"elif": true, "fi": true, "for": true, "while": true, "until": true, "do": true, "done": true,
	"case": true, "esac": true, "{": true, "}": true, "(": true, ")": true, "!": true, "cat": true,
}

// scriptReader follows one script.
type scriptReader struct {
	dir     string            // the task's directory
	vars    map[string]string // variables the script set, expanded
	cwd     string            // the shell's directory, relative to dir; markAgent or markUnknown when elsewhere
	rels    []string          // the files found, relative to dir
	parents []string          // the directories the sources were in
	notes   []string
	more    int // lines not reported past maxScriptNotes
}

// initScriptFiles reads the init_script.sh of the Cybench task in dir:
// the files it hands out (relative to dir), the directory to name them
// from in an archive, and the notes on what it does that Flagship does
// not. ok is false when the task has no script.
func initScriptFiles(dir string) (rels []string, packDir string, notes []string, ok bool) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, "", nil, false
	}
	defer r.Close()
	if _, err := r.Lstat(initScript); err != nil {
		return nil, "", nil, false
	}
	f, _, err := openNoFollow(r, initScript)
	if err != nil {
		return nil, "", []string{fmt.Sprintf("files given by a script: not loaded (%s: %v)", initScript, rootErr(err))}, true
	}
	data, err := io.ReadAll(io.LimitReader(f, maxInitScript+1))
	f.Close()
	if err != nil || len(data) > maxInitScript {
		return nil, "", []string{fmt.Sprintf("files given by a script: not loaded (%s: unreadable or larger than %d KiB)", initScript, maxInitScript>>10)}, true
	}
	s := &scriptReader{dir: dir, vars: map[string]string{}}
	s.read(string(data))
	if s.more > 0 {
		s.notes = append(s.notes, fmt.Sprintf("files given by a script: not loaded (%d more lines of %s)", s.more, initScript))
	}
	return s.rels, commonDir(s.parents), s.notes, true
}

// read follows the script's lines: continued lines are joined, here-documents skipped.
func (s *scriptReader) read(text string) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		no, line := i+1, lines[i]
		for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
			i++
			line = strings.TrimSuffix(line, "\\") + " " + lines[i]
		}
		for _, cmd := range shellCommands(line, s.vars) {
			if delim := s.command(no, line, cmd); delim != "" {
				for i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != delim {
					i++
				}
				i++
			}
		}
	}
}

// note reports line no of the script, with why its files are not loaded.
func (s *scriptReader) note(no int, line, why string) {
	if len(s.notes) >= maxScriptNotes {
		s.more++
		return
	}
	line = strings.TrimSpace(line)
	if len(line) > 100 {
		line = line[:97] + "..."
	}
	s.notes = append(s.notes, fmt.Sprintf("files given by a script: not loaded (%s:%d: %s: %s)", initScript, no, why, line))
}

// command follows one command; it returns the delimiter of a
// here-document the command reads, whose lines are to be skipped.
func (s *scriptReader) command(no int, line string, cmd []shellWord) (heredoc string) {
	var args []shellWord
	for i := 0; i < len(cmd); i++ {
		w := cmd[i]
		switch {
		case w.op == "<<":
			if i+1 < len(cmd) {
				heredoc = strings.Trim(cmd[i+1].text, "-")
				i++
			}
		case w.op == ">" || w.op == ">>":
			if i+1 < len(cmd) && cmd[i+1].text != "/dev/null" {
				s.note(no, line, "writes a file")
				return heredoc
			}
			i++
		case w.op != "":
			i++ // < FILE reads
		default:
			args = append(args, w)
		}
	}
	// Leading assignments set variables (for the command alone when one
	// follows; kept anyway: the scripts set them on lines of their own).
	for len(args) > 0 && isAssignment(args[0].text) {
		name, value, _ := strings.Cut(args[0].text, "=")
		s.vars[name] = value
		args = args[1:]
	}
	for len(args) > 0 && (args[0].text == "then" || args[0].text == "else" || args[0].text == "do" || args[0].text == "!") {
		args = args[1:]
	}
	if len(args) == 0 {
		return heredoc
	}
	name := path.Base(args[0].text)
	switch {
	case name == "cd":
		s.cd(args[1:])
	case name == "cp" || name == "mv":
		s.copy(no, line, args[1:])
	case name == "unzip":
		s.unzip(no, line, args[1:])
	case name == "tar":
		s.untar(no, line, args[1:])
	case name == "docker" && (len(args) < 2 || args[1].text != "cp"):
		// starts the task's services, which the instance spec is for
	case scriptHarmless[name]:
	default:
		s.note(no, line, "runs "+printable(args[0].text))
	}
	return heredoc
}

// isAssignment reports whether a word is NAME=VALUE.
func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i, c := range name {
		if !(c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') || (i > 0 && c >= '0' && c <= '9')) {
			return false
		}
	}
	return true
}

// printable shows a word with its markers as the script wrote them, roughly.
func printable(w string) string {
	return strings.NewReplacer(markAgent, "$TMP_DIR", markTask, "$(dirname $0)", markUnknown, "$?").Replace(w)
}

// cd follows the shell into the agent's directory, a directory of the
// task, or somewhere unknown.
func (s *scriptReader) cd(args []shellWord) {
	if len(args) == 0 {
		s.cwd = markUnknown
		return
	}
	switch p, where := s.resolve(args[0].text); where {
	case inTask:
		s.cwd = p
	case inAgent:
		s.cwd = markAgent
	default:
		s.cwd = markUnknown
	}
}

// Where a path of the script is.
type place int

const (
	inTask  place = iota // a path in the task's directory
	inAgent              // in the agent's directory: files the script already handed out
	unknown              // computed by the script
	outside              // outside the task's directory
)

// resolve places the path w, relative to the shell's directory; a path in
// the task is returned relative to it, slash-separated ("." for itself).
func (s *scriptReader) resolve(w string) (string, place) {
	switch {
	case strings.Contains(w, markUnknown):
		return "", unknown
	case strings.Contains(w, markAgent):
		return "", inAgent
	case strings.HasPrefix(w, markTask):
		w = "./" + strings.TrimLeft(strings.TrimPrefix(w, markTask), "/")
	case strings.Contains(w, markTask), path.IsAbs(w):
		return "", outside
	case s.cwd == markAgent:
		return "", inAgent
	case s.cwd == markUnknown:
		return "", unknown
	default:
		w = path.Join(s.cwd, w)
	}
	p := path.Clean(w)
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", outside
	}
	return p, inTask
}

// source adds the files of a source path w (a glob, a file or a directory).
func (s *scriptReader) source(no int, line string, w shellWord) {
	p, where := s.resolve(w.text)
	switch where {
	case inAgent:
		return
	case unknown:
		s.note(no, line, "a path the script computes")
		return
	case outside:
		s.note(no, line, printable(w.text)+" is outside the task")
		return
	}
	matches := []string{p}
	if w.glob {
		found, err := filepath.Glob(filepath.Join(s.dir, filepath.FromSlash(p)))
		if err != nil || len(found) == 0 {
			s.note(no, line, w.text+" matches no file")
			return
		}
		matches = matches[:0]
		for _, f := range found {
			if rel, err := filepath.Rel(s.dir, f); err == nil {
				matches = append(matches, filepath.ToSlash(rel))
			}
		}
	}
	for _, m := range matches {
		found, err := listFiles(s.dir, filepath.FromSlash(m))
		if err == nil && contains(found, "metadata/solution/flag.txt") {
			err = fmt.Errorf("would hand out metadata/solution/flag.txt")
		}
		if err != nil {
			s.note(no, line, fmt.Sprintf("%s: %v", m, err))
			continue
		}
		s.rels = append(s.rels, found...)
		s.parents = append(s.parents, path.Dir(m))
	}
}

// copy reads cp's or mv's sources: every operand but the last, or every
// one with -t DIR.
func (s *scriptReader) copy(no int, line string, args []shellWord) {
	var ops []shellWord
	target := false
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case t == "-t" || t == "--target-directory":
			target = true
			i++
		case strings.HasPrefix(t, "--target-directory="):
			target = true
		case strings.HasPrefix(t, "-") && len(t) > 1:
		default:
			ops = append(ops, args[i])
		}
	}
	if !target {
		if len(ops) < 2 {
			s.note(no, line, "copies without a destination")
			return
		}
		ops = ops[:len(ops)-1]
	}
	for _, w := range ops {
		s.source(no, line, w)
	}
}

// unzip reads the archive unzip unpacks (the first operand); the
// members named after it are not read: the archive is handed out whole.
func (s *scriptReader) unzip(no int, line string, args []shellWord) {
	for i := 0; i < len(args); i++ {
		switch t := args[i].text; {
		case t == "-d" || t == "-P":
			i++
		case t == "-x":
			i = len(args)
		case strings.HasPrefix(t, "-"):
		default:
			s.source(no, line, args[i])
			return
		}
	}
	s.note(no, line, "unzips no archive")
}

// untar reads the archive tar extracts: -f ARCHIVE, --file=ARCHIVE, or
// the word after an option cluster (or an old-style first word) ending in f.
func (s *scriptReader) untar(no int, line string, args []shellWord) {
	extract := false
	var archive *shellWord
	for i := 0; i < len(args); i++ {
		t := args[i].text
		cluster := strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") || (i == 0 && !strings.HasPrefix(t, "-"))
		switch {
		case t == "--extract" || t == "--get":
			extract = true
		case strings.HasPrefix(t, "--file="):
			archive = &shellWord{text: strings.TrimPrefix(t, "--file="), glob: args[i].glob}
		case t == "--file" && i+1 < len(args):
			archive = &args[i+1]
			i++
		case cluster:
			extract = extract || strings.Contains(t, "x")
			if strings.HasSuffix(t, "f") && i+1 < len(args) {
				archive = &args[i+1]
				i++
			}
		}
	}
	switch {
	case !extract:
		s.note(no, line, "runs tar without extracting")
	case archive == nil:
		s.note(no, line, "extracts no named archive")
	default:
		s.source(no, line, *archive)
	}
}

// commonDir is the deepest directory holding every one of dirs
// (slash-separated, relative), "" for the task's own.
func commonDir(dirs []string) string {
	if len(dirs) == 0 {
		return ""
	}
	common := strings.Split(dirs[0], "/")
	for _, d := range dirs[1:] {
		parts := strings.Split(d, "/")
		n := 0
		for n < len(common) && n < len(parts) && common[n] == parts[n] {
			n++
		}
		common = common[:n]
	}
	if dir := strings.Join(common, "/"); dir != "." {
		return dir
	}
	return ""
}
