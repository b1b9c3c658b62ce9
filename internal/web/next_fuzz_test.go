package web

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzSafeNext: whatever next= holds, safeNext gives either it unchanged
// or "/", and what it gives — and the Location the redirect then sends —
// is a path of this site however a browser reads it: one leading slash,
// no second slash or backslash after it, no control, space or invisible
// character (a browser strips tabs and newlines and takes a backslash
// for a slash), no scheme and no host; resolved against the site's URL it
// stays on the site.
func FuzzSafeNext(f *testing.F) {
	for _, s := range []string{
		"/", "", "/challenges/x?y=1#z", "/scoreboard", "/\t/evil.com", "/%09/evil.com", "//evil.com", "///evil.com",
		"/\\evil.com", "\\\\evil.com", "https://evil.com", "https:/evil.com", "http:evil.com", "javascript:alert(1)",
		"/\x00", "/ /evil", " /x", "/\n/evil.com", "/\r/evil.com", "/\u0085/evil.com", "/\u00a0/x", "/\u3000/x",
		"/\u200b/x", "/\u202e/x", "/\ufeff/x", "/\xff/x", "/\xc0\xaf/evil.com", "/\uff0f\uff0fevil.com", "/..//evil.com",
		"/./\\evil.com", "/x#//evil.com", "/x?//evil.com", "/@evil.com", "/:@evil.com", "/%2F%2Fevil.com",
	} {
		f.Add(s)
	}
	site, _ := url.Parse("https://site.example/")
	f.Fuzz(func(t *testing.T, next string) {
		got := safeNext(next)
		if got != "/" && got != next {
			t.Fatalf("safeNext(%q) = %q: neither the value nor /", next, got)
		}
		checkOnSite(t, site, fmt.Sprintf("safeNext(%q)", next), got)
		w := httptest.NewRecorder()
		redirect(w, httptest.NewRequest("POST", "/login", nil), got)
		checkOnSite(t, site, fmt.Sprintf("the Location for next=%q", next), w.Header().Get("Location"))
		if w.Code != http.StatusSeeOther {
			t.Fatalf("redirect status %d", w.Code)
		}
	})
}

func checkOnSite(t *testing.T, site *url.URL, label, got string) {
	t.Helper()
	if !strings.HasPrefix(got, "/") || strings.HasPrefix(got, "//") || strings.HasPrefix(got, "/\\") {
		t.Fatalf("%s = %q: not one leading slash", label, got)
	}
	if !utf8.ValidString(got) {
		t.Fatalf("%s = %q: not UTF-8", label, got)
	}
	for _, r := range got {
		if r == '\\' || r == ' ' || unicode.IsControl(r) || !unicode.IsPrint(r) {
			t.Fatalf("%s = %q: holds %U", label, got, r)
		}
	}
	u, err := url.Parse(got)
	if err != nil {
		t.Fatalf("%s = %q: %v", label, got, err)
	}
	if u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		t.Fatalf("%s = %q: scheme %q host %q", label, got, u.Scheme, u.Host)
	}
	if r := site.ResolveReference(u); r.Scheme != site.Scheme || r.Host != site.Host || r.User != nil {
		t.Fatalf("%s = %q: resolves to %s, off the site", label, got, r)
	}
}
