package platform

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
)

func TestAdminUseCases(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	pam, pat, root := f.as("pam"), f.as("pat"), f.as("root")
	// A player calling an admin use case is refused, and nothing changes.
	for name, call := range map[string]func() error{
		"ban":        func() error { _, err := f.svc.Admin.SetBanned(ctx, pat, pam.ID(), true, ""); return err },
		"promote":    func() error { _, err := f.svc.Admin.SetRole(ctx, pat, pat.ID(), ctf.RoleAdmin); return err },
		"challenge":  func() error { _, err := f.svc.Content.SaveChallenge(ctx, pat, ChallengeInput{Title: "X"}); return err },
		"hide":       func() error { _, err := f.svc.Content.SetChallengeHidden(ctx, pat, "a", true); return err },
		"audit log":  func() error { _, err := f.svc.Admin.AuditLog(ctx, pat, 0, 10); return err },
		"users":      func() error { _, err := f.svc.Admin.Users(ctx, pat, ""); return err },
		"moderation": func() error { _, err := f.svc.Content.ModerationQueue(ctx, pat); return err },
	} {
		wantCode(t, "player: "+name, call(), ctf.Forbidden)
	}
	if log, _ := f.svc.Admin.AuditLog(ctx, root, 0, 10); len(log) != 0 {
		t.Fatalf("refused calls were audited: %+v", log)
	}
	_, err := f.svc.Admin.SetBanned(ctx, root, root.ID(), true, "")
	wantCode(t, "an admin bans themselves", err, ctf.Forbidden)

	// Ban: pam leaves the board, the solve counts and first bloods.
	board := func() string { return boardJSON(f.svc) }
	if !strings.Contains(board(), `"username":"pam"`) {
		t.Fatal("pam not on the board")
	}
	_, err = f.svc.Admin.SetBanned(ctx, root, pam.ID(), true, "")
	wantCode(t, "ban", err, "")
	if strings.Contains(board(), `"username":"pam"`) {
		t.Fatal("a banned player is on the board")
	}
	if d, _ := f.svc.Play.Challenge("a", ctf.Viewer{}); d.SolvesCount != 0 {
		t.Fatalf("solvesCount %d after the ban", d.SolvesCount)
	}
	_, err = f.svc.Play.Submit(ctx, f.as("pam"), "b", "flag{b}")
	wantCode(t, "a banned player submits", err, ctf.Forbidden)
	_, err = f.svc.Admin.SetBanned(ctx, root, pam.ID(), false, "")
	wantCode(t, "unban", err, "")
	if d, _ := f.svc.Play.Challenge("a", ctf.Viewer{}); d.SolvesCount != 1 || !strings.Contains(board(), `"username":"pam"`) {
		t.Fatalf("after the unban: solvesCount %d, board %s", d.SolvesCount, board())
	}
	_, err = f.svc.Admin.SetRole(ctx, root, pat.ID(), ctf.RoleAdmin)
	wantCode(t, "promote", err, "")
	_, err = f.svc.Admin.SetRole(ctx, root, pat.ID(), "king")
	wantCode(t, "unknown role", err, ctf.Invalid)

	// Challenges: create, edit, hide, with the dataset's rules.
	in := ChallengeInput{Title: "New One", Categories: []string{"pwn"}, Difficulty: ctf.Medium, Points: 50,
		Flags: []ctf.Flag{{Kind: ctf.FlagRegex, Content: `flag\{[0-9]+\}`}}, Requires: []string{"a"}, Author: "root",
		File: &FileInput{Name: "handout.txt", Data: []byte("hello")}}
	c, err := f.svc.Content.SaveChallenge(ctx, root, in)
	wantCode(t, "create", err, "")
	if c.Slug != "new-one" || c.FileSHA256 == "" {
		t.Fatalf("created %+v", c)
	}
	file, err := f.svc.Play.OpenFile(ctx, c.FileSHA256, "handout.txt")
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(file)
	file.Close()
	if err != nil || string(data) != "hello" || file.Size != 5 {
		t.Fatalf("file: %q (size %d) %v", data, file.Size, err)
	}
	bad := []struct {
		name string
		edit func(*ChallengeInput)
		code ctf.Code
	}{
		{"escaping regex", func(c *ChallengeInput) { c.Flags = []ctf.Flag{{Kind: "regex", Content: `flag\{a\})|(?:.*`}} }, ctf.Invalid},
		{"no flag", func(c *ChallengeInput) { c.Flags = nil }, ctf.Invalid},
		{"flag too long", func(c *ChallengeInput) { c.Flags = []ctf.Flag{{Kind: "static", Content: strings.Repeat("x", 1025)}} }, ctf.Invalid},
		{"unknown prerequisite", func(c *ChallengeInput) { c.Requires = []string{"nope"} }, ctf.Invalid},
		{"requires itself", func(c *ChallengeInput) { c.Requires = []string{c.Slug} }, ctf.Invalid},
		{"taken slug", func(c *ChallengeInput) { c.Slug = "a" }, ctf.Conflict},
		{"bad difficulty", func(c *ChallengeInput) { c.Difficulty = "easy" }, ctf.Invalid},
		{"negative points", func(c *ChallengeInput) { c.Points = -1 }, ctf.Invalid},
		{"file too big", func(c *ChallengeInput) { c.File = &FileInput{Name: "big", Data: make([]byte, DefaultMaxFileBytes+1)} }, ctf.Invalid},
		{"file name with a slash", func(c *ChallengeInput) { c.File = &FileInput{Name: "../x", Data: []byte("x")} }, ctf.Invalid},
		{"unknown author", func(c *ChallengeInput) { c.Author = "ghost" }, ctf.Invalid},
		{"description of 65,537 characters", func(c *ChallengeInput) { c.Description = strings.Repeat("é", 65537) }, ctf.Invalid},
	}
	for _, tc := range bad {
		edit, err := f.svc.Content.ChallengeForEdit(ctx, root, "new-one")
		wantCode(t, "for edit", err, "")
		tc.edit(&edit)
		_, err = f.svc.Content.SaveChallenge(ctx, root, edit)
		wantCode(t, tc.name, err, tc.code)
	}
	// A cycle through another challenge: a requires new-one, which requires a.
	edit, _ := f.svc.Content.ChallengeForEdit(ctx, root, "a")
	edit.Requires = []string{"new-one"}
	_, err = f.svc.Content.SaveChallenge(ctx, root, edit)
	wantCode(t, "cycle", err, ctf.Invalid)
	// Points: pam's total follows.
	edit, _ = f.svc.Content.ChallengeForEdit(ctx, root, "a")
	edit.Points = 150
	_, err = f.svc.Content.SaveChallenge(ctx, root, edit)
	wantCode(t, "edit points", err, "")
	if p := f.svc.Scoreboard.Profile(pam.ID()); p.TotalPoints != 150 {
		t.Fatalf("pam has %d points after the edit, want 150", p.TotalPoints)
	}
	// Hide: gone from the list, 404, its points off the board; show again.
	_, err = f.svc.Content.SetChallengeHidden(ctx, root, "a", true)
	wantCode(t, "hide", err, "")
	if _, err := f.svc.Play.Challenge("a", ctf.Viewer{}); ctf.ErrorCode(err) != ctf.NotFound {
		t.Fatalf("hidden challenge: %v", err)
	}
	if p := f.svc.Scoreboard.Profile(pam.ID()); p.TotalPoints != 0 || len(p.SolvedChallenges) != 0 {
		t.Fatalf("pam after the hide: %+v", p)
	}
	_, err = f.svc.Content.SetChallengeHidden(ctx, root, "a", false)
	wantCode(t, "show", err, "")
	if p := f.svc.Scoreboard.Profile(pam.ID()); p.TotalPoints != 150 || len(p.SolvedChallenges) != 1 {
		t.Fatalf("pam after showing it again: %+v", p)
	}
	var list struct {
		Challenges []struct{ Slug string } `json:"challenges"`
	}
	if err := json.Unmarshal([]byte(listJSON(f.svc)), &list); err != nil || len(list.Challenges) != 3 || list.Challenges[0].Slug != "a" {
		t.Fatalf("list: %+v %v", list, err)
	}
	// The hot state matches a rebuild from the database.
	fresh := f.replica()
	for _, p := range []string{"a", "b", "new-one"} {
		x, _ := f.svc.Play.Challenge(p, pam)
		y, _ := fresh.Play.Challenge(p, pam)
		xj, _ := json.Marshal(x)
		yj, _ := json.Marshal(y)
		if string(xj) != string(yj) {
			t.Errorf("%s: incremental %s, rebuilt %s", p, xj, yj)
		}
	}
	if boardJSON(f.svc) != boardJSON(fresh) || listJSON(f.svc) != listJSON(fresh) {
		t.Error("incremental and rebuilt bodies differ")
	}
	log, _ := f.svc.Admin.AuditLog(ctx, root, 0, 20)
	var actions []string
	for _, e := range log {
		actions = append(actions, e.Action)
	}
	want := "challenge.update challenge.update challenge.update challenge.create user.role user.unban user.ban"
	if strings.Join(actions, " ") != want {
		t.Fatalf("audit log %v, want %s", actions, want)
	}
}

