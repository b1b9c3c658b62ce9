package web_test

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
)

// countingReader is a request body of head, n zero bytes and tail that
// counts how much of it was read (by the transport, for the server).
type countingReader struct {
	r    io.Reader
	read atomic.Int64
}

func newCountingReader(head string, n int64, tail string) (*countingReader, int64) {
	r := io.MultiReader(strings.NewReader(head), io.LimitReader(zeros{}, n), strings.NewReader(tail))
	return &countingReader{r: r}, int64(len(head)) + n + int64(len(tail))
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read.Add(int64(n))
	return n, err
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestFormBodiesAreCapped: a web form's body is refused past 64 KiB with a
// 413 page, before a big body is read or spooled to disk — also an
// anonymous 40 MiB multipart login, with or without a Content-Length; the
// admin's challenge form takes a handout up to the handout limit; the
// forms whose own rules allow more than 64 KiB (a writeup, an
// announcement) still take the most their rules allow.
func TestFormBodiesAreCapped(t *testing.T) {
	// Not parallel: the test points TMPDIR, where a multipart form spools
	// its files, at a directory of its own.
	s := apitest.Start(t, adminEvent+"solves:\n  - {user: pam, challenge: warmup}\n")
	spool := t.TempDir()
	t.Setenv("TMPDIR", spool)
	spooled := func(t *testing.T) {
		t.Helper()
		if entries, _ := os.ReadDir(spool); len(entries) > 0 {
			t.Errorf("%d files spooled to the temporary directory, first %s", len(entries), entries[0].Name())
		}
	}
	pad := strings.Repeat("a", 65<<10)
	for _, tc := range []struct{ name, path string }{
		{"log in", "/login"},
		{"sign up", "/signup"},
		{"theme", "/theme"},
		{"submit", "/challenges/warmup/submit"},
		{"settings", "/settings/profile"},
		{"webhooks", "/admin/webhooks/new"},
	} {
		t.Run("urlencoded "+tc.name, func(t *testing.T) {
			p := newBrowser(t, s).post(tc.path, url.Values{"username": {"pam"}, "password": {"pam-password"}, "pad": {pad}})
			want(t, tc.path, p, http.StatusRequestEntityTooLarge, "too large", "64 KiB")
		})
	}
	const boundary = "b0undary"
	head := "--" + boundary + "\r\nContent-Disposition: form-data; name=\"username\"\r\n\r\npam\r\n" +
		"--" + boundary + "\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\npam-password\r\n" +
		"--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n"
	tail := "\r\n--" + boundary + "--\r\n"
	for _, tc := range []struct {
		name, path string
		size       int64
		chunked    bool
	}{
		{"multipart login", "/login", 40 << 20, false},
		{"chunked multipart login", "/login", 40 << 20, true},
		{"anonymous handout past the limit", "/admin/challenges", 70 << 20, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, n := newCountingReader(head, tc.size, tail)
			req, err := http.NewRequest("POST", s.URL+tc.path, body)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "multipart/form-data; boundary="+boundary)
			req.Header.Set("Sec-Fetch-Site", "same-origin")
			if !tc.chunked {
				req.ContentLength = n
			}
			resp, err := http.DefaultTransport.RoundTrip(req)
			if err != nil {
				t.Fatalf("%s: %v", tc.path, err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusRequestEntityTooLarge {
				t.Errorf("%s with %d MiB: status %d, want 413", tc.path, n>>20, resp.StatusCode)
			}
			// What the kernel's socket buffers hold is read by the
			// transport but not by the server.
			if got := body.read.Load(); got > 16<<20 {
				t.Errorf("%s: %d MiB of the %d MiB body were read", tc.path, got>>20, n>>20)
			}
			spooled(t)
		})
	}

	spooled(t)

	// What the rules allow still fits. (A handout larger than the form's
	// memory bound may be spooled while its request runs: net/http removes
	// the file after the handler, not before the answer, so no check of the
	// directory follows.)
	root, pam := logIn(t, s, "root"), logIn(t, s, "pam")
	t.Run("handout over 64 KiB", func(t *testing.T) {
		fields := map[string]string{"title": "Big Handout", "categories": "misc", "difficulty": "Easy", "points": "10",
			"description": "Unzip it.", "flagKind0": "static", "flagContent0": "flag{big}"}
		p := root.multipartPost("/admin/challenges", fields, "file", "big.bin", make([]byte, 3<<20))
		if p.status != http.StatusSeeOther || p.header.Get("Location") != "/admin/challenges/big-handout" {
			t.Fatalf("a 3 MiB handout: %d %s\n%.1500s", p.status, p.header.Get("Location"), p.body)
		}
	})
	t.Run("longest writeup", func(t *testing.T) {
		// Every byte of the content percent-encoded: three bytes in the body.
		var images []string
		for range 20 {
			images = append(images, "https://example.com/?q="+strings.Repeat("&", 2000))
		}
		p := pam.send("/challenges/warmup/writeup", url.Values{"title": {strings.Repeat("é", 200)},
			"content": {strings.Repeat("é", 32<<10)}, "images": {strings.Join(images, "\r\n")}})
		want(t, "writeup", p, 200, "awaits moderation")
	})
	t.Run("longest announcement", func(t *testing.T) {
		p := root.post("/admin/announcements", url.Values{"title": {strings.Repeat("€", 200)}, "body": {strings.Repeat("€", 20000)}})
		if p.status != http.StatusSeeOther {
			t.Fatalf("announcement: %d\n%.1500s", p.status, p.body)
		}
	})
}
