package secret

import (
	"fmt"
	"runtime"
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

// TestUseTestCost: a hash at the test cost is the least this server
// accepts, and is validated and checked like any other.
func TestUseTestCost(t *testing.T) {
	if h, want := HashPassword("s3cret"), "$argon2id$v=19$m=19456,t=2,p=1$"; !strings.HasPrefix(h, want) {
		t.Fatalf("hash %q, want production's cost: %q", h, want)
	}
	UseTestCost()
	defer testCost.Store(false) // the other tests here hash at production's cost
	h := HashPassword("s3cret")
	if want := fmt.Sprintf("$argon2id$v=19$m=%d,t=1,p=1$", MinHashMemory); !strings.HasPrefix(h, want) {
		t.Fatalf("hash %q, want it to start %q", h, want)
	}
	if err := ValidatePasswordHash(h); err != nil {
		t.Fatalf("a hash at the test cost is refused: %v", err)
	}
	if !CheckPassword(h, "s3cret") || CheckPassword(h, "S3cret") {
		t.Fatal("a hash at the test cost does not check as it should")
	}
}

// hostileHashes are encoded hashes outside the bounds, each with what its
// error must mention. Checking a password against most of them as they say
// would panic (t or p of 0), allocate terabytes (m) or run for ever (t).
func hostileHashes(t *testing.T) []struct{ name, hash, says string } {
	t.Helper()
	good := HashPassword("s3cret")
	parts := strings.Split(good, "$") // "", argon2id, v=19, m=…,t=…,p=…, salt, key
	salt, key := parts[4], parts[5]
	with := func(i int, v string) string {
		p := append([]string(nil), parts...)
		p[i] = v
		return strings.Join(p, "$")
	}
	params := func(m, t, p any) string { return with(3, fmt.Sprintf("m=%v,t=%v,p=%v", m, t, p)) }
	return []struct{ name, hash, says string }{
		{"t=0", params(19456, 0, 1), "passes"},
		{"p=0", params(19456, 2, 0), "lanes"},
		{"m=0", params(0, 2, 1), "memory"},
		{"m=1<<40", params(uint64(1)<<40, 2, 1), "memory"},
		{"m=max uint32", params(uint32(1<<32-1), 2, 1), "memory"},
		{"m past 64 MiB", params(64*1024+1, 1, 1), "memory"},
		{"m under 8 MiB", params(8*1024-1, 2, 1), "memory"},
		{"m overflows uint64", params("99999999999999999999999", 2, 1), "memory"},
		{"t=11", params(19456, 11, 1), "passes"},
		{"t=max uint32", params(19456, uint32(1<<32-1), 1), "passes"},
		{"p=17", params(19456, 2, 17), "lanes"},
		{"p=256 wraps a uint8", params(19456, 2, 256), "lanes"},
		{"p=257 wraps to 1", params(19456, 2, 257), "lanes"},
		{"negative t", params(19456, -1, 1), "decimal"},
		{"signed m", params("+19456", 2, 1), "decimal"},
		{"space in m", params(" 19456", 2, 1), "decimal"},
		{"hex m", params("0x4c00", 2, 1), "decimal"},
		{"parameters out of order", with(3, "t=2,m=19456,p=1"), "decimal"},
		{"a fourth parameter", with(3, "m=19456,t=2,p=1,k=1"), "m=…,t=…,p=…"},
		{"trailing garbage", with(3, "m=19456,t=2,p=1x"), "decimal"},
		{"version 16", with(2, "v=16"), "version"},
		{"no version", strings.Join(append(parts[:2:2], parts[3:]...), "$"), "argon2id hash"},
		{"argon2i", with(1, "argon2i"), "argon2id"},
		{"argon2d", with(1, "argon2d"), "argon2id"},
		{"bcrypt", "$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy", "argon2id"},
		{"not starting with $", "x" + good, "argon2id hash"},
		{"salt not base64", with(4, "!!!!"+salt[4:]), "salt"},
		{"salt padded", with(4, salt+"=="), "salt"},
		{"salt with a line break", with(4, salt[:8]+"\n"+salt[8:]), "salt"},
		{"salt with stray bits", with(4, salt[:len(salt)-1]+"B"), "salt"},
		{"salt of 8 bytes", with(4, "c2FsdHNhbHQ"), "salt"},
		{"salt of 65 bytes", with(4, strings.Repeat("A", 87)), "salt"},
		{"key of 4 bytes", with(5, "aGFzaA"), "key"},
		{"empty key", with(5, ""), "key"},
		{"key of 65 bytes", with(5, strings.Repeat("A", 87)), "key"},
		{"key url-safe base64", with(5, strings.NewReplacer("+", "-", "/", "_").Replace(key)+"-_"), "key"},
	}
}

func TestValidatePasswordHash(t *testing.T) {
	for _, good := range []string{
		HashPassword("s3cret"), HashPassword(""),
		// RFC 9106's second recommendation, argon2-cffi's default.
		"$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g",
		"$argon2id$v=19$m=8192,t=10,p=16$" + strings.Repeat("A", 86) + "$" + strings.Repeat("A", 86),
	} {
		if err := ValidatePasswordHash(good); err != nil {
			t.Errorf("ValidatePasswordHash(%q) = %v, want nil", good, err)
		}
	}
	for _, tc := range hostileHashes(t) {
		err := ValidatePasswordHash(tc.hash)
		if err == nil {
			t.Errorf("%s: ValidatePasswordHash(%q) accepted it", tc.name, tc.hash)
			continue
		}
		if !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: error %q does not mention %q", tc.name, err, tc.says)
		}
	}
}

// TestCheckPasswordRefusesHostileHashes: a hash outside the bounds matches
// no password, and checking it neither panics nor allocates what it asks
// for (a stored hash says what a login costs, so one from a
// file must not say more than this server would pay).
func TestCheckPasswordRefusesHostileHashes(t *testing.T) {
	for _, tc := range hostileHashes(t) {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			ok := CheckPassword(tc.hash, "s3cret")
			runtime.ReadMemStats(&after)
			if ok {
				t.Errorf("CheckPassword(%q) = true", tc.hash)
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
				t.Errorf("CheckPassword(%q) allocated %d bytes; a refused hash must cost nothing", tc.hash, n)
			}
		})
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
