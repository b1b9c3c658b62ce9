package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
)

// TestBanWithAReasonAndItsNotice (issue 20): Ban leads to a confirmation
// page that names the account, says what a ban does and takes a reason
// (at most 500 characters, one clear refusal past it, the text kept); the
// ban lands back where the admin came from with a notice, and admins see
// the reason in the list and on the player's page. The banned player's
// session is not cleared: every page they open says they are banned and
// why, as to a visitor, and so does the log-in after the right password;
// nobody else reads it. Unbanning brings the session back.
func TestBanWithAReasonAndItsNotice(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	root, pam, pam2, evil := logIn(t, s, "root"), logIn(t, s, "pam"), logIn(t, s, "pam"), logIn(t, s, "evil")

	want(t, "the list", root.get("/admin/users"), 200, `<a href="/admin/users/pam/ban">Ban</a>`)
	want(t, "the player's page", root.get("/admin/players/pam"), 200, `href="/admin/users/pam/ban?from=player">Ban pam</a>`)
	want(t, "the confirmation", root.get("/admin/users/pam/ban?from=player"), 200, "<h1>Ban pam</h1>",
		`action="/admin/users/pam/ban"`, `name="from" value="player"`, `<textarea id="reason" name="reason" rows="3" maxlength="500"`,
		"leaves the scoreboard", "cannot submit flags, log in", "their agents are banned with them", `href="/admin/players/pam">Cancel`)
	want(t, "a player asks for it", evil.get("/admin/users/pam/ban"), http.StatusForbidden)
	want(t, "a player posts it", evil.post("/admin/users/pam/ban", url.Values{"reason": {"x"}}), http.StatusForbidden)
	want(t, "an unknown account", root.get("/admin/users/nobody/ban"), http.StatusNotFound)
	want(t, "a ban without its page", root.send("/admin/users", url.Values{"id": {mustUser(t, s, "pam")}, "action": {"ban"}}), 200,
		"A ban is confirmed on its own page")

	long := strings.Repeat("x", 501)
	tooLong := root.send("/admin/users/pam/ban", url.Values{"reason": {long}, "from": {"player"}})
	want(t, "a reason too long", tooLong, 200, "<h1>Ban pam</h1>", `role="alert">Reason must be at most 500 characters.</p>`, ">"+long+"</textarea>",
		`name="from" value="player"`)
	want(t, "not banned by it", pam.get("/settings"), 200, "Settings")

	banned := root.send("/admin/users/pam/ban", url.Values{"reason": {"Shared flags <b>with evil</b>"}, "from": {"player"}})
	want(t, "banned", banned, 200, "<h1>pam", "Banned pam: they are off the board", "Banned: Shared flags &lt;b&gt;with evil&lt;/b&gt;.",
		`value="unban"`, `href="/admin/users/pam/ban?from=player">Change the reason</a>`)
	want(t, "the list names the reason", root.get("/admin/users?q=pam"), 200,
		`<span class="mark lock">banned</span> <span class="hint">Shared flags &lt;b&gt;with evil&lt;/b&gt;</span>`)
	want(t, "the audit log", root.get("/admin/audit"), 200, `<code class="nowrap">user.ban</code>`)

	const notice = `<div class="alert error banned" role="alert"><p>Your account is banned: Shared flags &lt;b&gt;with evil&lt;/b&gt;. ` +
		`You cannot submit flags or log in; ask the organisers if you think this is a mistake.</p>`
	for _, path := range []string{"/", "/scoreboard", "/challenges/warmup", "/announcements", "/no-such-page"} {
		p := pam.get(path)
		if !strings.Contains(p.body, notice) {
			t.Errorf("pam's %s lacks the notice:\n%.2000s", path, p.body)
		}
		if !strings.Contains(p.body, `href="/login?next=`) || strings.Contains(p.body, `href="/settings"`) {
			t.Errorf("pam's %s is not shown as to a visitor", path)
		}
		for _, other := range []*browser{evil, root, newBrowser(t, s)} {
			if strings.Contains(other.get(path).body, "Your account is banned") {
				t.Errorf("someone else's %s shows the notice", path)
			}
		}
	}
	want(t, "settings send her to log in", pam.send("/settings/keys", url.Values{"name": {"k"}}), 200, notice, "<h1>Log in</h1>")
	want(t, "a flag", pam.send("/challenges/warmup/submit", url.Values{"flag": {"flag{warm}"}}), 200, notice)
	// The API reads the session as expired but keeps its cookie too: the
	// notice outlives a visit to the API.
	if me := pam.get("/api/public/me"); me.status != http.StatusUnauthorized || strings.Contains(me.header.Get("Set-Cookie"), "flagship_session") {
		t.Errorf("the API on a banned session: %d, Set-Cookie %q; want 401 keeping the cookie", me.status, me.header.Get("Set-Cookie"))
	}
	want(t, "after the API", pam.get("/"), 200, notice)
	forged := newBrowser(t, s)
	u, _ := url.Parse(s.URL)
	forged.c.Jar.SetCookies(u, []*http.Cookie{{Name: "flagship_session", Value: strings.Repeat("A", 43), Path: "/"}})
	if strings.Contains(forged.get("/").body, "banned") {
		t.Error("an unknown session cookie reads a ban")
	}

	fresh := newBrowser(t, s)
	login := fresh.send("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})
	want(t, "the log-in after the right password", login, 200, `role="alert">Your account is banned: Shared flags &lt;b&gt;with evil&lt;/b&gt;. You cannot submit flags or log in`,
		`name="username" value="pam"`)
	if wrong := fresh.send("/login", url.Values{"username": {"pam"}, "password": {"not hers"}}); strings.Contains(wrong.body, "Shared flags") ||
		!strings.Contains(wrong.body, "Wrong username or password") {
		t.Errorf("a wrong password reads the ban:\n%.2000s", wrong.body)
	}

	// The notice offers to log out: the session's cookie goes.
	want(t, "log out from the notice", pam.send("/logout", url.Values{}), 200)
	if strings.Contains(pam.get("/").body, "Your account is banned") {
		t.Error("the notice outlives logging out")
	}

	unbanned := root.send("/admin/users", url.Values{"id": {mustUser(t, s, "pam")}, "action": {"unban"}, "back": {"/admin/players/pam"}})
	want(t, "unbanned", unbanned, 200, "<h1>pam", "Unbanned pam", `href="/admin/users/pam/ban?from=player">Ban pam</a>`)
	if strings.Contains(unbanned.body, "Shared flags") {
		t.Error("the reason outlives the unban")
	}
	want(t, "pam's other session works again", pam2.get("/settings"), 200, "Settings")
	if strings.Contains(pam2.get("/").body, "Your account is banned") {
		t.Error("the notice outlives the unban")
	}
}
