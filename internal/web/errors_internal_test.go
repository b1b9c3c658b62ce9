package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/store/storetest"
)

// TestRefusalsWithAWaitSayIt: every way the web app shows a refusal that
// comes with a wait (the password hashes all busy: Unavailable; a
// throttle: RateLimited) sends Retry-After and says the wait on the page,
// in the refusal's one sentence (issue 20, fix 14), the settings forms
// included. The busy error is the platform's as a
// password change meets it when no hash slot frees up in time (the slots
// are the platform's own, out of this package's reach).
func TestRefusalsWithAWaitSayIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc := platform.New(storetest.Open(t), platform.Options{FilesDir: t.TempDir()})
	if err := svc.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Accounts.CreateUser(ctx, ctf.Operator, platform.NewUser{Username: "pam", Email: "pam@example.com", Password: "pam-password"}); err != nil {
		t.Fatal(err)
	}
	res, err := svc.Accounts.Login(ctx, platform.Login{Username: "pam", Password: "pam-password"})
	if err != nil {
		t.Fatal(err)
	}
	h := New(svc, Options{})
	busy := ctf.Errorf(ctf.Unavailable, "the server is busy checking passwords; try again in a few seconds")
	busy.RetryAfter = 5 * time.Second
	throttled := ctf.Errorf(ctf.RateLimited, "too many failed logins; wait before trying again")
	throttled.RetryAfter = 150 * time.Second
	for _, tc := range []struct {
		name   string
		err    *ctf.Error
		status int
		retry  string
		says   string
	}{
		{"busy", busy, http.StatusServiceUnavailable, "5", "The server is busy checking passwords; try again in 5 seconds."},
		{"throttled", throttled, http.StatusTooManyRequests, "150", "Too many failed logins; wait 3 minutes before trying again."},
	} {
		for _, door := range []struct {
			name string
			fn   http.HandlerFunc
		}{
			{"a settings form", h.settingsForm(func(*http.Request, ctf.Viewer, *settingsData) (string, error) { return "", tc.err })},
			{"a form page", func(w http.ResponseWriter, r *http.Request) {
				h.formError(w, r, "login", page{Title: "Log in", Data: loginForm{}}, tc.err)
			}},
			{"the error page", func(w http.ResponseWriter, r *http.Request) { h.error(w, r, ctf.Viewer{}, tc.err) }},
		} {
			form := url.Values{"current": {"pam-password"}, "new": {"a new password"}, "new2": {"a new password"}}
			req := httptest.NewRequest("POST", "/settings/password", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.AddCookie(&http.Cookie{Name: h.session.Name, Value: res.Token})
			rec := httptest.NewRecorder()
			door.fn(rec, req)
			label := tc.name + " through " + door.name
			body := rec.Body.String()
			if door.name == "a settings form" {
				// It goes back to the settings page (post/redirect/get), the
				// message in the flash that page shows.
				if rec.Code != http.StatusSeeOther {
					t.Errorf("%s: status %d, want 303", label, rec.Code)
				}
				f := flashOf(t, h, rec, res.Token)
				body = f.Error
			} else if rec.Code != tc.status {
				t.Errorf("%s: status %d, want %d", label, rec.Code, tc.status)
			}
			if got := rec.Header().Get("Retry-After"); got != tc.retry {
				t.Errorf("%s: Retry-After %q, want %q", label, got, tc.retry)
			}
			if !strings.Contains(body, tc.says) || strings.Contains(body, "Wait") {
				t.Errorf("%s: the page does not say %q as one sentence:\n%.2000s", label, tc.says, body)
			}
		}
	}
}

// flashOf reads the flash a form's answer sets.
func flashOf(t *testing.T, h *Handler, rec *httptest.ResponseRecorder, session string) flash {
	t.Helper()
	req := httptest.NewRequest("GET", "/", nil)
	req.AddCookie(&http.Cookie{Name: h.session.Name, Value: session})
	for _, c := range rec.Result().Cookies() {
		req.AddCookie(c)
	}
	w := httptest.NewRecorder()
	return h.takeFlash(w, req, h.viewer(w, req))
}

// TestRefusalsReadAsOneSentence (issue 20, fix 14): a refusal's message
// (the API's words) reads on a page as one sentence: capitalised, with its
// full stop, the wait folded into it, a field's or acronym's spelling kept.
func TestRefusalsReadAsOneSentence(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		wait time.Duration
		want string
	}{
		{"challenge is locked", 0, "Challenge is locked."},
		{"wrong username or password.", 0, "Wrong username or password."},
		{"too many wrong submissions for this challenge; try again later", 90 * time.Second, "Too many wrong submissions for this challenge; try again in a minute."},
		{"too many failed logins; wait before trying again", 10 * time.Minute, "Too many failed logins; wait 10 minutes before trying again."},
		{"three links were sent in the last 15 minutes; look for them", 30 * time.Second, "Three links were sent in the last 15 minutes; look for them; wait 30 seconds."},
		{"url must name a public host", 0, "URL must name a public host."},
		{"flags[0].content must not be empty", 0, "flags[0].content must not be empty."},
		{"", 0, "Something went wrong."},
	} {
		if got := sentence(tc.msg, tc.wait); got != tc.want {
			t.Errorf("sentence(%q, %v) = %q, want %q", tc.msg, tc.wait, got, tc.want)
		}
	}
}
