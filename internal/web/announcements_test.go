package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
)

// TestAnnouncements: an admin posts (refusals shown beside the form); every
// page's top bar counts what this browser has not seen; the list marks it
// "new", renders its Markdown safely, links its challenge, and viewing it
// sets the flagship_seen cookie so nothing is unread after.
func TestAnnouncements(t *testing.T) {
	t.Parallel()
	clk := newTestClock()
	s := apitest.Start(t, adminEvent, apitest.Options{Now: clk.now})
	root, anon := logIn(t, s, "root"), newBrowser(t, s)
	want(t, "none yet", anon.get("/announcements"), 200, "No announcement yet.", `data-live="announcements"`)
	if strings.Contains(anon.get("/").body, "unread") {
		t.Error("an unread count with no announcement")
	}
	want(t, "admin page", root.get("/admin/announcements"), 200, "Post an announcement", `<option value="warmup"`)
	if strings.Contains(root.get("/admin/announcements").body, `value="draft"`) {
		t.Error("a hidden challenge is offered")
	}
	for _, tc := range []struct {
		name string
		form url.Values
		msg  string
	}{
		{"no title", url.Values{"title": {"  "}, "body": {"x"}}, "Title is required"},
		{"hidden challenge", url.Values{"title": {"T"}, "body": {"x"}, "challenge": {"draft"}}, "Challenge no challenge has the slug &#34;draft&#34;"},
	} {
		want(t, tc.name, root.post("/admin/announcements", tc.form), 400, `id="post-error">`+tc.msg, `value="`+tc.form.Get("title")+`"`)
	}
	if len(s.Svc.Event.Announcements()) != 0 {
		t.Fatal("a refused announcement was posted")
	}

	posted := root.post("/admin/announcements", url.Values{"title": {"Warmup fixed"}, "challenge": {"warmup"},
		"body": {"The flag is **case-sensitive**. <script>alert(1)</script> [x](javascript:alert(1))"}})
	if posted.status != http.StatusSeeOther || posted.header.Get("Location") != "/admin/announcements?posted=1" {
		t.Fatalf("post: %d %s\n%.1500s", posted.status, posted.header.Get("Location"), posted.body)
	}
	clk.add(time.Second)
	root.post("/admin/announcements", url.Values{"title": {"Welcome"}, "body": {"Have fun."}})
	want(t, "admin list", root.get("/admin/announcements?posted=1"), 200, "The announcement is posted.", "Warmup fixed", "Welcome")

	want(t, "count on the board", anon.get("/"), 200, `<span class="count" data-unread>2<span class="sr"> unread</span></span>`)
	list := anon.get("/announcements")
	want(t, "list", list, 200, "<strong>case-sensitive</strong>", `about <a href="/challenges/warmup">Warmup</a>`, `<span class="mark new">new</span>`)
	if strings.Index(list.body, "Welcome") > strings.Index(list.body, "Warmup fixed") {
		t.Error("not newest first")
	}
	if strings.Count(list.body, `class="mark new"`) != 2 || strings.Contains(list.body, "<script>alert") || strings.Contains(list.body, "javascript:") {
		t.Errorf("marks or unsafe Markdown:\n%.3000s", list.body)
	}
	if strings.Contains(list.body, `data-unread`) {
		t.Error("the list page counts what it shows as unread")
	}
	newest := s.Svc.Event.Announcements()[0].CreatedAt.UnixMilli()
	if c := list.header.Get("Set-Cookie"); !strings.Contains(c, "flagship_seen="+strconv.FormatInt(newest, 10)) || !strings.Contains(c, "Path=/") {
		t.Errorf("seen cookie: %q", c)
	}
	again := anon.get("/announcements")
	if strings.Contains(again.body, `class="mark new"`) || strings.Contains(anon.get("/scoreboard").body, "data-unread") {
		t.Error("still unread after viewing")
	}
	if again.header.Get("Set-Cookie") != "" {
		t.Error("the cookie is set again with nothing new")
	}

	clk.add(time.Second)
	if _, err := s.Svc.Event.PostAnnouncement(context.Background(), ctf.Operator, "Hint for next", "Look closer.", "next"); err != nil {
		t.Fatal(err)
	}
	want(t, "one more", anon.get("/scoreboard"), 200, `data-unread>1<span class="sr"> unread`)
	third := anon.get("/announcements")
	if strings.Count(third.body, `class="mark new"`) != 1 || strings.Index(third.body, `class="mark new"`) > strings.Index(third.body, "Welcome") {
		t.Errorf("only the newest is new:\n%.3000s", third.body)
	}
	// Another browser has seen nothing: everything is new to it.
	want(t, "a new browser", newBrowser(t, s).get("/"), 200, `data-unread>3<span class="sr">`)
}
