package web_test

import (
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/store"
)

// TestBoardUnsolvedFilter: "unsolved only" is a link (?unsolved=1) that
// hides what the caller solved, alone or with the other filters, and the
// form shows it set.
func TestBoardUnsolvedFilter(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event+`solves:
  - {user: pam, challenge: warmup}
`)
	pam, anon := newBrowser(t, s), newBrowser(t, s)
	pam.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})
	const warmup, next = `href="/challenges/warmup"`, `href="/challenges/next"`
	for _, tc := range []struct {
		name      string
		b         *browser
		path      string
		has, lack []string
	}{
		{"all", pam, "/", []string{warmup, next, "1 of 2 solved"}, nil},
		{"unsolved", pam, "/?unsolved=1", []string{next, `name="unsolved" value="1" checked`, `<a href="/challenges">Clear</a>`}, []string{warmup}},
		{"unsolved in misc", pam, "/?category=misc&unsolved=1", []string{"No challenge matches."}, []string{warmup, next}},
		{"unsolved in web", pam, "/?category=web&unsolved=1", []string{next}, []string{warmup}},
		{"unsolved Easy", pam, "/?difficulty=Easy&unsolved=1", []string{"No challenge matches."}, []string{warmup, next}},
		{"solved ones stay without it", pam, "/?category=misc", []string{warmup}, []string{`value="1" checked`}},
		// Nothing is solved when signed out: the filter hides nothing.
		{"signed out", anon, "/?unsolved=1", []string{warmup, next}, nil},
	} {
		p := tc.b.get(tc.path)
		want(t, tc.name, p, 200, tc.has...)
		for _, l := range tc.lack {
			if strings.Contains(p.body, l) {
				t.Errorf("%s: %s shows %s", tc.name, tc.path, l)
			}
		}
	}
}

// TestFlagFormShowsTheWait: past the rate limit of wrong flags, the flag
// form (without script) answers 429 with how long to wait, in words a
// person reads, and a Retry-After; once the window has passed, flags are
// checked again.
func TestFlagFormShowsTheWait(t *testing.T) {
	t.Parallel()
	start := time.Now().UTC().Truncate(time.Millisecond)
	var elapsed atomic.Int64
	now := func() time.Time { return start.Add(time.Duration(elapsed.Load())) }
	s := apitest.Start(t, event, apitest.Options{RateLimit: store.RateLimit{Max: 3, Window: 10 * time.Minute}, Now: now})
	b := newBrowser(t, s)
	b.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})
	submit := func(flag string) page { return b.send("/challenges/warmup/submit", url.Values{"flag": {flag}}) }
	for i := range 3 {
		want(t, "wrong flag", submit("flag{guess"+string(rune('0'+i))+"}"), 200, "Wrong flag.")
	}
	for _, tc := range []struct {
		after      time.Duration // since the first wrong flag
		flag       string
		status     int
		msg        string
		retryAfter string
	}{
		{0, "flag{guess3}", 200, "Too many wrong flags: wait 10 minutes before the next try.", "600"},
		{0, "flag{warm}", 200, "Too many wrong flags: wait 10 minutes before the next try.", "600"}, // the right one too
		{8*time.Minute + 30*time.Second, "flag{guess3}", 200, "Too many wrong flags: wait a minute before the next try.", "90"},
		{9*time.Minute + 45*time.Second, "flag{guess3}", 200, "Too many wrong flags: wait 15 seconds before the next try.", "15"},
		{10*time.Minute + time.Second, "flag{warm}", 200, "Correct!", ""},
	} {
		elapsed.Store(int64(tc.after))
		p := submit(tc.flag)
		want(t, tc.after.String()+" "+tc.flag, p, tc.status, tc.msg)
		if got := p.header.Get("Retry-After"); got != tc.retryAfter {
			t.Errorf("after %s: Retry-After %q, want %q", tc.after, got, tc.retryAfter)
		}
		if tc.retryAfter != "" && !strings.Contains(p.body, `value="`+tc.flag+`"`) {
			t.Errorf("after %s: the refused flag is not kept in the form", tc.after)
		}
	}
}

