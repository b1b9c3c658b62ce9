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

// LoadTx is the load's one write transaction (InLoad): the reads by
// natural key and the writes that turning a dataset into rows needs, on
// the store's own types. Its methods return the driver's error of a write
// as it is, so that the caller can tell a unique violation
// (IsUniqueViolation) and name the entry at fault.
type LoadTx struct {
	ctx   context.Context
	tx    *sqlTx
	now   time.Time
	bulk  *bulkLoader // for the multi-row INSERTs of new rows
	stmts map[string]*sql.Stmt
}

// InLoad runs fn as the load's one transaction: on any error nothing is
// written. It serialises loads with each other, and on success bumps the
// revision, so every replica rebuilds its state from the database.
func (db *DB) InLoad(ctx context.Context, fn func(*LoadTx) error) error {
	return db.loadTx(ctx, func(tx *sqlTx) error {
		if err := lockLoads(ctx, tx); err != nil {
			return fmt.Errorf("load: %w", err)
		}
		t := &LoadTx{ctx: ctx, tx: tx, now: ctf.Millis(db.now()), bulk: &bulkLoader{ctx: ctx, tx: tx}}
		defer t.closeStmts()
		if err := fn(t); err != nil {
			return err
		}
		return bumpRevision(ctx, tx)
	})
}

// loadTx runs fn in the load's one write transaction. On SQLite it takes
// the writer connection for itself and sets it up for a transaction of
// many rows: foreign keys are checked once before the commit (PRAGMA
// foreign_key_check) instead of by every statement, since SQLite checks an
// immediate foreign key of a multi-row INSERT at the end of the statement
// and keeps a statement journal to undo it, which costs more than the
// inserts; and a larger page cache, since with the default 2 MB such a
// transaction spills its pages to the log and reads them back for every
// index insert. Durability is untouched: the commit syncs as any other.
func (db *DB) loadTx(ctx context.Context, fn func(*sqlTx) error) error {
	if db.dialect.postgres() {
		return db.writeTx(ctx, fn)
	}
	raw, err := db.w.raw.Conn(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", unavailable(err))
	}
	defer raw.Close()
	conn := &sqlConn{raw: raw, d: db.dialect}
	var cache int64
	if err := raw.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&cache); err != nil {
		return fmt.Errorf("begin: %w", unavailable(err))
	}
	defer func() {
		// Back to the settings Open gave the connection, or never reuse it.
		for _, p := range []string{"PRAGMA foreign_keys = ON", fmt.Sprintf("PRAGMA cache_size = %d", cache)} {
			if _, err := raw.ExecContext(context.Background(), p); err != nil {
				discardConn(raw)
				return
			}
		}
	}()
	for _, p := range []string{"PRAGMA foreign_keys = OFF", "PRAGMA cache_size = -32768"} {
		if _, err := raw.ExecContext(ctx, p); err != nil {
			return fmt.Errorf("begin: %w", unavailable(err))
		}
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if err := (&bulkLoader{ctx: ctx, tx: tx}).foreignKeyCheck(); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// IsUniqueViolation reports whether err is a unique key's violation, on
// either engine.
func IsUniqueViolation(err error) bool { return isUniqueViolation(err) }

// Now is the load's time, to the millisecond: what an entry without a
// time is stamped with.
func (t *LoadTx) Now() time.Time { return t.now }

// stmt returns query prepared in the load's transaction, once: the per-row
// lookups run hundreds of thousands of times.
func (t *LoadTx) stmt(query string) (*sql.Stmt, error) {
	if st, ok := t.stmts[query]; ok {
		return st, nil
	}
	st, err := t.tx.PrepareContext(t.ctx, query)
	if err != nil {
		return nil, unavailable(err)
	}
	if t.stmts == nil {
		t.stmts = map[string]*sql.Stmt{}
	}
	t.stmts[query] = st
	return st, nil
}

func (t *LoadTx) closeStmts() {
	for _, st := range t.stmts {
		st.Close()
	}
	for _, b := range t.bulk.stmts {
		b.close()
	}
}

// exists runs a prepared count query and reports whether it counted any.
func (t *LoadTx) exists(query string, args ...any) (bool, error) {
	st, err := t.stmt(query)
	if err != nil {
		return false, err
	}
	var n int
	if err := st.QueryRowContext(t.ctx, args...).Scan(&n); err != nil {
		return false, unavailable(err)
	}
	return n > 0, nil
}

// Empty reports whether table holds no row yet: then no entry of a dataset
// can match a stored one, and the load need not look.
func (t *LoadTx) Empty(table string) (bool, error) {
	var n int
	err := t.tx.QueryRowContext(t.ctx, "SELECT count(*) FROM (SELECT 1 FROM "+table+" LIMIT 1) t").Scan(&n)
	if err != nil {
		return false, fmt.Errorf("load %s: %w", table, err)
	}
	return n == 0, nil
}

// Rows batches new rows of one table into multi-row INSERTs, for tables
// the load found empty or rows it has checked are new. Flush writes the
// rows still queued.
type Rows[T any] struct {
	ins    *bulkInsert
	values func(T) []any
	n      int64
}

func newRows[T any](t *LoadTx, table string, cols []string, values func(T) []any) *Rows[T] {
	r := &Rows[T]{values: values}
	r.ins = t.bulk.inserter(table, strings.Join(cols, ", "), &r.n)
	return r
}

// Add queues one row.
func (r *Rows[T]) Add(v T) error { return r.ins.add(r.values(v)...) }

// Flush writes the queued rows.
func (r *Rows[T]) Flush() error { return r.ins.flush() }

// Users.

// UserID is the id of the user with username, "" when there is none.
func (t *LoadTx) UserID(username string) (string, error) {
	var id string
	err := t.tx.QueryRowContext(t.ctx, "SELECT id FROM users WHERE username = ?", username).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("look up user %q: %w", username, err)
	}
	return id, nil
}

