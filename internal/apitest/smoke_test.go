package apitest

import (
	"testing"

	"github.com/flagshipctf/flagship/internal/demo"
)

func TestSmokeDemo(t *testing.T) {
	s := Start(t, string(demo.Dataset))
	key := s.Key("demo")
	for _, p := range []string{"/api/public/health", "/api/public/challenges", "/api/public/leaderboard", "/api/public/challenges/sanity-check", "/api/public/me", "/api/public/challenges/sanity-check/writeups"} {
		r := s.Do("GET", p, nil, Bearer(key))
		if r.Status != 200 {
			t.Errorf("%s: %d %s", p, r.Status, r.Body)
		}
		r = s.Do("GET", p, nil)
		t.Logf("%s anon: %d", p, r.Status)
	}
	r := s.Do("POST", "/api/public/challenges/baby-rsa/submit", []byte(`{"flag":"nope"}`), Bearer(key))
	t.Logf("%d %s", r.Status, r.Body)
}
