package store

import (
	"context"
	"fmt"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// SubmissionRecord is one recorded submission as a run's export shows it.
type SubmissionRecord struct {
	At          time.Time
	ChallengeID string
	Correct     bool
	Door        ctf.Door // "" for one loaded from a dataset
	KeyID       string   // "" when no key made it
}

// Submissions returns every recorded submission of a user, right and
// wrong, in time order (a solve before a wrong attempt of the same
// millisecond).
func (p Play) Submissions(ctx context.Context, userID string) ([]SubmissionRecord, error) {
	rows, err := p.db.r.QueryContext(ctx, `
		SELECT at, challenge_id, correct, door, key_id FROM (
			SELECT solved_at AS at, challenge_id, 1 AS correct, door, COALESCE(key_id, '') AS key_id, seq FROM solves WHERE user_id = ?
			UNION ALL
			SELECT created_at, challenge_id, 0, door, COALESCE(key_id, ''), seq FROM attempts WHERE user_id = ?
		) AS s ORDER BY at, correct DESC, seq`, userID, userID)
	if err != nil {
		return nil, fmt.Errorf("submissions of %s: %w", userID, err)
	}
	defer rows.Close()
	var out []SubmissionRecord
	for rows.Next() {
		var r SubmissionRecord
		var at int64
		var correct int
		if err := rows.Scan(&at, &r.ChallengeID, &correct, &r.Door, &r.KeyID); err != nil {
			return nil, fmt.Errorf("submissions of %s: %w", userID, err)
		}
		r.At, r.Correct = fromMs(at), correct == 1
		out = append(out, r)
	}
	return out, rows.Err()
}
