package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/server"
)

func TestSignUpPlayLogOut(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	b := newBrowser(t, s)
	bad := b.send("/signup", url.Values{"username": {"a b"}, "email": {"x@example.com"}, "name": {"Newbie <b>"}, "password": {"long enough"}, "password2": {"long enough"}})
	want(t, "bad username", bad, 200, "Username must be", `value="a b"`, `value="x@example.com"`, `value="Newbie &lt;b&gt;"`)
	if strings.Contains(bad.body, "long enough") {
		t.Error("a refused sign-up sends the password back")
	}
	if again := b.get("/signup"); strings.Contains(again.body, "Username must be") || strings.Contains(again.body, `value="a b"`) {
		t.Error("a reload of the sign-up page shows the refusal again")
	}
	differ := b.send("/signup", url.Values{"username": {"newbie"}, "email": {"n@example.com"}, "password": {"long enough"}, "password2": {"other one"}})
	want(t, "passwords differ", differ, 200, "The two passwords differ", `value="newbie"`)
	ok := b.post("/signup", url.Values{"username": {"newbie"}, "email": {"n@example.com"}, "password": {"long enough"}, "password2": {"long enough"}})
	if ok.status != http.StatusSeeOther || ok.header.Get("Location") != "/" {
		t.Fatalf("sign up: %d %v", ok.status, ok.header)
	}
	if c := ok.header.Get("Set-Cookie"); !strings.Contains(c, "flagship_session=") || !strings.Contains(c, "HttpOnly") || !strings.Contains(c, "SameSite=Lax") {
		t.Fatalf("session cookie %q", c)
	}
	want(t, "board signed in", b.get("/"), 200, "newbie", "0 of 2 solved")
	want(t, "wrong flag", b.send("/challenges/warmup/submit", url.Values{"flag": {"flag{nope}"}}), 200, "Wrong flag", `value="flag{nope}"`)
	want(t, "locked", b.send("/challenges/next/submit", url.Values{"flag": {"flag{next}"}}), 200, "locked")
	right := b.send("/challenges/warmup/submit", url.Values{"flag": {"flag{warm}"}})
	want(t, "right flag", right, 200, "Correct!", "+50 points", "First solve", "You solved it")
	want(t, "solved again", b.send("/challenges/warmup/submit", url.Values{"flag": {"flag{warm}"}}), 200, "already solved")
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
	want(t, "submit signed out", b.send("/challenges/next/submit", url.Values{"flag": {"x"}}), 200)
}

func TestLogInWithTheThrottle(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	b := newBrowser(t, s)
	wrong := b.post("/login", url.Values{"username": {"pam"}, "password": {"nope"}, "next": {"/challenges/warmup"}})
	if wrong.status != http.StatusSeeOther || wrong.header.Get("Location") != "/login?next=%2Fchallenges%2Fwarmup" {
		t.Fatalf("a wrong password: %d %s, want 303 back to the log-in page keeping next", wrong.status, wrong.header.Get("Location"))
	}
	landed := b.get(wrong.header.Get("Location"))
	want(t, "wrong password", landed, 200, "Wrong username or password", `name="username" value="pam"`, `name="next" value="/challenges/warmup"`)
	if strings.Contains(landed.body, "nope") {
		t.Error("the log-in page sends the password back")
	}
	if again := b.get("/login"); strings.Contains(again.body, "Wrong username or password") {
		t.Error("a reload of the log-in page shows the refusal again")
	}
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
	locked := newBrowser(t, s).send("/login", url.Values{"username": {"evil"}, "password": {"evil-password"}})
	want(t, "throttled", locked, 200, "; wait ")
	if locked.header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
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
	want(t, "closed form", b.send("/signup", url.Values{"username": {"late"}, "email": {"late@example.com"}, "password": {"long enough"}, "password2": {"long enough"}}), 200, "Registration is closed")
}
