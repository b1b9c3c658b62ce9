package dataset

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestReadPathsSkipping: challenges that do not read or break a rule of
// their own are left out and reported with their reasons; a problem that
// is not a challenge's own still fails the read.
func TestReadPathsSkipping(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) string { return writeFile(t, dir, rel, content) }
	write("c/ok/challenge.yml", "name: Fine\ncategory: web\nvalue: 10\nflags: ['flag{ok}']\n")
	write("c/negative/challenge.yml", "name: Negative\ncategory: web\nvalue: -5\nflags: ['flag{n}']\n")
	write("c/broken/challenge.yml", "name: [unclosed\n")
	events := write("event.yaml", `
challenges:
  - {slug: dup, title: Dup, categories: [web], points: 1, flags: ['flag{1}']}
  - {slug: dup, title: Dup again, categories: [web], points: 1, flags: ['flag{2}']}
`)
	ds, refused, err := ReadPathsSkipping([]string{filepath.Join(dir, "c"), events})
	if err != nil {
		t.Fatal(err)
	}
	if !ds.SkipInvalid {
		t.Error("the dataset is not marked SkipInvalid")
	}
	var slugs []string
	for _, c := range ds.Challenges {
		slugs = append(slugs, c.Slug)
	}
	if strings.Join(slugs, " ") != "fine dup" {
		t.Errorf("kept %v; want fine and the first dup", slugs)
	}
	want := []string{"broken", "negative: points", "duplicate slug"}
	if len(refused) != len(want) {
		t.Fatalf("refused %+v; want %d", refused, len(want))
	}
	for _, r := range refused {
		s := strings.ToLower(r.String())
		found := false
		for _, w := range want {
			for _, part := range strings.Split(w, ": ") {
				if strings.Contains(s, part) {
					found = true
				}
			}
		}
		if !found || r.Reason == "" {
			t.Errorf("unexpected refusal %s", r)
		}
	}

	// Without skipping, the same paths fail naming every bad challenge.
	_, err = ReadPaths([]string{filepath.Join(dir, "c"), events})
	if err == nil {
		t.Fatal("ReadPaths read bad challenges")
	}
	for _, w := range []string{"broken", "negative", `duplicate slug`} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("ReadPaths error does not name %s:\n%v", w, err)
		}
	}

	// A bad user is not a challenge's own problem: the read fails.
	users := write("users.yaml", "users:\n  - {username: x, email: nope}\n")
	if _, _, err := ReadPathsSkipping([]string{filepath.Join(dir, "c"), users}); err == nil || !strings.Contains(err.Error(), "users") {
		t.Errorf("a bad user: %v; want an error", err)
	}
}

// TestDecodeUploadRefusesPaths: a dataset sent to the server may not name
// a file by path (it would be one of the server's), in a file entry or in
// ctfcli's files list; inline content and links are fine.
func TestDecodeUploadRefusesPaths(t *testing.T) {
	for _, doc := range []string{
		"challenges:\n  - {slug: a, title: A, categories: [x], points: 1, flags: [f], file: {name: db, path: flagship.db}}\n",
		"challenges:\n  - {slug: a, title: A, categories: [x], points: 1, flags: [f], file: {name: p, path: /etc/passwd}}\n",
		`{"challenges": [{"slug": "a", "title": "A", "categories": ["x"], "points": 1, "flags": ["f"], "files": ["flagship.db"]}]}`,
	} {
		name := "up.yaml"
		if strings.HasPrefix(doc, "{") {
			name = "up.json"
		}
		if _, err := DecodeUpload([]byte(doc), name); err == nil || !strings.Contains(err.Error(), "not path") {
			t.Errorf("%s: %v; want the path refused", doc, err)
		}
	}
	ok := "challenges:\n  - {slug: a, title: A, categories: [x], points: 1, flags: [f], file: {name: a.txt, contentBase64: aGk=}}\n" +
		"  - {slug: b, title: B, categories: [x], points: 1, flags: [f], file: {name: b.zip, url: 'https://example.org/b.zip'}}\n"
	if _, err := DecodeUpload([]byte(ok), "up.yaml"); err != nil {
		t.Errorf("inline content and links: %v", err)
	}
}