// TestNoPageShowsAFlag: after players solve (and miss) with the web form,
// every page a visitor, the solver, another player and an admin can reach
// is searched for the flags' text. The decision, as the contract has it:
//   - the solver's own page of a challenge they solved says which flag they
//     solved it with (the API's submittedFlag, given to the solver only):
//     exactly once, in "You solved it with <code>…</code>";
//   - an admin's challenge editor shows the challenge's flags, since that is
//     where they are set; it answers 403 to players;
//   - no other page, for anyone, holds any flag: not the board, the
//     scoreboard, a profile, settings, another player's challenge page, nor
//     the admin's view of a challenge as players see it.
func TestNoPageShowsAFlag(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	anon, pam, evil, root := newBrowser(t, s), newBrowser(t, s), newBrowser(t, s), newBrowser(t, s)
	for name, b := range map[string]*browser{"pam": pam, "evil": evil, "root": root} {
		b.post("/login", url.Values{"username": {name}, "password": {name + "-password"}})
	}
	flags := []string{"flag{warm}", "flag{next}", "flag{draft}"}
	count := func(body string) map[string]int {
		m := map[string]int{}
		for _, f := range flags {
			if n := strings.Count(body, f); n > 0 {
				m[f] = n
			}
		}
		return m
	}
	// The answers to the solving forms follow the same decision.
	want(t, "pam solves warmup", pam.send("/challenges/warmup/submit", url.Values{"flag": {"flag{warm}"}}), 200, "Correct!",
		"You solved it with <code>flag{warm}</code>")
	want(t, "pam misses next", pam.send("/challenges/next/submit", url.Values{"flag": {"flag{guess}"}}), 200, "Wrong flag.")
	solved := pam.send("/challenges/next/submit", url.Values{"flag": {" flag{next} "}})
	want(t, "pam solves next", solved, 200, "You solved it with <code>flag{next}</code>")
	if got := count(solved.body); len(got) != 1 || got["flag{next}"] != 1 {
		t.Errorf("the answer to pam's solve holds the flags %v", got)
	}
	want(t, "evil misses warmup", evil.send("/challenges/warmup/submit", url.Values{"flag": {"flag{warmish}"}}), 200, "Wrong flag.")

	pamProfile, evilProfile := "/users/"+mustUser(t, s, "pam"), "/users/"+mustUser(t, s, "evil")
	playerPages := []string{"/", "/?unsolved=1", "/challenges/warmup", "/challenges/next", "/scoreboard", pamProfile, evilProfile}
	adminPages := []string{"/admin", "/admin/challenges", "/admin/challenges/warmup", "/admin/challenges/draft", "/admin/writeups",
		"/admin/users", "/admin/audit", "/admin/instances", "/admin/submissions", "/admin/players/pam"}
	type visit struct {
		who    string
		b      *browser
		path   string
		status int
		flags  map[string]int // the flags the page may hold, and how often
	}
	var visits []visit
	for _, p := range playerPages {
		visits = append(visits, visit{"visitor", anon, p, 200, nil}, visit{"evil", evil, p, 200, nil}, visit{"root", root, p, 200, nil})
		var own map[string]int
		switch p {
		case "/challenges/warmup":
			own = map[string]int{"flag{warm}": 1}
		case "/challenges/next":
			own = map[string]int{"flag{next}": 1}
		}
		visits = append(visits, visit{"pam", pam, p, 200, own})
	}
	for _, who := range []struct {
		name string
		b    *browser
	}{{"pam", pam}, {"evil", evil}, {"root", root}} {
		visits = append(visits, visit{who.name, who.b, "/settings", 200, nil})
	}
	for _, p := range adminPages {
		var editor map[string]int
		switch p {
		case "/admin/challenges/warmup":
			editor = map[string]int{"flag{warm}": 1}
		case "/admin/challenges/draft":
			editor = map[string]int{"flag{draft}": 1}
		}
		visits = append(visits, visit{"root", root, p, 200, editor}, visit{"pam", pam, p, 403, nil}, visit{"evil", evil, p, 403, nil},
			visit{"visitor", anon, p, http.StatusSeeOther, nil})
	}
	for _, v := range visits {
		p := v.b.get(v.path)
		if p.status != v.status {
			t.Errorf("%s on %s: status %d, want %d", v.who, v.path, p.status, v.status)
			continue
		}
		got := count(p.body)
		if len(got) != len(v.flags) {
			t.Errorf("%s on %s: the page holds the flags %v, want %v", v.who, v.path, got, v.flags)
			continue
		}
		for f, n := range v.flags {
			if got[f] != n {
				t.Errorf("%s on %s: %s %d times, want %d", v.who, v.path, f, got[f], n)
			}
		}
		if v.who == "pam" && strings.HasPrefix(v.path, "/challenges/") && !strings.Contains(p.body, "You solved it with <code>flag{") {
			t.Errorf("pam on %s: the flag is not where the contract puts it", v.path)
		}
	}
}

