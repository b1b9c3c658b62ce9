package web_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
)

func TestRateAndWriteUp(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event+`solves:
  - {user: evil, challenge: warmup}
`)
	pam, evil := newBrowser(t, s), newBrowser(t, s)
	pam.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})
	evil.post("/login", url.Values{"username": {"evil"}, "password": {"evil-password"}})
	want(t, "before solving", pam.get("/challenges/warmup"), 200, "Solve it to read the writeups")
	want(t, "rate before solving", pam.send("/challenges/warmup/review", url.Values{"stars": {"5"}, "difficulty": {"2"}}), 200)
	pam.send("/challenges/warmup/submit", url.Values{"flag": {"flag{warm}"}})
	want(t, "rate", pam.send("/challenges/warmup/review", url.Values{"stars": {"4"}, "difficulty": {"3"}}), 200, "rating is saved", "Rating:</span> 4.0", `<option value="4" selected>`)
	want(t, "rate out of bounds", pam.send("/challenges/warmup/review", url.Values{"stars": {"9"}, "difficulty": {"3"}}), 200, "Stars must be")
	hostile := "# How\n<script>alert('wu')</script> [click](javascript:alert(1))"
	saved := pam.send("/challenges/warmup/writeup", url.Values{"title": {"My <b>way</b>"}, "content": {hostile}, "images": {"https://example.com/a.png\r\n"}})
	want(t, "writeup", saved, 200, "awaits moderation", `<span class="status pending">pending</span>`, "My &lt;b&gt;way&lt;/b&gt;")
	bad := pam.post("/challenges/warmup/writeup", url.Values{"title": {"T"}, "content": {"C"}, "images": {"javascript:alert(1)"}})
	want(t, "javascript image", bad, 400, "The image links must be an http or https URL.", `value="T"`)
	// Another solver sees it only once approved, escaped.
	if strings.Contains(evil.get("/challenges/warmup").body, "My &lt;b&gt;way") {
		t.Fatal("a pending writeup is shown to another player")
	}
	q, err := s.Svc.Content.ModerationQueue(context.Background(), ctf.Operator)
	if err != nil || len(q) != 1 {
		t.Fatalf("queue %v %v", q, err)
	}
	if _, err := s.Svc.Content.ModerateWriteup(context.Background(), ctf.Operator, q[0].ID, true, ""); err != nil {
		t.Fatal(err)
	}
	read := evil.get("/challenges/warmup")
	want(t, "approved writeup", read, 200, "My &lt;b&gt;way&lt;/b&gt;", "<h1>How</h1>", `rel="noopener noreferrer nofollow"`)
	if strings.Contains(read.body, "<script>alert('wu')") || strings.Contains(read.body, "javascript:alert") {
		t.Error("hostile writeup content reached the page")
	}
	if _, err := s.Svc.Content.ModerateWriteup(context.Background(), ctf.Operator, q[0].ID, false, "Spoils <i>another</i> one"); err != nil {
		t.Fatal(err)
	}
	want(t, "rejected", pam.get("/challenges/warmup"), 200, "Rejected: Spoils &lt;i&gt;another&lt;/i&gt; one", `status rejected`)
}
