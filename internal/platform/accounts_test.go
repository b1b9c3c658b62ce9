package platform

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
)

func TestSignUpRules(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	tests := []struct {
		name string
		in   SignUp
		code ctf.Code
	}{
		{"ok", SignUp{Username: "newbie", Email: "newbie@example.com", Password: "a long password"}, ""},
		{"bad username", SignUp{Username: "a b", Email: "x@example.com", Password: "a long password"}, ctf.Invalid},
		{"short username", SignUp{Username: "ab", Email: "x@example.com", Password: "a long password"}, ctf.Invalid},
		{"bad email", SignUp{Username: "xavier", Email: "not-an-email", Password: "a long password"}, ctf.Invalid},
		{"short password", SignUp{Username: "xavier", Email: "x@example.com", Password: "short"}, ctf.Invalid},
		{"password is the username", SignUp{Username: "xavier99", Email: "x@example.com", Password: "Xavier99"}, ctf.Invalid},
		{"javascript avatar is not a field of sign-up, name with a NUL is refused", SignUp{Username: "xavier", Email: "x@example.com", Password: "a long password", Name: "x\x00"}, ctf.Invalid},
		{"taken username", SignUp{Username: "pam", Email: "other@example.com", Password: "a long password"}, ctf.Conflict},
		{"taken email, other case", SignUp{Username: "pam2", Email: "PAM@example.com", Password: "a long password"}, ctf.Conflict},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u, err := f.svc.Accounts.SignUp(ctx, tc.in)
			wantCode(t, "sign up", err, tc.code)
			if tc.code == "" && (u.Role != ctf.RolePlayer || !strings.HasPrefix(u.PasswordHash, "$argon2id$")) {
				t.Fatalf("signed up as %+v", u)
			}
		})
	}
	closed := newFixture(t, Options{RegistrationClosed: true})
	_, err := closed.svc.Accounts.SignUp(ctx, SignUp{Username: "newbie", Email: "newbie@example.com", Password: "a long password"})
	wantCode(t, "closed registration", err, ctf.Forbidden)
	// Admins and the operator still create accounts, with the same rules.
	_, err = closed.svc.Accounts.CreateUser(ctx, closed.as("root"), NewUser{Username: "newbie", Email: "newbie@example.com", Password: "a long password"})
	wantCode(t, "admin creates", err, "")
	_, err = closed.svc.Accounts.CreateUser(ctx, ctf.Operator, NewUser{Username: "x y", Email: "xy@example.com"})
	wantCode(t, "operator, bad username", err, ctf.Invalid)
	_, err = closed.svc.Accounts.CreateUser(ctx, closed.as("pam"), NewUser{Username: "sneaky", Email: "s@example.com"})
	wantCode(t, "player creates", err, ctf.Forbidden)
}

func TestLoginAndThrottle(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	_, err := f.svc.Accounts.Login(ctx, Login{Username: "pam", Password: "wrong password", Address: "10.0.0.1"})
	wantCode(t, "wrong password", err, ctf.Unauthorized)
	_, err2 := f.svc.Accounts.Login(ctx, Login{Username: "nobody", Password: "wrong password", Address: "10.0.0.1"})
	wantCode(t, "unknown user", err2, ctf.Unauthorized)
	if ctf.ErrorMessage(err) != ctf.ErrorMessage(err2) {
		t.Errorf("an unknown name reads %q, a wrong password %q: the message tells which names exist", ctf.ErrorMessage(err2), ctf.ErrorMessage(err))
	}
	res, err := f.svc.Accounts.Login(ctx, Login{Username: "PAM", Password: "pam-password", Address: "10.0.0.1", UserAgent: "test"})
	wantCode(t, "right password, name in another case", err, "")
	v, err := f.svc.Accounts.AuthenticateSession(ctx, res.Token)
	if err != nil || v.User.Username != "pam" {
		t.Fatalf("session: %+v %v", v, err)
	}
	// Five failures for one account lock it for 15 minutes, right password
	// or not, from any address; other accounts are not affected.
	for i := 0; i < 5; i++ {
		_, err := f.svc.Accounts.Login(ctx, Login{Username: "pat", Password: "nope nope", Address: "10.0.0.2"})
		wantCode(t, "failure", err, ctf.Unauthorized)
	}
	_, err = f.svc.Accounts.Login(ctx, Login{Username: "pat", Password: "pat-password", Address: "10.9.9.9"})
	wantCode(t, "locked account", err, ctf.RateLimited)
	var e *ctf.Error
	if !asErr(err, &e) || e.RetryAfter < 14*time.Minute || e.RetryAfter > 15*time.Minute {
		t.Fatalf("retry after %v, want about 15 minutes", e.RetryAfter)
	}
	_, err = f.svc.Accounts.Login(ctx, Login{Username: "pam", Password: "pam-password", Address: "10.9.9.9"})
	wantCode(t, "another account", err, "")
	f.clock.Add(15*time.Minute + time.Second)
	_, err = f.svc.Accounts.Login(ctx, Login{Username: "pat", Password: "pat-password", Address: "10.9.9.9"})
	wantCode(t, "after the wait", err, "")
	// Fifty failures from one address lock the address, whatever the name.
	for i := 0; i < 50; i++ {
		if _, err := f.svc.Accounts.Login(ctx, Login{Username: "guess" + string(rune('a'+i%26)) + string(rune('a'+i/26)), Password: "x", Address: "10.6.6.6"}); ctf.ErrorCode(err) != ctf.Unauthorized {
			t.Fatalf("failure %d: %v", i, err)
		}
	}
	_, err = f.svc.Accounts.Login(ctx, Login{Username: "pam", Password: "pam-password", Address: "10.6.6.6"})
	wantCode(t, "locked address", err, ctf.RateLimited)
	// Across replicas: the count is in the database.
	_, err = f.replica().Accounts.Login(ctx, Login{Username: "pam", Password: "pam-password", Address: "10.6.6.6"})
	wantCode(t, "locked address on another replica", err, ctf.RateLimited)
}

