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

// follow fetches the page a form's answer redirects to (post/redirect/get),
// failing the test when the answer is no redirect to a page of this site.
func (b *browser) follow(label string, p page) page {
	b.t.Helper()
	to := p.header.Get("Location")
	if p.status != http.StatusSeeOther || !strings.HasPrefix(to, "/") || strings.HasPrefix(to, "//") {
		b.t.Fatalf("%s: status %d to %q, want 303 to a page of this site\n%.2000s", label, p.status, to, p.body)
	}
	return b.get(to)
}

// editorID is the challenge's id in its editor's form.
func editorID(t *testing.T, b *browser, slug string) string {
	t.Helper()
	m := regexp.MustCompile(`name="id" value="([0-9a-f-]{36})"`).FindStringSubmatch(b.get("/admin/challenges/" + slug).body)
	if m == nil {
		t.Fatalf("no id in the editor of %s", slug)
	}
	return m[1]
}

// TestEditorVisibilityAndConfirmations: "Hidden (draft)" is a choice of
// its own (a fieldset of two radio buttons, a new challenge starting
// hidden); Create lands on the editor with "Challenge created." and Save
// with "Changes saved." (each shown once); the list marks the draft, then
// shows it visible; flag rows count from 1; both saves are audited.
func TestEditorVisibilityAndConfirmations(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	root, pam := logIn(t, s, "root"), logIn(t, s, "pam")
	form := root.get("/admin/challenges/new")
	want(t, "new", form, 200, "<legend>Visibility</legend>", `<input type="radio" name="hidden" value="1" checked> Hidden (draft)`,
		`<input type="radio" name="hidden" value="0" > Visible to players`, `id="visibility-hint"`,
		`Flag 1 <input name="flagContent0"`, `Flag 2 <input name="flagContent1"`, `<span class="sr">of flag 1</span>`)
	if strings.Contains(form.body, "Flag 0") {
		t.Error("a flag row is numbered from 0")
	}

	fields := map[string]string{"title": "Draft Two", "categories": "misc", "difficulty": "Easy", "points": "20",
		"flagKind0": "static", "flagContent0": "flag{two}", "hidden": "1", "saved": ""}
	created := root.follow("create", root.multipartPost("/admin/challenges", fields, "", "", nil))
	want(t, "created", created, 200, `<p class="alert notice" role="status">Challenge created.</p>`, "<h1>Edit Draft Two</h1>",
		`<input type="radio" name="hidden" value="1" checked> Hidden (draft)`)
	if strings.Contains(root.get("/admin/challenges/draft-two").body, "Challenge created.") {
		t.Error("the notice shows again on a reload")
	}
	want(t, "listed as a draft", root.get("/admin/challenges"), 200,
		`<a href="/admin/challenges/draft-two">Draft Two</a> <span class="hint">draft-two</span></td><td><span class="mark draft">Hidden (draft)</span>`)
	want(t, "players do not see it", pam.get("/challenges/draft-two"), 404)

	fields["id"], fields["saved"], fields["hidden"] = editorID(t, root, "draft-two"), "draft-two", "0"
	saved := root.follow("save", root.multipartPost("/admin/challenges", fields, "", "", nil))
	want(t, "saved", saved, 200, `<p class="alert notice" role="status">Changes saved.</p>`,
		`<input type="radio" name="hidden" value="0" checked> Visible to players`)
	want(t, "listed visible", root.get("/admin/challenges"), 200,
		`<a href="/admin/challenges/draft-two">Draft Two</a> <span class="hint">draft-two</span></td><td><span class="mark ok">Visible</span>`)
	want(t, "players see it", pam.get("/challenges/draft-two"), 200, "Draft Two")
	log, _ := s.Svc.Admin.AuditLog(context.Background(), ctf.Operator, 0, 10)
	if len(log) != 2 || log[0].Action != "challenge.update" || log[1].Action != "challenge.create" {
		t.Errorf("the audit log: %+v", log)
	}
}

