package platform

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base32"
	"fmt"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/secret"
	"github.com/pquerna/otp"
	"github.com/pquerna/otp/hotp"
	"github.com/pquerna/otp/totp"
)

// Two-factor authentication: TOTP as RFC 6238 has it (SHA-1, 6 digits,
// 30 s steps, one step of drift either way), each code accepted once, and
// ten one-time recovery codes shown once and stored hashed.

const (
	totpPeriod        = 30
	recoveryCodeCount = 10
)

// Issuer names the platform in authenticator apps.
const Issuer = "Flagship"

// TwoFactorEnrolment is a secret waiting for its first code.
type TwoFactorEnrolment struct {
	Secret string // base32, for typing into an app
	URI    string // otpauth://totp/…, for a QR code
}

// BeginTwoFactor starts enrolling the caller: a new secret, kept pending
// until ConfirmTwoFactor sees a code of it.
func (s *Accounts) BeginTwoFactor(ctx context.Context, v ctf.Viewer) (TwoFactorEnrolment, error) {
	if v.User == nil {
		return TwoFactorEnrolment{}, ctf.ErrAuthRequired
	}
	if v.User.TwoFactor {
		return TwoFactorEnrolment{}, ctf.Errorf(ctf.Conflict, "two-factor authentication is on already; turn it off first")
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: Issuer, AccountName: v.User.Username, Period: totpPeriod,
		Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		return TwoFactorEnrolment{}, err
	}
	if err := s.db.BeginTwoFactor(ctx, v.User.ID, key.Secret()); err != nil {
		return TwoFactorEnrolment{}, err
	}
	return TwoFactorEnrolment{Secret: key.Secret(), URI: key.URL()}, nil
}

// PendingTwoFactor is the caller's enrolment still waiting for its first
// code, if any: the set-up page shows the same secret and QR code until a
// right code comes (a mistyped code must not make the scanned secret
// useless). ok is false when none is pending or 2FA is on already.
func (s *Accounts) PendingTwoFactor(ctx context.Context, v ctf.Viewer) (e TwoFactorEnrolment, ok bool, err error) {
	if v.User == nil {
		return TwoFactorEnrolment{}, false, ctf.ErrAuthRequired
	}
	if v.User.TwoFactor {
		return TwoFactorEnrolment{}, false, nil
	}
	tf, err := s.db.TwoFactorOf(ctx, v.User.ID)
	if err != nil {
		return TwoFactorEnrolment{}, false, fmt.Errorf("read the pending 2FA secret: %w", err)
	}
	if tf.Pending == "" {
		return TwoFactorEnrolment{}, false, nil
	}
	raw, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ToUpper(tf.Pending))
	if err != nil {
		return TwoFactorEnrolment{}, false, fmt.Errorf("decode the pending 2FA secret: %w", err)
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: Issuer, AccountName: v.User.Username, Period: totpPeriod,
		Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1, Secret: raw})
	if err != nil {
		return TwoFactorEnrolment{}, false, fmt.Errorf("the pending 2FA secret's URI: %w", err)
	}
	return TwoFactorEnrolment{Secret: key.Secret(), URI: key.URL()}, true, nil
}

// ConfirmTwoFactor turns two-factor authentication on once code is right
// for the pending secret, and returns the recovery codes: shown this once.
// Every other session of the caller ends, as with a password change.
func (s *Accounts) ConfirmTwoFactor(ctx context.Context, v ctf.Viewer, code string) ([]string, error) {
	if v.User == nil {
		return nil, ctf.ErrAuthRequired
	}
	t, err := s.reserve(ctx, codeAccount(v), "")
	if err != nil {
		return nil, err
	}
	tf, err := s.db.TwoFactorOf(ctx, v.User.ID)
	if err != nil {
		t.forgive(ctx)
		return nil, err
	}
	if tf.Pending == "" {
		t.forgive(ctx)
		return nil, ctf.Errorf(ctf.Conflict, "no enrolment is pending; start again")
	}
	step, ok := matchTOTP(tf.Pending, code, s.now())
	if !ok {
		return nil, ctf.FieldErrorf("code", "is wrong; check the time on your device and try the next one")
	}
	t.succeed(ctx)
	codes, hashes := newRecoveryCodes()
	defer s.live.Write()()
	nu, seqs, err := s.db.EnableTwoFactor(ctx, v.User.ID, tf.Pending, step, hashes, v.Session)
	if err != nil {
		return nil, err
	}
	s.applyOwnWithSessions(ctx, nu, seqs)
	return codes, nil
}

