package mcp_test

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
)

// handoutZip is a zip handout: two files, a directory, a member that
// escapes (never listed) and a small zip bomb (listed, not served).
func handoutZip(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, f := range []struct{ name, data string }{
		{"notes.txt", "read me first"},
		{"src/", ""},
		{"src/solve me.py", "print('hi')\n"},
		{"../evil.txt", "out"},
		{"zeros.bin", strings.Repeat("\x00", 3<<20)},
	} {
		fw, err := w.Create(f.name)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write([]byte(f.data))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type member struct {
	Name    string `json:"name"`
	Size    int64  `json:"size"`
	URL     string `json:"url"`
	Refused string `json:"refused"`
}

// TestHandoutMembers: get_challenge lists a zip handout's files with a URL
// each; each URL serves that file alone with the file route's headers; a
// refused member, a member not listed, a hidden challenge's archive and a
// file that is not a zip serve nothing.
func TestHandoutMembers(t *testing.T) {
	t.Parallel()
	z := base64.StdEncoding.EncodeToString(handoutZip(t))
	s := apitest.Start(t, fmt.Sprintf(`
users:
  - {username: alice, email: alice@example.com, password: alice-password}
challenges:
  - {slug: zipped, title: Zipped, categories: [rev], points: 100, flags: ['flag{z}'], file: {name: handout.zip, contentBase64: %[1]s}}
  - {slug: secret, title: Secret, categories: [rev], points: 100, flags: ['flag{s}'], hidden: true, file: {name: other.zip, contentBase64: %[1]s}}
  - {slug: plain, title: Plain, categories: [rev], points: 100, flags: ['flag{p}'], file: {name: handout.txt, path: files/handout.txt}}
`, z))
	cs := connect(t, s.URL, &keyed{header: "Authorization", key: s.Key("alice")})
	var c struct {
		File struct {
			URL     string   `json:"url"`
			Members []member `json:"members"`
		} `json:"file"`
	}
	if res := call(t, cs, "get_challenge", map[string]any{"slug": "zipped"}, &c); res.IsError {
		t.Fatal(text(res))
	}
	var got []string
	for _, m := range c.File.Members {
		got = append(got, fmt.Sprintf("%s %d %v %s", m.Name, m.Size, m.URL != "", m.Refused))
	}
	want := []string{"notes.txt 13 true ", "src/solve me.py 12 true ",
		"zeros.bin 3145728 false it inflates to more than 100 times its compressed size"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("members:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if u := c.File.Members[1].URL; u != c.File.URL+"/src/solve%20me.py" {
		t.Errorf("member url %q (file %q)", u, c.File.URL)
	}

	path := func(u string) string {
		t.Helper()
		p, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		return p.EscapedPath()
	}
	for i, body := range []string{"read me first", "print('hi')\n"} {
		m := c.File.Members[i]
		r := s.DoRaw("GET", path(m.URL), nil)
		hd := r.Header
		if r.Status != 200 || string(r.Body) != body || hd.Get("Content-Type") != "application/octet-stream" ||
			hd.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(hd.Get("Cache-Control"), "immutable") ||
			!strings.HasPrefix(hd.Get("Content-Disposition"), "attachment") || hd.Get("ETag") == "" ||
			hd.Get("Content-Length") != fmt.Sprint(len(body)) {
			t.Errorf("GET %s: %d %q %v", m.Name, r.Status, r.Body, hd)
		}
		if !strings.Contains(hd.Get("Content-Disposition"), map[int]string{0: "notes.txt", 1: `"solve me.py"`}[i]) {
			t.Errorf("GET %s: Content-Disposition %q", m.Name, hd.Get("Content-Disposition"))
		}
		if r := s.DoRaw("GET", path(m.URL), nil, "If-None-Match: "+hd.Get("ETag")); r.Status != 304 || len(r.Body) != 0 {
			t.Errorf("GET %s again with its ETag: %d", m.Name, r.Status)
		}
		if r := s.DoRaw("HEAD", path(m.URL), nil); r.Status != 200 || len(r.Body) != 0 || r.Header.Get("Content-Length") != fmt.Sprint(len(body)) {
			t.Errorf("HEAD %s: %d %v", m.Name, r.Status, r.Header)
		}
	}

	base := path(c.File.URL)
	other := strings.Replace(base, "handout.zip", "other.zip", 1)
	plain := func() string {
		var p struct {
			File struct {
				URL     string   `json:"url"`
				Members []member `json:"members"`
			} `json:"file"`
		}
		call(t, cs, "get_challenge", map[string]any{"slug": "plain"}, &p)
		if p.File.Members != nil {
			t.Errorf("a file that is not a zip lists members: %+v", p.File.Members)
		}
		return path(p.File.URL)
	}()
	for _, tc := range []struct {
		what, path string
		want       int
	}{
		{"the bomb", base + "/zeros.bin", 403},
		{"an escaping member", base + "/..%2Fevil.txt", 404},
		{"an escaping member, plain", base + "/../evil.txt", 404},
		{"a directory", base + "/src", 404},
		{"a directory with its slash", base + "/src/", 404},
		{"no member", base + "/", 404},
		{"an absent member", base + "/nope.txt", 404},
		{"a backslash", base + "/src%5Csolve%20me.py", 404},
		{"a hidden challenge's archive", other + "/notes.txt", 404},
		{"a file that is not a zip", plain + "/notes.txt", 404},
	} {
		r := s.DoRaw("GET", tc.path, nil)
		if r.Status == 301 || r.Status == 307 || r.Status == 308 {
			// The router cleans dot segments by redirecting; where to
			// is answered as any other path.
			r = s.DoRaw("GET", r.Header.Get("Location"), nil)
		}
		if r.Status != tc.want {
			t.Errorf("%s (%s): %d %s, want %d", tc.what, tc.path, r.Status, r.Body, tc.want)
			continue
		}
		var e struct{ Error string }
		if json.Unmarshal(r.Body, &e) != nil || e.Error == "" {
			t.Errorf("%s: body %q, want a JSON error", tc.what, r.Body)
		}
	}
	if r := s.DoRaw("GET", base+"/zeros.bin", nil); !strings.Contains(string(r.Body), "inflates to more than") {
		t.Errorf("the bomb's refusal says %s", r.Body)
	}
}
