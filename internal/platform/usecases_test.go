package platform

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
)

func TestAPIKeys(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	pam, pat := f.as("pam"), f.as("pat")
	view, secret, err := f.svc.Keys.Create(ctx, pam, NewAPIKey{Name: " laptop "})
	wantCode(t, "create", err, "")
	if view.Name != "laptop" || !strings.HasPrefix(secret, view.KeyPrefix+"_") || view.RevokedAt != nil {
		t.Fatalf("created %+v", view)
	}
	v, err := f.svc.Accounts.AuthenticateKey(ctx, secret)
	if err != nil || v.ID() != pam.ID() || v.ReadOnly {
		t.Fatalf("authenticate: %+v %v", v, err)
	}
	_, _, err = f.svc.Keys.Create(ctx, pam, NewAPIKey{Name: " "})
	wantCode(t, "no name", err, ctf.Invalid)
	_, _, err = f.svc.Keys.Create(ctx, pat, NewAPIKey{Owner: pam.ID(), Name: "theirs"})
	wantCode(t, "a player mints a key for another", err, ctf.Forbidden)
	_, err = f.svc.Keys.List(ctx, pat, pam.ID())
	wantCode(t, "a player lists another's keys", err, ctf.Forbidden)
	_, err = f.svc.Keys.Revoke(ctx, pat, "", view.ID)
	wantCode(t, "a player revokes another's key", err, ctf.NotFound)

	// Read-only: reads everything, cannot submit.
	_, ro, err := f.svc.Keys.Create(ctx, pam, NewAPIKey{Name: "agent", ReadOnly: true})
	wantCode(t, "read-only key", err, "")
	rov, err := f.svc.Accounts.AuthenticateKey(ctx, ro)
	if err != nil || !rov.ReadOnly {
		t.Fatalf("read-only key: %+v %v", rov, err)
	}
	_, err = f.svc.Play.Submit(ctx, rov, "b", "flag{b}")
	wantCode(t, "submit with a read-only key", err, ctf.Forbidden)
	if _, err := f.svc.Accounts.Me(ctx, rov); err != nil {
		t.Fatalf("read with a read-only key: %v", err)
	}

	// Revoked: refused at once by this process.
	_, err = f.svc.Keys.Revoke(ctx, pam, "", view.ID)
	wantCode(t, "revoke", err, "")
	_, err = f.svc.Accounts.AuthenticateKey(ctx, secret)
	wantCode(t, "revoked key", err, ctf.Unauthorized)
	keys, _ := f.svc.Keys.List(ctx, pam, "")
	if len(keys) != 2 || keys[0].RevokedAt == nil || keys[1].RevokedAt != nil {
		t.Fatalf("keys %+v", keys)
	}
	// At most 20 active keys.
	for i := 0; i < ctf.MaxActiveAPIKeys-1; i++ {
		_, _, err := f.svc.Keys.Create(ctx, pam, NewAPIKey{Name: fmt.Sprint("k", i)})
		wantCode(t, "key", err, "")
	}
	_, _, err = f.svc.Keys.Create(ctx, pam, NewAPIKey{Name: "one too many"})
	wantCode(t, "21st active key", err, ctf.Conflict)
	// The operator mints for anyone, and the audit log says so.
	_, _, err = f.svc.Keys.Create(ctx, ctf.Operator, NewAPIKey{Owner: pat.ID(), Name: "from the CLI"})
	wantCode(t, "operator", err, "")
	log, err := f.svc.Admin.AuditLog(ctx, ctf.Operator, 0, 10)
	if err != nil || len(log) != 1 || log[0].Action != "apikey.create" || log[0].Actor != "operator" || log[0].Target != "pat" {
		t.Fatalf("audit log %+v %v", log, err)
	}
}

func TestLastUsedIsWrittenOffTheRequestPath(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	_, secret, err := f.svc.Keys.Create(ctx, f.as("pam"), NewAPIKey{Name: "k"})
	wantCode(t, "create", err, "")
	if _, err := f.svc.Accounts.AuthenticateKey(ctx, secret); err != nil {
		t.Fatal(err)
	}
	keys, _ := f.db.Accounts().APIKeys(ctx, f.as("pam").ID())
	if keys[0].LastUsedAt != nil {
		t.Fatal("lastUsedAt written during the request")
	}
	me, _ := f.svc.Accounts.Me(ctx, f.as("pam"))
	if me.McpAPIKeys[0].LastUsedAt == nil {
		t.Fatal("/me does not show the use")
	}
	other := f.replica()
	f.svc.FlushTouches(ctx)
	keys, _ = f.db.Accounts().APIKeys(ctx, f.as("pam").ID())
	if keys[0].LastUsedAt == nil || !keys[0].LastUsedAt.Equal(ctf.Millis(f.clock.Now())) {
		t.Fatalf("lastUsedAt after the flush: %v", keys[0].LastUsedAt)
	}
	// Within the minute, no new write; the other replica shows the use.
	f.clock.Add(30 * time.Second)
	f.svc.Accounts.AuthenticateKey(ctx, secret)
	f.svc.touches.mu.Lock()
	pending := len(f.svc.touches.keys)
	f.svc.touches.mu.Unlock()
	if pending != 0 {
		t.Fatal("a second use within the minute was queued")
	}
	if err := other.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	om, _ := other.Accounts.Me(ctx, f.as("pam"))
	if om.McpAPIKeys[0].LastUsedAt == nil {
		t.Fatal("the other replica does not show the use")
	}
}

