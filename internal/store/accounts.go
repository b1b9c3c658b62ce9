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
func (db *DB) CreateUser(ctx context.Context, u ctf.User) error {
	return db.writeTx(ctx, func(tx *sqlTx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO users (id, username, name, email, email_lower, password_hash, role, banned, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, u.ID, u.Username, u.Name, nullString(u.Email), nullString(strings.ToLower(u.Email)),
			u.PasswordHash, u.Role, u.Banned, ms(u.CreatedAt))
		if isUniqueViolation(err) {
			return ctf.Errorf(ctf.Conflict, "username or email already taken")
		}
		if err != nil {
			return fmt.Errorf("create user: %w", err)
		}
		return bumpRevision(ctx, tx)
	})
}

// CreateAPIKey stores a key's metadata and hash.
func (db *DB) CreateAPIKey(ctx context.Context, k ctf.APIKey) error {
	return db.writeTx(ctx, func(tx *sqlTx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO api_keys (id, user_id, name, key_prefix, key_hash, created_at)
			VALUES (?, ?, ?, ?, ?, ?)`, k.ID, k.UserID, k.Name, k.Prefix, k.Hash, ms(k.CreatedAt))
		if isUniqueViolation(err) {
			return ctf.Errorf(ctf.Conflict, "API key prefix already in use")
		}
		if err != nil {
			return fmt.Errorf("create API key: %w", err)
		}
		return nil
	})
}

const keyColumns = "id, user_id, name, key_prefix, key_hash, created_at, last_used_at, revoked_at"

func scanKey(sc interface{ Scan(...any) error }) (ctf.APIKey, error) {
	var k ctf.APIKey
	var created int64
	var used, revoked sql.NullInt64
	err := sc.Scan(&k.ID, &k.UserID, &k.Name, &k.Prefix, &k.Hash, &created, &used, &revoked)
	k.CreatedAt, k.LastUsedAt, k.RevokedAt = fromMs(created), fromNullMs(used), fromNullMs(revoked)
	return k, err
}

// APIKeyByPrefix returns the key with that prefix, or NotFound.
func (db *DB) APIKeyByPrefix(ctx context.Context, prefix string) (ctf.APIKey, error) {
	k, err := scanKey(db.r.QueryRowContext(ctx, "SELECT "+keyColumns+" FROM api_keys WHERE key_prefix = ?", prefix))
	if errors.Is(err, sql.ErrNoRows) {
		return k, errNotFound
	}
	if err != nil {
		return k, fmt.Errorf("API key by prefix: %w", err)
	}
	return k, nil
}

// APIKeys lists a user's keys, oldest first.
func (db *DB) APIKeys(ctx context.Context, userID string) ([]ctf.APIKey, error) {
	rows, err := db.r.QueryContext(ctx, "SELECT "+keyColumns+" FROM api_keys WHERE user_id = ? ORDER BY created_at, id", userID)
	if err != nil {
		return nil, fmt.Errorf("list API keys: %w", err)
	}
	defer rows.Close()
	out := []ctf.APIKey{}
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, fmt.Errorf("scan API key: %w", err)
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// RevokeAPIKey marks a user's key revoked. Revoking twice keeps the first
// time. An unknown key is NotFound.
func (db *DB) RevokeAPIKey(ctx context.Context, userID, keyID string, at time.Time) error {
	return db.writeTx(ctx, func(tx *sqlTx) error {
		res, err := tx.ExecContext(ctx, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? AND user_id = ?`,
			ms(at), keyID, userID)
		if err != nil {
			return fmt.Errorf("revoke API key: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ctf.Errorf(ctf.NotFound, "no API key %q for that user", keyID)
		}
		return bumpRevision(ctx, tx)
	})
}

// TouchAPIKey records that a key was used.
func (db *DB) TouchAPIKey(ctx context.Context, keyID string, at time.Time) error {
	_, err := db.w.ExecContext(ctx, "UPDATE api_keys SET last_used_at = ? WHERE id = ?", ms(at), keyID)
	if err != nil {
		return fmt.Errorf("touch API key: %w", err)
	}
	return nil
}

