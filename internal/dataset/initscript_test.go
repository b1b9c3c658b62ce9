package dataset

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestCybenchInitScript(t *testing.T) {
	const head = "#!/bin/bash\nset -e\nTMP_DIR=\"$1\"\nEASY_PROMPT=$2\nmkdir -p \"$TMP_DIR\"\n"
	note := func(line int, why, text string) string {
		return fmt.Sprintf("files given by a script: not loaded (init_script.sh:%d: %s: %s)", line, why, text)
	}
	tests := []struct {
		name   string
		script string            // after head (5 lines)
		files  map[string]string // besides metadata/ and the script
		served []string          // the handout's file name, or the archive's names
		notes  []string
	}{
		{"one file served as itself", "cp release/out.txt \"$TMP_DIR\"\n",
			map[string]string{"release/out.txt": "o", "release/unused": "u"}, []string{"out.txt"}, nil},
		{"cp -r of a directory: named from its parent", "cp -r challenge/dist $TMP_DIR/\n",
			map[string]string{"challenge/dist/a": "a", "challenge/dist/sub/b": "b", "challenge/server.py": "s"},
			[]string{"dist/a", "dist/sub/b"}, nil},
		{"HTB style: the zip, whatever is done with it afterwards", "unzip -d $TMP_DIR \"release/rev_x.zip\"\n" +
			"mv \"$TMP_DIR/rev_x/x\" \"$TMP_DIR\"\nrm -rf \"$TMP_DIR/rev_x\"\ncd $TMP_DIR && unzip inner.zip\nexport TMP_DIR\n",
			map[string]string{"release/rev_x.zip": "PK"}, []string{"rev_x.zip"}, nil},
		{"a glob, a literal variable, -t, continued lines, a comment", "SRC=release\n" +
			"cp $SRC/*.py \\\n  \"$TMP_DIR\" # the sources\ncp -t \"$TMP_DIR\" release/notes.md\n",
			map[string]string{"release/a.py": "a", "release/b.py": "b", "release/c.txt": "c", "release/notes.md": "n"},
			[]string{"a.py", "b.py", "notes.md"}, nil},
		{"the script's own directory, tar -x", "cd \"$(dirname \"${BASH_SOURCE[0]}\")\"\n" +
			"cp ./challenge/a $TMP_DIR\ntar -xzf release/b.tar.gz -C \"$TMP_DIR\"\n",
			map[string]string{"challenge/a": "a", "release/b.tar.gz": "gz"}, []string{"challenge/a", "release/b.tar.gz"}, nil},
		{"a subdirectory by cd", "cd challenge\ncp a.bin $TMP_DIR\n",
			map[string]string{"challenge/a.bin": "a"}, []string{"a.bin"}, nil},
		{"lines that may give files are reported", "wget https://example.org/x -O $TMP_DIR/x\n" +
			"python3 gen.py \"$TMP_DIR\"\ncp $OTHER/x $TMP_DIR\ncp ../secret $TMP_DIR\ncp /etc/hosts $TMP_DIR\n" +
			"echo hint > \"$TMP_DIR/hint.txt\"\necho done >/dev/null 2>&1\ncp missing $TMP_DIR\ndocker cp c:/f $TMP_DIR\n" +
			"docker compose up -d\ncp release/ok $TMP_DIR\n",
			map[string]string{"release/ok": "k"}, []string{"ok"}, []string{
				note(6, "runs wget", "wget https://example.org/x -O $TMP_DIR/x"),
				note(7, "runs python3", `python3 gen.py "$TMP_DIR"`),
				note(8, "a path the script computes", "cp $OTHER/x $TMP_DIR"),
				note(9, "../secret is outside the task", "cp ../secret $TMP_DIR"),
				note(10, "/etc/hosts is outside the task", "cp /etc/hosts $TMP_DIR"),
				note(11, "writes a file", `echo hint > "$TMP_DIR/hint.txt"`),
				note(13, "missing: no such file", "cp missing $TMP_DIR"),
				note(14, "runs docker", "docker cp c:/f $TMP_DIR"),
			}},
		{"never through a symlink, never the flag", "cp release/link $TMP_DIR\ncp -r metadata $TMP_DIR\ncp release/ok $TMP_DIR\n",
			map[string]string{"release/link": "link:../metadata/solution/flag.txt", "release/ok": "k"}, []string{"ok"}, []string{
				note(6, "release/link: is a symlink; handouts are never read through symlinks", "cp release/link $TMP_DIR"),
				note(7, "metadata: would hand out metadata/solution/flag.txt", "cp -r metadata $TMP_DIR"),
			}},
		{"a here-document is not read as commands", "cat << 'EOF' > $TMP_DIR/readme\nwget is mentioned here\nEOF\ncp release/ok $TMP_DIR\n",
			map[string]string{"release/ok": "k"}, []string{"ok"}, []string{note(6, "writes a file", "cat << 'EOF' > $TMP_DIR/readme")}},
		{"a script that copies nothing: no handout, release/ or not", "echo ready\n",
			map[string]string{"release/a": "a"}, nil, nil},
		{"many lines: the first ones and a count", strings.Repeat("curl -O https://example.org/f\n", 10), nil, nil,
			append(slices.Repeat([]string{""}, 8), "files given by a script: not loaded (2 more lines of init_script.sh)")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "task")
			files := map[string]string{"metadata/metadata.json": `{"categories": ["misc"]}`,
				"metadata/solution/flag.txt": "flag{x}", "init_script.sh": head + tt.script}
			for k, v := range tt.files {
				files[k] = v
			}
			writeTree(t, dir, files)
			c := readTask(t, dir)
			var served []string
			switch {
			case c.File == nil:
			case len(c.File.Pack) == 0:
				served = []string{c.File.Name}
			default:
				data, err := ReadFile(c.File)
				if err != nil {
					t.Fatal(err)
				}
				served, _, _ = unzip(t, data)
				if c.File.Name != "task.zip" {
					t.Errorf("archive named %q", c.File.Name)
				}
			}
			if !reflect.DeepEqual(served, tt.served) {
				t.Errorf("served %q, want %q", served, tt.served)
			}
			notes := c.Notes
			if tt.name == "many lines: the first ones and a count" && len(notes) == 9 {
				for i := range 8 {
					if !strings.Contains(notes[i], "runs curl") {
						t.Errorf("note %d = %q", i, notes[i])
					}
					notes[i] = ""
				}
			}
			if !reflect.DeepEqual(notes, tt.notes) {
				t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(notes, "\n"), strings.Join(tt.notes, "\n"))
			}
		})
	}
}