// User reads the user with username, if there is one.
func (t *LoadTx) User(username string) (ctf.User, bool, error) {
	u, err := scanUser(t.tx.QueryRowContext(t.ctx, "SELECT "+userColumns+" FROM users WHERE username = ?", username))
	if errors.Is(err, sql.ErrNoRows) {
		return u, false, nil
	}
	return u, err == nil, err
}

// PasswordHash is the password hash of the user with username, "" when
// there is no such user.
func (t *LoadTx) PasswordHash(username string) (string, error) {
	var h string
	err := t.tx.QueryRowContext(t.ctx, "SELECT password_hash FROM users WHERE username = ?", username).Scan(&h)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return h, err
}

// NewUsers writes new users (into an empty table).
func (t *LoadTx) NewUsers() *Rows[ctf.User] { return newRows(t, "users", userWriteColumns, userValues) }

// UpsertUser creates or updates the user by username; the id, image and
// two-factor state of a stored one stay. A failure leaves the transaction
// usable, so that its cause can be looked up.
func (t *LoadTx) UpsertUser(u ctf.User) error {
	return t.tx.savepoint(t.ctx, func() error {
		_, err := t.tx.ExecContext(t.ctx, loadUserSQL, userValues(u)...)
		return err
	})
}

// OtherCaseUsername is a stored username that differs from username only
// in case (sql.ErrNoRows when there is none).
func (t *LoadTx) OtherCaseUsername(username string) (string, error) {
	var other string
	err := t.tx.QueryRowContext(t.ctx, "SELECT username FROM users WHERE lower(username) = lower(?) AND username <> ?",
		username, username).Scan(&other)
	return other, err
}

// UsernameOfID is the username of the user with id (sql.ErrNoRows when
// there is none).
func (t *LoadTx) UsernameOfID(id string) (string, error) {
	var name string
	err := t.tx.QueryRowContext(t.ctx, "SELECT username FROM users WHERE id = ?", id).Scan(&name)
	return name, err
}