func TestReviewsAndWriteups(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	pam, pat, root := f.as("pam"), f.as("pat"), f.as("root")
	_, err := f.svc.Play.Review(ctx, pat, "a", 5, 5)
	wantCode(t, "review before solving", err, ctf.Forbidden)
	_, err = f.svc.Play.SaveWriteup(ctx, pat, "a", WriteupInput{Title: "t", Content: "c"})
	wantCode(t, "writeup before solving", err, ctf.Forbidden)
	_, err = f.svc.Play.Review(ctx, pam, "nope", 5, 5)
	wantCode(t, "review of an unknown challenge", err, ctf.NotFound)
	for _, b := range [][2]int{{0, 5}, {6, 5}, {3, 0}, {3, 11}} {
		_, err = f.svc.Play.Review(ctx, pam, "a", b[0], b[1])
		wantCode(t, fmt.Sprint("review out of bounds ", b), err, ctf.Invalid)
	}
	_, err = f.svc.Play.Review(ctx, pam, "a", 4, 3)
	wantCode(t, "review", err, "")
	_, err = f.svc.Play.Review(ctx, pam, "a", 2, 7)
	wantCode(t, "change the review", err, "")
	d, _ := f.svc.Play.Challenge("a", pam)
	if d.TotalReviews != 1 || *d.AvgStars != 2 || *d.AvgDifficulty != 7 || d.MyReview == nil || d.MyReview.Stars != 2 {
		t.Fatalf("detail after the review: %+v", d)
	}
	// A writeup enters the queue; an edit after approval re-enters it.
	_, err = f.svc.Play.SaveWriteup(ctx, pam, "a", WriteupInput{Title: "How", Content: "I did it", Images: []string{"javascript:x"}})
	wantCode(t, "writeup with a javascript image", err, ctf.Invalid)
	w, err := f.svc.Play.SaveWriteup(ctx, pam, "a", WriteupInput{Title: "How", Content: "I did it", Images: []string{"https://i.example/1.png"}})
	wantCode(t, "writeup", err, "")
	if w.Status != ctf.WriteupPending {
		t.Fatalf("status %q", w.Status)
	}
	_, err = f.svc.Content.ModerateWriteup(ctx, pam, w.ID, true, "")
	wantCode(t, "a player moderates", err, ctf.Forbidden)
	q, _ := f.svc.Content.ModerationQueue(ctx, root)
	if len(q) != 1 || q[0].ID != w.ID {
		t.Fatalf("queue %+v", q)
	}
	_, err = f.svc.Content.ModerateWriteup(ctx, root, w.ID, true, "")
	wantCode(t, "approve", err, "")
	// pat solves b? No: pat solves a, then reads the approved writeup.
	if _, err := f.svc.Play.Submit(ctx, pat, "a", "flag{a}"); err != nil {
		t.Fatal(err)
	}
	list, _ := f.svc.Play.Writeups(ctx, "a", pat)
	if len(list.Writeups) != 1 || list.Writeups[0].Title != "How" || *list.Writeups[0].User.Username != "pam" {
		t.Fatalf("writeups for pat: %+v", list)
	}
	w2, err := f.svc.Play.SaveWriteup(ctx, pam, "a", WriteupInput{Title: "How, revised", Content: "Better"})
	wantCode(t, "edit", err, "")
	if w2.ID != w.ID || w2.Status != ctf.WriteupPending {
		t.Fatalf("edit: %+v", w2)
	}
	if list, _ := f.svc.Play.Writeups(ctx, "a", pat); len(list.Writeups) != 0 {
		t.Fatalf("an edited writeup awaiting moderation is listed to others: %+v", list)
	}
	if list, _ := f.svc.Play.Writeups(ctx, "a", pam); len(list.Writeups) != 1 || list.Writeups[0].Status != ctf.WriteupPending {
		t.Fatalf("its author does not see it: %+v", list)
	}
	_, err = f.svc.Content.ModerateWriteup(ctx, root, w.ID, false, "Spoils another challenge")
	wantCode(t, "reject", err, "")
	mine, reason, err := f.svc.Play.MyWriteup(ctx, pam, "a")
	if err != nil || mine.Status != ctf.WriteupRejected || reason != "Spoils another challenge" {
		t.Fatalf("my writeup: %+v %q %v", mine, reason, err)
	}
	log, _ := f.svc.Admin.AuditLog(ctx, root, 0, 10)
	var actions []string
	for _, e := range log {
		actions = append(actions, e.Action+" by "+e.Actor)
	}
	if strings.Join(actions, ", ") != "writeup.reject by root, writeup.approve by root" {
		t.Fatalf("audit log: %v", actions)
	}
}

