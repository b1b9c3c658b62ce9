package dataset

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFilePathsStayInTheirDirectory: a challenge file named by an absolute
// path or a symlink that resolves outside the directory of the file naming
// it is refused with a message naming file, entry and field, and ReadFile
// refuses it even when the link appears after the dataset was read.
func TestFilePathsStayInTheirDirectory(t *testing.T) {
	dir := t.TempDir()
	secret := writeFile(t, dir, "outside/secret.txt", "organiser's secret")
	inside := writeFile(t, dir, "ev/files/ok.txt", "handout")
	if err := os.Symlink(secret, filepath.Join(dir, "ev", "files", "link.txt")); err != nil {
		t.Fatal(err)
	}
	for name, path := range map[string]string{"absolute": secret, "symlink": "files/link.txt"} {
		t.Run(name, func(t *testing.T) {
			ev := writeFile(t, dir, "ev/"+name+".yaml", "challenges:\n"+chal("x", "file: {path: '"+path+"'}"))
			_, err := ReadPaths([]string{ev})
			var e *Error
			if !errors.As(err, &e) || e.File != ev || e.Entry != `challenges[0] (slug "x")` || e.Field != "file.path" ||
				!strings.Contains(e.Msg, "outside") && !strings.Contains(e.Msg, "symlink") {
				t.Fatalf("got %v, want an error on file.path saying it is outside or a symlink", err)
			}
		})
	}
	ds, err := ReadPaths([]string{writeFile(t, dir, "ev/ok.yaml", "challenges:\n"+chal("x", "file: {path: files/ok.txt}"))})
	if err != nil {
		t.Fatal(err)
	}
	f := ds.Challenges[0].File
	if data, err := ReadFile(f); err != nil || string(data) != "handout" {
		t.Fatalf("ReadFile = %q, %v", data, err)
	}
	// Swapped for a link after the check: ReadFile still refuses.
	if err := os.Remove(inside); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, inside); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(f); err == nil {
		t.Fatalf("ReadFile read %q through a symlink out of the directory", data)
	}
	// Nor through one that stays inside.
	writeFile(t, dir, "ev/files/other.txt", "not the handout")
	if err := os.Remove(inside); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("other.txt", inside); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(f); err == nil {
		t.Fatalf("ReadFile read %q through a symlink", data)
	}
}
