package platform

import (
	"context"
	"regexp"
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
)

var verifyLinkRE = regexp.MustCompile(`https://ctf\.example\.org/verify\?token=([A-Za-z0-9_-]+)`)

// TestEmailVerificationGatesSubmissions: under RequireEmailVerification a
// sign-up gets a link by email and cannot submit (nor can its agents)
// until it opens it, on any replica; the link works once; accounts made
// otherwise are verified; a new link can be sent, three per window.
func TestEmailVerificationGatesSubmissions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	opts := Options{Mail: true, RequireEmailVerification: true, PublicURL: "https://ctf.example.org"}
	f := newFixture(t, opts)
	other := f.replica(opts)
	u, err := f.svc.Accounts.SignUp(ctx, SignUp{Username: "newbie", Email: "newbie@example.com", Password: "newbie-password"})
	if err != nil || !u.EmailUnverified {
		t.Fatalf("sign up: %+v, %v", u, err)
	}
	box, _ := f.db.Mail().Outbox(ctx, 10)
	if len(box) != 1 || box[0].To != "newbie@example.com" || box[0].Kind != "email-verification" {
		t.Fatalf("outbox: %+v", box)
	}
	m := verifyLinkRE.FindStringSubmatch(box[0].Text)
	if m == nil || !verifyLinkRE.MatchString(box[0].HTML) {
		t.Fatalf("no link in %q", box[0].Text)
	}
	newbie := f.as("newbie")
	submit := func(svc *Service, v ctf.Viewer) error {
		_, err := svc.Play.SubmitFrom(ctx, v, "a", func() (string, error) { return "flag{a}", nil })
		return err
	}
	wantCode(t, "submit unverified", submit(f.svc, newbie), ctf.Forbidden)
	wantCode(t, "a verified player", submit(f.svc, f.as("pat")), "")

	for range maxVerifyMails {
		wantCode(t, "send again", f.svc.Accounts.ResendVerification(ctx, newbie), "")
	}
	wantCode(t, "send again past the limit", f.svc.Accounts.ResendVerification(ctx, newbie), ctf.RateLimited)

	_, err = other.Accounts.VerifyEmail(ctx, "made-up")
	wantCode(t, "a made-up link", err, ctf.Invalid)
	if u, err := other.Accounts.VerifyEmail(ctx, m[1]); err != nil || u.EmailUnverified {
		t.Fatalf("verify: %+v, %v", u, err)
	}
	_, err = other.Accounts.VerifyEmail(ctx, m[1])
	wantCode(t, "the link again", err, ctf.Invalid)
	if err := f.svc.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "submit verified, on the other replica", submit(f.svc, f.as("newbie")), "")
	wantCode(t, "send again once verified", f.svc.Accounts.ResendVerification(ctx, f.as("newbie")), ctf.Conflict)

	plain := newFixture(t, Options{Mail: true})
	u, err = plain.svc.Accounts.SignUp(ctx, SignUp{Username: "free", Email: "free@example.com", Password: "free-password"})
	if err != nil || u.EmailUnverified {
		t.Errorf("a sign-up without the option: %+v, %v", u, err)
	}
}
