package apitest

import (
	"testing"

	"github.com/flagshipctf/flagship/internal/golden"
)

// TestGoldenPublicReads: the leaderboard, the challenge list (anonymous
// and as a player who solved some and is locked out of none), one
// challenge and the CTFtime feed are, byte for byte, the golden files.
// They are the reference a refactoring must keep; -update rewrites them.
func TestGoldenPublicReads(t *testing.T) {
	t.Parallel()
	s := StartGolden(t)
	carol := Bearer(s.Key("carol"))
	for _, tc := range []struct {
		name, path string
		headers    []string
	}{
		{"leaderboard", "/api/public/leaderboard", nil},
		{"challenges-anonymous", "/api/public/challenges", nil},
		{"challenges-player", "/api/public/challenges", []string{carol}},
		{"challenge-anonymous", "/api/public/challenges/baby-rsa", nil},
		{"challenge-player", "/api/public/challenges/rop", []string{carol}},
		{"ctftime", "/api/ctftime", nil},
	} {
		do := s.Do
		if tc.name == "ctftime" {
			do = s.DoRaw // CTFtime's format, not in the OpenAPI document
		}
		r := do("GET", tc.path, nil, tc.headers...)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", tc.name, r.Status, r.Body)
		}
		golden.Check(t, tc.name, r.Body)
	}
}
