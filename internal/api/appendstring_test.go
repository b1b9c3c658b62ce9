package api

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestAppendStringIsJSON: the fast path writes what encoding/json writes,
// for plain names and for every kind of character that needs escaping.
func TestAppendStringIsJSON(t *testing.T) {
	cases := []string{"", "alice", "Alice A.", `quo"te`, `back\slash`, "<b>&", "tab\there", "nul\x00", "del\x7f",
		"é", "日本", "\u2028", "bad\xffutf8", "emoji 🎉"}
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []rune("aZ0 .-_\"\\<>&\t\n\x01é日\u2028🎉")
	for range 2000 {
		r := make([]rune, rng.IntN(12))
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		cases = append(cases, string(r))
	}
	for _, s := range cases {
		want, _ := json.Marshal(s)
		if got := appendString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Fatalf("appendString(%q) = %s, want %s", s, got[1:], want)
		}
	}
}
