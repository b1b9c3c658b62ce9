package web

import (
	"strings"
	"testing"
)

// TestOffSiteImagesAreLinks: a Markdown image of another site renders as a
// link with its alt text (or its URL when it has none); one inside a link
// as its text; one of this site stays an image.
func TestOffSiteImagesAreLinks(t *testing.T) {
	m := newMarkdown()
	const rel = ` rel="nofollow noreferrer noopener" target="_blank"`
	for _, tc := range []struct{ src, want string }{
		{"![a](https://x.example/i.png)", `<p><a href="https://x.example/i.png"` + rel + `>a</a></p>`},
		{"![*em* alt](http://x.example/i.png \"T\")", `<p><a href="http://x.example/i.png" title="T"` + rel + `><em>em</em> alt</a></p>`},
		{"![ ](https://x.example/a?b=1&c=2)", `<p><a href="https://x.example/a?b=1&amp;c=2"` + rel + `>https://x.example/a?b=1&amp;c=2</a></p>`},
		{"![p](//x.example/p.png)", `<p><a href="//x.example/p.png"` + rel + `>p</a></p>`},
		{"![r][r]\n\n[r]: https://x.example/r.png", `<p><a href="https://x.example/r.png"` + rel + `>r</a></p>`},
		{"[![badge](https://x.example/b.svg)](https://x.example/)", `<p><a href="https://x.example/"` + rel + `>badge</a></p>`},
		{"![d](data:image/png;base64,AAAA)", `<p>d</p>`},
		{"![here](/files/abc/x.png)", `<p><img src="/files/abc/x.png" alt="here"></p>`},
	} {
		if got := string(m.render(tc.src)); got != tc.want+"\n" {
			t.Errorf("%q renders\n%s\nwant\n%s", tc.src, got, tc.want)
		}
	}
	// Paths of this site that are no file are no images either: an image
	// of the live stream would hold a stream open in every reader's browser.
	for _, src := range []string{"/api/events?after=1", "/files/../api/events", "/files/%2e%2e/api/events", "/files/%2E%2E/api/events",
		"/static/./../api/events", "/logout", "/admin/users", "/"} {
		if got := string(m.render("![x](" + src + ")")); strings.Contains(got, "<img") {
			t.Errorf("![x](%s) renders an image: %s", src, got)
		}
	}
	for _, src := range []string{"/files/abc/x.png", "/static/app.css?v=1"} {
		if got := string(m.render("![x](" + src + ")")); !strings.Contains(got, "<img") {
			t.Errorf("![x](%s) renders no image: %s", src, got)
		}
	}
}
