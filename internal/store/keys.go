package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

const keyColumns = "id, user_id, name, key_prefix, key_hash, created_at, last_used_at, revoked_at, read_only"

func scanKey(sc interface{ Scan(...any) error }) (ctf.APIKey, error) {
	var k ctf.APIKey
	var created int64
	var used, revoked sql.NullInt64
	err := sc.Scan(&k.ID, &k.UserID, &k.Name, &k.Prefix, &k.Hash, &created, &used, &revoked, &k.ReadOnly)
	k.CreatedAt, k.LastUsedAt, k.RevokedAt = fromMs(created), fromNullMs(used), fromNullMs(revoked)
	return k, err
}

func queryKeys(ctx context.Context, q querier, where string, args ...any) ([]ctf.APIKey, error) {
	var out []ctf.APIKey
	err := eachRow(ctx, q, "SELECT "+keyColumns+" FROM api_keys WHERE "+where+" ORDER BY created_at, id", func(sc scanner) error {
		k, err := scanKey(sc)
		out = append(out, k)
		return err
	}, args...)
	if err != nil {
		return nil, fmt.Errorf("read API keys: %w", err)
	}
	return out, nil
}

// APIKeys lists a user's keys, oldest first.
func (a Accounts) APIKeys(ctx context.Context, userID string) ([]ctf.APIKey, error) {
	return queryKeys(ctx, a.db.r, "user_id = ?", userID)
}

// APIKeyByPrefix returns the key with that prefix, or NotFound.
func (a Accounts) APIKeyByPrefix(ctx context.Context, prefix string) (ctf.APIKey, error) {
	k, err := scanKey(a.db.r.QueryRowContext(ctx, "SELECT "+keyColumns+" FROM api_keys WHERE key_prefix = ?", prefix))
	if errors.Is(err, sql.ErrNoRows) {
		return k, errNotFound
	}
	if err != nil {
		return k, fmt.Errorf("API key by prefix: %w", err)
	}
	return k, nil
}

// CreateAPIKey stores a key's metadata and hash. A user holds at most
// ctf.MaxActiveAPIKeys unrevoked keys: more is a Conflict, counted in the
// transaction (under a lock on the user's row on PostgreSQL), so two
// replicas cannot both create the twenty-first.
func (a Accounts) CreateAPIKey(ctx context.Context, k ctf.APIKey, audit *ctf.AuditEntry) ([]int64, error) {
	return a.db.write(ctx, audit, func(tx *sqlTx) ([]ChangeRef, error) {
		lock := "SELECT count(*) FROM users WHERE id = ?"
		if tx.d.postgres() {
			lock = "SELECT count(*) FROM (SELECT id FROM users WHERE id = ? FOR UPDATE) u"
		}
		var n int
		if err := tx.QueryRowContext(ctx, lock, k.UserID).Scan(&n); err != nil {
			return nil, fmt.Errorf("create API key: %w", err)
		}
		if n == 0 {
			return nil, ctf.Errorf(ctf.NotFound, "no such user")
		}
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM api_keys WHERE user_id = ? AND revoked_at IS NULL", k.UserID).Scan(&n); err != nil {
			return nil, fmt.Errorf("create API key: %w", err)
		}
		if n >= ctf.MaxActiveAPIKeys {
			return nil, ctf.Errorf(ctf.Conflict, "you already have %d active API keys, the most allowed; revoke one first", ctf.MaxActiveAPIKeys)
		}
		_, err := tx.ExecContext(ctx, createKeySQL, keyValues(k)...)
		if isUniqueViolation(err) {
			return nil, ctf.Errorf(ctf.Conflict, "API key prefix already in use")
		}
		if err != nil {
			return nil, fmt.Errorf("create API key: %w", err)
		}
		return []ChangeRef{{Kind: ChangeAPIKey, Entity: k.ID}}, nil
	})
}

