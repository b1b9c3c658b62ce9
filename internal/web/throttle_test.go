package web_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/pquerna/otp/totp"
)

// parallelPosts sends n copies of a form at once, each from its own
// goroutine, through client (nil: a fresh client each) and counts the
// answers by status. The requests wait for one another at a barrier, so
// they reach the server together.
func parallelPosts(t *testing.T, s *apitest.Server, client *http.Client, n int, path string, form url.Values, headers ...string) map[int]int {
	t.Helper()
	var (
		mu     sync.Mutex
		counts = map[int]int{}
		errs   []error
		wg     sync.WaitGroup
		start  = make(chan struct{})
	)
	for range n {
		c := client
		if c == nil {
			c = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, err := http.NewRequest("POST", s.URL+path, strings.NewReader(form.Encode()))
			if err == nil {
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.Header.Set("Sec-Fetch-Site", "same-origin")
				for _, h := range headers {
					k, v, _ := strings.Cut(h, ":")
					req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
				}
			}
			<-start
			var resp *http.Response
			if err == nil {
				resp, err = c.Do(req)
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			status := resp.StatusCode
			if status == http.StatusSeeOther && resp.Header.Get("Retry-After") != "" {
				// A form's refusal goes back to its page (post/redirect/get);
				// a throttle's still says its wait.
				status = http.StatusTooManyRequests
			}
			counts[status]++
		}()
	}
	close(start)
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	return counts
}

// TestLoginThrottleHoldsUnderParallelTries: thirty wrong passwords for one
// account sent at once get five checks (401) and twenty-five refusals
// (429): the throttle reserves each try before the password is checked, so
// a burst cannot slip past the count. Afterwards even the right password waits.
func TestLoginThrottleHoldsUnderParallelTries(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	const n = 30
	got := parallelPosts(t, s, nil, n, "/login", url.Values{"username": {"pam"}, "password": {"not the password"}})
	if got[http.StatusSeeOther] != 5 || got[http.StatusTooManyRequests] != n-5 {
		t.Fatalf("%d parallel wrong passwords were answered %v: want 5 checked (303, no wait) and %d refused (303 with Retry-After)", n, got, n-5)
	}
	locked := newBrowser(t, s).send("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})
	want(t, "the right password after the burst", locked, 200, "; wait ")
}

// TestTwoFactorDisableThrottleHoldsUnderParallelTries: forty tries at once
// to turn two-factor off with a wrong code, from a signed-in session, get
// five checks and thirty-five refusals.
func TestTwoFactorDisableThrottleHoldsUnderParallelTries(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	b := newBrowser(t, s)
	b.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})
	secret := enableTwoFactor(t, b)
	wrong := wrongCode(secret)
	const n = 40
	got := parallelPosts(t, s, b.c, n, "/settings/2fa/disable", url.Values{"password": {"pam-password"}, "code": {wrong}})
	if got[http.StatusSeeOther] != 5 || got[http.StatusTooManyRequests] != n-5 {
		t.Fatalf("%d parallel wrong codes were answered %v: want 5 checked (303, no wait) and %d refused (303 with Retry-After)", n, got, n-5)
	}
	want(t, "still on", b.get("/settings"), 200, "On. 10 recovery codes left.")
}

// enableTwoFactor turns two-factor on for b's account and returns the
// secret.
func enableTwoFactor(t *testing.T, b *browser) string {
	t.Helper()
	secret := beginTwoFactor(t, b)
	code, _ := totp.GenerateCode(secret, time.Now())
	want(t, "2FA on", b.send("/settings/2fa/confirm", url.Values{"code": {code}}), 200, "Two-factor authentication is on")
	return secret
}

// beginTwoFactor starts turning two-factor on for b's account and returns
// the pending secret the page shows.
func beginTwoFactor(t *testing.T, b *browser) string {
	t.Helper()
	begin := b.send("/settings/2fa/begin", url.Values{})
	secret := regexp.MustCompile(`<code id="secret">([A-Z2-7]+)</code>`).FindStringSubmatch(begin.body)
	if secret == nil {
		t.Fatalf("no secret on the page:\n%.2000s", begin.body)
	}
	return secret[1]
}

// wrongCode returns a code of secret's for none of the time steps a server
// accepts now.
func wrongCode(secret string) string {
	valid := map[string]bool{}
	for _, d := range []time.Duration{-60 * time.Second, -30 * time.Second, 0, 30 * time.Second, 60 * time.Second} {
		c, _ := totp.GenerateCode(secret, time.Now().Add(d))
		valid[c] = true
	}
	for i := 0; ; i++ {
		if c := fmt.Sprintf("%06d", i); !valid[c] {
			return c
		}
	}
}

// TestLoginNamesFoldToOneAccount: the throttle counts an account's
// failures whatever the spelling of its name (other cases, its email in
// capitals), and a name outside the username rule, like ſessions with a
// long s, which Unicode folds to "sessions", logs into nothing.
func TestLoginNamesFoldToOneAccount(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, `
users:
  - {username: sessions, email: sessions@example.com, password: sessions-password}
`)
	login := func(name, password string) page {
		return newBrowser(t, s).post("/login", url.Values{"username": {name}, "password": {password}})
	}
	refused := func(name, password string) page {
		return newBrowser(t, s).send("/login", url.Values{"username": {name}, "password": {password}})
	}
	for _, name := range []string{"ſessions", "\u212aelvin", "sessions\u0000", "sess ions"} {
		want(t, "the right password under "+name, refused(name, "sessions-password"), 200, "Wrong username or password")
	}
	if p := login("SESSIONS", "sessions-password"); p.status != http.StatusSeeOther {
		t.Fatalf("the right password under SESSIONS: %d, want 303", p.status)
	}
	for i, name := range []string{"Sessions", "SESSIONS", "sessionS", "SESSIONS@example.com", "SeSsIoNs"} {
		want(t, fmt.Sprintf("failure %d as %s", i, name), refused(name, "not the password"), 200, "Wrong username or password")
	}
	want(t, "the right password after five failures spelled five ways", refused("sessions", "sessions-password"), 200, "; wait ")
}
