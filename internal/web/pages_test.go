package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
)

func TestPagesCarrySecurityHeaders(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	b := newBrowser(t, s)
	for _, path := range []string{"/", "/login", "/signup", "/challenges/warmup", "/nope"} {
		p := b.get(path)
		csp := p.header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("%s: CSP %q", path, csp)
		}
		if p.header.Get("X-Content-Type-Options") != "nosniff" || p.header.Get("Referrer-Policy") == "" {
			t.Errorf("%s: headers %v", path, p.header)
		}
		if strings.Contains(p.body, "<script>") && !strings.Contains(p.body, `<script src="/static/`) {
			t.Errorf("%s: an inline script", path)
		}
	}
	want(t, "unknown page", b.get("/nope"), 404, "Not Found")
	// Assets under hashed names, cached for a year.
	css := regexp.MustCompile(`/static/app\.[0-9a-f]{10}\.css`).FindString(b.get("/").body)
	if css == "" {
		t.Fatal("no hashed stylesheet link")
	}
	p := b.get(css)
	if p.status != 200 || !strings.Contains(p.header.Get("Cache-Control"), "immutable") || !strings.HasPrefix(p.header.Get("Content-Type"), "text/css") {
		t.Fatalf("stylesheet: %d %v", p.status, p.header)
	}
	want(t, "an old asset name", b.get("/static/app.0000000000.css"), 404)
}

func TestBoardAndChallengeEscapeEverything(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	b := newBrowser(t, s)
	board := b.get("/")
	want(t, "board", board, 200, "Warmup", "Next", "misc", "web", "</svg> locked")
	if strings.Contains(board.body, "Secret Draft") {
		t.Error("the board shows a hidden challenge")
	}
	want(t, "filtered board", b.get("/?category=web"), 200, "Next")
	if strings.Contains(b.get("/?difficulty=Hard").body, "Warmup") {
		t.Error("the difficulty filter kept an Easy challenge")
	}
	c := b.get("/challenges/warmup")
	want(t, "challenge", c, 200, "<strong>hi</strong>", "&lt;script&gt;alert(1)&lt;/script&gt;", "Log in</a> to submit")
	if strings.Contains(c.body, "<script>alert") || strings.Contains(c.body, "javascript:alert") {
		t.Errorf("hostile Markdown or names reached the page:\n%s", c.body)
	}
	want(t, "hidden challenge", b.get("/challenges/draft"), 404)
	want(t, "instance details", b.get("/challenges/next"), 200, "port 1337", "nc next.example 1337", "Requires", "Warmup")
}

func TestScoreboardPagesAndGraph(t *testing.T) {
	t.Parallel()
	var y strings.Builder
	y.WriteString("users:\n")
	for i := range 60 {
		fmt.Fprintf(&y, "  - {username: p%02d, name: '<b>P%02d</b>', email: p%02d@example.com, password: p%02d-password}\n", i, i, i, i)
	}
	y.WriteString("challenges:\n  - {slug: a, title: A, categories: [misc], difficulty: Easy, points: 10, flags: [f]}\n")
	y.WriteString("  - {slug: b, title: B, categories: [misc], difficulty: Easy, points: 20, flags: [g]}\nsolves:\n")
	for i := range 60 {
		fmt.Fprintf(&y, "  - {user: p%02d, challenge: a, at: 2026-01-05T10:%02d:00Z}\n", i, i)
		if i%3 == 0 {
			fmt.Fprintf(&y, "  - {user: p%02d, challenge: b, at: 2026-01-05T11:%02d:00Z}\n", i, i)
		}
	}
	s := apitest.Start(t, y.String())
	b := newBrowser(t, s)
	first := b.get("/scoreboard")
	want(t, "page 1", first, 200, "60 ranked players", "Page 1 of 2", `rel="next"`, "&lt;b&gt;P00&lt;/b&gt;", "<svg", "Score over time of the top 10")
	if n := strings.Count(first.body, "<polyline"); n != 10 {
		t.Errorf("%d lines in the graph, want 10", n)
	}
	if strings.Contains(first.body, "<b>P") {
		t.Error("a name reached the page unescaped")
	}
	if strings.Count(first.body, "<tr") != 51 {
		t.Errorf("%d table rows on page 1, want 50 and the header", strings.Count(first.body, "<tr")-1)
	}
	want(t, "page 2", b.get("/scoreboard?page=2"), 200, "Page 2 of 2", `rel="prev"`)
	// A player finds their own row: p59 (10 points, solved last) is #60.
	b.post("/login", url.Values{"username": {"p59"}, "password": {"p59-password"}})
	me := b.get("/scoreboard")
	want(t, "my rank", me, 200, `You are <a href="/scoreboard?page=2#me">#60</a>`)
	want(t, "my row", b.get("/scoreboard?page=2"), 200, `id="me"`)
}

