package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// ChangeHints names the hint unlocks of one user on one challenge
// (entity: HintsEntity).
const ChangeHints ChangeKind = "hints"

// HintsEntity is the change log's entity of a user's unlocks on a
// challenge.
func HintsEntity(userID, challengeID string) string { return userID + " " + challengeID }

var (
	hintUnlockColumns = []string{"user_id", "challenge_id", "hint_id", "unlocked_at", "charged"}
	selectHintUnlocks = "SELECT " + strings.Join(hintUnlockColumns, ", ") + " FROM hint_unlocks "
	insertHintUnlock  = insertSQL("hint_unlocks", hintUnlockColumns)
)

func hintUnlockValues(h ctf.HintUnlock) []any {
	return []any{h.UserID, h.ChallengeID, int64(h.HintID), ms(h.At), h.Charged}
}

func scanHintUnlock(sc scanner) (ctf.HintUnlock, error) {
	var h ctf.HintUnlock
	var at int64
	err := sc.Scan(&h.UserID, &h.ChallengeID, &h.HintID, &at, &h.Charged)
	h.At = fromMs(at)
	return h, err
}

func queryHintUnlocks(ctx context.Context, q querier, where string, args ...any) ([]ctf.HintUnlock, error) {
	out, err := allRows(ctx, q, selectHintUnlocks+where+" ORDER BY unlocked_at, user_id, challenge_id, hint_id", scanHintUnlock, args...)
	if err != nil {
		return nil, fmt.Errorf("read hint unlocks: %w", err)
	}
	return out, nil
}

// ErrHintRequired is UnlockHint's refusal of a hint whose required hint
// the user has not unlocked.
var ErrHintRequired = errors.New("the required hint is not unlocked")

// UnlockHint records that a user unlocked a hint of a challenge, once:
// unlocking it again returns the first unlock (created false). The unlock
// is charged (its cost taken from the user's solve) unless the user has
// solved the challenge; that is decided under the lock the user's
// submissions to the challenge take, so a solve and an unlock racing are
// ordered one way on every replica. requires, when not 0, is a hint that
// must be unlocked first (ErrHintRequired).
func (p Play) UnlockHint(ctx context.Context, userID, challengeID string, hintID, requires int) (h ctf.HintUnlock, created bool, seqs []int64, err error) {
	seqs, err = p.db.write(ctx, nil, func(tx *sqlTx) ([]ChangeRef, error) {
		if tx.d.postgres() {
			// The lock of lockSubmissions on this user and challenge.
			if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtext(CAST(? AS text)), hashtext(CAST(? AS text)))", userID, challengeID); err != nil {
				return nil, fmt.Errorf("unlock hint: lock: %w", err)
			}
		}
		have, err := queryHintUnlocks(ctx, tx, "WHERE user_id = ? AND challenge_id = ?", userID, challengeID)
		if err != nil {
			return nil, err
		}
		found := requires == 0
		for _, x := range have {
			if x.HintID == hintID {
				h = x
				return nil, nil
			}
			found = found || x.HintID == requires
		}
		if !found {
			return nil, ErrHintRequired
		}
		var solved int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM solves WHERE user_id = ? AND challenge_id = ?", userID, challengeID).Scan(&solved); err != nil {
			return nil, fmt.Errorf("unlock hint: %w", err)
		}
		h = ctf.HintUnlock{UserID: userID, ChallengeID: challengeID, HintID: hintID, At: p.db.now(), Charged: solved == 0}
		if _, err := tx.ExecContext(ctx, insertHintUnlock, hintUnlockValues(h)...); err != nil {
			return nil, fmt.Errorf("unlock hint: %w", err)
		}
		created = true
		return []ChangeRef{{Kind: ChangeHints, Entity: HintsEntity(userID, challengeID)}}, nil
	})
	return h, created, seqs, err
}

// HintUnlocksOf reads the unlocks of the pairs named by change log
// entities (HintsEntity).
func hintUnlocksOf(ctx context.Context, q querier, entities []string) ([]ctf.HintUnlock, error) {
	var where []string
	var args []any
	for _, e := range entities {
		u, c, ok := strings.Cut(e, " ")
		if !ok {
			continue
		}
		where = append(where, "(user_id = ? AND challenge_id = ?)")
		args = append(args, u, c)
	}
	if len(where) == 0 {
		return nil, nil
	}
	return queryHintUnlocks(ctx, q, "WHERE "+strings.Join(where, " OR "), args...)
}

// dropHintUnlocks deletes the unlocks of a challenge's hints but those
// whose ids are kept: an edit or a load removed the others' hints (the hot
// state forgets them too, so a hint given a removed one's id later starts
// locked for everyone).
func dropHintUnlocks(ctx context.Context, tx *sqlTx, challengeID string, keep []int) error {
	q, args := "DELETE FROM hint_unlocks WHERE challenge_id = ?", []any{challengeID}
	if len(keep) > 0 {
		q += " AND hint_id NOT IN (" + marks(len(keep)) + ")"
		for _, id := range keep {
			args = append(args, int64(id))
		}
	}
	_, err := tx.ExecContext(ctx, q, args...)
	return err
}

// hintIDs are the ids of hints.
func hintIDs(hints []ctf.Hint) []int {
	ids := make([]int, len(hints))
	for i, h := range hints {
		ids[i] = h.ID
	}
	return ids
}

// chargedHints reads the hints a user unlocked on a challenge before
// solving it, in a submission's transaction.
func chargedHints(ctx context.Context, tx *sqlTx, userID, challengeID string) ([]int, error) {
	var ids []int
	err := eachRow(ctx, tx, "SELECT hint_id FROM hint_unlocks WHERE user_id = ? AND challenge_id = ? AND charged ORDER BY hint_id", func(sc scanner) error {
		var id int
		err := sc.Scan(&id)
		ids = append(ids, id)
		return err
	}, userID, challengeID)
	if err != nil {
		return nil, fmt.Errorf("charged hints: %w", err)
	}
	return ids, nil
}
