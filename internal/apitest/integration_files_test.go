package apitest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestIntegrationFiles(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	if got := itSHA(itReadFile(t, "handout.txt")); got != handoutSHA {
		t.Fatalf("testdata/handout.txt changed: sha256 %s", got)
	}
	url, _ := itChal(t, s, "baby-rsa")["fileUrl"].(string)
	path, ok := strings.CutPrefix(url, s.URL)
	if !ok || path != "/files/"+handoutSHA+"/handout.txt" {
		t.Fatalf("fileUrl %q", url)
	}
	r := s.DoRaw("GET", path, nil)
	itStatus(t, "file", r, 200)
	if !bytes.Equal(r.Body, itReadFile(t, "handout.txt")) {
		t.Errorf("file bytes %q", r.Body)
	}
	if cd := r.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment") || !strings.Contains(cd, "handout.txt") {
		t.Errorf("Content-Disposition %q", cd)
	}
	if r.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("X-Content-Type-Options %q", r.Header.Get("X-Content-Type-Options"))
	}
	if cc := r.Header.Get("Cache-Control"); !strings.Contains(cc, "immutable") {
		t.Errorf("Cache-Control %q", cc)
	}
	for _, p := range []string{
		"/files/" + draftSHA + "/draft.txt",   // the hidden challenge's file
		"/files/" + handoutSHA + "/other.txt", // wrong name
		"/files/" + draftSHA + "/handout.txt", // a name served under another hash
		"/files/" + strings.Repeat("0", 64) + "/handout.txt",
	} {
		if r := s.DoRaw("GET", p, nil); r.Status != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", p, r.Status)
		}
	}
}

// TestIntegrationFileOddName: a stored file whose name needs escaping in a
// URL is linked escaped and served under its name.
func TestIntegrationFileOddName(t *testing.T) {
	t.Parallel()
	const name = "read me (v2) #1 ü?.txt"
	s := Start(t, strings.Replace(`
challenges:
  - {slug: odd, title: Odd, categories: [misc], difficulty: Easy, points: 10, flags: [f],
     file: {name: '`+name+`', path: '@HANDOUT@'}}
`, "@HANDOUT@", itTestdata(t, "handout.txt"), 1))
	c := itChal(t, s, "odd")
	if c["fileName"] != name {
		t.Errorf("fileName %v, want %q", c["fileName"], name)
	}
	link, _ := c["fileUrl"].(string)
	u, err := url.Parse(link)
	if err != nil || u.Fragment != "" || u.RawQuery != "" || link != s.URL+"/files/"+handoutSHA+"/"+url.PathEscape(name) {
		t.Fatalf("fileUrl %q is not the escaped name (err %v)", link, err)
	}
	r := s.DoRaw("GET", strings.TrimPrefix(link, s.URL), nil)
	itStatus(t, "odd file", r, 200)
	if !bytes.Equal(r.Body, itReadFile(t, "handout.txt")) {
		t.Errorf("odd file bytes %q", r.Body)
	}
	if disp, params, err := mime.ParseMediaType(r.Header.Get("Content-Disposition")); err != nil || disp != "attachment" || params["filename"] != name {
		t.Errorf("Content-Disposition %q: %s %v (err %v)", r.Header.Get("Content-Disposition"), disp, params, err)
	}
}

func itSHA(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// TestIntegrationFileStreaming: files are served by http.ServeContent from
// the server's disk cache: HEAD without a body, ranges, revalidation, and
// bytes on disk that do not match their name are never served.
func TestIntegrationFileStreaming(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	path := "/files/" + handoutSHA + "/handout.txt"
	want := itReadFile(t, "handout.txt")
	head := s.DoRaw("HEAD", path, nil)
	itStatus(t, "HEAD", head, 200)
	if len(head.Body) != 0 || head.Header.Get("Content-Length") != strconv.Itoa(len(want)) {
		t.Errorf("HEAD: %d bytes of body, Content-Length %q; want none and %d", len(head.Body), head.Header.Get("Content-Length"), len(want))
	}
	if etag := head.Header.Get("ETag"); etag != `"`+handoutSHA+`"` {
		t.Errorf("ETag %q", etag)
	}
	part := s.DoRaw("GET", path, nil, "Range: bytes=2-5")
	itStatus(t, "range", part, http.StatusPartialContent)
	if !bytes.Equal(part.Body, want[2:6]) || part.Header.Get("Content-Range") != "bytes 2-5/"+strconv.Itoa(len(want)) {
		t.Errorf("range: %q (%s), want %q", part.Body, part.Header.Get("Content-Range"), want[2:6])
	}
	itStatus(t, "revalidation", s.DoRaw("GET", path, nil, `If-None-Match: "`+handoutSHA+`"`), http.StatusNotModified)
	itStatus(t, "If-Range with the tag", s.DoRaw("GET", path, nil, "Range: bytes=0-0", `If-Range: "`+handoutSHA+`"`), http.StatusPartialContent)

	// Bytes changed on disk behind the server's back: a server (here a
	// fresh one on the same cache) checks them before serving, and copies
	// the file from the database again.
	cached := filepath.Join(s.FilesDir, handoutSHA)
	if err := os.WriteFile(cached, bytes.Repeat([]byte("x"), len(want)), 0o600); err != nil {
		t.Fatal(err)
	}
	r := itServe(t, s, s.DB, s.FilesDir).DoRaw("GET", path, nil)
	itStatus(t, "after tampering", r, 200)
	if !bytes.Equal(r.Body, want) {
		t.Errorf("served %q after the cache was tampered with, want the stored bytes", r.Body)
	}
}
