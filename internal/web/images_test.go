package web_test

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
)

// imagesEvent has a challenge whose description shows images on other
// sites (inline, titled, with no alt text, by reference) and one of this
// site.
var imagesEvent = adminEventSolved + `  - slug: pics
    title: Pics
    categories: [misc]
    difficulty: Easy
    points: 10
    flags: ['flag{pics}']
    description: |
      ![tracker](https://tracker.example/pixel.png) and ![](http://tracker.example/a.png "titled")
      and ![by reference][ref] and ![here](/static/here.png)

      [ref]: https://tracker.example/ref.png
`

// adminEventSolved is adminEvent with warmup solved by pam, its
// challenges list last so that more can follow.
var adminEventSolved = strings.Replace(adminEvent, "challenges:\n", "solves:\n  - {user: pam, challenge: warmup}\nchallenges:\n", 1)

// offSiteImage finds an <img> whose source is not a path of this site.
var offSiteImage = regexp.MustCompile(`<img[^>]*\bsrc="(?:[a-zA-Z][a-zA-Z0-9+.-]*:|//|/\\)`)

// TestNoThirdPartyImages: no page makes a browser fetch an image from
// another site (which would tell that site who reads the page, and when):
// the policy allows images of this site and data: URLs only; Markdown
// images on other sites — in a description, or in a writeup an admin
// moderates — render as plain links with their alt text or URL.
func TestNoThirdPartyImages(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, imagesEvent)
	root, pam := logIn(t, s, "root"), logIn(t, s, "pam")
	if got := imgSrc(pam.get("/").header.Get("Content-Security-Policy")); got != "'self' data:" {
		t.Errorf("img-src %q, want 'self' data:", got)
	}
	c := pam.get("/challenges/pics")
	want(t, "description", c, 200,
		`<a href="https://tracker.example/pixel.png"`, `>tracker</a>`,
		`<a href="http://tracker.example/a.png" title="titled"`, `>http://tracker.example/a.png</a>`,
		`<a href="https://tracker.example/ref.png"`, `>by reference</a>`,
		`<img src="/static/here.png" alt="here">`)
	if m := offSiteImage.FindString(c.body); m != "" {
		t.Errorf("the description shows an image of another site: %s", m)
	}
	for _, a := range regexp.MustCompile(`<a href="https?://tracker[^>]*>`).FindAllString(c.body, -1) {
		for _, rel := range []string{"nofollow", "noopener", "noreferrer"} {
			if !regexp.MustCompile(`rel="[^"]*\b` + rel + `\b`).MatchString(a) {
				t.Errorf("the link %s lacks rel %s", a, rel)
			}
		}
	}

	// The review's case: a writeup that would track its moderators.
	saved := pam.send("/challenges/warmup/writeup", url.Values{"title": {"Pixel"},
		"content": {"Solved. ![ ](https://tracker.example/moderator.png?who=admin)"}})
	want(t, "writeup", saved, 200, "awaits moderation")
	q := root.get("/admin/writeups")
	want(t, "moderation queue", q, 200, "Pixel", `href="https://tracker.example/moderator.png?who=admin"`)
	if m := offSiteImage.FindString(q.body); m != "" {
		t.Errorf("the moderation queue shows an image of another site: %s", m)
	}
	// And announcements, the third place Markdown is shown.
	if _, err := s.Svc.Event.PostAnnouncement(context.Background(), ctf.Operator, "Look", "![logo](https://tracker.example/logo.png)", ""); err != nil {
		t.Fatal(err)
	}
	ann := pam.get("/announcements")
	want(t, "announcement", ann, 200, `>logo</a>`)
	if m := offSiteImage.FindString(ann.body); m != "" {
		t.Errorf("an announcement shows an image of another site: %s", m)
	}
}

// imgSrc is the img-src directive's sources in csp.
func imgSrc(csp string) string {
	for _, d := range strings.Split(csp, ";") {
		if f := strings.Fields(d); len(f) > 0 && f[0] == "img-src" {
			return strings.Join(f[1:], " ")
		}
	}
	return ""
}
