// Package secret makes and checks the platform's secrets: API keys, web
// session tokens and passwords.
package secret

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/crypto/argon2"
)

// KeyPrefixTag starts every API key, so leaked keys are easy to spot in
// logs and by secret scanners.
const KeyPrefixTag = "fsk_"

var b32 = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

const (
	prefixChars = 8  // after the tag
	secretChars = 52 // 32 random bytes
)

// NewAPIKey returns a fresh key, its public prefix (for display and lookup)
// and the hash to store.
func NewAPIKey() (key, prefix, hash string) {
	p := make([]byte, 5)
	s := make([]byte, 32)
	_, _ = rand.Read(p)
	_, _ = rand.Read(s)
	prefix = KeyPrefixTag + b32.EncodeToString(p)
	key = prefix + "_" + b32.EncodeToString(s)
	return key, prefix, HashToken(key)
}

// ErrMalformedKey is returned for a string that cannot be an API key.
var ErrMalformedKey = errors.New("malformed API key")

// ParseAPIKey checks the shape of a presented key and returns its prefix.
func ParseAPIKey(key string) (prefix string, err error) {
	if len(key) != len(KeyPrefixTag)+prefixChars+1+secretChars || !strings.HasPrefix(key, KeyPrefixTag) {
		return "", ErrMalformedKey
	}
	prefix, rest := key[:len(KeyPrefixTag)+prefixChars], key[len(KeyPrefixTag)+prefixChars:]
	if rest[0] != '_' || !isB32(prefix[len(KeyPrefixTag):]) || !isB32(rest[1:]) {
		return "", ErrMalformedKey
	}
	return prefix, nil
}

func isB32(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '2' && c <= '7') {
			return false
		}
	}
	return true
}

