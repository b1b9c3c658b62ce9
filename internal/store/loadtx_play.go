package store

import (
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// The load's solves and wrong attempts.

// SolveRow is a solve with the front door and the API key that made it.
type SolveRow struct {
	ctf.Solve
	Door  ctf.Door
	KeyID string
}

func solveValues(s SolveRow) []any {
	return []any{s.ID, s.UserID, s.ChallengeID, nullString(s.Flag), ms(s.At), s.Door, nullString(s.KeyID), s.Practice}
}

// Solve reads the solve of a user and a challenge (time, flag, practice),
// if there is one.
func (t LoadPlay) Solve(userID, challengeID string) (ctf.Solve, bool, error) {
	find, err := t.stmt("SELECT solved_at, flag, practice FROM solves WHERE user_id = ? AND challenge_id = ?")
	if err != nil {
		return ctf.Solve{}, false, err
	}
	var at int64
	var flag sql.NullString
	s := ctf.Solve{UserID: userID, ChallengeID: challengeID}
	err = find.QueryRowContext(t.ctx, userID, challengeID).Scan(&at, &flag, &s.Practice)
	if errors.Is(err, sql.ErrNoRows) {
		return s, false, nil
	}
	if err != nil {
		return s, false, unavailable(err)
	}
	s.At, s.Flag = fromMs(at), flag.String
	return s, true, nil
}

// SolveIDTaken reports whether a solve has the id.
func (t LoadPlay) SolveIDTaken(id string) (bool, error) {
	return t.exists("SELECT count(*) FROM solves WHERE id = ?", id)
}

// Solved reports whether the user has solved the challenge.
func (t LoadPlay) Solved(userID, challengeID string) (bool, error) {
	return t.exists("SELECT count(*) FROM solves WHERE user_id = ? AND challenge_id = ?", userID, challengeID)
}

// UpsertSolve creates or replaces the solve of its user and challenge; a
// stored one keeps its id.
func (t LoadPlay) UpsertSolve(s SolveRow) error {
	_, err := t.tx.ExecContext(t.ctx, loadSolveSQL, solveValues(s)...)
	return err
}

// NewSolves writes solves the load has checked are new.
func (t LoadPlay) NewSolves() *Rows[SolveRow] {
	return newRows(t.loadState, "solves", solveColumns, solveValues)
}

// AttemptIDTaken reports whether an attempt has the id.
func (t LoadPlay) AttemptIDTaken(id string) (bool, error) {
	return t.exists("SELECT count(*) FROM attempts WHERE id = ?", id)
}

// HasAttempt reports whether the user has tried flag on the challenge at
// the time (at any time when at is nil).
func (t LoadPlay) HasAttempt(userID, challengeID, flag string, at *time.Time) (bool, error) {
	if at == nil {
		return t.exists("SELECT count(*) FROM attempts WHERE user_id = ? AND challenge_id = ? AND flag = ?", userID, challengeID, flag)
	}
	return t.exists("SELECT count(*) FROM attempts WHERE user_id = ? AND challenge_id = ? AND created_at = ? AND flag = ?",
		userID, challengeID, ms(*at), flag)
}

// NewAttempts writes attempts the load has checked are new.
func (t LoadPlay) NewAttempts() *Rows[Attempt] {
	return newRows(t.loadState, "attempts", attemptColumns, attemptValues)
}

// HintUnlock reads a user's unlock of a hint of a challenge, if there is
// one.
func (t LoadPlay) HintUnlock(userID, challengeID string, hintID int) (ctf.HintUnlock, bool, error) {
	find, err := t.stmt(selectHintUnlocks + "WHERE user_id = ? AND challenge_id = ? AND hint_id = ?")
	if err != nil {
		return ctf.HintUnlock{}, false, err
	}
	h, err := scanHintUnlock(find.QueryRowContext(t.ctx, userID, challengeID, int64(hintID)))
	if errors.Is(err, sql.ErrNoRows) {
		return h, false, nil
	}
	if err != nil {
		return h, false, unavailable(err)
	}
	return h, true, nil
}

// UpsertHintUnlock creates or replaces the unlock of its user, challenge
// and hint.
func (t LoadPlay) UpsertHintUnlock(h ctf.HintUnlock) error {
	_, err := t.tx.ExecContext(t.ctx, loadHintUnlockSQL, hintUnlockValues(h)...)
	return err
}

var loadHintUnlockSQL = upsertSQL("hint_unlocks", hintUnlockColumns, "user_id, challenge_id, hint_id")

// NewHintUnlocks writes unlocks into an empty table.
func (t LoadPlay) NewHintUnlocks() *Rows[ctf.HintUnlock] {
	return newRows(t.loadState, "hint_unlocks", hintUnlockColumns, hintUnlockValues)
}

// DropHintUnlocks deletes the unlocks of the challenge's hints but those
// whose ids are kept: the hints a load replacing the challenge removed.
func (t LoadPlay) DropHintUnlocks(challengeID string, keep []int) error {
	if err := dropHintUnlocks(t.ctx, t.tx, challengeID, keep); err != nil {
		return fmt.Errorf("load hint unlocks: %w", err)
	}
	return nil
}
