package ctf

import (
	"encoding/base32"
	"fmt"
	"regexp"
)

// Two-factor state as a dataset carries it: the TOTP secret (base32, as
// authenticator apps take it) and the hashes of the unused recovery codes.
const (
	MinTOTPSecretBytes = 16 // RFC 4226: at least 128 bits
	MaxTOTPSecretBytes = 64
	RecoveryCodeCount  = 10 // made at enrolment, each used once
)

var (
	totpB32  = base32.StdEncoding.WithPadding(base32.NoPadding)
	sha256RE = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// ValidateTwoFactor checks a TOTP secret (base32 without padding, upper
// case) of 128 to 512 bits, and recovery-code hashes: at most ten SHA-256
// hashes in lowercase hex, none twice.
func ValidateTwoFactor(secret string, recoveryHashes []string) error {
	switch b, err := totpB32.DecodeString(secret); {
	case secret == "":
		return FieldErrorf("secret", "is required")
	case err != nil:
		return FieldErrorf("secret", "must be base32 (A-Z, 2-7)")
	case len(b) < MinTOTPSecretBytes || len(b) > MaxTOTPSecretBytes:
		return FieldErrorf("secret", "must be %d to %d bits", MinTOTPSecretBytes*8, MaxTOTPSecretBytes*8)
	}
	if len(recoveryHashes) > RecoveryCodeCount {
		return FieldErrorf("recoveryCodes", "must be at most %d", RecoveryCodeCount)
	}
	seen := map[string]bool{}
	for i, h := range recoveryHashes {
		field := fmt.Sprintf("recoveryCodes[%d]", i)
		if !sha256RE.MatchString(h) {
			return FieldErrorf(field, "must be a code's SHA-256 hash (64 hexadecimal digits), as dump writes it")
		}
		if seen[h] {
			return FieldErrorf(field, "is given twice")
		}
		seen[h] = true
	}
	return nil
}