// HashToken is the stored form of a high-entropy token (API key or session
// secret). A fast hash suffices: the input has 256 bits of entropy, so there
// is nothing to brute-force.
func HashToken(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// EqualHash compares two hex hashes in constant time.
func EqualHash(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// NewSessionToken returns a cookie value and the hash that identifies the
// session server-side.
func NewSessionToken() (token, hash string) {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	token = base64.RawURLEncoding.EncodeToString(b)
	return token, HashToken(token)
}

// argon2id parameters (RFC 9106 second recommendation, lighter memory).
const (
	argonTime    = 2
	argonMemory  = 19 * 1024
	argonThreads = 1
	argonKeyLen  = 32
)

// testCost is set by UseTestCost: HashPassword then uses the least cost
// ValidatePasswordHash accepts.
var testCost atomic.Bool

// UseTestCost makes HashPassword hash at the least cost this server
// accepts (MinHashMemory, one pass, one lane: about a quarter of the
// time), so that suites which log in hundreds of times run fast while
// every hash they make is still one that ValidatePasswordHash and
// CheckPassword take as they are, on no path of their own. A test
// binary calls it from TestMain; anywhere else it panics, so that no
// production path can weaken the hashes.
func UseTestCost() {
	if !testing.Testing() {
		panic("secret.UseTestCost called outside a test binary")
	}
	testCost.Store(true)
}

// HashPassword returns an encoded argon2id hash of password.
func HashPassword(password string) string {
	var m, t uint32 = argonMemory, argonTime
	if testCost.Load() {
		m, t = MinHashMemory, 1
	}
	salt := make([]byte, 16)
	_, _ = rand.Read(salt)
	sum := argon2.IDKey([]byte(password), salt, t, m, argonThreads, argonKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, m, t, argonThreads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(sum))
}

// Bounds of a stored argon2id hash's parameters. Checking a password costs
// what its hash says, so a hash from a dataset or a database row must not
// be able to say a terabyte (m), a thousand years (t) or nothing at all (t
// or p of 0, which make argon2 panic). The bounds hold this server's own
// hashes (19 MiB, 2 passes, 1 lane) and the common defaults of other
// argon2id libraries (RFC 9106's second recommendation, 64 MiB, 3 passes,
// 4 lanes, is argon2-cffi's), so a hash made elsewhere loads too; a check
// against any accepted hash holds at most 64 MiB, 3.4 times this server's
// own, and takes at most about 17 times as long.
const (
	MinHashMemory  = 8 * 1024  // KiB
	MaxHashMemory  = 64 * 1024 // KiB
	MaxHashTime    = 10
	MaxHashThreads = 16
	minHashBytes   = 16 // of the salt and of the key
	maxHashBytes   = 64
)

// passwordHash is an encoded argon2id hash, parsed.
type passwordHash struct {
	m, t      uint32
	p         uint8
	salt, key []byte
}

// ValidatePasswordHash reports whether encoded is a password hash this
// server checks: `$argon2id$v=19$m=M,t=T,p=P$SALT$KEY` with M from
// MinHashMemory to MaxHashMemory KiB, T from 1 to MaxHashTime, P from 1 to
// MaxHashThreads, and a salt and a key of 16 to 64 bytes in unpadded
// standard base64. The error says what is wrong, never with the salt or
// the key.
func ValidatePasswordHash(encoded string) error {
	_, err := parsePasswordHash(encoded)
	return err
}

func parsePasswordHash(encoded string) (passwordHash, error) {
	var h passwordHash
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" {
		return h, errors.New("must be an argon2id hash: $argon2id$v=19$m=…,t=…,p=…$salt$key")
	}
	if parts[1] != "argon2id" {
		return h, fmt.Errorf("must be an argon2id hash, not %.20q", parts[1])
	}
	if parts[2] != fmt.Sprintf("v=%d", argon2.Version) {
		return h, fmt.Errorf("must be argon2 version %d (v=%d), not %.20q", argon2.Version, argon2.Version, parts[2])
	}
	params := strings.Split(parts[3], ",")
	if len(params) != 3 {
		return h, errors.New("parameters must be m=…,t=…,p=…")
	}
	var vals [3]uint64
	for i, name := range []string{"m", "t", "p"} {
		digits, ok := strings.CutPrefix(params[i], name+"=")
		// Digits only: ParseUint alone would take a sign or underscores.
		if !ok || digits == "" || strings.Trim(digits, "0123456789") != "" {
			return h, errors.New("parameters must be m=…,t=…,p=… in decimal")
		}
		v, err := strconv.ParseUint(digits, 10, 64)
		if err != nil {
			v = math.MaxUint64 // out of range below
		}
		vals[i] = v
	}
	m, t, p := vals[0], vals[1], vals[2]
	switch {
	case m < MinHashMemory || m > MaxHashMemory:
		return h, fmt.Errorf("memory must be from %d to %d MiB (m=%d to m=%d, in KiB), not m=%.20s",
			MinHashMemory/1024, MaxHashMemory/1024, MinHashMemory, MaxHashMemory, params[0][2:])
	case t < 1 || t > MaxHashTime:
		return h, fmt.Errorf("passes must be from t=1 to t=%d, not t=%.20s", MaxHashTime, params[1][2:])
	case p < 1 || p > MaxHashThreads:
		return h, fmt.Errorf("lanes must be from p=1 to p=%d, not p=%.20s", MaxHashThreads, params[2][2:])
	}
	h.m, h.t, h.p = uint32(m), uint32(t), uint8(p)
	var err error
	if h.salt, err = decodeHashPart(parts[4]); err != nil {
		return h, fmt.Errorf("salt %w", err)
	}
	if h.key, err = decodeHashPart(parts[5]); err != nil {
		return h, fmt.Errorf("key %w", err)
	}
	return h, nil
}

// decodeHashPart decodes a salt or a key: canonical unpadded base64 (the
// decoder alone would skip line breaks and ignore stray low bits) of 16 to
// 64 bytes.
func decodeHashPart(s string) ([]byte, error) {
	b, err := base64.RawStdEncoding.DecodeString(s)
	if err != nil || base64.RawStdEncoding.EncodeToString(b) != s {
		return nil, errors.New("must be unpadded standard base64")
	}
	if len(b) < minHashBytes || len(b) > maxHashBytes {
		return nil, fmt.Errorf("must be from %d to %d bytes, not %d", minHashBytes, maxHashBytes, len(b))
	}
	return b, nil
}

// CheckPassword reports whether password matches an encoded argon2id hash.
// A hash that ValidatePasswordHash refuses matches nothing, and costs
// nothing to check.
func CheckPassword(encoded, password string) bool {
	h, err := parsePasswordHash(encoded)
	if err != nil {
		return false
	}
	got := argon2.IDKey([]byte(password), h.salt, h.t, h.m, h.p, uint32(len(h.key)))
	return subtle.ConstantTimeCompare(got, h.key) == 1
}