func TestAdminUseCases(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	pam, pat, root := f.as("pam"), f.as("pat"), f.as("root")
	// A player calling an admin use case is refused, and nothing changes.
	for name, call := range map[string]func() error{
		"ban":        func() error { _, err := f.svc.Admin.SetBanned(ctx, pat, pam.ID(), true); return err },
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
	_, err := f.svc.Admin.SetBanned(ctx, root, root.ID(), true)
	wantCode(t, "an admin bans themselves", err, ctf.Forbidden)

	// Ban: pam leaves the board, the solve counts and first bloods.
	board := func() string { return boardJSON(f.svc) }
	if !strings.Contains(board(), `"username":"pam"`) {
		t.Fatal("pam not on the board")
	}
	_, err = f.svc.Admin.SetBanned(ctx, root, pam.ID(), true)
	wantCode(t, "ban", err, "")
	if strings.Contains(board(), `"username":"pam"`) {
		t.Fatal("a banned player is on the board")
	}
	if d, _ := f.svc.Play.Challenge("a", ctf.Viewer{}); d.SolvesCount != 0 {
		t.Fatalf("solvesCount %d after the ban", d.SolvesCount)
	}
	_, err = f.svc.Play.Submit(ctx, f.as("pam"), "b", "flag{b}")
	wantCode(t, "a banned player submits", err, ctf.Forbidden)
	_, err = f.svc.Admin.SetBanned(ctx, root, pam.ID(), false)
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

// TestBanMovesExactlyTheUsersAttempts: a ban takes the user's wrong
// submissions out of attemptsCount, those the state started with and those
// made since, and an unban puts them back; a promotion likewise. The
// counts match a state rebuilt from the database at every step, on this
// replica and on another that learns it from the change log.
func TestBanMovesExactlyTheUsersAttempts(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	other := f.replica()
	root, pat := f.as("root"), f.as("pat")
	attempts := func(s *Service) int64 { d, _ := s.Play.Challenge("a", ctf.Viewer{}); return d.AttemptsCount }
	// 2 of pat's loaded, 1 of pam's solve; root's is an admin's.
	if got := attempts(f.svc); got != 3 {
		t.Fatalf("attemptsCount %d, want 3", got)
	}
	for range 2 {
		if _, err := f.svc.Play.Submit(ctx, pat, "a", "flag{wrong}"); ctf.ErrorCode(err) != ctf.Invalid {
			t.Fatal(err)
		}
	}
	check := func(step string, want int64) {
		t.Helper()
		if err := other.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		fresh := f.replica()
		for name, s := range map[string]*Service{"this replica": f.svc, "the other": other, "a rebuild": fresh} {
			if got := attempts(s); got != want {
				t.Errorf("%s: %s has attemptsCount %d, want %d", step, name, got, want)
			}
		}
	}
	check("before", 5)
	_, err := f.svc.Admin.SetBanned(ctx, root, pat.ID(), true)
	wantCode(t, "ban", err, "")
	check("banned", 1)
	// An attempt while banned is refused before it is checked: nothing recorded.
	_, err = f.svc.Play.Submit(ctx, f.as("pat"), "a", "flag{wrong}")
	wantCode(t, "a banned user submits", err, ctf.Forbidden)
	_, err = f.svc.Admin.SetBanned(ctx, root, pat.ID(), false)
	wantCode(t, "unban", err, "")
	check("unbanned", 5)
	_, err = f.svc.Admin.SetRole(ctx, root, pat.ID(), ctf.RoleAdmin)
	wantCode(t, "promote", err, "")
	check("promoted", 1)
	_, err = other.Admin.SetRole(ctx, root, pat.ID(), ctf.RolePlayer)
	wantCode(t, "demote on the other replica", err, "")
	if err := f.svc.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	check("demoted", 5)
	// root, an admin, demoted: their loaded attempt joins the count.
	_, err = other.Admin.SetRole(ctx, ctf.Operator, root.ID(), ctf.RolePlayer)
	wantCode(t, "demote root", err, "")
	if err := f.svc.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	check("root demoted", 6)
}
