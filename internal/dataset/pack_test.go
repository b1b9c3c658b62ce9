package dataset

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// unzip returns the names, contents and modes of a zip's files.
func unzip(t *testing.T, data []byte) (names []string, content map[string]string, modes map[string]os.FileMode) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	content, modes = map[string]string{}, map[string]os.FileMode{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		names = append(names, f.Name)
		content[f.Name], modes[f.Name] = string(b), f.Mode().Perm()
	}
	return names, content, modes
}

// TestPackZip: the zip of several files is the same bytes every time (sorted
// names, fixed times, modes normalised to 0644 or 0755), and ReadFile refuses
// a packed file that leaves the directory, even one swapped for a symlink
// after the dataset was read.
func TestPackZip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "task")
	writeFile(t, dir, "a.txt", "text")
	writeFile(t, dir, "sub/b.txt", "sub")
	bin := writeFile(t, dir, "z.bin", "\x7fELF")
	if err := os.Chmod(bin, 0o700); err != nil {
		t.Fatal(err)
	}
	f := &File{Name: "task.zip", Root: dir, Pack: []string{"z.bin", "sub/b.txt", "a.txt", "z.bin"}}
	first, err := ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(bin, later, later); err != nil {
		t.Fatal(err)
	}
	again, err := ReadFile(&File{Name: "task.zip", Root: dir, Pack: []string{"a.txt", "sub/b.txt", "z.bin"}})
	if err != nil || !bytes.Equal(first, again) {
		t.Fatalf("the zip changed between two reads (%v)", err)
	}
	names, content, modes := unzip(t, first)
	if !reflect.DeepEqual(names, []string{"a.txt", "sub/b.txt", "z.bin"}) || content["sub/b.txt"] != "sub" ||
		modes["a.txt"] != 0o644 || modes["z.bin"] != 0o755 {
		t.Errorf("names %v, content %v, modes %v", names, content, modes)
	}

	secret := writeFile(t, filepath.Dir(dir), "secret.txt", "s")
	for _, pack := range [][]string{{"a.txt", "../secret.txt"}, {"a.txt", secret}} {
		if data, err := ReadFile(&File{Name: "x.zip", Root: dir, Pack: pack}); err == nil || !strings.Contains(err.Error(), "outside") {
			t.Errorf("ReadFile packed %v: %d bytes, %v", pack, len(data), err)
		}
	}
	os.Remove(bin)
	if err := os.Symlink(secret, bin); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(f); err == nil || !strings.Contains(err.Error(), "z.bin: ") {
		t.Fatalf("ReadFile packed a symlink out of the directory: %d bytes, %v", len(data), err)
	}
	// Nor one that stays inside, to a file or through a directory
	// (a symlink is never followed).
	os.Remove(bin)
	if err := os.Symlink("a.txt", bin); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(f); err == nil || !strings.Contains(err.Error(), "z.bin: ") {
		t.Errorf("ReadFile packed a symlink to a.txt: %d bytes, %v", len(data), err)
	}
	writeFile(t, dir, "real/c.txt", "c")
	if err := os.Symlink("real", filepath.Join(dir, "linked")); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(&File{Name: "x.zip", Root: dir, Pack: []string{"a.txt", "linked/c.txt"}}); err == nil {
		t.Errorf("ReadFile packed linked/c.txt through a symlinked directory: %d bytes", len(data))
	}
}
