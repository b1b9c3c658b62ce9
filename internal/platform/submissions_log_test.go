package platform

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// TestSubmissionLog: the log lists every submission newest first, filters
// by user, challenge and result, names users, challenges and keys, shows
// the text of wrong flags only, and is for admins.
func TestSubmissionLog(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	root := f.as("root")
	for _, c := range []struct {
		name string
		q    LogQuery
		want string // user/slug/result/flag per entry
		code ctf.Code
	}{
		{"all", LogQuery{}, "pam/a/correct/ root/a/wrong/flag{test} pat/a/wrong/flag{nope2} pat/a/wrong/flag{nope}", ""},
		{"by user", LogQuery{User: "pat"}, "pat/a/wrong/flag{nope2} pat/a/wrong/flag{nope}", ""},
		{"correct", LogQuery{Result: "correct"}, "pam/a/correct/", ""},
		{"wrong of pam", LogQuery{User: "pam", Result: "wrong"}, "", ""},
		{"by challenge", LogQuery{Challenge: "b"}, "", ""},
		{"page 2", LogQuery{Page: 2}, "", ""},
		{"a page past any number", LogQuery{Page: 1 << 62}, "", ""},
		{"unknown user", LogQuery{User: "nobody"}, "", ctf.Invalid},
		{"unknown challenge", LogQuery{Challenge: "zz"}, "", ctf.Invalid},
		{"bad result", LogQuery{Result: "maybe"}, "", ctf.Invalid},
	} {
		log, err := f.svc.Admin.SubmissionLog(ctx, root, c.q)
		wantCode(t, c.name, err, c.code)
		var got []string
		for _, e := range log.Entries {
			res := "wrong"
			if e.Correct {
				res = "correct"
			}
			got = append(got, fmt.Sprintf("%s/%s/%s/%s", e.Username, e.Slug, res, e.Flag))
		}
		if strings.Join(got, " ") != c.want || log.More {
			t.Errorf("%s: %q (more %v), want %q", c.name, strings.Join(got, " "), log.More, c.want)
		}
	}
	_, err := f.svc.Admin.SubmissionLog(ctx, f.as("pam"), LogQuery{})
	wantCode(t, "a player", err, ctf.Forbidden)
}

// TestPlayerReport: an admin's report of a player holds their solves,
// their submissions with the door and key, and the wrong flags others sent
// too; players may not read it.
func TestPlayerReport(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	root := f.as("root")
	_, key, err := f.svc.Keys.Create(ctx, f.as("pam"), NewAPIKey{Name: "laptop"})
	if err != nil {
		t.Fatal(err)
	}
	pamKey, err := f.svc.Accounts.AuthenticateKey(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	pamKey.Door = ctf.DoorAPI
	if _, err := f.svc.Play.Submit(ctx, pamKey, "b", "flag{nope}"); err == nil {
		t.Fatal("a wrong flag was taken")
	}
	if _, err := f.svc.Play.Submit(ctx, f.as("pat"), "a", "flag{nope}"); err == nil {
		t.Fatal("a wrong flag was taken")
	}
	r, err := f.svc.Admin.PlayerReport(ctx, root, "pat")
	wantCode(t, "pat's report", err, "")
	if len(r.Solves) != 0 || len(r.Recent) != 3 || r.Recent[0].Flag != "flag{nope}" {
		t.Errorf("pat's report: solves %+v, recent %+v", r.Solves, r.Recent)
	}
	if len(r.Shared) != 0 {
		t.Errorf("pat shares flags by challenge with nobody, got %+v", r.Shared)
	}
	r, err = f.svc.Admin.PlayerReport(ctx, root, "pam")
	wantCode(t, "pam's report", err, "")
	if len(r.Solves) != 1 || r.Solves[0].Slug != "a" || len(r.Keys) != 1 {
		t.Fatalf("pam's report: solves %+v, keys %+v", r.Solves, r.Keys)
	}
	if e := r.Recent[0]; e.Slug != "b" || e.Door != ctf.DoorAPI || e.KeyName != "laptop" || e.Flag != "flag{nope}" {
		t.Errorf("pam's latest submission: %+v", e)
	}
	// pat's flag{nope} went to a, pam's to b: not shared. root sends pat's
	// other one to a: shared.
	if _, err := f.svc.Play.Submit(ctx, root, "a", "flag{nope2}"); err == nil {
		t.Fatal("a wrong flag was taken")
	}
	r, _ = f.svc.Admin.PlayerReport(ctx, root, "pat")
	if len(r.Shared) != 1 || r.Shared[0].Slug != "a" || r.Shared[0].Flag != "flag{nope2}" || len(r.Shared[0].Others) != 1 ||
		r.Shared[0].Others[0].Username != "root" {
		t.Errorf("pat's shared flags: %+v", r.Shared)
	}
	_, err = f.svc.Admin.PlayerReport(ctx, f.as("pat"), "pam")
	wantCode(t, "a player", err, ctf.Forbidden)
	_, err = f.svc.Admin.PlayerReport(ctx, root, "nobody")
	wantCode(t, "nobody", err, ctf.NotFound)
}
