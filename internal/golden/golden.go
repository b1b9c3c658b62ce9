// Package golden compares what a test produced with a file kept in the
// test package's testdata directory, byte for byte: the file is the
// reference a change must keep, and a diff shows what moved. It is
// imported only by tests.
//
// Run a package's tests with -update to rewrite its golden files from
// what the code produces now, then read the diff before committing it:
//
//	go test ./internal/apitest -run Golden -update
package golden

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata with what the tests produce")

// Path returns the file name's place: testdata/NAME.golden in the test's
// package directory.
func Path(name string) string { return filepath.Join("testdata", name+".golden") }

// Check fails t unless got is, byte for byte, the content of the golden
// file name (see Path); with -update it writes got there instead. A JSON
// body that differs is shown indented, so that the diff names the field
// that moved rather than one long line.
func Check(t testing.TB, name string, got []byte) {
	t.Helper()
	path := Path(name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("golden: %v", err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("golden: %v", err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden: %v (run the test with -update to write it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	w, g := readable(want), readable(got)
	if w == g { // indenting hid a difference in spacing alone
		w, g = string(want), string(got)
	}
	t.Errorf("%s differs from %s (-want +got):\n%s", name, path, cmp.Diff(strings.Split(w, "\n"), strings.Split(g, "\n")))
}

// readable is b indented if it is JSON, else b as it is.
func readable(b []byte) string {
	var buf bytes.Buffer
	if json.Valid(b) && json.Indent(&buf, b, "", "  ") == nil {
		return buf.String()
	}
	return string(b)
}