// APIKey reads the API key with id, if there is one.
func (t *LoadTx) APIKey(id string) (ctf.APIKey, bool, error) {
	k, err := scanKey(t.tx.QueryRowContext(t.ctx, "SELECT "+keyColumns+" FROM api_keys WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return k, false, nil
	}
	return k, err == nil, err
}

// UpsertAPIKey creates or updates the API key by id; its user, prefix
// and hash never change.
func (t *LoadTx) UpsertAPIKey(k ctf.APIKey) error {
	_, err := t.tx.ExecContext(t.ctx, loadKeySQL, keyValues(k)...)
	return err
}

// TwoFactor reads a user's two-factor state: on or off, the secret and
// the last step accepted.
func (t *LoadTx) TwoFactor(userID string) (on bool, secret string, step int64, err error) {
	err = t.tx.QueryRowContext(t.ctx, "SELECT two_factor, totp_secret, totp_step FROM users WHERE id = ?", userID).Scan(&on, &secret, &step)
	return
}

// SetTwoFactor turns two-factor authentication on for a user with secret,
// the last step accepted being step; a pending enrolment is dropped.
func (t *LoadTx) SetTwoFactor(userID, secret string, step int64) error {
	_, err := t.tx.ExecContext(t.ctx, "UPDATE users SET two_factor = ?, totp_secret = ?, totp_pending = '', totp_step = ? WHERE id = ?",
		true, secret, step, userID)
	return err
}

// RecoveryCodes are the hashes of a user's recovery codes, used or not.
func (t *LoadTx) RecoveryCodes(userID string) ([]string, error) {
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
func (t *LoadTx) DeleteRecoveryCode(userID, hash string) error {
	_, err := t.tx.ExecContext(t.ctx, "DELETE FROM recovery_codes WHERE user_id = ? AND code_hash = ?", userID, hash)
	return err
}

// AddRecoveryCode gives a user an unused recovery code.
func (t *LoadTx) AddRecoveryCode(userID, hash string) error {
	_, err := t.tx.ExecContext(t.ctx, "INSERT INTO recovery_codes (user_id, code_hash) VALUES (?, ?)", userID, hash)
	return err
}

// Challenges.

// ChallengeID is the id of the challenge with slug, "" when there is none.
func (t *LoadTx) ChallengeID(slug string) (string, error) {
	var id string
	err := t.tx.QueryRowContext(t.ctx, "SELECT id FROM challenges WHERE slug = ?", slug).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("look up challenge %q: %w", slug, err)
	}
	return id, nil
}

// ChallengeIDsTitled are the ids of the challenges titled title.
func (t *LoadTx) ChallengeIDsTitled(title string) ([]string, error) {
	rows, err := t.tx.QueryContext(t.ctx, "SELECT id FROM challenges WHERE title = ?", title)
	if err != nil {
		return nil, fmt.Errorf("look up challenge titled %q: %w", title, err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// Challenge reads the challenge with slug and its flags (not compiled;
// prerequisites apart), if there is one.
func (t *LoadTx) Challenge(slug string) (ctf.Challenge, bool, error) {
	c, err := scanChallenge(t.tx.QueryRowContext(t.ctx, selectChallenges+"WHERE slug = ?", slug))
	if errors.Is(err, sql.ErrNoRows) {
		return c, false, nil
	}
	if err != nil {
		return c, false, fmt.Errorf("load challenge %q: %w", slug, err)
	}
	err = eachRow(t.ctx, t.tx, "SELECT kind, content, case_insensitive FROM flags WHERE challenge_id = ? ORDER BY position", func(sc scanner) error {
		var f ctf.Flag
		err := sc.Scan(&f.Kind, &f.Content, &f.CaseInsensitive)
		c.Flags = append(c.Flags, f)
		return err
	}, c.ID)
	if err != nil {
		return c, false, fmt.Errorf("load flags of %q: %w", slug, err)
	}
	return c, true, nil
}

// UpsertChallenge creates or replaces the challenge row by slug (not its
// flags: PutFlags); a stored one keeps its id.
func (t *LoadTx) UpsertChallenge(c ctf.Challenge) error {
	_, err := t.tx.ExecContext(t.ctx, loadChallengeSQL, challengeValues(c)...)
	return err
}

// PutFlags replaces the flags of the challenge with id.
func (t *LoadTx) PutFlags(id string, flags []ctf.Flag) error { return putFlags(t.ctx, t.tx, id, flags) }

// Prerequisites are the ids of the challenges the one with id requires.
func (t *LoadTx) Prerequisites(id string) (map[string]bool, error) {
	had := map[string]bool{}
	err := eachRow(t.ctx, t.tx, "SELECT requires_id FROM prerequisites WHERE challenge_id = ?", func(sc scanner) error {
		var rid string
		err := sc.Scan(&rid)
		had[rid] = true
		return err
	}, id)
	if err != nil {
		return nil, fmt.Errorf("load prerequisites: %w", err)
	}
	return had, nil
}

// SetPrerequisites replaces what the challenge with id requires.
func (t *LoadTx) SetPrerequisites(id string, requires map[string]bool) error {
	if _, err := t.tx.ExecContext(t.ctx, "DELETE FROM prerequisites WHERE challenge_id = ?", id); err != nil {
		return err
	}
	for rid := range requires {
		if _, err := t.tx.ExecContext(t.ctx, "INSERT INTO prerequisites (challenge_id, requires_id) VALUES (?, ?)", id, rid); err != nil {
			return err
		}
	}
	return nil
}

// PutFile stores a challenge file's bytes under their SHA-256.
func (t *LoadTx) PutFile(sha string, data []byte) error { return putFile(t.ctx, t.tx, sha, data) }
