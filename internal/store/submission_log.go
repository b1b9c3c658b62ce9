package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// LogFilter narrows the submission log: by user, by challenge, by result
// ("" for every submission); Offset and Limit page through it.
type LogFilter struct {
	UserID, ChallengeID string
	Correct             *bool
	Offset, Limit       int
}

// LogRecord is one submission of the log: a solve, or a wrong attempt with
// the flag it sent.
type LogRecord struct {
	At                  time.Time
	UserID, ChallengeID string
	Correct, Practice   bool
	Door                ctf.Door // "" for one loaded from a dataset
	KeyID               string   // "" when no key made it
	Flag                string   // what was sent ("" for a solve loaded without it)
}

// SubmissionLog returns the submissions f selects, newest first (a wrong
// attempt before a solve of the same millisecond, as they happened), at
// most f.Limit from f.Offset.
func (p Play) SubmissionLog(ctx context.Context, f LogFilter) ([]LogRecord, error) {
	var parts []string
	var args []any
	for _, t := range []struct {
		table, at string
		correct   bool
	}{{"solves", "solved_at", true}, {"attempts", "created_at", false}} {
		if f.Correct != nil && *f.Correct != t.correct {
			continue
		}
		where, a := []string{"1 = 1"}, []any{}
		if f.UserID != "" {
			where, a = append(where, "user_id = ?"), append(a, f.UserID)
		}
		if f.ChallengeID != "" {
			where, a = append(where, "challenge_id = ?"), append(a, f.ChallengeID)
		}
		correct := 0
		if t.correct {
			correct = 1
		}
		parts = append(parts, fmt.Sprintf(`SELECT %s AS at, user_id, challenge_id, %d AS correct, CASE WHEN practice THEN 1 ELSE 0 END AS practice, door,
			COALESCE(key_id, '') AS key_id, COALESCE(flag, '') AS flag, seq FROM %s WHERE %s`,
			t.at, correct, t.table, strings.Join(where, " AND ")))
		args = append(args, a...)
	}
	query := `SELECT at, user_id, challenge_id, correct, practice, door, key_id, flag FROM (` +
		strings.Join(parts, " UNION ALL ") + `) AS s ORDER BY at DESC, correct DESC, seq DESC LIMIT ? OFFSET ?`
	args = append(args, f.Limit, f.Offset)
	rows, err := p.db.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("the submission log: %w", err)
	}
	defer rows.Close()
	out := []LogRecord{}
	for rows.Next() {
		var r LogRecord
		var at int64
		var correct, practice int
		if err := rows.Scan(&at, &r.UserID, &r.ChallengeID, &correct, &practice, &r.Door, &r.KeyID, &r.Flag); err != nil {
			return nil, fmt.Errorf("the submission log: %w", err)
		}
		r.At, r.Correct, r.Practice = fromMs(at), correct == 1, practice == 1
		out = append(out, r)
	}
	return out, rows.Err()
}

// SharedFlag is a wrong flag a user sent that other users sent to the same
// challenge too: a sign that flags or guesses are shared.
type SharedFlag struct {
	ChallengeID, Flag string
	Others            []string // the other users' ids, sorted
}

// SharedWrongFlags lists the wrong flags of userID that other users sent to
// the same challenge, by challenge and flag. Flags everyone guesses
// (empty) are left out.
func (p Play) SharedWrongFlags(ctx context.Context, userID string) ([]SharedFlag, error) {
	rows, err := p.db.r.QueryContext(ctx, `
		SELECT DISTINCT a.challenge_id, a.flag, b.user_id FROM attempts a
		JOIN attempts b ON b.challenge_id = a.challenge_id AND b.flag = a.flag AND b.user_id <> a.user_id
		WHERE a.user_id = ? AND a.flag <> ''
		ORDER BY a.challenge_id, a.flag, b.user_id`, userID)
	if err != nil {
		return nil, fmt.Errorf("shared wrong flags of %s: %w", userID, err)
	}
	defer rows.Close()
	var out []SharedFlag
	for rows.Next() {
		var chal, flag, other string
		if err := rows.Scan(&chal, &flag, &other); err != nil {
			return nil, fmt.Errorf("shared wrong flags of %s: %w", userID, err)
		}
		if n := len(out); n > 0 && out[n-1].ChallengeID == chal && out[n-1].Flag == flag {
			out[n-1].Others = append(out[n-1].Others, other)
			continue
		}
		out = append(out, SharedFlag{ChallengeID: chal, Flag: flag, Others: []string{other}})
	}
	return out, rows.Err()
}
