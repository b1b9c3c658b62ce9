package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
)

// TestUsernamesUniqueIgnoringCase: no account may be named like another
// but for case, by any door that creates one: sign-up (BOSS beside the
// admin boss), an owner's agent (Organiser beside organiser) or the
// admin's form; each is a clean 409 "already taken".
func TestUsernamesUniqueIgnoringCase(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, `
users:
  - {username: boss, email: boss@example.com, password: boss-password, role: admin}
  - {username: organiser, email: organiser@example.com, password: organiser-password}
`)
	signup := newBrowser(t, s).send("/signup", url.Values{"username": {"BOSS"}, "email": {"impostor@example.com"},
		"password": {"long enough"}, "password2": {"long enough"}})
	want(t, "sign up as BOSS", signup, 200, "already taken")

	owner := newBrowser(t, s)
	owner.post("/login", url.Values{"username": {"organiser"}, "password": {"organiser-password"}})
	agent := owner.post("/settings/agents", url.Values{"username": {"Organiser"}, "model": {"m"}})
	want(t, "an agent named Organiser", agent, http.StatusConflict, "already taken")

	admin := newBrowser(t, s)
	admin.post("/login", url.Values{"username": {"boss"}, "password": {"boss-password"}})
	made := admin.send("/admin/users/new", url.Values{"username": {"ORGANISER"}, "email": {"o2@example.com"},
		"password": {"long enough"}, "password2": {"long enough"}})
	want(t, "the admin creates ORGANISER", made, 200, "already taken")

	// Nothing was created: two accounts, as loaded.
	all, err := s.DB.Accounts().Users(context.Background())
	if err != nil || len(all) != 2 {
		t.Fatalf("%d accounts (%v), want the 2 loaded", len(all), err)
	}
}
