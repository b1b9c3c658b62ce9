package web_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/server"
	"github.com/pquerna/otp/totp"
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
	want(t, "board", board, 200, "Warmup", "Next", "misc", "web", "🔒 locked")
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

func TestSignUpPlayLogOut(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	b := newBrowser(t, s)
	bad := b.post("/signup", url.Values{"username": {"a b"}, "email": {"x@example.com"}, "password": {"long enough"}, "password2": {"long enough"}})
	want(t, "bad username", bad, 400, "username must be")
	differ := b.post("/signup", url.Values{"username": {"newbie"}, "email": {"n@example.com"}, "password": {"long enough"}, "password2": {"other one"}})
	want(t, "passwords differ", differ, 400, "The two passwords differ")
	ok := b.post("/signup", url.Values{"username": {"newbie"}, "email": {"n@example.com"}, "password": {"long enough"}, "password2": {"long enough"}})
	if ok.status != http.StatusSeeOther || ok.header.Get("Location") != "/" {
		t.Fatalf("sign up: %d %v", ok.status, ok.header)
	}
	if c := ok.header.Get("Set-Cookie"); !strings.Contains(c, "flagship_session=") || !strings.Contains(c, "HttpOnly") || !strings.Contains(c, "SameSite=Lax") {
		t.Fatalf("session cookie %q", c)
	}
	want(t, "board signed in", b.get("/"), 200, "newbie", "0 of 2 solved")
	want(t, "wrong flag", b.post("/challenges/warmup/submit", url.Values{"flag": {"flag{nope}"}}), 400, "Wrong flag", `value="flag{nope}"`)
	want(t, "locked", b.post("/challenges/next/submit", url.Values{"flag": {"flag{next}"}}), 403, "locked")
	right := b.post("/challenges/warmup/submit", url.Values{"flag": {"flag{warm}"}})
	want(t, "right flag", right, 200, "Correct!", "+50 points", "First solve", "You solved it")
	want(t, "solved again", b.post("/challenges/warmup/submit", url.Values{"flag": {"flag{warm}"}}), 409, "already solved")
	// The public API takes the same cookie, and refuses it cross-origin on
	// an unsafe request.
	want(t, "API with the cookie", b.get("/api/public/me"), 200, `"username":"newbie"`)
	cross := b.do("POST", "/api/public/challenges/next/submit", nil, "Content-Type: application/json", "Sec-Fetch-Site: cross-site")
	if cross.status != 403 {
		t.Errorf("cross-site API submit with the cookie: %d %s", cross.status, cross.body)
	}
	// A form posted from another site is refused, and changes nothing.
	evil := b.do("POST", "/logout", url.Values{}, "Sec-Fetch-Site: cross-site")
	want(t, "cross-site logout", evil, 403, "another site")
	want(t, "still signed in", b.get("/"), 200, "newbie")
	out := b.post("/logout", url.Values{})
	if out.status != http.StatusSeeOther {
		t.Fatalf("log out: %d", out.status)
	}
	if strings.Contains(b.get("/").body, "newbie") {
		t.Error("still signed in after logging out")
	}
	want(t, "submit signed out", b.post("/challenges/next/submit", url.Values{"flag": {"x"}}), http.StatusSeeOther)
}

func TestLogInWithTheThrottle(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	b := newBrowser(t, s)
	want(t, "wrong password", b.post("/login", url.Values{"username": {"pam"}, "password": {"nope"}}), 401, "wrong username or password")
	ok := b.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}, "next": {"/challenges/warmup"}})
	if ok.status != http.StatusSeeOther || ok.header.Get("Location") != "/challenges/warmup" {
		t.Fatalf("log in: %d %v", ok.status, ok.header)
	}
	offsite := newBrowser(t, s).post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}, "next": {"//evil.example/"}})
	if offsite.header.Get("Location") != "/" {
		t.Errorf("next=//evil.example/ redirected to %q", offsite.header.Get("Location"))
	}
	for range 5 {
		newBrowser(t, s).post("/login", url.Values{"username": {"evil"}, "password": {"nope"}})
	}
	locked := newBrowser(t, s).post("/login", url.Values{"username": {"evil"}, "password": {"evil-password"}})
	want(t, "throttled", locked, 429, "Wait")
	if locked.header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
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