func TestTwoFactor(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	pam := f.as("pam")
	enrol, err := f.svc.Accounts.BeginTwoFactor(ctx, pam)
	wantCode(t, "begin", err, "")
	if !strings.HasPrefix(enrol.URI, "otpauth://totp/") || !strings.Contains(enrol.URI, "secret="+enrol.Secret) {
		t.Fatalf("enrolment %+v", enrol)
	}
	code := func(at time.Time) string {
		c, err := totp.GenerateCodeCustom(enrol.Secret, at, totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	valid := map[string]bool{}
	for _, d := range []time.Duration{-30 * time.Second, 0, 30 * time.Second} {
		valid[code(f.clock.Now().Add(d))] = true
	}
	wrong := "000000"
	for i := 1; valid[wrong]; i++ {
		wrong = strings.Repeat(string(rune('0'+i)), 6)
	}
	_, err = f.svc.Accounts.ConfirmTwoFactor(ctx, pam, wrong)
	wantCode(t, "confirm with a wrong code", err, ctf.Invalid)
	first := code(f.clock.Now())
	recovery, err := f.svc.Accounts.ConfirmTwoFactor(ctx, pam, first)
	wantCode(t, "confirm", err, "")
	if len(recovery) != 10 {
		t.Fatalf("%d recovery codes, want 10", len(recovery))
	}
	me, err := f.svc.Accounts.Me(ctx, f.as("pam"))
	if err != nil || !me.TwoFactorEnabled {
		t.Fatalf("/me twoFactorEnabled = %v, %v", me.TwoFactorEnabled, err)
	}
	login := func(code string) (LoginResult, error) {
		return f.svc.Accounts.Login(ctx, Login{Username: "pam", Password: "pam-password", Code: code, Address: "10.0.0.1"})
	}
	res, err := login("")
	if err != nil || !res.NeedCode || res.Token != "" {
		t.Fatalf("password alone: %+v %v; want a request for the code", res, err)
	}
	_, err = login(first)
	wantCode(t, "the code that confirmed, replayed", err, ctf.Unauthorized)
	f.clock.Add(30 * time.Second)
	next := code(f.clock.Now())
	res, err = login(next)
	if err != nil || res.Token == "" {
		t.Fatalf("next code: %+v %v", res, err)
	}
	_, err = login(next)
	wantCode(t, "a code used twice", err, ctf.Unauthorized)
	res, err = login(recovery[3])
	if err != nil || res.Token == "" {
		t.Fatalf("recovery code: %+v %v", res, err)
	}
	_, err = login(recovery[3])
	wantCode(t, "a recovery code used twice", err, ctf.Unauthorized)
	if n, err := f.svc.Accounts.RecoveryCodesLeft(ctx, pam); err != nil || n != 9 {
		t.Fatalf("%d recovery codes left, %v; want 9", n, err)
	}
	// Disabling needs the password and a code.
	wantCode(t, "disable without a code", f.svc.Accounts.DisableTwoFactor(ctx, pam, "pam-password", "123"), ctf.Invalid)
	wantCode(t, "disable with a wrong password", f.svc.Accounts.DisableTwoFactor(ctx, pam, "not the password", strings.ToUpper(recovery[0])), ctf.Invalid)
	wantCode(t, "disable", f.svc.Accounts.DisableTwoFactor(ctx, pam, "pam-password", strings.ToUpper(recovery[0])), "")
	res, err = login("")
	if err != nil || res.NeedCode || res.Token == "" {
		t.Fatalf("after disabling: %+v %v", res, err)
	}
}

func TestSessionsAndPassword(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	var tokens []string
	for _, ua := range []string{"laptop", "phone", "tablet"} {
		res, err := f.svc.Accounts.Login(ctx, Login{Username: "pam", Password: "pam-password", UserAgent: ua})
		wantCode(t, "login "+ua, err, "")
		tokens = append(tokens, res.Token)
	}
	cur, err := f.svc.Accounts.AuthenticateSession(ctx, tokens[0])
	wantCode(t, "session", err, "")
	list, err := f.svc.Accounts.Sessions(ctx, cur)
	if err != nil || len(list) != 3 {
		t.Fatalf("sessions %+v %v", list, err)
	}
	current := 0
	for _, s := range list {
		if s.Current {
			current++
			if s.UserAgent != "laptop" {
				t.Errorf("the current session is %q", s.UserAgent)
			}
		}
	}
	if current != 1 {
		t.Fatalf("%d current sessions", current)
	}
	phone, _ := f.svc.Accounts.AuthenticateSession(ctx, tokens[1])
	wantCode(t, "revoke the phone", f.svc.Accounts.RevokeSession(ctx, cur, phone.Session), "")
	_, err = f.svc.Accounts.AuthenticateSession(ctx, tokens[1])
	wantCode(t, "revoked session", err, ctf.Unauthorized)
	wantCode(t, "revoke an unknown session", f.svc.Accounts.RevokeSession(ctx, cur, "nope"), ctf.NotFound)
	// A password change ends the other sessions, keeps this one.
	wantCode(t, "wrong current password", f.svc.Accounts.ChangePassword(ctx, cur, "nope", "a new long password"), ctf.Invalid)
	wantCode(t, "weak new password", f.svc.Accounts.ChangePassword(ctx, cur, "pam-password", "short"), ctf.Invalid)
	wantCode(t, "change password", f.svc.Accounts.ChangePassword(ctx, cur, "pam-password", "a new long password"), "")
	if _, err := f.svc.Accounts.AuthenticateSession(ctx, tokens[0]); err != nil {
		t.Fatalf("the current session ended: %v", err)
	}
	_, err = f.svc.Accounts.AuthenticateSession(ctx, tokens[2])
	wantCode(t, "another session after a password change", err, ctf.Unauthorized)
	_, err = f.svc.Accounts.Login(ctx, Login{Username: "pam", Password: "pam-password"})
	wantCode(t, "old password", err, ctf.Unauthorized)
	_, err = f.svc.Accounts.Login(ctx, Login{Username: "pam", Password: "a new long password"})
	wantCode(t, "new password", err, "")
	wantCode(t, "revoke the others", f.svc.Accounts.RevokeOtherSessions(ctx, cur), "")
	if list, _ := f.svc.Accounts.Sessions(ctx, cur); len(list) != 1 || !list[0].Current {
		t.Fatalf("after revoking the others: %+v", list)
	}
	wantCode(t, "log out", f.svc.Accounts.Logout(ctx, cur), "")
	_, err = f.svc.Accounts.AuthenticateSession(ctx, tokens[0])
	wantCode(t, "after logging out", err, ctf.Unauthorized)
	// Idle for 7 days: expired.
	res, _ := f.svc.Accounts.Login(ctx, Login{Username: "pat", Password: "pat-password"})
	f.clock.Add(7*24*time.Hour + time.Minute)
	_, err = f.svc.Accounts.AuthenticateSession(ctx, res.Token)
	wantCode(t, "idle session", err, ctf.Unauthorized)
}

func TestUpdateProfile(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name, display, image string
		code                 ctf.Code
	}{
		{"ok", "Pam the Great", "https://example.com/pam.png", ""},
		{"javascript image", "Pam", "javascript:alert(1)", ctf.Invalid},
		{"data image", "Pam", "data:image/png;base64,AAAA", ctf.Invalid},
		{"long name", strings.Repeat("p", 65), "", ctf.Invalid},
	} {
		_, err := f.svc.Accounts.UpdateProfile(ctx, f.as("pam"), tc.display, tc.image)
		wantCode(t, tc.name, err, tc.code)
	}
	p := f.svc.Scoreboard.Profile(f.as("pam").ID())
	if *p.Name != "Pam the Great" || *p.Image != "https://example.com/pam.png" {
		t.Fatalf("profile %+v", p)
	}
	if !strings.Contains(boardJSON(f.svc), "Pam the Great") {
		t.Error("the leaderboard still shows the old name")
	}
}

func asErr(err error, target **ctf.Error) bool { return errors.As(err, target) }

// TestTwoFactorCodesAreThrottled: a signed-in session (stolen, say) cannot
// try every code to turn two-factor off: after five wrong codes it waits.
func TestTwoFactorCodesAreThrottled(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	pam := f.as("pam")
	enrol, err := f.svc.Accounts.BeginTwoFactor(ctx, pam)
	wantCode(t, "begin", err, "")
	code, _ := totp.GenerateCodeCustom(enrol.Secret, f.clock.Now(), totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if _, err := f.svc.Accounts.ConfirmTwoFactor(ctx, pam, code); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		wantCode(t, "wrong code", f.svc.Accounts.DisableTwoFactor(ctx, pam, "pam-password", "abcdef"), ctf.Invalid)
	}
	f.clock.Add(30 * time.Second)
	next, _ := totp.GenerateCodeCustom(enrol.Secret, f.clock.Now(), totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	wantCode(t, "the right code, too late", f.svc.Accounts.DisableTwoFactor(ctx, pam, "pam-password", next), ctf.RateLimited)
	// Logging in is throttled apart: the account's own failures are not these.
	res, err := f.svc.Accounts.Login(ctx, Login{Username: "pam", Password: "pam-password", Code: next})
	if err != nil || res.Token == "" {
		t.Fatalf("login: %+v %v", res, err)
	}
}
