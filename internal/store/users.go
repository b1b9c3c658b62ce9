package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// Users, and the writes of accounts (here, twofactor.go, keys.go). Each
// write returns the change log's sequence numbers of what it changed (see
// write), and where it changes a row, the row as committed, so the
// caller's state holds exactly what the database does.

// scanUser reads a row of userColumns.
func scanUser(sc scanner) (ctf.User, error) {
	var u ctf.User
	var created int64
	err := sc.Scan(&u.ID, &u.Username, &u.Name, &u.Email, &u.Image, &u.PasswordHash, &u.Role, &u.Banned, &created,
		&u.BanReason, &u.Kind, &u.OwnerID, &u.Model, &u.Harness, &u.EmailUnverified, &u.TwoFactor)
	u.CreatedAt = fromMs(created)
	return u, err
}

func queryUsers(ctx context.Context, q querier, where string, args ...any) ([]ctf.User, error) {
	users, err := allRows(ctx, q, selectUsers+where+" ORDER BY created_at, username", scanUser, args...)
	if err != nil {
		return nil, fmt.Errorf("read users: %w", err)
	}
	return users, nil
}

// UserByUsername returns the user, or a NotFound error.
func (a Accounts) UserByUsername(ctx context.Context, username string) (ctf.User, error) {
	u, err := scanUser(a.db.r.QueryRowContext(ctx, selectUsers+"WHERE username = ?", username))
	if errors.Is(err, sql.ErrNoRows) {
		return u, ctf.Errorf(ctf.NotFound, "no user %q", username)
	}
	if err != nil {
		return u, fmt.Errorf("user %q: %w", username, err)
	}
	return u, nil
}

// Users lists every user, oldest first.
func (a Accounts) Users(ctx context.Context) ([]ctf.User, error) { return queryUsers(ctx, a.db.r, "") }

// CreateUser inserts u (its ID and CreatedAt must be set). A taken username
// or email is a Conflict.
func (a Accounts) CreateUser(ctx context.Context, u ctf.User, audit *ctf.AuditEntry) ([]int64, error) {
	return a.db.write(ctx, audit, func(tx *sqlTx) ([]ChangeRef, error) {
		_, err := tx.ExecContext(ctx, createUserSQL, userValues(u)...)
		if isUniqueViolation(err) {
			return nil, ctf.Errorf(ctf.Conflict, "that username or email is already taken")
		}
		if err != nil {
			return nil, fmt.Errorf("create user: %w", err)
		}
		return []ChangeRef{{Kind: ChangeUser, Entity: u.ID}}, nil
	})
}

// UserUpdate is a change to a user's row; nil fields stay as they are.
type UserUpdate struct {
	Name, Image  *string
	Email        *string // "" clears it
	PasswordHash *string
	Role         *ctf.Role
	Banned       *bool
	BanReason    *string // written with Banned
}

// UpdateUser applies up to the user and returns the row as committed. A
// password change also revokes every session but keepSession (the hash of
// the caller's own, or ""). An unknown user is NotFound.
func (a Accounts) UpdateUser(ctx context.Context, id string, up UserUpdate, keepSession string, audit *ctf.AuditEntry) (ctf.User, []int64, error) {
	var u ctf.User
	seqs, err := a.db.write(ctx, audit, func(tx *sqlTx) ([]ChangeRef, error) {
		var sets []string
		var args []any
		add := func(col string, v any) { sets = append(sets, col+" = ?"); args = append(args, v) }
		if up.Name != nil {
			add("name", *up.Name)
		}
		if up.Image != nil {
			add("image", *up.Image)
		}
		if up.Email != nil {
			add("email", nullString(*up.Email))
			add("email_lower", nullString(strings.ToLower(*up.Email)))
		}
		if up.PasswordHash != nil {
			add("password_hash", *up.PasswordHash)
		}
		if up.Role != nil {
			add("role", *up.Role)
		}
		if up.Banned != nil {
			add("banned", *up.Banned)
		}
		if up.BanReason != nil {
			add("ban_reason", *up.BanReason)
		}
		if len(sets) == 0 {
			sets = append(sets, "id = id")
		}
		var err error
		u, err = scanUser(tx.QueryRowContext(ctx, "UPDATE users SET "+strings.Join(sets, ", ")+" WHERE id = ? RETURNING "+userColumns,
			append(args, id)...))
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ctf.Errorf(ctf.NotFound, "no such user")
		}
		if isUniqueViolation(err) {
			return nil, ctf.Errorf(ctf.Conflict, "that username or email is already taken")
		}
		if err != nil {
			return nil, fmt.Errorf("update user: %w", err)
		}
		if up.PasswordHash != nil {
			return a.revokeOtherSessions(ctx, tx, id, keepSession)
		}
		return []ChangeRef{{Kind: ChangeUser, Entity: id}}, nil
	})
	return u, seqs, err
}