// TestEditorRefusalKeepsWhatWasTyped: a refused save shows the form again
// with everything typed (but the file) and the refusal as a sentence
// naming the field, marks the field, and saves nothing.
func TestEditorRefusalKeepsWhatWasTyped(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	root := logIn(t, s, "root")
	fields := map[string]string{"title": "Kept", "categories": "crypto, misc", "difficulty": "Hard", "points": "250",
		"description": "A long **description** typed with care.", "tags": "rsa, math", "flagFormat": "kept{...}",
		"flagKind0": "static", "flagContent0": "kept{one}", "flagKind1": "regex", "flagContent1": "kept{(}", "flagCI1": "1",
		"hidden": "1", "connectionInfo": "nc kept.example 1", "author": "evil"}
	p := root.multipartPost("/admin/challenges", fields, "", "", nil)
	want(t, "refused", p, 400, `<p class="alert error" role="alert">Flag 2: regex &#34;kept{(}&#34; is not a valid RE2 expression`,
		`value="Kept"`, ">A long **description** typed with care.</textarea>", `value="crypto, misc"`, `value="rsa, math"`,
		`value="kept{...}"`, `name="flagContent0" value="kept{one}"`, `name="flagContent1" value="kept{(}"`,
		`name="flagCI1" value="1" checked`, `<option selected>Hard</option>`, `value="250"`, `value="nc kept.example 1"`, `value="evil"`,
		`<input type="radio" name="hidden" value="1" checked> Hidden (draft)`, "<h1>New challenge</h1>")
	fields["flagContent1"], fields["title"] = "kept{two}", strings.Repeat(" ", 3)
	want(t, "no title", root.multipartPost("/admin/challenges", fields, "", "", nil), 400,
		`<p class="alert error" role="alert">The title is required.</p>`, `aria-invalid="true"`)
	if all, _ := s.Svc.Content.AdminChallenges(context.Background(), ctf.Operator); len(all) != 3 {
		t.Errorf("a refused form saved a challenge: %d challenges", len(all))
	}
}

// TestEditorShowsTheHandout: the editor names the current handout, its size
// and a link that downloads it for admins even while the challenge is
// hidden (players cannot fetch it then); a link elsewhere is named as one.
func TestEditorShowsTheHandout(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	root, pam := logIn(t, s, "root"), logIn(t, s, "pam")
	fields := map[string]string{"title": "Handed", "categories": "misc", "difficulty": "Easy", "points": "20",
		"flagKind0": "static", "flagContent0": "flag{h}", "hidden": "1"}
	edit := root.follow("create", root.multipartPost("/admin/challenges", fields, "file", "notes.txt", []byte("eleven byte")))
	want(t, "handout shown", edit, 200, `<p id="handout-now">Now: <a href="/admin/challenges/handed/handout" download>notes.txt</a> <span class="hint">11 bytes</span>`,
		"remove the current handout")
	got := root.get("/admin/challenges/handed/handout")
	if got.status != 200 || got.body != "eleven byte" || !strings.Contains(got.header.Get("Content-Disposition"), "notes.txt") {
		t.Fatalf("admin download: %d %q %v", got.status, got.body, got.header)
	}
	want(t, "a player's download", pam.get("/admin/challenges/handed/handout"), 403)
	want(t, "no handout", root.get("/admin/challenges/warmup/handout"), 404)

	fields["id"], fields["saved"], fields["fileURL"], fields["fileName"] = editorID(t, root, "handed"), "handed", "https://example.com/big.tar", "big.tar"
	edit = root.follow("save", root.multipartPost("/admin/challenges", fields, "", "", nil))
	want(t, "a link", edit, 200, `Now: <a href="https://example.com/big.tar" rel="noopener noreferrer">big.tar</a> <span class="hint">a link elsewhere</span>`)
	want(t, "none", root.get("/admin/challenges/warmup"), 200, `<p id="handout-now">Now: no handout.</p>`)
	if strings.Contains(root.get("/admin/challenges/warmup").body, "remove the current handout") {
		t.Error("a challenge without a handout offers to remove it")
	}
}

