package dataset

import "strings"

// A small reader of the shell lines Cybench's init_script.sh files are
// made of (see initscript.go): words with quotes, variables, command
// substitutions, separators and redirections. It runs nothing: it tells
// what each word is when that is known.

// Markers put in a word's text for what is not a plain path.
const (
	markAgent   = "\x00agent\x00"   // the agent's directory: the script's $1
	markTask    = "\x00task\x00"    // the task's directory: $(dirname "$0") and the like
	markUnknown = "\x00unknown\x00" // a value the script computes
)

// shellWord is one word of a command, expanded as far as is known.
type shellWord struct {
	text string
	glob bool   // holds an unquoted *, ? or [
	op   string // ">", ">>", "<", "<<": a redirection; text is empty
}

// shellCommands splits line into commands (on ;, &&, ||, | and &) of
// words, expanding $NAME and ${NAME} from vars (names not in it are
// markUnknown, $1 is markAgent) and $(...) and `...` (markTask when they
// compute the script's own directory, else markUnknown). A '#' starting a
// word begins a comment.
func shellCommands(line string, vars map[string]string) [][]shellWord {
	var cmds [][]shellWord
	var cmd []shellWord
	var b strings.Builder
	inWord, glob := false, false
	quote := byte(0) // ' or " while inside quotes
	endWord := func() {
		if inWord {
			cmd = append(cmd, shellWord{text: b.String(), glob: glob})
		}
		b.Reset()
		inWord, glob = false, false
	}
	endCmd := func() {
		endWord()
		if len(cmd) > 0 {
			cmds = append(cmds, cmd)
		}
		cmd = nil
	}
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case quote == '\'':
			if ch == '\'' {
				quote = 0
			} else {
				b.WriteByte(ch)
			}
		case ch == '\\' && i+1 < len(line):
			if quote == '"' && !strings.ContainsRune("\"\\$`", rune(line[i+1])) {
				b.WriteByte(ch)
			}
			i++
			b.WriteByte(line[i])
			inWord = true
		case ch == '$' || ch == '`':
			n, text := shellExpansion(line[i:], vars)
			b.WriteString(text)
			i += n - 1
			inWord = true
		case quote == '"':
			if ch == '"' {
				quote = 0
			} else {
				b.WriteByte(ch)
			}
		case ch == '"' || ch == '\'':
			quote = ch
			inWord = true
		case ch == ' ' || ch == '\t':
			endWord()
		case ch == '#' && !inWord:
			endCmd()
			return cmds
		case ch == ';' || ch == '&' || ch == '|':
			if ch == '&' && i+1 < len(line) && line[i+1] == '>' { // &> file
				continue
			}
			endCmd()
		case ch == '>' || ch == '<':
			if inWord && strings.Trim(b.String(), "0123456789") == "" { // 2> names a descriptor
				b.Reset()
				inWord = false
			}
			endWord()
			op := string(ch)
			if i+1 < len(line) && line[i+1] == ch {
				op += string(ch)
				i++
			}
			if i+1 < len(line) && line[i+1] == '&' { // 2>&1 duplicates a descriptor
				i += 2
				for i < len(line) && line[i] >= '0' && line[i] <= '9' {
					i++
				}
				i--
				continue
			}
			cmd = append(cmd, shellWord{op: op})
		default:
			if ch == '*' || ch == '?' || ch == '[' {
				glob = true
			}
			b.WriteByte(ch)
			inWord = true
		}
	}
	endCmd()
	return cmds
}

// shellExpansion reads the expansion at the start of s ($NAME, ${NAME},
// $1, $(...), `...`) and returns its length and its value.
func shellExpansion(s string, vars map[string]string) (int, string) {
	if s[0] == '`' {
		end := strings.IndexByte(s[1:], '`')
		if end < 0 {
			return len(s), markUnknown
		}
		return end + 2, substitution(s[1 : end+1])
	}
	if len(s) == 1 {
		return 1, "$"
	}
	switch c := s[1]; {
	case c == '(':
		depth := 0
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '(':
				depth++
			case ')':
				if depth--; depth == 0 {
					return i + 1, substitution(s[2:i])
				}
			}
		}
		return len(s), markUnknown
	case c == '{':
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return len(s), markUnknown
		}
		return end + 1, variable(s[2:end], vars)
	case c >= '0' && c <= '9':
		return 2, variable(s[1:2], vars)
	case c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z'):
		n := 2
		for n < len(s) && (s[n] == '_' || (s[n]|0x20 >= 'a' && s[n]|0x20 <= 'z') || (s[n] >= '0' && s[n] <= '9')) {
			n++
		}
		return n, variable(s[1:n], vars)
	}
	return 2, markUnknown // $?, $$, $@...
}

// variable is the value of $name: the agent's directory for $1, what
// vars holds, else unknown.
func variable(name string, vars map[string]string) string {
	if name == "1" {
		return markAgent
	}
	if v, ok := vars[name]; ok {
		return v
	}
	return markUnknown
}

// substitution is the value of $(cmd): the script's own directory (the
// task's, where the runner starts it) for dirname of $0 or BASH_SOURCE,
// with or without cd and pwd; else unknown.
func substitution(cmd string) string {
	if strings.Contains(cmd, "dirname") && (strings.Contains(cmd, "$0") || strings.Contains(cmd, "BASH_SOURCE")) {
		return markTask
	}
	return markUnknown
}
