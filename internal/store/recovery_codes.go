package store

import (
	"context"
	"fmt"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// ReplaceRecoveryCodes gives a user with two-factor authentication a new
// set of recovery codes (their hashes), forgetting the old ones, used or
// not; Conflict when two-factor authentication is off.
func (a Accounts) ReplaceRecoveryCodes(ctx context.Context, userID string, codeHashes []string) error {
	return a.db.writeTx(ctx, func(tx *sqlTx) error {
		var on bool
		if err := tx.QueryRowContext(ctx, "SELECT two_factor FROM users WHERE id = ?", userID).Scan(&on); err != nil {
			return fmt.Errorf("replace recovery codes: %w", err)
		}
		if !on {
			return ctf.Errorf(ctf.Conflict, "two-factor authentication is off: there are no recovery codes to replace")
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM recovery_codes WHERE user_id = ?", userID); err != nil {
			return fmt.Errorf("replace recovery codes: %w", err)
		}
		for _, h := range codeHashes {
			if _, err := tx.ExecContext(ctx, insertRecoveryCodeSQL, userID, h); err != nil {
				return fmt.Errorf("store recovery codes: %w", err)
			}
		}
		return nil
	})
}