// TestMarkdownPreviews: "Preview" on the challenge editor, the announcement
// form and the writeup form answers with the same form, what was typed
// kept, and the Markdown rendered above it (images of other sites as links
// with their alt text, raw HTML dropped); it saves, posts and audits
// nothing.
func TestMarkdownPreviews(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEventSolved)
	root, pam := logIn(t, s, "root"), logIn(t, s, "pam")
	const md = "Some **bold** text ![the diagram](https://img.example/d.png) <script>alert(1)</script>"
	const rendered = `<p>Some <strong>bold</strong> text <a href="https://img.example/d.png" rel="nofollow noreferrer noopener" target="_blank">the diagram</a>`
	const typed = "Some **bold** text ![the diagram](https://img.example/d.png) &lt;script&gt;alert(1)&lt;/script&gt;</textarea>"

	p := root.multipartPost("/admin/challenges", map[string]string{"title": "Previewed", "categories": "misc", "points": "10",
		"difficulty": "Easy", "description": md, "flagKind0": "static", "flagContent0": "flag{p}", "hidden": "1", "preview": "1"}, "", "", nil)
	want(t, "editor preview", p, 200, `<section class="md-preview" aria-labelledby="preview-h"><h2 id="preview-h">Preview</h2>`, rendered, typed,
		`value="Previewed"`, `name="flagContent0" value="flag{p}"`, "<h1>New challenge</h1>")
	if strings.Index(p.body, "md-preview") > strings.Index(p.body, `<form method="post" action="/admin/challenges"`) {
		t.Error("the preview is not above the form")
	}
	if _, err := s.Svc.Content.ChallengeForEdit(context.Background(), ctf.Operator, "previewed"); ctf.ErrorCode(err) != ctf.NotFound {
		t.Errorf("a preview saved the challenge: %v", err)
	}

	p = root.post("/admin/announcements", url.Values{"title": {"Soon"}, "body": {md}, "preview": {"1"}})
	want(t, "announcement preview", p, 200, `<h2 id="preview-h">Preview</h2>`, rendered, typed, `value="Soon"`)
	if n := len(s.Svc.Event.Announcements()); n != 0 {
		t.Errorf("a preview posted %d announcements", n)
	}

	p = pam.post("/challenges/warmup/writeup", url.Values{"title": {"My path"}, "content": {md}, "images": {"https://img.example/x.png"}, "preview": {"1"}})
	want(t, "writeup preview", p, 200, `<h4 id="wu-preview-h">Preview</h4>`, "<h5>My path</h5>", rendered, typed, `value="My path"`,
		">https://img.example/x.png\n</textarea>", "Send my writeup")
	if strings.Contains(p.body, "<script>alert(1)") {
		t.Error("raw HTML reached a preview")
	}
	if _, _, err := s.Svc.Play.MyWriteup(context.Background(), ctf.Viewer{User: &ctf.User{ID: mustUser(t, s, "pam")}}, "warmup"); ctf.ErrorCode(err) != ctf.NotFound {
		t.Errorf("a preview saved the writeup: %v", err)
	}
	if log, _ := s.Svc.Admin.AuditLog(context.Background(), ctf.Operator, 0, 10); len(log) != 0 {
		t.Errorf("previews were audited: %+v", log)
	}
}

// TestWriteupAuthorSeesTheirs: the author of a writeup sees it rendered
// with its state — pending and rejected ones under "Your writeup", to them
// alone; once approved, among the writeups as everyone does, marked
// theirs.
func TestWriteupAuthorSeesTheirs(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, strings.Replace(adminEventSolved, "solves:\n", "solves:\n  - {user: evil, challenge: warmup}\n", 1))
	pam, evil := logIn(t, s, "pam"), logIn(t, s, "evil")
	p := pam.send("/challenges/warmup/writeup", url.Values{"title": {"Pam's path"}, "content": {"Read the **source**."}})
	want(t, "pending", p, 200, `<span class="status pending">pending</span>`, "Pending: the organisers read it before others can.",
		`<h4 id="mine-title">Pam&#39;s path</h4>`, "<p>Read the <strong>source</strong>.</p>", "No approved writeup yet.")
	if strings.Contains(evil.get("/challenges/warmup").body, "Pam&#39;s path") {
		t.Fatal("another player sees a pending writeup")
	}
	q, _ := s.Svc.Content.ModerationQueue(context.Background(), ctf.Operator)
	if len(q) != 1 {
		t.Fatalf("queue %+v", q)
	}
	if _, err := s.Svc.Content.ModerateWriteup(context.Background(), ctf.Operator, q[0].ID, true, ""); err != nil {
		t.Fatal(err)
	}
	mine := pam.get("/challenges/warmup")
	want(t, "approved, to its author", mine, 200, `<h3>Pam&#39;s path <span class="mark ok">yours</span></h3>`,
		"<p>Read the <strong>source</strong>.</p>", `<span class="status approved">approved</span>`, "Approved: everyone who solved it reads it above.")
	if strings.Contains(mine.body, "No approved writeup yet.") {
		t.Error("its author is told there is no approved writeup")
	}
	want(t, "approved, to another", evil.get("/challenges/warmup"), 200, "<h3>Pam&#39;s path</h3>", "<p>Read the <strong>source</strong>.</p>")

	if _, err := s.Svc.Content.ModerateWriteup(context.Background(), ctf.Operator, q[0].ID, false, "Spoils the next one."); err != nil {
		t.Fatal(err)
	}
	want(t, "rejected", pam.get("/challenges/warmup"), 200, `<p class="alert error">Rejected: Spoils the next one.</p>`,
		"Only you see it", "<p>Read the <strong>source</strong>.</p>", "No approved writeup yet.")
}