func TestSettingsTwoFactorKeysAndSessions(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	b := newBrowser(t, s)
	want(t, "settings signed out", b.get("/settings"), http.StatusSeeOther)
	b.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})
	want(t, "settings", b.get("/settings"), 200, "Profile", "Two-factor", "Off.", "Sessions", "API keys")
	want(t, "javascript avatar", b.post("/settings/profile", url.Values{"name": {"Pam"}, "image": {"javascript:alert(1)"}}), 400, "image must be an http or https URL")
	want(t, "profile", b.post("/settings/profile", url.Values{"name": {"Pam P."}, "image": {"https://example.com/p.png"}}), 200, "Profile saved", `value="Pam P."`)

	// An API key: shown once with a curl line, works, then revoked.
	made := b.post("/settings/keys", url.Values{"name": {"laptop"}})
	want(t, "new key", made, 200, "shown only this once", "Authorization: Bearer fsk_", "/api/public/me</pre>")
	key := regexp.MustCompile(`<code id="newkey">(fsk_[a-z2-7]{8}_[a-z2-7]{52})</code>`).FindStringSubmatch(made.body)
	if key == nil {
		t.Fatal("no key on the page")
	}
	if strings.Contains(b.get("/settings").body, key[1]) {
		t.Fatal("the key's secret is shown again")
	}
	api := newBrowser(t, s)
	want(t, "the key works", api.do("GET", "/api/public/me", nil, "Authorization: Bearer "+key[1]), 200, `"username":"pam"`)
	id := regexp.MustCompile(`name="id" value="([0-9a-f-]{36})"><button type="submit" class="link">Revoke`).FindStringSubmatch(b.get("/settings").body)
	if id == nil {
		t.Fatal("no revoke button")
	}
	want(t, "revoke", b.post("/settings/keys/revoke", url.Values{"id": {id[1]}}), 200, "Key revoked", "revoked 20")
	want(t, "the key is refused", api.do("GET", "/api/public/me", nil, "Authorization: Bearer "+key[1]), 401)

	// Two-factor: set up with the QR code's secret, then log in with a code.
	begin := b.post("/settings/2fa/begin", url.Values{})
	want(t, "2FA begin", begin, 200, `src="data:image/png;base64,`, "Scan the code")
	secret := regexp.MustCompile(`<code id="secret">([A-Z2-7]+)</code>`).FindStringSubmatch(begin.body)
	if secret == nil {
		t.Fatal("no secret on the page")
	}
	code, _ := totp.GenerateCode(secret[1], time.Now())
	on := b.post("/settings/2fa/confirm", url.Values{"code": {code}})
	want(t, "2FA on", on, 200, "Two-factor authentication is on", `id="recovery"`)
	recovery := regexp.MustCompile(`(?m)^([a-z2-9]{5}-[a-z2-9]{5})$`).FindAllString(on.body, -1)
	if len(recovery) != 10 {
		t.Fatalf("%d recovery codes on the page, want 10", len(recovery))
	}
	other := newBrowser(t, s)
	want(t, "password alone", other.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}}), 401, "enter your password again with the code")
	ok := other.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}, "code": {recovery[0]}})
	if ok.status != http.StatusSeeOther {
		t.Fatalf("log in with a recovery code: %d %s", ok.status, ok.body)
	}
	// Two sessions now: end the other one from the first.
	want(t, "two sessions", b.get("/settings"), 200, "(this one)")
	want(t, "log out the others", b.post("/settings/sessions/revoke-others", url.Values{}), 200, "other sessions are logged out")
	if strings.Contains(other.get("/").body, "pam") {
		t.Error("the other session still works")
	}
	// A password change keeps this session.
	want(t, "password", b.post("/settings/password", url.Values{"current": {"pam-password"}, "new": {"a new password"}, "new2": {"a new password"}}), 200, "Password changed")
	want(t, "still signed in", b.get("/settings"), 200, "Pam P.")
}

