package secret

import (
	"strings"
	"testing"
)

func TestAPIKeyRoundTrip(t *testing.T) {
	key, prefix, hash := NewAPIKey()
	got, err := ParseAPIKey(key)
	if err != nil || got != prefix {
		t.Fatalf("ParseAPIKey(%q) = %q, %v; want %q", key, got, err, prefix)
	}
	if HashToken(key) != hash || !EqualHash(hash, HashToken(key)) {
		t.Fatal("hash of key does not verify")
	}
	key2, _, _ := NewAPIKey()
	if key2 == key {
		t.Fatal("two keys are equal")
	}
}

func TestParseAPIKeyRejects(t *testing.T) {
	key, _, _ := NewAPIKey()
	for _, bad := range []string{
		"", "fsk_", key[:len(key)-1], key + "a", strings.ToUpper(key),
		strings.Replace(key, "_", "-", 2), "xsk_" + key[4:], key[:12] + "x" + key[13:],
		key[:20] + "1" + key[21:], key[:20] + "\xff" + key[21:],
	} {
		if _, err := ParseAPIKey(bad); err == nil {
			t.Errorf("ParseAPIKey(%q) accepted", bad)
		}
	}
}

func TestPassword(t *testing.T) {
	h := HashPassword("s3cret")
	if !CheckPassword(h, "s3cret") {
		t.Fatal("right password refused")
	}
	for _, bad := range []string{"", "s3cre", "S3cret"} {
		if CheckPassword(h, bad) {
			t.Errorf("wrong password %q accepted", bad)
		}
	}
	for _, enc := range []string{"", "$argon2id$", "plain", "$argon2id$v=19$m=x$a$b"} {
		if CheckPassword(enc, "s3cret") {
			t.Errorf("malformed hash %q accepted", enc)
		}
	}
}

func FuzzParseAPIKey(f *testing.F) {
	key, _, _ := NewAPIKey()
	for _, s := range []string{key, "", "fsk_", "Bearer x", key + "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseAPIKey(s)
		if err == nil && (!strings.HasPrefix(s, p) || len(p) != 12) {
			t.Fatalf("accepted %q with prefix %q", s, p)
		}
	})
}
