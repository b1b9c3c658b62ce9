package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/platform"
)

// TestMailSenderFlags: --smtp-url and --mail-from go together, and a bad
// value of either is a usage error naming the flag.
func TestMailSenderFlags(t *testing.T) {
	for _, tc := range []struct {
		url, from, wantErr string
		on                 bool
	}{
		{"", "", "", false},
		{"smtp://u:p@mail.example.org:587", "Flagship <ctf@example.org>", "", true},
		{"smtps://mail.example.org", "ctf@example.org", "", true},
		{"", "ctf@example.org", "--mail-from needs --smtp-url", false},
		{"smtp://mail.example.org", "", "--smtp-url needs --mail-from", false},
		{"imap://mail.example.org", "ctf@example.org", "--smtp-url: SMTP URL: the scheme", false},
		{"smtp://mail.example.org", "Flagship", "--mail-from:", false},
	} {
		s, err := mailSender(tc.url, tc.from)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("mailSender(%q, %q) = %v, want %q", tc.url, tc.from, err, tc.wantErr)
			}
			continue
		}
		if err != nil || (s != nil) != tc.on {
			t.Errorf("mailSender(%q, %q) = %v, %v", tc.url, tc.from, s, err)
		}
	}
}

// TestUserRecoveryCommands: the operator's reset link (a path without a
// public URL, a URL with one) works once on the web; disable-2fa refuses
// an account without 2FA; an unknown user is exit 1, no --user exit 2.
func TestUserRecoveryCommands(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "r.db")
	if code, _, errOut := run(t, "", "--db", db, "migrate"); code != 0 {
		t.Fatal(errOut)
	}
	if code, _, errOut := run(t, "pw-alice-1\n", "--db", db, "user", "create", "--username", "alice", "--email", "a@example.com", "--password-stdin"); code != 0 {
		t.Fatal(errOut)
	}
	code, out, errOut := run(t, "", "--db", db, "user", "reset-password", "--user", "alice")
	if code != 0 || !strings.Contains(out, "\n/reset?token=") {
		t.Fatalf("reset-password: %d %q %s", code, out, errOut)
	}
	code, out, _ = run(t, "", "--db", db, "--json", "user", "reset-password", "--user", "alice", "--public-url", "https://ctf.example.org/")
	var res struct{ Username, Link string }
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || !strings.HasPrefix(res.Link, "https://ctf.example.org/reset?token=") {
		t.Fatalf("reset-password --public-url: %d %s", code, out)
	}
	token := strings.TrimPrefix(res.Link, "https://ctf.example.org/reset?token=")
	ctx := context.Background()
	svc, closeDB, err := (&app{IO: IO{}, env: noEnv, db: db}).serviceAt(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer closeDB()
	if _, err := svc.Accounts.ResetPassword(ctx, platform.PasswordReset{Token: token, Password: "pw-alice-2"}); err != nil {
		t.Fatalf("the link: %v", err)
	}
	if _, err := svc.Accounts.ResetPassword(ctx, platform.PasswordReset{Token: token, Password: "pw-alice-3"}); err == nil {
		t.Error("the link worked twice")
	}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"user", "disable-2fa", "--user", "alice"}, 1},
		{[]string{"user", "disable-2fa", "--user", "nobody"}, 1},
		{[]string{"user", "reset-password", "--user", "nobody"}, 1},
		{[]string{"user", "reset-password"}, 2},
		{[]string{"user", "disable-2fa"}, 2},
	} {
		if code, _, errOut := run(t, "", append([]string{"--db", db}, tc.args...)...); code != tc.code || errOut == "" {
			t.Errorf("%v: exit %d, want %d (%s)", tc.args, code, tc.code, errOut)
		}
	}
}