func TestRateAndWriteUp(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event+`solves:
  - {user: evil, challenge: warmup}
`)
	pam, evil := newBrowser(t, s), newBrowser(t, s)
	pam.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})
	evil.post("/login", url.Values{"username": {"evil"}, "password": {"evil-password"}})
	want(t, "before solving", pam.get("/challenges/warmup"), 200, "Solve it to read the writeups")
	want(t, "rate before solving", pam.post("/challenges/warmup/review", url.Values{"stars": {"5"}, "difficulty": {"2"}}), 403)
	pam.post("/challenges/warmup/submit", url.Values{"flag": {"flag{warm}"}})
	want(t, "rate", pam.post("/challenges/warmup/review", url.Values{"stars": {"4"}, "difficulty": {"3"}}), 200, "rating is saved", "★ 4.0", `<option value="4" selected>`)
	want(t, "rate out of bounds", pam.post("/challenges/warmup/review", url.Values{"stars": {"9"}, "difficulty": {"3"}}), 400, "stars must be")
	hostile := "# How\n<script>alert('wu')</script> [click](javascript:alert(1))"
	saved := pam.post("/challenges/warmup/writeup", url.Values{"title": {"My <b>way</b>"}, "content": {hostile}, "images": {"https://example.com/a.png\r\n"}})
	want(t, "writeup", saved, 200, "awaits moderation", `<span class="status pending">pending</span>`, "My &lt;b&gt;way&lt;/b&gt;")
	bad := pam.post("/challenges/warmup/writeup", url.Values{"title": {"T"}, "content": {"C"}, "images": {"javascript:alert(1)"}})
	want(t, "javascript image", bad, 400, "images must be an http or https URL", `value="T"`)
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

func TestAdminPagesRefusePlayers(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	b := newBrowser(t, s)
	want(t, "admin signed out", b.get("/admin"), http.StatusSeeOther)
	b.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})
	for _, path := range []string{"/admin", "/admin/challenges", "/admin/challenges/new", "/admin/challenges/warmup", "/admin/writeups", "/admin/users", "/admin/audit"} {
		want(t, "player on "+path, b.get(path), 403, "only admins")
	}
	evilID := s.Svc.Scoreboard.Profile(mustUser(t, s, "evil")).ID
	for path, form := range map[string]url.Values{
		"/admin/users":      {"id": {evilID}, "action": {"ban"}},
		"/admin/challenges": {"title": {"Sneaky"}, "categories": {"x"}, "points": {"1"}, "difficulty": {"Easy"}, "flagKind0": {"static"}, "flagContent0": {"f"}},
		"/admin/writeups":   {"id": {"x"}, "decision": {"approve"}},
	} {
		want(t, "player posts "+path, b.post(path, form), 403)
	}
	if strings.Contains(newBrowser(t, s).get("/").body, "Sneaky") || strings.Contains(newBrowser(t, s).get("/admin/challenges").body, "Sneaky") {
		t.Error("a player's admin form changed something")
	}
	if log, _ := s.Svc.Admin.AuditLog(context.Background(), ctf.Operator, 0, 10); len(log) != 0 {
		t.Errorf("refused admin forms were audited: %+v", log)
	}
}

func mustUser(t *testing.T, s *apitest.Server, username string) string {
	t.Helper()
	u, err := s.Svc.Admin.UserByName(context.Background(), ctf.Operator, username)
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}