// CreateSession stores a web session.
func (db *DB) CreateSession(ctx context.Context, s ctf.Session) error {
	_, err := db.w.ExecContext(ctx, "INSERT INTO sessions (id_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
		s.IDHash, s.UserID, ms(s.CreatedAt), ms(s.ExpiresAt))
	if err != nil {
		return fmt.Errorf("create session: %w", err)
	}
	return nil
}

// SessionByHash returns the session with that id hash, or NotFound.
func (db *DB) SessionByHash(ctx context.Context, idHash string) (ctf.Session, error) {
	var s ctf.Session
	var created, expires int64
	var revoked sql.NullInt64
	err := db.r.QueryRowContext(ctx, "SELECT id_hash, user_id, created_at, expires_at, revoked_at FROM sessions WHERE id_hash = ?",
		idHash).Scan(&s.IDHash, &s.UserID, &created, &expires, &revoked)
	if errors.Is(err, sql.ErrNoRows) {
		return s, errNotFound
	}
	if err != nil {
		return s, fmt.Errorf("session: %w", err)
	}
	s.CreatedAt, s.ExpiresAt, s.RevokedAt = fromMs(created), fromMs(expires), fromNullMs(revoked)
	return s, nil
}

// RevokeSession ends a web session.
func (db *DB) RevokeSession(ctx context.Context, idHash string, at time.Time) error {
	_, err := db.w.ExecContext(ctx, "UPDATE sessions SET revoked_at = COALESCE(revoked_at, ?) WHERE id_hash = ?", ms(at), idHash)
	if err != nil {
		return fmt.Errorf("revoke session: %w", err)
	}
	return nil
}

// Writeups lists a challenge's approved writeups and the given user's own,
// oldest first.
func (db *DB) Writeups(ctx context.Context, challengeID, userID string) ([]ctf.Writeup, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT w.id, w.user_id, w.challenge_id, w.title, w.content, w.images, w.status,
		w.created_at, w.updated_at, u.username, u.name FROM writeups w JOIN users u ON u.id = w.user_id
		WHERE w.challenge_id = ? AND (w.status = 'approved' OR w.user_id = ?) ORDER BY w.created_at, w.id`, challengeID, userID)
	if err != nil {
		return nil, fmt.Errorf("list writeups: %w", err)
	}
	defer rows.Close()
	out := []ctf.Writeup{}
	for rows.Next() {
		var w ctf.Writeup
		var images string
		var created, updated int64
		if err := rows.Scan(&w.ID, &w.UserID, &w.ChallengeID, &w.Title, &w.Content, &images, &w.Status,
			&created, &updated, &w.Username, &w.Name); err != nil {
			return nil, fmt.Errorf("scan writeup: %w", err)
		}
		w.CreatedAt, w.UpdatedAt = fromMs(created), fromMs(updated)
		if err := jsonUnmarshalStrings(images, &w.Images); err != nil {
			return nil, fmt.Errorf("writeup %s images: %w", w.ID, err)
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// File returns stored file bytes by SHA-256, or NotFound.
func (db *DB) File(ctx context.Context, sha string) ([]byte, error) {
	var data []byte
	err := db.r.QueryRowContext(ctx, "SELECT data FROM files WHERE sha256 = ?", sha).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("file %s: %w", sha, err)
	}
	return data, nil
}

func (db *DB) writeTx(ctx context.Context, fn func(*sqlTx) error) error {
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Empty reports whether the database holds no users and no challenges.
func (db *DB) Empty(ctx context.Context) (bool, error) {
	var n int
	err := db.r.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM users) + (SELECT count(*) FROM challenges)").Scan(&n)
	if err != nil {
		return false, fmt.Errorf("count rows: %w", err)
	}
	return n == 0, nil
}