// revokeOtherSessions ends every session of a user but keepSession, after
// a change of the account's secrets (password, second factor): whoever
// held another session may have held it by the old ones. It returns the
// changes: the user's row and sessions.
func (a Accounts) revokeOtherSessions(ctx context.Context, tx *sqlTx, userID, keepSession string) ([]ChangeRef, error) {
	if _, err := tx.ExecContext(ctx, "UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND id_hash <> ? AND revoked_at IS NULL",
		ms(a.db.now()), userID, keepSession); err != nil {
		return nil, fmt.Errorf("revoke other sessions: %w", err)
	}
	return []ChangeRef{{Kind: ChangeUser, Entity: userID}, {Kind: ChangeSessions, Entity: userID}}, nil
}

// checkUsernameCase refuses to make usernames unique ignoring case while
// some differ only in case (an older release allowed "boss" beside
// "BOSS"), naming each group and the statement that renames all but the
// oldest of it: no flagship command runs before the migration does.
func checkUsernameCase(ctx context.Context, tx *sqlTx) error {
	rows, err := tx.QueryContext(ctx, `SELECT username FROM users WHERE lower(username) IN
		(SELECT lower(username) FROM users GROUP BY lower(username) HAVING count(*) > 1)
		ORDER BY lower(username), created_at, username`)
	if err != nil {
		return fmt.Errorf("look for usernames that differ only in case: %w", err)
	}
	defer rows.Close()
	var groups [][]string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return fmt.Errorf("look for usernames that differ only in case: %w", err)
		}
		if n := len(groups); n > 0 && ctf.FoldUsername(groups[n-1][0]) == ctf.FoldUsername(name) {
			groups[n-1] = append(groups[n-1], name)
		} else {
			groups = append(groups, []string{name})
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("look for usernames that differ only in case: %w", err)
	}
	if len(groups) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("usernames are now unique ignoring case, and these differ only in case (oldest first):")
	for _, g := range groups {
		b.WriteString("\n  ")
		for i, name := range g {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%q", name)
		}
	}
	b.WriteString("\nRename all but one of each on the database (sqlite3 or psql), choosing names not taken yet, then start flagship again, e.g.:")
	for _, g := range groups {
		for i, name := range g[1:] {
			fmt.Fprintf(&b, "\n  UPDATE users SET username = '%s' WHERE username = '%s';", renamed(name, i+2), name)
		}
	}
	return errors.New(b.String())
}

// renamed suggests a new name for the n-th of a group of clashing
// usernames: within the username rule's 32 characters.
func renamed(name string, n int) string {
	suffix := fmt.Sprintf("-%d", n)
	return name[:min(len(name), 32-len(suffix))] + suffix
}

// kindOf is u's kind as stored: people are "human".
func kindOf(u ctf.User) ctf.AccountKind {
	if u.Kind == "" {
		return ctf.KindHuman
	}
	return u.Kind
}