func TestAdminRunsTheEvent(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	root, pam := newBrowser(t, s), newBrowser(t, s)
	root.post("/login", url.Values{"username": {"root"}, "password": {"root-password"}})
	pam.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})
	want(t, "overview", root.get("/admin"), 200, "Event overview", "Players", "Writeups to moderate")
	want(t, "new form", root.get("/admin/challenges/new"), 200, `enctype="multipart/form-data"`, "flagContent0")

	fields := map[string]string{"title": "Zip Me", "categories": "forensics, misc", "difficulty": "Medium", "points": "150",
		"description": "Find the **flag**.", "flagKind0": "regex", "flagContent0": `flag\{a\})|(?:.*`, "requires": "warmup"}
	bad := root.multipartPost("/admin/challenges", fields, "file", "handout.zip", []byte("PK zip bytes"))
	want(t, "escaping regex", bad, 400, "flags[0]", `value="Zip Me"`)
	fields["flagContent0"] = `flag\{z[0-9]+\}`
	ok := root.multipartPost("/admin/challenges", fields, "file", "handout.zip", []byte("PK zip bytes"))
	if ok.status != http.StatusSeeOther || ok.header.Get("Location") != "/admin/challenges/zip-me?saved=1" {
		t.Fatalf("create: %d %s\n%.1500s", ok.status, ok.header.Get("Location"), ok.body)
	}
	// Players see it (after its prerequisite), download its file.
	c := pam.get("/challenges/zip-me")
	want(t, "player sees it", c, 200, "<strong>flag</strong>", "Download handout.zip", "Requires")
	file := regexp.MustCompile(`href="(http://[^"]+/files/[0-9a-f]{64}/handout\.zip)"`).FindStringSubmatch(c.body)
	if file == nil {
		t.Fatal("no file link")
	}
	got := newBrowser(t, s).do("GET", strings.TrimPrefix(file[1], s.URL), nil)
	if got.status != 200 || got.body != "PK zip bytes" {
		t.Fatalf("download: %d %q", got.status, got.body)
	}
	// Edit: points and hide; the player then gets 404.
	edit := root.get("/admin/challenges/zip-me")
	id := regexp.MustCompile(`name="id" value="([0-9a-f-]{36})"`).FindStringSubmatch(edit.body)
	if id == nil {
		t.Fatal("no id in the edit form")
	}
	fields["id"], fields["points"], fields["hidden"] = id[1], "175", "1"
	if r := root.multipartPost("/admin/challenges", fields, "", "", nil); r.status != http.StatusSeeOther {
		t.Fatalf("edit: %d %.1500s", r.status, r.body)
	}
	want(t, "hidden now", pam.get("/challenges/zip-me"), 404)
	want(t, "listed hidden", root.get("/admin/challenges"), 200, "zip-me", "hidden")

	// Moderation.
	pam.post("/challenges/warmup/submit", url.Values{"flag": {"flag{warm}"}})
	pam.post("/challenges/warmup/writeup", url.Values{"title": {"Pam's way"}, "content": {"Easy."}})
	queue := root.get("/admin/writeups")
	wid := regexp.MustCompile(`name="id" value="([0-9a-f-]{36})"`).FindStringSubmatch(queue.body)
	if wid == nil {
		t.Fatalf("no writeup in the queue:\n%.2000s", queue.body)
	}
	want(t, "reject", root.post("/admin/writeups", url.Values{"id": {wid[1]}, "decision": {"reject"}, "reason": {"Too short"}}), 200, "Writeup rejected", "Nothing waits")
	want(t, "reason shown", pam.get("/challenges/warmup"), 200, "Rejected: Too short")

	// Users: search, ban, promote; an admin cannot ban themselves.
	want(t, "search", root.get("/admin/users?q=pam"), 200, "pam@example.com")
	pamID := mustUser(t, s, "pam")
	want(t, "ban", root.post("/admin/users", url.Values{"id": {pamID}, "action": {"ban"}}), 200, "banned")
	// A ban ends the player's session (they are asked to log in again,
	// and the log-in says they are banned).
	want(t, "banned player submits", pam.post("/challenges/next/submit", url.Values{"flag": {"flag{next}"}}), http.StatusSeeOther)
	want(t, "banned player logs in", pam.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}}), 403, "banned")
	want(t, "self ban", root.post("/admin/users", url.Values{"id": {mustUser(t, s, "root")}, "action": {"ban"}}), 403, "yourself")
	want(t, "promote", root.post("/admin/users", url.Values{"id": {mustUser(t, s, "evil")}, "action": {"promote"}}), 200, "Make player")
	audit := root.get("/admin/audit")
	want(t, "audit log", audit, 200, "challenge.create", "challenge.update", "writeup.reject", "user.ban", "user.role")
}

func TestClosedRegistration(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	closed := platform.New(s.DB, platform.Options{RegistrationClosed: true, FilesDir: t.TempDir()})
	if err := closed.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(server.New(closed, server.Options{}).Handler())
	t.Cleanup(hs.Close)
	b := &browser{t: t, base: hs.URL, c: newBrowser(t, s).c}
	want(t, "closed page", b.get("/signup"), 200, "Registration is closed")
	want(t, "closed form", b.post("/signup", url.Values{"username": {"late"}, "email": {"late@example.com"}, "password": {"long enough"}, "password2": {"long enough"}}), 403, "registration is closed")
}
