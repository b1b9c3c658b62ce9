package store

import (
	"database/sql"
	"errors"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// The load's users, their two-factor state and recovery codes, and API keys.

// UserID is the id of the user with username, "" when there is none.
func (t LoadAccounts) UserID(username string) (string, error) {
	return t.lookupID("user", "SELECT id FROM users WHERE username = ?", username)
}

// User reads the user with username, if there is one.
func (t LoadAccounts) User(username string) (ctf.User, bool, error) {
	return found(scanUser(t.tx.QueryRowContext(t.ctx, selectUsers+"WHERE username = ?", username)))
}

// PasswordHash is the password hash of the user with username, "" when
// there is no such user.
func (t LoadAccounts) PasswordHash(username string) (string, error) {
	var h string
	err := t.tx.QueryRowContext(t.ctx, "SELECT password_hash FROM users WHERE username = ?", username).Scan(&h)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return h, err
}

// NewUsers writes new users (into an empty table).
func (t LoadAccounts) NewUsers() *Rows[ctf.User] {
	return newRows(t.loadState, "users", userWriteColumns, userValues)
}

// UpsertUser creates or updates the user by username; the id, image and
// two-factor state of a stored one stay. A failure leaves the transaction
// usable, so that its cause can be looked up.
func (t LoadAccounts) UpsertUser(u ctf.User) error {
	return t.tx.savepoint(t.ctx, func() error {
		_, err := t.tx.ExecContext(t.ctx, loadUserSQL, userValues(u)...)
		return err
	})
}

// OtherCaseUsername is a stored username that differs from username only
// in case (sql.ErrNoRows when there is none).
func (t LoadAccounts) OtherCaseUsername(username string) (string, error) {
	var other string
	err := t.tx.QueryRowContext(t.ctx, "SELECT username FROM users WHERE lower(username) = lower(?) AND username <> ?",
		username, username).Scan(&other)
	return other, err
}

// UsernameOfID is the username of the user with id (sql.ErrNoRows when
// there is none).
func (t LoadAccounts) UsernameOfID(id string) (string, error) {
	var name string
	err := t.tx.QueryRowContext(t.ctx, "SELECT username FROM users WHERE id = ?", id).Scan(&name)
	return name, err
}

// APIKey reads the API key with id, if there is one.
func (t LoadAccounts) APIKey(id string) (ctf.APIKey, bool, error) {
	return found(scanKey(t.tx.QueryRowContext(t.ctx, "SELECT "+keyColumns+" FROM api_keys WHERE id = ?", id)))
}

// UpsertAPIKey creates or updates the API key by id; its user, prefix
// and hash never change.
func (t LoadAccounts) UpsertAPIKey(k ctf.APIKey) error {
	_, err := t.tx.ExecContext(t.ctx, loadKeySQL, keyValues(k)...)
	return err
}

// TwoFactor reads a user's two-factor state: on or off, the secret and
// the last step accepted.
func (t LoadAccounts) TwoFactor(userID string) (on bool, secret string, step int64, err error) {
	err = t.tx.QueryRowContext(t.ctx, "SELECT two_factor, totp_secret, totp_step FROM users WHERE id = ?", userID).Scan(&on, &secret, &step)
	return
}

// SetTwoFactor turns two-factor authentication on for a user with secret,
// the last step accepted being step; a pending enrolment is dropped.
func (t LoadAccounts) SetTwoFactor(userID, secret string, step int64) error {
	_, err := t.tx.ExecContext(t.ctx, "UPDATE users SET two_factor = ?, totp_secret = ?, totp_pending = '', totp_step = ? WHERE id = ?",
		true, secret, step, userID)
	return err
}

// RecoveryCodes are the hashes of a user's recovery codes, used or not.
func (t LoadAccounts) RecoveryCodes(userID string) ([]string, error) {
	var had []string
	err := eachRow(t.ctx, t.tx, "SELECT code_hash FROM recovery_codes WHERE user_id = ?", func(sc scanner) error {
		var h string
		err := sc.Scan(&h)
		had = append(had, h)
		return err
	}, userID)
	return had, err
}

// DeleteRecoveryCode forgets one of a user's recovery codes.
func (t LoadAccounts) DeleteRecoveryCode(userID, hash string) error {
	_, err := t.tx.ExecContext(t.ctx, "DELETE FROM recovery_codes WHERE user_id = ? AND code_hash = ?", userID, hash)
	return err
}

// AddRecoveryCode gives a user an unused recovery code.
func (t LoadAccounts) AddRecoveryCode(userID, hash string) error {
	_, err := t.tx.ExecContext(t.ctx, insertRecoveryCodeSQL, userID, hash)
	return err
}
