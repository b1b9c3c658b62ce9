package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
)

func TestAdminPagesRefusePlayers(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	b := newBrowser(t, s)
	want(t, "admin signed out", b.get("/admin"), http.StatusSeeOther)
	b.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})
	for _, path := range []string{"/admin", "/admin/challenges", "/admin/challenges/new", "/admin/challenges/warmup", "/admin/writeups", "/admin/users", "/admin/audit", "/admin/instances",
		"/admin/submissions", "/admin/players/pam"} {
		want(t, "player on "+path, b.get(path), 403, "Only admins")
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
	want(t, "escaping regex", bad, 400, "Flag 1: regex", `value="Zip Me"`)
	fields["flagContent0"] = `flag\{z[0-9]+\}`
	ok := root.multipartPost("/admin/challenges", fields, "file", "handout.zip", []byte("PK zip bytes"))
	if ok.status != http.StatusSeeOther || ok.header.Get("Location") != "/admin/challenges/zip-me" {
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
	pam.send("/challenges/warmup/submit", url.Values{"flag": {"flag{warm}"}})
	pam.post("/challenges/warmup/writeup", url.Values{"title": {"Pam's way"}, "content": {"Easy."}})
	queue := root.get("/admin/writeups")
	wid := regexp.MustCompile(`name="id" value="([0-9a-f-]{36})"`).FindStringSubmatch(queue.body)
	if wid == nil {
		t.Fatalf("no writeup in the queue:\n%.2000s", queue.body)
	}
	want(t, "reject", root.send("/admin/writeups", url.Values{"id": {wid[1]}, "decision": {"reject"}, "reason": {"Too short"}}), 200, "Writeup rejected", "Nothing waits")
	want(t, "reason shown", pam.get("/challenges/warmup"), 200, "Rejected: Too short")

	// Users: search, ban, promote; an admin cannot ban themselves.
	want(t, "search", root.get("/admin/users?q=pam"), 200, "pam@example.com")
	want(t, "ban", root.send("/admin/users/pam/ban", url.Values{}), 200, "Banned pam", `<span class="mark lock">banned</span>`)
	// A ban ends the player's session (they are asked to log in again,
	// and the log-in says they are banned).
	want(t, "banned player submits", pam.post("/challenges/next/submit", url.Values{"flag": {"flag{next}"}}), http.StatusSeeOther)
	want(t, "banned player logs in", pam.send("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}}), 200, "Your account is banned.")
	want(t, "self ban", root.send("/admin/users/root/ban", url.Values{}), 200, "<h1>Ban root</h1>", "yourself")
	want(t, "promote", root.send("/admin/users", url.Values{"id": {mustUser(t, s, "evil")}, "action": {"promote"}}), 200, "evil is an admin now.", "Make player")
	audit := root.get("/admin/audit")
	want(t, "audit log", audit, 200, "challenge.create", "challenge.update", "writeup.reject", "user.ban", "user.role")
}