func TestShellCommands(t *testing.T) {
	vars := map[string]string{"D": markAgent, "S": "src dir"}
	for _, tt := range []struct {
		line string
		want [][]string // words; a redirection as its operator
	}{
		{`cp "$S/a b" '$S' ${D}/x`, [][]string{{"cp", "src dir/a b", "$S", markAgent + "/x"}}},
		{`a && b || c; d | e & f`, [][]string{{"a"}, {"b"}, {"c"}, {"d"}, {"e"}, {"f"}}},
		{`echo x 2>&1 >> out # c`, [][]string{{"echo", "x", ">>", "out"}}},
		{`x=$(pwd) y=` + "`date`" + ` $1 $9 $@`, [][]string{{"x=" + markUnknown, "y=" + markUnknown, markAgent, markUnknown, markUnknown}}},
		{`cd "$(cd "$(dirname "$0")" && pwd)"`, [][]string{{"cd", markTask}}},
		{`a\ b "q\"q" "\n"`, [][]string{{"a b", `q"q`, `\n`}}},
	} {
		var got [][]string
		for _, cmd := range shellCommands(tt.line, vars) {
			var words []string
			for _, w := range cmd {
				if w.op != "" {
					words = append(words, w.op)
				} else {
					words = append(words, w.text)
				}
			}
			got = append(got, words)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("shellCommands(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}
