package platform

import (
	"context"
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
)

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
	_, err := f.svc.Admin.SetBanned(ctx, root, pat.ID(), true, "")
	wantCode(t, "ban", err, "")
	check("banned", 1)
	// An attempt while banned is refused before it is checked: nothing recorded.
	_, err = f.svc.Play.Submit(ctx, f.as("pat"), "a", "flag{wrong}")
	wantCode(t, "a banned user submits", err, ctf.Forbidden)
	_, err = f.svc.Admin.SetBanned(ctx, root, pat.ID(), false, "")
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
