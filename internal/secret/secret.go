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
	"strings"

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

// HashPassword returns an encoded argon2id hash of password.
func HashPassword(password string) string {
	salt := make([]byte, 16)
	_, _ = rand.Read(salt)
	sum := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(sum))
}

// CheckPassword reports whether password matches an encoded argon2id hash.
func CheckPassword(encoded, password string) bool {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var m, t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil {
		return false
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[4])
	want, err2 := base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(want) == 0 {
		return false
	}
	got := argon2.IDKey([]byte(password), salt, t, m, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}
