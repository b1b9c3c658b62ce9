package dataset

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// chal is a valid challenge entry; extra lines replace or add keys.
func chal(slug string, lines ...string) string {
	keys := []string{"slug: " + slug, "title: T " + slug, "categories: [misc]", "difficulty: Easy",
		"points: 100", "flags: ['flag{x}']"}
	for _, l := range lines {
		k := strings.SplitN(l, ":", 2)[0]
		replaced := false
		for i, old := range keys {
			if strings.SplitN(old, ":", 2)[0] == k {
				keys[i], replaced = l, true
			}
		}
		if !replaced {
			keys = append(keys, l)
		}
	}
	var out []string
	for _, l := range keys {
		if !strings.HasSuffix(l, ": DELETE") {
			out = append(out, l)
		}
	}
	return "  - " + strings.Join(out, "\n    ") + "\n"
}

type fixture struct{ name, content string }

// errorCase is a dataset that fails to read, and the file, entry and field
// its first error names.
type errorCase struct {
	name  string
	files []fixture
	file  string // the file the error names (relative to the temp dir)
	entry string
	field string
}

func runErrorCases(t *testing.T, tests []errorCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var paths []string
			for _, f := range tt.files {
				if target, ok := strings.CutPrefix(f.content, "link:"); ok {
					if err := os.Symlink(filepath.FromSlash(target), filepath.Join(dir, filepath.FromSlash(f.name))); err != nil {
						t.Fatal(err)
					}
					continue
				}
				p := writeFile(t, dir, f.name, f.content)
				if !strings.HasSuffix(f.name, ".txt") && !strings.HasSuffix(f.name, ".zip") {
					paths = append(paths, p)
				}
			}
			_, err := ReadPaths(paths)
			if err == nil {
				t.Fatal("no error")
			}
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