// DisableTwoFactor turns two-factor authentication off, given the
// account's password and a current code or an unused recovery code (a
// code alone, from a stolen session and a glance at the app, is not
// enough), and ends every other session of the caller. While it is off the
// answer is a Conflict, before anything is checked. A wrong password and a
// wrong code read the same, and the password's tries count on the
// account's login counter (as Login's and ChangePassword's do), the code's
// on the caller's code throttle: the form is no better a password oracle
// for a stolen session than the login form.
func (s *Accounts) DisableTwoFactor(ctx context.Context, v ctf.Viewer, password, code string) error {
	u, err := s.caller(v)
	if err != nil {
		return err
	}
	if !u.TwoFactor {
		return ctf.Errorf(ctf.Conflict, "two-factor authentication is off already")
	}
	pw := &try{s: s}
	if u.PasswordHash != "" {
		var err error
		if pw, err = s.reserve(ctx, u.ID, ""); err != nil {
			return err
		}
	}
	t, err := s.reserve(ctx, codeAccount(v), "")
	if err != nil {
		pw.forgive(ctx)
		return err
	}
	if u.PasswordHash != "" {
		ok, err := s.checkPassword(ctx, u.PasswordHash, password)
		if err != nil {
			pw.forgive(ctx)
			t.forgive(ctx)
			return err
		}
		if !ok {
			t.forgive(ctx) // the code was not tried
			return errWrongPasswordOrCode
		}
	}
	ok, err := s.checkSecondFactor(ctx, u.ID, code)
	if err != nil {
		pw.forgive(ctx)
		t.forgive(ctx)
		return err
	}
	// Past the password (right, or none to check): a wrong code is no
	// failure of the login counter, nor a success that clears it.
	if !ok {
		pw.forgive(ctx)
		return errWrongPasswordOrCode
	}
	pw.succeed(ctx)
	t.succeed(ctx)
	defer s.live.Write()()
	nu, seqs, err := s.db.DisableTwoFactor(ctx, u.ID, v.Session, nil)
	if err != nil {
		return err
	}
	s.applyOwnWithSessions(ctx, nu, seqs)
	return nil
}

// errWrongPasswordOrCode names neither: which one was wrong would tell a
// stolen session whether it guessed the password.
var errWrongPasswordOrCode = ctf.Errorf(ctf.Invalid, "wrong password or code (each code is good once)")

// codeAccount is the throttle's name for a signed-in user's tries at a
// code (enrolment, turning 2FA off): a stolen session cannot try all the
// million codes either.
func codeAccount(v ctf.Viewer) string { return "2fa:" + v.User.ID }

// RecoveryCodesLeft counts the caller's unused recovery codes.
func (s *Accounts) RecoveryCodesLeft(ctx context.Context, v ctf.Viewer) (int, error) {
	if v.User == nil {
		return 0, ctf.ErrAuthRequired
	}
	return s.db.RecoveryCodesLeft(ctx, v.User.ID)
}

// checkSecondFactor accepts a TOTP code of the user's secret whose step was
// not used yet, or an unused recovery code, and uses it up; the database
// decides, so a code is good once across replicas.
func (s *Accounts) checkSecondFactor(ctx context.Context, userID, code string) (bool, error) {
	code = strings.TrimSpace(code)
	tf, err := s.db.TwoFactorOf(ctx, userID)
	if err != nil {
		return false, err
	}
	if tf.Secret == "" {
		return false, nil
	}
	if step, ok := matchTOTP(tf.Secret, code, s.now()); ok {
		return s.db.UseTOTPStep(ctx, userID, step)
	}
	if norm := normalizeRecoveryCode(code); norm != "" {
		return s.db.UseRecoveryCode(ctx, userID, secret.HashToken(norm), s.now())
	}
	return false, nil
}

// matchTOTP returns the time step whose code is code, among the current
// one and one either side.
func matchTOTP(secretB32, code string, now time.Time) (int64, bool) {
	code = strings.ReplaceAll(strings.TrimSpace(code), " ", "")
	if len(code) != 6 {
		return 0, false
	}
	cur := now.Unix() / totpPeriod
	found, step := false, int64(0)
	for _, st := range []int64{cur - 1, cur, cur + 1} {
		want, err := hotp.GenerateCodeCustom(secretB32, uint64(st), hotp.ValidateOpts{Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
		if err == nil && subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			found, step = true, st
		}
	}
	return step, found
}

var recoveryB32 = base32.NewEncoding("abcdefghijkmnpqrstuvwxyz23456789").WithPadding(base32.NoPadding)

// newRecoveryCodes returns fresh codes like "k7wq2-fz9mh" (50 random bits
// each) and their hashes.
func newRecoveryCodes() (codes, hashes []string) {
	for range recoveryCodeCount {
		b := make([]byte, 7)
		_, _ = rand.Read(b)
		raw := recoveryB32.EncodeToString(b)[:10]
		codes = append(codes, raw[:5]+"-"+raw[5:])
		hashes = append(hashes, secret.HashToken(raw))
	}
	return codes, hashes
}

// normalizeRecoveryCode lowercases a typed recovery code and drops its
// dashes and spaces; "" when it cannot be one.
func normalizeRecoveryCode(code string) string {
	c := strings.ToLower(strings.NewReplacer("-", "", " ", "").Replace(code))
	if len(c) != 10 {
		return ""
	}
	return c
}
