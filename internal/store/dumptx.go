package store

import (
	"context"
	"fmt"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// DumpTx is one read transaction over the whole database (InDump): what
// a dump reads through it is one consistent state.
type DumpTx struct {
	ctx context.Context
	tx  *sqlTx
}

// InDump runs fn in one read transaction over the whole database.
func (db *DB) InDump(ctx context.Context, fn func(*DumpTx) error) error {
	tx, err := db.r.wholeRead(ctx)
	if err != nil {
		return fmt.Errorf("dump: %w", err)
	}
	defer tx.Rollback()
	return fn(&DumpTx{ctx: ctx, tx: tx})
}

// Event reads the event's settings.
func (t *DumpTx) Event() (ctf.Event, error) { return queryEvent(t.ctx, t.tx) }

// Users reads every user, oldest first.
func (t *DumpTx) Users() ([]ctf.User, error) { return queryUsers(t.ctx, t.tx, "") }

// APIKeys reads every API key, revoked ones too, oldest first.
func (t *DumpTx) APIKeys() ([]ctf.APIKey, error) { return queryKeys(t.ctx, t.tx, "1 = 1") }

// UserTwoFactor is a user's two-factor state with the hashes of the
// unused recovery codes (sorted).
type UserTwoFactor struct {
	UserID string
	TwoFactor
	RecoveryCodes []string
}

// TwoFactors reads the two-factor state of the users who have it on. A
// pending enrolment is not read.
func (t *DumpTx) TwoFactors() ([]UserTwoFactor, error) {
	var out []UserTwoFactor
	index := map[string]int{}
	err := eachRow(t.ctx, t.tx, "SELECT id, totp_secret, totp_step FROM users WHERE two_factor = ? AND totp_secret <> ''", func(sc scanner) error {
		var tf UserTwoFactor
		if err := sc.Scan(&tf.UserID, &tf.Secret, &tf.Step); err != nil {
			return err
		}
		index[tf.UserID] = len(out)
		out = append(out, tf)
		return nil
	}, true)
	if err != nil {
		return nil, fmt.Errorf("dump two-factor: %w", err)
	}
	err = eachRow(t.ctx, t.tx, "SELECT user_id, code_hash FROM recovery_codes WHERE used_at IS NULL ORDER BY user_id, code_hash", func(sc scanner) error {
		var id, hash string
		if err := sc.Scan(&id, &hash); err != nil {
			return err
		}
		if i, ok := index[id]; ok {
			out[i].RecoveryCodes = append(out[i].RecoveryCodes, hash)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dump recovery codes: %w", err)
	}
	return out, nil
}

// Challenges reads every challenge with its flags and prerequisites.
func (t *DumpTx) Challenges() ([]ctf.Challenge, error) { return queryChallenges(t.ctx, t.tx) }

// File reads a stored file's bytes by their SHA-256.
func (t *DumpTx) File(sha string) ([]byte, error) { return fileBytes(t.ctx, t.tx, sha) }

// Solves reads every solve in (time, seq) order, with the door and key
// that made it.
func (t *DumpTx) Solves() ([]SolveRow, error) {
	solves, err := querySolves(t.ctx, t.tx, "seq > ?", 0)
	if err != nil {
		return nil, err
	}
	// Which door and key made each solve: not in the hot state's query.
	type madeBy struct {
		door ctf.Door
		key  string
	}
	doors := map[string]madeBy{}
	err = eachRow(t.ctx, t.tx, "SELECT id, door, COALESCE(key_id, '') FROM solves WHERE door <> '' OR key_id IS NOT NULL", func(sc scanner) error {
		var id string
		var m madeBy
		if err := sc.Scan(&id, &m.door, &m.key); err != nil {
			return err
		}
		doors[id] = m
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dump solves: %w", err)
	}
	out := make([]SolveRow, len(solves))
	for i, s := range solves {
		out[i] = SolveRow{Solve: s, Door: doors[s.ID].door, KeyID: doors[s.ID].key}
	}
	return out, nil
}

// EachAttempt calls fn with every attempt in the order they were made.
func (t *DumpTx) EachAttempt(fn func(Attempt) error) error {
	return eachRow(t.ctx, t.tx, "SELECT "+selectList(attemptColumns, "key_id")+" FROM attempts ORDER BY seq",
		func(sc scanner) error {
			var a Attempt
			var at int64
			if err := sc.Scan(&a.ID, &a.UserID, &a.ChallengeID, &a.Flag, &at, &a.Door, &a.KeyID, &a.Practice); err != nil {
				return err
			}
			a.At = fromMs(at)
			return fn(a)
		})
}

// Writeups reads every writeup, oldest first.
func (t *DumpTx) Writeups() ([]ctf.Writeup, error) { return queryWriteups(t.ctx, t.tx, "") }

// Reviews reads every review.
func (t *DumpTx) Reviews() ([]ctf.Review, error) { return queryReviews(t.ctx, t.tx) }

// Announcements reads every announcement, oldest first.
func (t *DumpTx) Announcements() ([]ctf.Announcement, error) {
	return queryAnnouncements(t.ctx, t.tx, "")
}

// Webhooks reads every webhook, secrets included.
func (t *DumpTx) Webhooks() ([]Webhook, error) { return queryWebhooks(t.ctx, t.tx, "") }

// HintUnlocks reads every unlock of a hint, oldest first.
func (t *DumpTx) HintUnlocks() ([]ctf.HintUnlock, error) { return queryHintUnlocks(t.ctx, t.tx, "") }