func TestProfiles(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event+`solves:
  - {user: evil, challenge: warmup}
`)
	b := newBrowser(t, s)
	board := b.get("/scoreboard")
	link := regexp.MustCompile(`href="(/users/[0-9a-f-]{36})"`).FindStringSubmatch(board.body)
	if link == nil {
		t.Fatal("no profile link on the scoreboard")
	}
	p := b.get(link[1])
	want(t, "public profile", p, 200, "&lt;script&gt;alert(1)&lt;/script&gt;", "#1", "First blood", "Warmup", "misc")
	if strings.Contains(p.body, "evil@example.com") {
		t.Error("the public profile shows the email")
	}
	want(t, "unknown profile", b.get("/users/nope"), 404)
	want(t, "/me signed out", b.get("/me"), http.StatusSeeOther)
	b.post("/login", url.Values{"username": {"evil"}, "password": {"evil-password"}})
	me := b.get("/me")
	if me.status != http.StatusSeeOther || me.header.Get("Location") != link[1] {
		t.Fatalf("/me: %d %s", me.status, me.header.Get("Location"))
	}
	want(t, "own profile", b.get(link[1]), 200, "(you)")
}

// TestScoreboardGraphEndsAtNow (issue 20, fix 12): the graph's time axis
// runs from the event's start to now while the event runs (following the
// clock), to the freeze for the public during a freeze (admins, who see
// the live standings, to now), and to the end once it is over.
func TestScoreboardGraphEndsAtNow(t *testing.T) {
	t.Parallel()
	clk := newTestClock()
	t0 := clk.now()
	at := func(d time.Duration) string { return t0.Add(d).UTC().Format(time.RFC3339) }
	s := apitest.Start(t, adminEvent+fmt.Sprintf(`solves:
  - {user: pam, challenge: warmup, at: %s}
  - {user: evil, challenge: warmup, at: %s}
`, at(-2*time.Hour), at(-time.Hour)), apitest.Options{Now: clk.now})
	start, end, freeze := t0.Add(-3*time.Hour), t0.Add(2*time.Hour), t0.Add(40*time.Minute)
	set := func(ev ctf.Event) {
		t.Helper()
		if _, err := s.Svc.Event.Set(context.Background(), ctf.Operator, ev); err != nil {
			t.Fatal(err)
		}
	}
	set(ctf.Event{Start: &start, End: &end})
	label := func(t time.Time) string { return t.UTC().Format("Jan 2 15:04") }
	axis := regexp.MustCompile(`<ol class="graph-x"[^>]*><li class="t0">([^<]+)</li>.*?<li class="t4">([^<]+)</li></ol>`)
	anon, root := newBrowser(t, s), logIn(t, s, "root")
	for _, tc := range []struct {
		name     string
		move     time.Duration
		b        *browser
		from, to time.Time
	}{
		{"running: now", 0, anon, start, t0},
		{"running, later: the new now", 30 * time.Minute, anon, start, t0.Add(30 * time.Minute)},
		{"frozen, for the public: the freeze", 30 * time.Minute, anon, start, freeze},
		{"frozen, for an admin: now", 0, root, start, t0.Add(time.Hour)},
		{"over: the end", 3 * time.Hour, anon, start, end},
	} {
		clk.add(tc.move)
		if strings.HasPrefix(tc.name, "frozen") {
			set(ctf.Event{Start: &start, End: &end, Freeze: &freeze})
		} else {
			set(ctf.Event{Start: &start, End: &end})
		}
		p := tc.b.get("/scoreboard")
		want(t, tc.name, p, 200, "From "+label(tc.from)+" to "+label(tc.to)+" UTC")
		m := axis.FindStringSubmatch(p.body)
		if m == nil || m[1] != label(tc.from) || m[2] != label(tc.to) {
			t.Errorf("%s: the time axis reads %q, want %s to %s", tc.name, m, label(tc.from), label(tc.to))
		}
	}
}
