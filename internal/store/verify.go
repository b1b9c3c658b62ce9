package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// EmailVerification is a link that confirms an account's address: the
// hash of its secret.
type EmailVerification struct {
	TokenHash string
	UserID    string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// CreateUserToVerify records a new account (marked unverified) with its
// verification link and the message that carries it, in one transaction:
// an account is never left without its mail. A taken username or email is
// a Conflict.
func (a Accounts) CreateUserToVerify(ctx context.Context, u ctf.User, v EmailVerification, msg OutMail) ([]int64, error) {
	u.EmailUnverified = true
	return a.db.write(ctx, nil, func(tx *sqlTx) ([]ChangeRef, error) {
		_, err := tx.ExecContext(ctx, createUserSQL, userValues(u)...)
		if isUniqueViolation(err) {
			return nil, ctf.Errorf(ctf.Conflict, "that username or email is already taken")
		}
		if err != nil {
			return nil, fmt.Errorf("create user: %w", err)
		}
		if err := insertVerification(ctx, tx, v, msg); err != nil {
			return nil, err
		}
		return []ChangeRef{{Kind: ChangeUser, Entity: u.ID}}, nil
	})
}

// AddEmailVerification records another link for an unverified account,
// with its message (a "send it again").
func (a Accounts) AddEmailVerification(ctx context.Context, v EmailVerification, msg OutMail) error {
	return a.db.writeTx(ctx, func(tx *sqlTx) error { return insertVerification(ctx, tx, v, msg) })
}

func insertVerification(ctx context.Context, tx *sqlTx, v EmailVerification, msg OutMail) error {
	if _, err := tx.ExecContext(ctx, "INSERT INTO email_verifications (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
		v.TokenHash, v.UserID, ms(v.CreatedAt), ms(v.ExpiresAt)); err != nil {
		return fmt.Errorf("save an email verification: %w", err)
	}
	return enqueueMail(ctx, tx, msg)
}

var errBadVerification = ctf.Errorf(ctf.Invalid, "this confirmation link is not valid: it was used or it expired; send a new one from the confirmation page")

// VerifyEmail uses a link (once) and marks its account verified, in one
// transaction, returning the account as committed.
func (a Accounts) VerifyEmail(ctx context.Context, tokenHash string, now time.Time) (ctf.User, []int64, error) {
	var u ctf.User
	seqs, err := a.db.write(ctx, nil, func(tx *sqlTx) ([]ChangeRef, error) {
		userID, err := spendToken(ctx, tx, "email_verifications", tokenHash, now)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, errBadVerification
		}
		if err != nil {
			return nil, fmt.Errorf("use an email verification: %w", err)
		}
		u, err = scanUser(tx.QueryRowContext(ctx, "UPDATE users SET email_unverified = ? WHERE id = ? RETURNING "+userColumns, false, userID))
		if err != nil {
			return nil, fmt.Errorf("verify an email: %w", err)
		}
		return []ChangeRef{{Kind: ChangeUser, Entity: userID}}, nil
	})
	return u, seqs, err
}

// spendToken marks the live, unspent single-use token of table (a
// password reset or an email verification) spent and returns its user;
// sql.ErrNoRows when there is none (spent, expired or unknown). Of two
// spending one token at once, one wins.
func spendToken(ctx context.Context, tx *sqlTx, table, tokenHash string, now time.Time) (string, error) {
	var userID string
	err := tx.QueryRowContext(ctx, `UPDATE `+table+` SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?
		RETURNING user_id`, ms(now), tokenHash, ms(now)).Scan(&userID)
	return userID, err
}
