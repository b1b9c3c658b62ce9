package cli

import (
	"strings"
	"testing"
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