// RevokeAPIKey marks a user's key revoked and returns it. Revoking twice
// keeps the first time. An unknown key is NotFound.
func (a Accounts) RevokeAPIKey(ctx context.Context, userID, keyID string, at time.Time, audit *ctf.AuditEntry) (ctf.APIKey, []int64, error) {
	var k ctf.APIKey
	seqs, err := a.db.write(ctx, audit, func(tx *sqlTx) ([]ChangeRef, error) {
		var err error
		k, err = scanKey(tx.QueryRowContext(ctx, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? AND user_id = ?
			RETURNING `+keyColumns, ms(at), keyID, userID))
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ctf.Errorf(ctf.NotFound, "no API key %q for that user", keyID)
		}
		if err != nil {
			return nil, fmt.Errorf("revoke API key: %w", err)
		}
		return []ChangeRef{{Kind: ChangeAPIKey, Entity: keyID}}, nil
	})
	return k, seqs, err
}

// Touch is a use of an API key or a web session, to record.
type Touch struct {
	ID string // a key's id, or a session's id hash
	At time.Time
}

// TouchAPIKeys records when keys were last used (never moving a time
// back), in one transaction, and logs them so every replica shows it.
func (a Accounts) TouchAPIKeys(ctx context.Context, touches []Touch) ([]int64, error) {
	sortTouches(touches)
	return a.db.write(ctx, nil, func(tx *sqlTx) ([]ChangeRef, error) {
		refs := make([]ChangeRef, 0, len(touches))
		for _, t := range touches {
			if _, err := tx.ExecContext(ctx, "UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)",
				ms(t.At), t.ID, ms(t.At)); err != nil {
				return nil, fmt.Errorf("touch API keys: %w", err)
			}
			refs = append(refs, ChangeRef{Kind: ChangeAPIKey, Entity: t.ID})
		}
		return refs, nil
	})
}

// sessionColumns are a session row's columns, in the order of scanSession
// and of CreateSession's values.
const sessionColumns = "id_hash, user_id, created_at, expires_at, last_seen_at, user_agent, revoked_at"

var createSessionSQL = insertSQL("sessions", strings.Split(sessionColumns, ", "))

func scanSession(sc interface{ Scan(...any) error }) (ctf.Session, error) {
	var s ctf.Session
	var created, expires, seen int64
	var revoked sql.NullInt64
	err := sc.Scan(&s.IDHash, &s.UserID, &created, &expires, &seen, &s.UserAgent, &revoked)
	s.CreatedAt, s.ExpiresAt, s.LastSeenAt, s.RevokedAt = fromMs(created), fromMs(expires), fromMs(seen), fromNullMs(revoked)
	return s, err
}

// querySessions reads the sessions matching where that are active at now.
func querySessions(ctx context.Context, q querier, now time.Time, where string, args ...any) ([]ctf.Session, error) {
	var out []ctf.Session
	args = append(args, ms(now), ms(now.Add(-ctf.SessionIdle)))
	err := eachRow(ctx, q, "SELECT "+sessionColumns+" FROM sessions WHERE "+where+
		" AND revoked_at IS NULL AND expires_at > ? AND last_seen_at > ? ORDER BY created_at, id_hash", func(sc scanner) error {
		s, err := scanSession(sc)
		out = append(out, s)
		return err
	}, args...)
	if err != nil {
		return nil, fmt.Errorf("read sessions: %w", err)
	}
	return out, nil
}

// CreateSession stores a web session.
func (a Accounts) CreateSession(ctx context.Context, s ctf.Session) ([]int64, error) {
	return a.db.write(ctx, nil, func(tx *sqlTx) ([]ChangeRef, error) {
		if s.LastSeenAt.IsZero() {
			s.LastSeenAt = s.CreatedAt
		}
		_, err := tx.ExecContext(ctx, createSessionSQL, s.IDHash, s.UserID, ms(s.CreatedAt), ms(s.ExpiresAt), ms(s.LastSeenAt), s.UserAgent,
			nullMs(s.RevokedAt))
		if err != nil {
			return nil, fmt.Errorf("create session: %w", err)
		}
		return []ChangeRef{{Kind: ChangeSessions, Entity: s.UserID}}, nil
	})
}

// RevokeSessions ends a user's sessions: the one with idHash, or with all
// set every one but idHash. Unknown sessions are NotFound.
func (a Accounts) RevokeSessions(ctx context.Context, userID, idHash string, all bool, at time.Time) ([]int64, error) {
	return a.db.write(ctx, nil, func(tx *sqlTx) ([]ChangeRef, error) {
		q := "UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND id_hash = ? AND revoked_at IS NULL"
		if all {
			q = "UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND id_hash <> ? AND revoked_at IS NULL"
		}
		res, err := tx.ExecContext(ctx, q, ms(at), userID, idHash)
		if err != nil {
			return nil, fmt.Errorf("revoke sessions: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 && !all {
			return nil, ctf.Errorf(ctf.NotFound, "no such session")
		}
		return []ChangeRef{{Kind: ChangeSessions, Entity: userID}}, nil
	})
}

// TouchSessions records when sessions were last seen.
func (a Accounts) TouchSessions(ctx context.Context, touches []Touch, users []string) ([]int64, error) {
	sortTouches(touches)
	return a.db.write(ctx, nil, func(tx *sqlTx) ([]ChangeRef, error) {
		for _, t := range touches {
			if _, err := tx.ExecContext(ctx, "UPDATE sessions SET last_seen_at = ? WHERE id_hash = ? AND last_seen_at < ?",
				ms(t.At), t.ID, ms(t.At)); err != nil {
				return nil, fmt.Errorf("touch sessions: %w", err)
			}
		}
		refs := make([]ChangeRef, 0, len(users))
		for _, u := range users {
			refs = append(refs, ChangeRef{Kind: ChangeSessions, Entity: u})
		}
		return refs, nil
	})
}

// sortTouches orders touches by id: replicas that record uses of the same
// rows lock them in one order, so they never deadlock.
func sortTouches(touches []Touch) {
	slices.SortFunc(touches, func(a, b Touch) int { return strings.Compare(a.ID, b.ID) })
}
