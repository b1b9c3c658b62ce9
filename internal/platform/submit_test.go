package platform

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// TestSubmitFromKeepsTheOrderOfChecks: SubmitFrom is where every front door's
// order of checks lives. An unknown slug is NotFound before the flag is read
// (the API's source would read the request body); a source's error is the
// answer as it stands; a flag empty or too long once trimmed is Invalid,
// and none of these records an attempt.
func TestSubmitFromKeepsTheOrderOfChecks(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	pat := f.as("pat")
	read := 0
	source := func(flag string, err error) FlagSource {
		return func() (string, error) { read++; return flag, err }
	}
	bad := ctf.Errorf(ctf.Invalid, "request body is not valid JSON")
	tests := []struct {
		name  string
		v     ctf.Viewer
		slug  string
		src   FlagSource
		want  error
		code  ctf.Code
		reads int
	}{
		{"anonymous", ctf.Viewer{}, "a", source("flag{a}", nil), nil, ctf.Unauthorized, 0},
		{"unknown slug, bad body", pat, "nope", source("", bad), ctf.ErrNoChallenge, ctf.NotFound, 0},
		{"bad body", pat, "a", source("", bad), bad, ctf.Invalid, 1},
		{"empty once trimmed", pat, "a", source("  \t ", nil), nil, ctf.Invalid, 1},
		{"too long", pat, "a", source(strings.Repeat("x", ctf.MaxFlagBytes+1), nil), nil, ctf.Invalid, 1},
	}
	attempts := func() int64 { d, _ := f.svc.Play.Challenge("a", ctf.Viewer{}); return d.AttemptsCount }
	before := attempts()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			read = 0
			_, err := f.svc.Play.SubmitFrom(ctx, tt.v, tt.slug, tt.src)
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("error %v, want %v", err, tt.want)
			}
			if got := ctf.ErrorCode(err); got != tt.code {
				t.Errorf("code %q, want %q (%v)", got, tt.code, err)
			}
			if read != tt.reads {
				t.Errorf("the flag was read %d times, want %d", read, tt.reads)
			}
		})
	}
	if after := attempts(); after != before {
		t.Errorf("refusals recorded attempts: %d, then %d", before, after)
	}
	// The flag is trimmed once, by the service: a padded right flag solves.
	if _, err := f.svc.Play.SubmitFrom(ctx, pat, "a", Flag("  flag{a}\n")); err != nil {
		t.Errorf("a right flag with spaces around it: %v", err)
	}
}