// TestImportWarnsOfPrivateWebhooks: Import loads a webhook on a private
// host and warns of it, with the admin form's check, unless the service
// allows private targets (serve --webhooks-allow-private).
func TestImportWarnsOfPrivateWebhooks(t *testing.T) {
	t.Parallel()
	ds := &dataset.Dataset{Webhooks: []dataset.Webhook{
		{Name: "Public", Kind: WebhookSlack, URL: "https://hooks.example.com/x"},
		{Name: "Loopback", Kind: WebhookSlack, URL: "http://[::1]:9090/x"},
		{Name: "Numeric", Kind: WebhookSlack, URL: "http://2130706433/x"},
	}}
	for _, allow := range []bool{false, true} {
		f := newFixture(t, Options{WebhooksAllowPrivate: allow})
		rep, err := f.svc.Admin.Import(context.Background(), ctf.Operator, ds)
		if err != nil || rep.Created["webhooks"] != 3 {
			t.Fatalf("allow %v: import: %+v %v", allow, rep, err)
		}
		want := 2
		if allow {
			want = 0
		}
		if len(rep.Warnings) != want {
			t.Fatalf("allow %v: warnings %q, want %d", allow, rep.Warnings, want)
		}
		for i, w := range rep.Warnings {
			name := ds.Webhooks[i+1].Name
			if prefix := fmt.Sprintf("webhooks[%d] (name %q): url: names a private host", i+1, name); !strings.HasPrefix(w, prefix) {
				t.Errorf("warning %q, want it to start %q", w, prefix)
			}
		}
	}
}

func TestImportIsAudited(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	ds := &dataset.Dataset{Users: []dataset.User{{Username: "imported", Email: "imported@example.com"}}}
	_, err := f.svc.Admin.Import(ctx, f.as("pam"), ds)
	wantCode(t, "a player imports", err, ctf.Forbidden)
	rep, err := f.svc.Admin.Import(ctx, ctf.Operator, ds)
	if err != nil || rep.Created["users"] != 1 {
		t.Fatalf("import: %+v %v", rep, err)
	}
	if f.svc.Scoreboard.ProfileByName("imported") == nil {
		t.Fatal("the importing service does not show the imported user")
	}
	log, _ := f.svc.Admin.AuditLog(ctx, ctf.Operator, 0, 5)
	if len(log) != 1 || log[0].Action != "event.load" || log[0].Actor != "operator" {
		t.Fatalf("audit log %+v", log)
	}
}
