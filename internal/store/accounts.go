package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// Writes of accounts. Each returns the change log's sequence numbers of
// what it changed (see write), and where it changes a row, the row as
// committed, so the caller's state holds exactly what the database does.

// UserByUsername returns the user, or a NotFound error.
func (db *DB) UserByUsername(ctx context.Context, username string) (ctf.User, error) {
	u, err := scanUser(db.r.QueryRowContext(ctx, "SELECT "+userColumns+" FROM users WHERE username = ?", username))
	if errors.Is(err, sql.ErrNoRows) {
		return u, ctf.Errorf(ctf.NotFound, "no user %q", username)
	}
	if err != nil {
		return u, fmt.Errorf("user %q: %w", username, err)
	}
	return u, nil
}

// Users lists every user, oldest first.
func (db *DB) Users(ctx context.Context) ([]ctf.User, error) { return queryUsers(ctx, db.r, "") }

// CreateUser inserts u (its ID and CreatedAt must be set). A taken username
// or email is a Conflict.
func (db *DB) CreateUser(ctx context.Context, u ctf.User, audit *ctf.AuditEntry) ([]int64, error) {
	return db.write(ctx, audit, func(tx *sqlTx) ([]ChangeRef, error) {
		_, err := tx.ExecContext(ctx, `INSERT INTO users (id, username, name, email, email_lower, image, password_hash, role, banned, created_at,
			kind, owner_id, model, harness)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, u.ID, u.Username, u.Name, nullString(u.Email), nullString(strings.ToLower(u.Email)),
			u.Image, u.PasswordHash, u.Role, u.Banned, ms(u.CreatedAt), kindOf(u), nullString(u.OwnerID), u.Model, u.Harness)
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
	PasswordHash *string
	Role         *ctf.Role
	Banned       *bool
}

// UpdateUser applies up to the user and returns the row as committed. A
// password change also revokes every session but keepSession (the hash of
// the caller's own, or ""). An unknown user is NotFound.
func (db *DB) UpdateUser(ctx context.Context, id string, up UserUpdate, keepSession string, audit *ctf.AuditEntry) (ctf.User, []int64, error) {
	var u ctf.User
	seqs, err := db.write(ctx, audit, func(tx *sqlTx) ([]ChangeRef, error) {
		var sets []string
		var args []any
		add := func(col string, v any) { sets = append(sets, col+" = ?"); args = append(args, v) }
		if up.Name != nil {
			add("name", *up.Name)
		}
		if up.Image != nil {
			add("image", *up.Image)
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
		if len(sets) == 0 {
			sets = append(sets, "id = id")
		}
		var err error
		u, err = scanUser(tx.QueryRowContext(ctx, "UPDATE users SET "+strings.Join(sets, ", ")+" WHERE id = ? RETURNING "+userColumns,
			append(args, id)...))
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ctf.Errorf(ctf.NotFound, "no such user")
		}
		if err != nil {
			return nil, fmt.Errorf("update user: %w", err)
		}
		if up.PasswordHash != nil {
			return db.revokeOtherSessions(ctx, tx, id, keepSession)
		}
		return []ChangeRef{{Kind: ChangeUser, Entity: id}}, nil
	})
	return u, seqs, err
}

// revokeOtherSessions ends every session of a user but keepSession, after
// a change of the account's secrets (password, second factor): whoever
// held another session may have held it by the old ones. It returns the
// changes: the user's row and sessions.
func (db *DB) revokeOtherSessions(ctx context.Context, tx *sqlTx, userID, keepSession string) ([]ChangeRef, error) {
	if _, err := tx.ExecContext(ctx, "UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND id_hash <> ? AND revoked_at IS NULL",
		ms(db.now()), userID, keepSession); err != nil {
		return nil, fmt.Errorf("revoke other sessions: %w", err)
	}
	return []ChangeRef{{Kind: ChangeUser, Entity: userID}, {Kind: ChangeSessions, Entity: userID}}, nil
}

// TwoFactor is a user's TOTP state as login and enrolment need it.
type TwoFactor struct {
	Secret  string // confirmed; "" when off
	Pending string // an enrolment awaiting its first code
	Step    int64  // the last time step accepted
}

// TwoFactorOf reads a user's TOTP state.
func (db *DB) TwoFactorOf(ctx context.Context, userID string) (TwoFactor, error) {
	var t TwoFactor
	err := db.w.QueryRowContext(ctx, "SELECT totp_secret, totp_pending, totp_step FROM users WHERE id = ?", userID).Scan(&t.Secret, &t.Pending, &t.Step)
	if errors.Is(err, sql.ErrNoRows) {
		return t, ctf.Errorf(ctf.NotFound, "no such user")
	}
	if err != nil {
		return t, fmt.Errorf("two-factor state: %w", err)
	}
	return t, nil
}

// BeginTwoFactor stores an enrolment's secret until a code confirms it.
func (db *DB) BeginTwoFactor(ctx context.Context, userID, secret string) error {
	_, err := db.write(ctx, nil, func(tx *sqlTx) ([]ChangeRef, error) {
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
func (db *DB) EnableTwoFactor(ctx context.Context, userID, secret string, step int64, codeHashes []string, keepSession string) (ctf.User, []int64, error) {
	var u ctf.User
	seqs, err := db.write(ctx, nil, func(tx *sqlTx) ([]ChangeRef, error) {
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
			if _, err := tx.ExecContext(ctx, "INSERT INTO recovery_codes (user_id, code_hash) VALUES (?, ?)", userID, h); err != nil {
				return nil, fmt.Errorf("store recovery codes: %w", err)
			}
		}
		return db.revokeOtherSessions(ctx, tx, userID, keepSession)
	})
	return u, seqs, err
}

// DisableTwoFactor turns TOTP off, forgets the recovery codes and revokes
// every session of the user but keepSession.
func (db *DB) DisableTwoFactor(ctx context.Context, userID, keepSession string) (ctf.User, []int64, error) {
	var u ctf.User
	seqs, err := db.write(ctx, nil, func(tx *sqlTx) ([]ChangeRef, error) {
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
		return db.revokeOtherSessions(ctx, tx, userID, keepSession)
	})
	return u, seqs, err
}

// UseTOTPStep records that a code of time step was accepted, and reports
// false if that step or a later one was accepted already: a code is good
// once, across every replica.
func (db *DB) UseTOTPStep(ctx context.Context, userID string, step int64) (bool, error) {
	res, err := db.w.ExecContext(ctx, "UPDATE users SET totp_step = ? WHERE id = ? AND totp_step < ? AND two_factor = ?", step, userID, step, true)
	if err != nil {
		return false, fmt.Errorf("use a two-factor code: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// UseRecoveryCode marks a recovery code used and reports false if it is
// unknown or used already.
func (db *DB) UseRecoveryCode(ctx context.Context, userID, codeHash string, at time.Time) (bool, error) {
	res, err := db.w.ExecContext(ctx, "UPDATE recovery_codes SET used_at = ? WHERE user_id = ? AND code_hash = ? AND used_at IS NULL",
		ms(at), userID, codeHash)
	if err != nil {
		return false, fmt.Errorf("use a recovery code: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// RecoveryCodesLeft counts a user's unused recovery codes.
func (db *DB) RecoveryCodesLeft(ctx context.Context, userID string) (int, error) {
	var n int
	err := db.r.QueryRowContext(ctx, "SELECT count(*) FROM recovery_codes WHERE user_id = ? AND used_at IS NULL", userID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count recovery codes: %w", err)
	}
	return n, nil
}

// LoginFailures says how many failed logins an account and an address have
// had since a time, and when the latest of each was.
type LoginFailures struct {
	Account, Address         int
	AccountLast, AddressLast time.Time
}

// Throttle bounds the tries at a secret (a password, a second factor):
// at most MaxAccount failures of Account and MaxAddress of Address since
// Since. An empty Account or Address is not counted.
type Throttle struct {
	Account, Address       string
	MaxAccount, MaxAddress int
	Since                  time.Time
}

// ReserveLoginAttempt records a try as a failure at at before its secret
// is checked, unless the account or the address is at its limit already:
// then it records nothing and returns 0 and the failures that refused it.
// The count and the insert are one transaction, serialised per account
// and per address (PostgreSQL: advisory locks, so across replicas;
// SQLite: the single writer), so of many parallel tries only the limit's
// worth pass. A try that succeeds, or is never checked, is taken back with
// ForgiveLoginAttempt or ClearLoginFailures.
func (db *DB) ReserveLoginAttempt(ctx context.Context, th Throttle, at time.Time) (int64, LoginFailures, error) {
	var id int64
	var f LoginFailures
	err := db.writeTx(ctx, func(tx *sqlTx) error {
		var keys []string
		if th.Account != "" {
			keys = append(keys, "login account "+th.Account)
		}
		if th.Address != "" {
			keys = append(keys, "login address "+th.Address)
		}
		if err := lockNames(ctx, tx, keys); err != nil {
			return err
		}
		var accLast, addrLast sql.NullInt64
		since := ms(th.Since)
		err := tx.QueryRowContext(ctx, `SELECT
			(SELECT count(*) FROM login_failures WHERE account = ? AND at > ?),
			(SELECT max(at) FROM login_failures WHERE account = ? AND at > ?),
			(SELECT count(*) FROM login_failures WHERE address = ? AND at > ?),
			(SELECT max(at) FROM login_failures WHERE address = ? AND at > ?)`,
			th.Account, since, th.Account, since, th.Address, since, th.Address, since).Scan(&f.Account, &accLast, &f.Address, &addrLast)
		if err != nil {
			return err
		}
		if accLast.Valid {
			f.AccountLast = fromMs(accLast.Int64)
		}
		if addrLast.Valid {
			f.AddressLast = fromMs(addrLast.Int64)
		}
		if (th.Account != "" && f.Account >= th.MaxAccount) || (th.Address != "" && f.Address >= th.MaxAddress) {
			return nil
		}
		return tx.QueryRowContext(ctx, "INSERT INTO login_failures (account, address, at) VALUES (?, ?, ?) RETURNING seq",
			th.Account, th.Address, ms(at)).Scan(&id)
	})
	if err != nil {
		return 0, f, fmt.Errorf("reserve a login attempt: %w", err)
	}
	return id, f, nil
}

// ForgiveLoginAttempt takes back a try ReserveLoginAttempt recorded.
func (db *DB) ForgiveLoginAttempt(ctx context.Context, id int64) error {
	if _, err := db.w.ExecContext(ctx, "DELETE FROM login_failures WHERE seq = ?", id); err != nil {
		return fmt.Errorf("forgive a login attempt: %w", err)
	}
	return nil
}

// ReserveSignup records a sign-up from address at at, before the account
// is made, unless max were recorded since: then it records nothing and
// returns 0 and the time of the oldest of them (the limit lifts a window
// after it). Serialised per address like ReserveLoginAttempt; the
// address's rows older than since are deleted on the way. Only its own:
// on PostgreSQL, deleting every old row locked rows that sign-ups from
// other addresses were deleting too, so those waited for one another.
// PruneSignups sweeps the old rows of addresses that do not come back.
func (db *DB) ReserveSignup(ctx context.Context, address string, max int, since, at time.Time) (int64, time.Time, error) {
	var id int64
	var oldest time.Time
	err := db.writeTx(ctx, func(tx *sqlTx) error {
		if err := lockNames(ctx, tx, []string{"signup address " + address}); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM signups WHERE address = ? AND at <= ?", address, ms(since)); err != nil {
			return err
		}
		var n int
		var first sql.NullInt64
		if err := tx.QueryRowContext(ctx, "SELECT count(*), min(at) FROM signups WHERE address = ? AND at > ?", address, ms(since)).
			Scan(&n, &first); err != nil {
			return err
		}
		if n >= max {
			oldest = fromMs(first.Int64)
			return nil
		}
		return tx.QueryRowContext(ctx, "INSERT INTO signups (address, at) VALUES (?, ?) RETURNING seq", address, ms(at)).Scan(&id)
	})
	if err != nil {
		return 0, oldest, fmt.Errorf("reserve a sign-up: %w", err)
	}
	return id, oldest, nil
}

// ForgiveSignup takes back a sign-up ReserveSignup recorded: no account
// was made.
func (db *DB) ForgiveSignup(ctx context.Context, id int64) error {
	if _, err := db.w.ExecContext(ctx, "DELETE FROM signups WHERE seq = ?", id); err != nil {
		return fmt.Errorf("forgive a sign-up: %w", err)
	}
	return nil
}

// PruneSignups deletes the sign-ups recorded before before (older than
// the limit's window: they count no more), of every address. One
// statement outside any reservation, run now and then (the service's
// watcher), so no sign-up waits for it for long.
func (db *DB) PruneSignups(ctx context.Context, before time.Time) error {
	if _, err := db.w.ExecContext(ctx, "DELETE FROM signups WHERE at < ?", ms(before)); err != nil {
		return fmt.Errorf("prune old sign-ups: %w", err)
	}
	return nil
}

// lockNames serialises, on PostgreSQL, the transactions that count and
// record tries under the same names, until tx ends: each name is a
// transaction advisory lock in the single-bigint key space, taken in the
// order of their keys so that two transactions never wait for each other
// in a cycle. SQLite's single writer serialises them already.
func lockNames(ctx context.Context, tx *sqlTx, names []string) error {
	if !tx.d.postgres() || len(names) == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(k) FROM (SELECT DISTINCT hashtextextended(n, 0) AS k
		FROM unnest(CAST(? AS text[])) AS t(n) ORDER BY 1) s`, names)
	return err
}

// ClearLoginFailures forgets an account's failures (after a success) and
// every failure older than before.
func (db *DB) ClearLoginFailures(ctx context.Context, account string, before time.Time) error {
	_, err := db.w.ExecContext(ctx, "DELETE FROM login_failures WHERE account = ? OR at < ?", account, ms(before))
	if err != nil {
		return fmt.Errorf("clear failed logins: %w", err)
	}
	return nil
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
