package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// Two-factor authentication: a user's TOTP state and recovery codes.

// TwoFactor is a user's TOTP state as login and enrolment need it.
type TwoFactor struct {
	Secret  string // confirmed; "" when off
	Pending string // an enrolment awaiting its first code
	Step    int64  // the last time step accepted
}

// insertRecoveryCodeSQL gives a user an unused recovery code: its user
// and hash.
var insertRecoveryCodeSQL = insertSQL("recovery_codes", []string{"user_id", "code_hash"})

// TwoFactorOf reads a user's TOTP state.
func (a Accounts) TwoFactorOf(ctx context.Context, userID string) (TwoFactor, error) {
	var t TwoFactor
	err := a.db.w.QueryRowContext(ctx, "SELECT totp_secret, totp_pending, totp_step FROM users WHERE id = ?", userID).Scan(&t.Secret, &t.Pending, &t.Step)
	if errors.Is(err, sql.ErrNoRows) {
		return t, ctf.Errorf(ctf.NotFound, "no such user")
	}
	if err != nil {
		return t, fmt.Errorf("two-factor state: %w", err)
	}
	return t, nil
}

// BeginTwoFactor stores an enrolment's secret until a code confirms it.
func (a Accounts) BeginTwoFactor(ctx context.Context, userID, secret string) error {
	_, err := a.db.write(ctx, nil, func(tx *sqlTx) ([]ChangeRef, error) {
		_, err := tx.ExecContext(ctx, "UPDATE users SET totp_pending = ? WHERE id = ?", secret, userID)
		return nil, err
	})
	if err != nil {
		return fmt.Errorf("begin two-factor: %w", err)
	}
	return nil
}

// EnableTwoFactor turns TOTP on with the pending secret, if it is still
// pending as given, records step as used, replaces the recovery codes and
// revokes every session of the user but keepSession (the hash of the
// caller's own, or "").
func (a Accounts) EnableTwoFactor(ctx context.Context, userID, secret string, step int64, codeHashes []string, keepSession string) (ctf.User, []int64, error) {
	var u ctf.User
	seqs, err := a.db.write(ctx, nil, func(tx *sqlTx) ([]ChangeRef, error) {
		var err error
		u, err = scanUser(tx.QueryRowContext(ctx, `UPDATE users SET two_factor = ?, totp_secret = totp_pending, totp_pending = '', totp_step = ?
			WHERE id = ? AND totp_pending = ? AND totp_pending <> '' RETURNING `+userColumns, true, step, userID, secret))
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ctf.Errorf(ctf.Conflict, "that enrolment is no longer pending; start again")
		}
		if err != nil {
			return nil, fmt.Errorf("enable two-factor: %w", err)
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM recovery_codes WHERE user_id = ?", userID); err != nil {
			return nil, fmt.Errorf("enable two-factor: %w", err)
		}
		for _, h := range codeHashes {
			if _, err := tx.ExecContext(ctx, insertRecoveryCodeSQL, userID, h); err != nil {
				return nil, fmt.Errorf("store recovery codes: %w", err)
			}
		}
		return a.revokeOtherSessions(ctx, tx, userID, keepSession)
	})
	return u, seqs, err
}

// DisableTwoFactor turns TOTP off, forgets the recovery codes and revokes
// every session of the user but keepSession.
func (a Accounts) DisableTwoFactor(ctx context.Context, userID, keepSession string, audit *ctf.AuditEntry) (ctf.User, []int64, error) {
	var u ctf.User
	seqs, err := a.db.write(ctx, audit, func(tx *sqlTx) ([]ChangeRef, error) {
		var err error
		u, err = scanUser(tx.QueryRowContext(ctx, `UPDATE users SET two_factor = ?, totp_secret = '', totp_pending = ''
			WHERE id = ? RETURNING `+userColumns, false, userID))
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ctf.Errorf(ctf.NotFound, "no such user")
		}
		if err != nil {
			return nil, fmt.Errorf("disable two-factor: %w", err)
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM recovery_codes WHERE user_id = ?", userID); err != nil {
			return nil, fmt.Errorf("disable two-factor: %w", err)
		}
		return a.revokeOtherSessions(ctx, tx, userID, keepSession)
	})
	return u, seqs, err
}

// UseTOTPStep records that a code of time step was accepted, and reports
// false if that step or a later one was accepted already: a code is good
// once, across every replica.
func (a Accounts) UseTOTPStep(ctx context.Context, userID string, step int64) (bool, error) {
	res, err := a.db.w.ExecContext(ctx, "UPDATE users SET totp_step = ? WHERE id = ? AND totp_step < ? AND two_factor = ?", step, userID, step, true)
	if err != nil {
		return false, fmt.Errorf("use a two-factor code: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// UseRecoveryCode marks a recovery code used and reports false if it is
// unknown or used already.
func (a Accounts) UseRecoveryCode(ctx context.Context, userID, codeHash string, at time.Time) (bool, error) {
	res, err := a.db.w.ExecContext(ctx, "UPDATE recovery_codes SET used_at = ? WHERE user_id = ? AND code_hash = ? AND used_at IS NULL",
		ms(at), userID, codeHash)
	if err != nil {
		return false, fmt.Errorf("use a recovery code: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// RecoveryCodesLeft counts a user's unused recovery codes.
func (a Accounts) RecoveryCodesLeft(ctx context.Context, userID string) (int, error) {
	var n int
	err := a.db.r.QueryRowContext(ctx, "SELECT count(*) FROM recovery_codes WHERE user_id = ? AND used_at IS NULL", userID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count recovery codes: %w", err)
	}
	return n, nil
}
