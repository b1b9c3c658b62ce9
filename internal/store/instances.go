package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// Secret returns the server's secret called name, made at its first use:
// every replica reads the same (an insert that loses a race reads the
// winner's).
func (db *DB) Secret(ctx context.Context, name string) ([]byte, error) {
	read := func() ([]byte, error) {
		var v string
		err := db.w.QueryRowContext(ctx, "SELECT value FROM secrets WHERE name = ?", name).Scan(&v)
		if err != nil {
			return nil, err
		}
		return hex.DecodeString(v)
	}
	v, err := read()
	if !errors.Is(err, sql.ErrNoRows) {
		if err != nil {
			return nil, fmt.Errorf("read the secret %s: %w", name, err)
		}
		return v, nil
	}
	fresh := make([]byte, 32)
	rand.Read(fresh)
	err = db.writeTx(ctx, func(tx *sqlTx) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING", name, hex.EncodeToString(fresh))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("make the secret %s: %w", name, err)
	}
	if v, err = read(); err != nil {
		return nil, fmt.Errorf("read the secret %s: %w", name, err)
	}
	return v, nil
}

// IssueFlag records that a player's per-player flag of a challenge was
// given to their container: submitted by anyone else, it is recorded as
// suspected sharing.
func (p Play) IssueFlag(ctx context.Context, challengeID, userID, flag string, at time.Time) error {
	return p.db.writeTx(ctx, func(tx *sqlTx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO issued_flags (challenge_id, user_id, flag, issued_at) VALUES (?, ?, ?, ?)
	ON CONFLICT (challenge_id, user_id) DO UPDATE SET flag = excluded.flag`, challengeID, userID, flag, ms(at))
		if err != nil {
			return fmt.Errorf("issue a flag: %w", err)
		}
		return nil
	})
}

// Sharing is a suspected sharing of a per-player flag: a player (UserID)
// submitted the flag given to another (OwnerID).
type Sharing struct {
	ID          string
	ChallengeID string
	UserID      string
	OwnerID     string
	At          time.Time
	Door        ctf.Door
	KeyID       string
}

// sharingColumns are a sharing row's columns.
var sharingColumns = []string{"id", "challenge_id", "user_id", "owner_id", "at", "door", "key_id"}

// recordSharing records, in the submission's transaction, the owner of
// the per-player flag s gave when it is another player's.
var recordSharingSQL = "INSERT INTO sharing (" + strings.Join(sharingColumns, ", ") + `)
	SELECT ?, challenge_id, ?, user_id, ?, ?, ? FROM issued_flags WHERE challenge_id = ? AND flag = ? AND user_id <> ?`

func recordSharing(ctx context.Context, tx *sqlTx, s Submission) error {
	_, err := tx.ExecContext(ctx, recordSharingSQL, newID(), s.UserID, ms(s.At), s.Door, nullString(s.KeyID),
		s.ChallengeID, s.Flag, s.UserID)
	if err != nil {
		return fmt.Errorf("record sharing: %w", err)
	}
	return nil
}

// SharingLog returns the suspected sharings, newest first, at most limit.
func (p Play) SharingLog(ctx context.Context, limit int) ([]Sharing, error) {
	return readSharing(ctx, p.db.r, "ORDER BY at DESC, id LIMIT ?", limit)
}

func readSharing(ctx context.Context, q querier, tail string, args ...any) ([]Sharing, error) {
	var out []Sharing
	err := eachRow(ctx, q, "SELECT "+selectList(sharingColumns, "key_id")+" FROM sharing "+tail, func(sc scanner) error {
		var s Sharing
		var at int64
		if err := sc.Scan(&s.ID, &s.ChallengeID, &s.UserID, &s.OwnerID, &at, &s.Door, &s.KeyID); err != nil {
			return err
		}
		s.At = fromMs(at)
		out = append(out, s)
		return nil
	}, args...)
	if err != nil {
		return nil, fmt.Errorf("read sharing: %w", err)
	}
	return out, nil
}

// Sharing reads every suspected sharing, oldest first, for a dump.
func (t *DumpTx) Sharing() ([]Sharing, error) { return readSharing(t.ctx, t.tx, "ORDER BY at, id") }

// PutSharing records a suspected sharing a dataset lists; one whose id is
// recorded already is left as it is.
func (t LoadPlay) PutSharing(s Sharing) (bool, error) {
	res, err := t.tx.ExecContext(t.ctx, insertSQL("sharing", sharingColumns)+" ON CONFLICT (id) DO NOTHING",
		s.ID, s.ChallengeID, s.UserID, s.OwnerID, ms(s.At), s.Door, nullString(s.KeyID))
	if err != nil {
		return false, fmt.Errorf("load sharing: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// Secrets reads the server's secrets, in hex by name, for a dump.
func (t *DumpTx) Secrets() (map[string]string, error) {
	out := map[string]string{}
	err := eachRow(t.ctx, t.tx, "SELECT name, value FROM secrets", func(sc scanner) error {
		var name, value string
		err := sc.Scan(&name, &value)
		out[name] = value
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("dump secrets: %w", err)
	}
	return out, nil
}

// PutSecret sets the server's secret called name (hex) unless the
// database has one: a secret in use keys what players were given.
func (t *LoadTx) PutSecret(name, value string) (bool, error) {
	res, err := t.tx.ExecContext(t.ctx, "INSERT INTO secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING", name, value)
	if err != nil {
		return false, fmt.Errorf("load secret %s: %w", name, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}
