package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// AnonymiseUser replaces what names the person behind an account: the
// username becomes username, the name, email and avatar go, the password
// goes (nobody logs in to it again), and every session and API key of it
// is revoked at at. Its solves, attempts and writeups stay, under the new
// name. It returns the row as committed and the keys revoked.
func (a Accounts) AnonymiseUser(ctx context.Context, id, username string, at time.Time, audit *ctf.AuditEntry) (ctf.User, []ctf.APIKey, []int64, error) {
	var u ctf.User
	var keys []ctf.APIKey
	seqs, err := a.db.write(ctx, audit, func(tx *sqlTx) ([]ChangeRef, error) {
		var err error
		err = tx.savepoint(ctx, func() error {
			u, err = scanUser(tx.QueryRowContext(ctx, `UPDATE users SET username = ?, name = '', email = NULL, email_lower = NULL,
				image = '', password_hash = '' WHERE id = ? RETURNING `+userColumns, username, id))
			return err
		})
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ctf.Errorf(ctf.NotFound, "no such user")
		}
		if isUniqueViolation(err) {
			return nil, ctf.Errorf(ctf.Conflict, "the username %q is taken", username)
		}
		if err != nil {
			return nil, fmt.Errorf("anonymise user: %w", err)
		}
		if keys, err = queryKeys(ctx, tx, "user_id = ? AND revoked_at IS NULL", id); err != nil {
			return nil, fmt.Errorf("anonymise user: %w", err)
		}
		if _, err := tx.ExecContext(ctx, "UPDATE api_keys SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL", ms(at), id); err != nil {
			return nil, fmt.Errorf("anonymise user: %w", err)
		}
		refs, err := a.revokeOtherSessions(ctx, tx, id, "")
		if err != nil {
			return nil, err
		}
		for i := range keys {
			keys[i].RevokedAt = &at
			refs = append(refs, ChangeRef{Kind: ChangeAPIKey, Entity: keys[i].ID})
		}
		return refs, nil
	})
	return u, keys, seqs, err
}