// boardEvent has a challenge in two categories and tags to filter by.
const boardEvent = `
users:
  - {username: pam, email: pam@example.com, password: pam-password}
challenges:
  - {slug: oracle, title: Padding Oracle, categories: [crypto, web], difficulty: Medium, points: 200, flags: ['flag{o}'], tags: [aes, http]}
  - {slug: baby-rsa, title: Baby RSA, categories: [crypto], difficulty: Easy, points: 100, flags: ['flag{r}'], tags: [rsa, math]}
  - {slug: cookie, title: Cookie Jar, categories: [web], difficulty: Easy, points: 100, flags: ['flag{c}'], tags: [http]}
  - {slug: sanity, title: Sanity Check, categories: [warm up], difficulty: Easy, points: 10, flags: ['flag{s}']}
`

// boardSections reads the board's sections: each category's heading and
// the challenges (slugs) under it, in order.
func boardSections(body string) map[string][]string {
	out := map[string][]string{}
	heading := regexp.MustCompile(`<h2 id="cat-[^"]*">([^<]+)</h2>`)
	link := regexp.MustCompile(`<a href="/challenges/([^"]+)">`)
	for _, sec := range strings.Split(body, `<section class="category"`)[1:] {
		m := heading.FindStringSubmatch(sec)
		if m == nil {
			continue
		}
		out[m[1]] = []string{}
		for _, l := range link.FindAllStringSubmatch(sec, -1) {
			out[m[1]] = append(out[m[1]], l[1])
		}
	}
	return out
}

// TestBoardCategoriesTagsAndSearch (issue 20, fix 15): a challenge in two
// categories is under each; tags show on cards and filter the board (any
// of those chosen); ?q= finds titles ignoring case; filters combine, stay
// in the form, and an empty result says so.
func TestBoardCategoriesTagsAndSearch(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, boardEvent)
	b := newBrowser(t, s)
	for _, tc := range []struct {
		name     string
		path     string
		sections map[string][]string
		has      []string
	}{
		{"two categories: under each", "/", map[string][]string{"crypto": {"baby-rsa", "oracle"}, "warm up": {"sanity"}, "web": {"cookie", "oracle"}},
			[]string{`<span class="tag">aes</span> <span class="tag">http</span>`, `name="tag" value="rsa" >`}},
		{"one category: only there", "/?category=web", map[string][]string{"web": {"cookie", "oracle"}}, []string{"Shown: 2 of 4 challenges."}},
		{"a tag", "/?tag=http", map[string][]string{"crypto": {"oracle"}, "web": {"cookie", "oracle"}},
			[]string{`name="tag" value="http" checked>`, `name="tag" value="aes" >`, "Shown: 2 of 4 challenges.", `<a href="/challenges">Clear</a>`}},
		{"two tags: any of them", "/?tag=rsa&tag=aes", map[string][]string{"crypto": {"baby-rsa", "oracle"}, "web": {"oracle"}}, nil},
		{"search ignores case", "/?q=rsa", map[string][]string{"crypto": {"baby-rsa"}}, []string{`name="q" value="rsa"`}},
		{"search, upper case", "/?q=ORACLE", map[string][]string{"crypto": {"oracle"}, "web": {"oracle"}}, nil},
		{"search inside a word", "/?q=+jar+", map[string][]string{"web": {"cookie"}}, nil},
		{"search, tag and category", "/?q=o&tag=http&category=crypto", map[string][]string{"crypto": {"oracle"}}, nil},
		{"nothing matches", "/?q=cookie&tag=rsa", map[string][]string{}, []string{"No challenge matches.", "Shown: 0 of 4 challenges."}},
		{"an unknown tag stays chosen", "/?tag=nope", map[string][]string{}, []string{"No challenge matches.", `name="tag" value="nope" checked>`}},
		{"the search is escaped", "/?q=%22%3E%3Cb%3E", map[string][]string{}, []string{`value="&#34;&gt;&lt;b&gt;"`}},
	} {
		p := b.get(tc.path)
		want(t, tc.name, p, 200, tc.has...)
		if got := boardSections(p.body); !reflect.DeepEqual(got, tc.sections) {
			t.Errorf("%s: %s shows %v, want %v", tc.name, tc.path, got, tc.sections)
		}
		if len(tc.sections) > 0 && strings.Contains(p.body, "No challenge matches.") {
			t.Errorf("%s: says nothing matches", tc.name)
		}
	}
	// Each section is named by its heading, whatever its category's name.
	all := b.get("/").body
	for _, m := range regexp.MustCompile(`aria-labelledby="([^"]*)"`).FindAllStringSubmatch(all, -1) {
		if strings.ContainsAny(m[1], " \t\n") || !strings.Contains(all, `id="`+m[1]+`"`) {
			t.Errorf("aria-labelledby=%q names no element", m[1])
		}
	}
	if p := b.get("/"); strings.Contains(p.body, "Shown:") || strings.Contains(p.body, `<a href="/challenges">Clear</a>`) {
		t.Error("the unfiltered board counts what it shows or offers to clear")
	}
}
