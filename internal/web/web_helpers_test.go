package web_test

import (
	"bytes"
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
)

const event = `
users:
  - {username: pam, email: pam@example.com, password: pam-password}
  - {username: evil, name: '<script>alert(1)</script>', email: evil@example.com, password: evil-password}
challenges:
  - {slug: warmup, title: Warmup, categories: [misc], difficulty: Easy, points: 50, flags: ['flag{warm}'],
     description: "Say **hi**. <script>alert('x')</script> [x](javascript:alert(1))", author: evil}
  - {slug: next, title: Next, categories: [web], difficulty: Hard, points: 300, flags: ['flag{next}'], requires: [warmup],
     hasInstance: true, dockerPort: 1337, connectionInfo: 'nc next.example 1337'}
  - {slug: draft, title: Secret Draft, categories: [web], difficulty: Hard, points: 300, flags: ['flag{draft}'], hidden: true}
`

// browser is a client with cookies that does not follow redirects, and
// sends what a browser sends on a same-origin form post.
type browser struct {
	t    *testing.T
	base string
	c    *http.Client
}

func newBrowser(t *testing.T, s *apitest.Server) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: s.URL, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

type page struct {
	status int
	header http.Header
	body   string
}

func (b *browser) do(method, path string, form url.Values, headers ...string) page {
	b.t.Helper()
	var body *strings.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	} else {
		body = strings.NewReader("")
	}
	req, err := http.NewRequest(method, b.base+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	var sb strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		sb.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return page{resp.StatusCode, resp.Header, sb.String()}
}

func (b *browser) get(path string) page                { return b.do("GET", path, nil) }
func (b *browser) post(path string, f url.Values) page { return b.do("POST", path, f) }

func want(t *testing.T, label string, p page, status int, contains ...string) {
	t.Helper()
	if p.status != status {
		t.Fatalf("%s: status %d, want %d\n%.2000s", label, p.status, status, p.body)
	}
	for _, c := range contains {
		if !strings.Contains(p.body, c) {
			t.Errorf("%s: the page lacks %q\n%.3000s", label, c, p.body)
		}
	}
}

var adminEvent = strings.Replace(event, "users:\n", "users:\n  - {username: root, email: root@example.com, password: root-password, role: admin}\n", 1)

// multipartPost sends a multipart form with one file.
func (b *browser) multipartPost(path string, fields map[string]string, fileField, fileName string, data []byte) page {
	b.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	if fileField != "" {
		fw, _ := mw.CreateFormFile(fileField, fileName)
		fw.Write(data)
	}
	mw.Close()
	req, _ := http.NewRequest("POST", b.base+path, &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return page{resp.StatusCode, resp.Header, string(out)}
}

func mustUser(t *testing.T, s *apitest.Server, username string) string {
	t.Helper()
	u, err := s.Svc.Admin.UserByName(context.Background(), ctf.Operator, username)
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}

// testClock is the platform's clock in a test: pinned, moved by hand.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock() *testClock {
	return &testClock{t: time.Now().UTC().Truncate(time.Minute)}
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func logIn(t *testing.T, s *apitest.Server, username string) *browser {
	t.Helper()
	b := newBrowser(t, s)
	if p := b.post("/login", url.Values{"username": {username}, "password": {username + "-password"}}); p.status != http.StatusSeeOther {
		t.Fatalf("log in as %s: %d\n%.1000s", username, p.status, p.body)
	}
	return b
}

// send posts a form as a browser does (with headers, such as a proxy's
// X-Forwarded-For) and follows its answer: every form answers with a
// redirect to a page of this site (post/redirect/get), and send fails the
// test otherwise. It returns the page landed on, with the form's answer's
// headers (Retry-After, Set-Cookie) added to the page's.
func (b *browser) send(path string, f url.Values, headers ...string) page {
	b.t.Helper()
	p := b.do("POST", path, f, headers...)
	if p.status != http.StatusSeeOther {
		b.t.Fatalf("form %s: status %d, want 303 (post/redirect/get)\n%.2000s", path, p.status, p.body)
	}
	to := p.header.Get("Location")
	if !strings.HasPrefix(to, "/") || strings.HasPrefix(to, "//") {
		b.t.Fatalf("form %s: redirect to %q, not a page of this site", path, to)
	}
	landed := b.get(to)
	for k, vs := range p.header {
		if landed.header.Get(k) == "" {
			landed.header[k] = vs
		}
	}
	return landed
}
