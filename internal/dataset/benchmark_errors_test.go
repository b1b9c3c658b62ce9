package dataset

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchmarkErrors: bad benchmark tasks fail with an *Error naming the
// task's metadata file, the entry and the benchmark's key.
func TestBenchmarkErrors(t *testing.T) {
	nyu := func(extra string) string {
		return `{"name": "N", "category": "misc", "flag": "flag{n}"` + extra + `}`
	}
	tests := []struct {
		name  string
		files map[string]string // "link:TARGET" makes a symlink to TARGET (relative to the fixture)
		file  string            // the file the error names, relative to the fixture
		entry string
		field string
	}{
		{"nyu invalid json", map[string]string{"t/challenge.json": `{"name": "N",}`}, "t/challenge.json", "", ""},
		{"nyu not an object", map[string]string{"t/challenge.json": `["N"]`}, "t/challenge.json", "challenge", ""},
		{"nyu missing flag", map[string]string{"t/challenge.json": `{"name": "N", "category": "misc"}`},
			"t/challenge.json", "challenge", "flag"},
		{"nyu empty flag content", map[string]string{"t/challenge.json": `{"name": "N", "category": "misc", "flag": {"content": " "}}`},
			"t/challenge.json", "challenge", "flag.content"},
		{"nyu missing name", map[string]string{"t/challenge.json": `{"category": "misc", "flag": "f"}`},
			"t/challenge.json", "challenge", "name"},
		{"nyu missing category", map[string]string{"t/challenge.json": `{"name": "N", "flag": "f"}`},
			"t/challenge.json", "challenge", "category"},
		{"nyu file outside the directory", map[string]string{"secret.txt": "s", "t/challenge.json": nyu(`, "files": ["../secret.txt"]`)},
			"t/challenge.json", "challenge", "files[0]"},
		{"nyu absolute file", map[string]string{"secret.txt": "s", "t/challenge.json": nyu(`, "files": ["/etc/passwd"]`)},
			"t/challenge.json", "challenge", "files[0]"},
		{"nyu symlink out of the directory", map[string]string{"secret.txt": "s", "t/a": "a", "t/leak": "link:../secret.txt",
			"t/challenge.json": nyu(`, "files": ["a", "leak"]`)}, "t/challenge.json", "challenge", "files[1]"},
		{"nyu symlink out inside a listed directory", map[string]string{"secret.txt": "s", "t/d/a": "a", "t/d/leak": "link:../../secret.txt",
			"t/challenge.json": nyu(`, "files": ["d"]`)}, "t/challenge.json", "challenge", "files[0]"},
		{"nyu missing file", map[string]string{"t/a": "a", "t/challenge.json": nyu(`, "files": ["a", "b"]`)},
			"t/challenge.json", "challenge", "files[1]"},
		{"nyu hands out its own flag", map[string]string{"t/a": "a", "t/challenge.json": nyu(`, "files": ["."]`)},
			"t/challenge.json", "challenge", "files[0]"},
		{"ctfcli one of several files missing", map[string]string{"t/a": "a",
			"t/challenge.yml": "name: C\ncategory: misc\nvalue: 1\nflags: [f]\nfiles: [a, b]\n"}, "t/challenge.yml", "challenge", "files[1]"},
		{"ctfcli one of several files a symlink", map[string]string{"t/a": "a", "t/b": "link:a",
			"t/challenge.yml": "name: C\ncategory: misc\nvalue: 1\nflags: [f]\nfiles: [a, b]\n"}, "t/challenge.yml", "challenge", "files[1]"},
		{"nyu port not a number", map[string]string{"t/challenge.json": nyu(`, "internal_port": "eighty"`)},
			"t/challenge.json", "challenge", "internal_port"},
		{"nyu port list with a bad one", map[string]string{"t/challenge.json": nyu(`, "internal_port": [3001, "x"]`)},
			"t/challenge.json", "challenge", "internal_port[1]"},
		{"nyu port out of range", map[string]string{"t/challenge.json": nyu(`, "internal_port": 70000`)},
			"t/challenge.json", "challenge", "internal_port"},
		{"nyu points not a number", map[string]string{"t/challenge.json": nyu(`, "points": "100"`)},
			"t/challenge.json", "challenge", "points"},
		{"nyu duplicate key", map[string]string{"t/challenge.json": `{"name": "N", "name": "M"}`}, "t/challenge.json", "", ""},
		{"cybench invalid json", map[string]string{"t/metadata/metadata.json": `{"categories": [}`},
			"t/metadata/metadata.json", "", ""},
		{"cybench missing flag", map[string]string{"t/metadata/metadata.json": `{"categories": ["web"]}`},
			"t/metadata/metadata.json", "challenge", "flag"},
		{"cybench empty flag", map[string]string{"t/metadata/metadata.json": `{"categories": ["web"]}`,
			"t/metadata/solution/flag.txt": "\n"}, "t/metadata/metadata.json", "challenge", "flag"},
		{"cybench no categories", map[string]string{"t/metadata/metadata.json": `{"categories": []}`,
			"t/metadata/solution/flag.txt": "f"}, "t/metadata/metadata.json", "challenge", "categories"},
		{"cybench bad target port", map[string]string{"t/metadata/metadata.json": `{"categories": ["web"], "target_host": "web:http"}`,
			"t/metadata/solution/flag.txt": "f"}, "t/metadata/metadata.json", "challenge", "target_host"},
		{"cybench release symlink to the solution", map[string]string{"t/metadata/metadata.json": `{"categories": ["web"]}`,
			"t/metadata/solution/flag.txt": "f", "t/release/a": "a", "t/release/flag": "link:../metadata/solution/flag.txt"},
			"t/metadata/metadata.json", "challenge", "release"},
		// No symlink is followed in a handout, even one that stays in the
		// task's directory (release -> metadata would hand out
		// solution/flag.txt).
		{"cybench release is a symlink to metadata", map[string]string{"t/metadata/metadata.json": `{"categories": ["web"]}`,
			"t/metadata/solution/flag.txt": "f", "t/release": "link:metadata"},
			"t/metadata/metadata.json", "challenge", "release"},
		{"cybench symlink to a file of release", map[string]string{"t/metadata/metadata.json": `{"categories": ["web"]}`,
			"t/metadata/solution/flag.txt": "f", "t/release/a": "a", "t/release/b": "link:a"},
			"t/metadata/metadata.json", "challenge", "release"},
		{"cybench symlink to a directory of release", map[string]string{"t/metadata/metadata.json": `{"categories": ["web"]}`,
			"t/metadata/solution/flag.txt": "f", "t/release/sub/a": "a", "t/release/d": "link:sub"},
			"t/metadata/metadata.json", "challenge", "release"},
		{"nyu symlink within the task", map[string]string{"t/a": "a", "t/b": "link:a", "t/challenge.json": nyu(`, "files": ["b"]`)},
			"t/challenge.json", "challenge", "files[0]"},
		{"nyu symlinked parent directory", map[string]string{"t/real/x": "x", "t/d": "link:real", "t/challenge.json": nyu(`, "files": ["d/x"]`)},
			"t/challenge.json", "challenge", "files[0]"},
		{"nyu symlink within a listed directory", map[string]string{"t/d/a": "a", "t/d/b": "link:a", "t/challenge.json": nyu(`, "files": ["d"]`)},
			"t/challenge.json", "challenge", "files[0]"},
		{"duplicate slug across formats", map[string]string{"a/task/challenge.json": nyu(""),
			"b/task/metadata/metadata.json": `{"categories": ["web"]}`, "b/task/metadata/solution/flag.txt": "f"},
			"b/task/metadata/metadata.json", "challenge", "slug"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for rel, content := range tt.files { // files first: they make the directories
				if !strings.HasPrefix(content, "link:") {
					writeFile(t, dir, rel, content)
				}
			}
			for rel, content := range tt.files {
				if target, ok := strings.CutPrefix(content, "link:"); ok {
					p := filepath.Join(dir, filepath.FromSlash(rel))
					if err := os.Symlink(filepath.FromSlash(target), p); err != nil {
						t.Fatal(err)
					}
				}
			}
			_, err := ReadPaths([]string{dir})
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("not an *Error: %T %v", err, err)
			}
			want := filepath.Join(dir, filepath.FromSlash(tt.file))
			if e.File != want || e.Entry != tt.entry || e.Field != tt.field || e.Msg == "" {
				t.Errorf("got  File=%q Entry=%q Field=%q Msg=%q\nwant File=%q Entry=%q Field=%q\nall: %v",
					e.File, e.Entry, e.Field, e.Msg, want, tt.entry, tt.field, err)
			}
			t.Log(err)
		})
	}
}
